/**
 * Debian's PgBouncer (`apt-get install pgbouncer`) in transaction mode, started by a test in front of a Postgres
 * server on a free port of 127.0.0.1, with the configuration deploy/pgbouncer.ini ships (its [databases] and
 * addresses rewritten). As root it runs as `nobody` (PgBouncer refuses root).
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { root } from "./service.ts";

/** Where Debian installs PgBouncer. */
export const pgbouncerPath = "/usr/sbin/pgbouncer";

/**
 * Whether PgBouncer is installed. In CI (the CI variable, set by .ci/run, which installs it) a missing binary
 * throws; elsewhere it warns once with how to install it, and the caller skips.
 */
export function havePgBouncer(what: string): boolean {
  if (existsSync(pgbouncerPath)) return true;
  if (process.env.CI)
    throw new Error(`${pgbouncerPath} is missing: .ci/run installs it (apt-get install -y pgbouncer)`);
  console.warn(`SKIPPED ${what}: ${pgbouncerPath} is missing (apt-get install -y pgbouncer)`);
  return false;
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): number {
  const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = server.port;
  server.stop(true);
  return port;
}

/** What a server started on a port said when it ended before it listened there (the port may have been taken). */
export class ExitedBeforeListening extends Error {}

/**
 * Runs `start` on a free port; when what it starts ends before listening (another process may have taken the port
 * between `freePort` and its bind), runs it again on another port, three tries in all.
 */
export async function onFreePort<T>(start: (port: number) => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await start(freePort());
    } catch (error) {
      if (tries >= 3 || !(error instanceof ExitedBeforeListening)) throw error;
    }
  }
}

/** Waits until something accepts TCP connections on the port (at most `ms`). */
export async function waitForPort(port: number, ms = 10_000): Promise<void> {
  const deadline = performance.now() + ms;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      Bun.connect({
        hostname: "127.0.0.1",
        port,
        socket: {
          open: (s) => {
            s.end();
            resolve(true);
          },
          connectError: () => resolve(false),
          data() {},
        },
      }).catch(() => resolve(false));
    });
    if (open) return;
    if (performance.now() > deadline) throw new Error(`nothing listens on 127.0.0.1:${port} after ${ms} ms`);
    await Bun.sleep(25);
  }
}

/** A running PgBouncer: the server URL rewritten to go through it, and how to stop it. */
export interface PgBouncer {
  port: number;
  /** `serverUrl` with its host and port replaced by the pooler's (same user, password and database). */
  url: string;
  /** The same for another database of the server. */
  urlFor(database: string): string;
  /** What PgBouncer logged (its log goes to a file). */
  log(): string;
  stop(): Promise<void>;
}

/** Starts PgBouncer in transaction mode in front of the server of `serverUrl` (every database, as its user). */
export function startPgBouncer(serverUrl: string, settings: Record<string, string> = {}): Promise<PgBouncer> {
  return onFreePort((port) => startPgBouncerOn(port, serverUrl, settings));
}

async function startPgBouncerOn(port: number, serverUrl: string, settings: Record<string, string>): Promise<PgBouncer> {
  const server = new URL(serverUrl);
  const dir = mkdtempSync(join(tmpdir(), "pgbouncer-"));
  chmodSync(dir, 0o777);
  const user = decodeURIComponent(server.username || "postgres");
  const password = decodeURIComponent(server.password);
  const target = `host=${server.hostname} port=${server.port || 5432} user=${user}${password ? ` password=${password}` : ""}`;
  // The shipped file, with what is particular to this run put in place of its addresses and paths.
  let ini = readFileSync(join(root, "deploy", "pgbouncer.ini"), "utf8")
    .replace(/^\* = .*$/m, `* = ${target}`)
    .replace(/^listen_port = .*$/m, `listen_port = ${port}`)
    .replace(/^auth_file = .*$/m, `auth_file = ${join(dir, "users.txt")}`)
    .replace(/^logfile = .*$/m, `logfile = ${join(dir, "pgbouncer.log")}`)
    .replace(/^pidfile = .*$/m, "");
  // [pgbouncer] is the file's last section: a setting appended overrides the file's.
  for (const [name, value] of Object.entries(settings)) ini += `${name} = ${value}\n`;
  writeFileSync(join(dir, "pgbouncer.ini"), ini);
  writeFileSync(join(dir, "users.txt"), `"${user}" ""\n`);
  // setpriv (util-linux): PgBouncer dies with this process however it ends (bun test runs no exit handlers), and
  // as root it runs as nobody.
  const asRoot = userInfo().uid === 0;
  const cmd = [
    "setpriv",
    "--pdeathsig=KILL",
    ...(asRoot ? ["--reuid=nobody", "--regid=nogroup", "--clear-groups"] : []),
    pgbouncerPath,
    join(dir, "pgbouncer.ini"),
  ];
  const proc = Bun.spawn(cmd, { stdout: "ignore", stderr: "pipe", stdin: "ignore" });
  const kill = () => proc.kill("SIGKILL");
  process.once("exit", kill);
  const log = () => {
    try {
      return readFileSync(join(dir, "pgbouncer.log"), "utf8");
    } catch {
      return "";
    }
  };
  try {
    await Promise.race([
      waitForPort(port),
      proc.exited.then(async (code) => {
        const why = `pgbouncer exited (${code}): ${await new Response(proc.stderr).text()} ${log()}`;
        throw new ExitedBeforeListening(why);
      }),
    ]);
  } catch (error) {
    kill();
    process.removeListener("exit", kill);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const urlFor = (database: string) => {
    const u = new URL(serverUrl);
    u.hostname = "127.0.0.1";
    u.port = String(port);
    u.searchParams.delete("host"); // the pooler is reached over TCP, even when the server is over a socket
    u.pathname = `/${database}`;
    return u.toString();
  };
  return {
    port,
    url: urlFor(server.pathname.slice(1) || "postgres"),
    urlFor,
    log,
    async stop() {
      process.removeListener("exit", kill);
      proc.kill("SIGTERM");
      await proc.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
