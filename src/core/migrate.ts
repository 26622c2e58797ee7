/** Applies sql/NNNN_*.sql once each, in order, under an advisory lock. */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Db } from "./db.ts";

/** The folder of the migrations shipped with the service. */
export const migrationsDir = join(import.meta.dir, "..", "..", "sql");

/** The migrations in order: file name and SQL text. */
export function listMigrations(dir = migrationsDir): { name: string; sql: string }[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((name) => ({ name, sql: readFileSync(join(dir, name), "utf8") }));
}

const LOCK = 7_402_113_001; // advisory lock key of the migration runner

/**
 * Applies the migrations not yet recorded in schema_migrations, in one transaction with their records, so a
 * failing migration leaves nothing half-applied (the run is all or nothing). Returns the names applied now.
 */
export async function migrate(db: Db, dir = migrationsDir): Promise<string[]> {
  const applied: string[] = [];
  await db.begin(async (tx) => {
    // Serialise runners across processes for the whole run: a transaction-level lock on a dedicated connection.
    await tx`select pg_advisory_xact_lock(${LOCK})`;
    await tx`create table if not exists schema_migrations (
      name text primary key, applied_at timestamptz not null default now())`;
    const done = new Set((await tx<{ name: string }[]>`select name from schema_migrations`).map((r) => r.name));
    for (const m of listMigrations(dir)) {
      if (done.has(m.name)) continue;
      await tx.savepoint(async (sp) => {
        await sp.unsafe(m.sql);
        await sp`insert into schema_migrations (name) values (${m.name})`;
      });
      applied.push(m.name);
    }
  });
  return applied;
}
