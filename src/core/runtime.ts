/** Opens the service's database: DATABASE_URL's server, or the embedded one under DATA_DIR, migrated. */
import { join } from "node:path";
import type { Config } from "../config.ts";
import { connect, startEmbeddedPostgres, type Db, type EmbeddedServer } from "./db.ts";
import { migrate } from "./migrate.ts";
import type { Logger } from "./log.ts";

/** An open database: its URL, its pool, and how to close both (and the embedded server we started). */
export interface OpenDatabase {
  url: string;
  db: Db;
  embedded: boolean;
  close(): Promise<void>;
}

/** Connects (starting the embedded Postgres when no DATABASE_URL is set) and applies pending migrations. */
export async function openDatabase(config: Readonly<Config>, log: Logger, options: { migrate?: boolean } = {}): Promise<OpenDatabase> {
  let url = config.databaseUrl;
  let server: EmbeddedServer | undefined;
  if (!url) {
    const dir = join(config.dataDir, "pg");
    const started = performance.now();
    server = await startEmbeddedPostgres(dir, (line) => log.debug("postgres", { line }));
    url = server.url;
    log.info("no DATABASE_URL: using the embedded Postgres", { dataDir: dir, ms: Math.round(performance.now() - started) });
  }
  const db = connect(url, { max: config.dbPoolMax });
  if (options.migrate !== false) {
    const applied = await migrate(db);
    if (applied.length) log.info("migrations applied", { applied });
  }
  return {
    url,
    db,
    embedded: !!server,
    close: async () => {
      await db.end({ timeout: 5 });
      await server?.stop();
    },
  };
}
