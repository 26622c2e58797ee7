/**
 * The service's database connections: the postgres.js pool (over TCP or a Unix-domain socket), pooler detection and
 * which errors mean the database could not be reached. Opening the database with its migrations is
 * `open_database.ts`; the development's embedded Postgres is `embedded_postgres.ts`.
 */
import postgres from "postgres";
import type { Config } from "../config.ts";

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

/** Whether an error means the database could not be reached, or the connection to it was lost. */
export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code;
  if (typeof code !== "string")
    return codelessConnectionErrors.has((error as { message?: unknown })?.message as string);
  // A Unix-domain socket whose file is not there (the server stopped and removed it): ENOENT from `connect`. A
  // missing file read for any other reason is no connection error.
  if (code === "ENOENT") return (error as { syscall?: unknown }).syscall === "connect";
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
