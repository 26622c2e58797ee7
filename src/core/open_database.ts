/**
 * Opening the service's database: its URL (or, with none, the embedded Postgres of development), whether it leads
 * through a pooler, the pending migrations applied, and the pool.
 */
import type { Config } from "../config.ts";
import { behindPooler, connect, servicePool, type Db } from "./db.ts";
import type { EmbeddedServer } from "./embedded_postgres.ts";
import type { Logger } from "./log.ts";
import { logMigrationRun, migrate } from "./migrate.ts";

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
    // Loaded only here: a service given DATABASE_URL never loads the embedded server's code.
    const { startEmbeddedDatabase } = await import("./embedded_postgres.ts");
    server = await startEmbeddedDatabase(config.dataDir, log);
    url = server.url;
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
