/** Applies sql/NNNN_*.sql once each, in order, under an advisory lock. */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Type } from "@sinclair/typebox";
import { isConnectionError, type Db } from "./db.ts";
import { TaggedError } from "./errors.ts";
import type { Logger } from "./log.ts";

/** A migration's SQL failed: nothing of the run was applied. */
export class MigrationFailed extends TaggedError("MigrationFailed", 500, {
  migration: Type.String(),
  message: Type.String(),
}) {
  constructor(fields: { migration: string; message: string }) {
    super(fields);
    this.message = `migration ${fields.migration} failed: ${fields.message}`;
  }
}

/**
 * A migration applied to this database no longer matches its file: the file was changed, or renamed or deleted,
 * after it landed. Nothing is applied; a change to a landed migration is a new migration file.
 */
export class MigrationChanged extends TaggedError("MigrationChanged", 500, {
  migration: Type.String(),
  /** The SHA-256 recorded when it was applied. */
  appliedChecksum: Type.String(),
  /** The SHA-256 of the file now; null when no file has that name. */
  fileChecksum: Type.Union([Type.String(), Type.Null()]),
  message: Type.String(),
}) {
  constructor(fields: { migration: string; appliedChecksum: string; fileChecksum: string | null }) {
    const short = (sum: string) => `${sum.slice(0, 12)}…`;
    const message =
      fields.fileChecksum === null
        ? `migration ${fields.migration} was applied to this database but no file has that name any more ` +
          "(renamed or deleted); a landed migration is never renamed or deleted, a change is a new migration file"
        : `migration ${fields.migration} was changed after it was applied to this database ` +
          `(sha256 ${short(fields.appliedChecksum)} when applied, ${short(fields.fileChecksum)} now); ` +
          "a change is a new migration file";
    super({ ...fields, message });
    this.message = message;
  }
}

/** The folder of the migrations shipped with the service. */
export const migrationsDir = join(import.meta.dir, "..", "..", "sql");

/** A migration file: its name, SQL text and checksum. */
export interface Migration {
  name: string;
  sql: string;
  /** SHA-256 (hex) of the text, line endings counted as LF (a checkout with CRLF is the same file). */
  checksum: string;
}

/**
 * The migrations in order. Only the names' order matters: there is no 0002-0005 (never committed; 0001 holds the
 * first data model, and that day's branches took 0006 and 0007). 0001 and 0007 were edited after they had landed,
 * before checksums were recorded; sql/0011 reapplies those edits on databases migrated before them.
 */
export function listMigrations(dir = migrationsDir): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql.replace(/\r\n/g, "\n")).digest("hex") };
    });
}

const LOCK = 7_402_113_001; // advisory lock key of the migration runner

/** What a run of the migrations did. */
export interface MigrationRun {
  /** The migrations applied now, in order. */
  applied: string[];
  /** Migrations applied before checksums were recorded, whose files' checksums were recorded now (adopted as is). */
  checksumsRecorded: string[];
  /** Migrations this database has that are newer than every file: a newer version of the service migrated it. */
  newerThanFiles: string[];
}

/**
 * Applies the migrations not yet recorded in schema_migrations, in one transaction with their records, so a
 * failing migration leaves nothing half-applied (the run is all or nothing). Before anything is applied, every
 * recorded migration is checked against its file's checksum: a changed file, or a missing one that is not newer
 * than every file, throws MigrationChanged.
 */
export async function migrate(db: Db, dir = migrationsDir): Promise<MigrationRun> {
  const run: MigrationRun = { applied: [], checksumsRecorded: [], newerThanFiles: [] };
  await db.begin(async (tx) => {
    // Serialise runners across processes for the whole run: a transaction-level lock on a dedicated connection.
    await tx`select pg_advisory_xact_lock(${LOCK})`;
    await tx`create table if not exists schema_migrations (
      name text primary key, applied_at timestamptz not null default now())`;
    // Checksums came after the first databases were migrated: the runner adds their column itself, under its lock.
    await tx`alter table schema_migrations add column if not exists checksum text`;
    const files = listMigrations(dir);
    const byName = new Map(files.map((m) => [m.name, m]));
    const numbers = new Set(files.map((m) => m.name.slice(0, 4)));
    const newest = files.at(-1)?.name ?? "";
    const recorded = await tx<{ name: string; checksum: string | null }[]>`
      select name, checksum from schema_migrations order by name`;
    for (const { name, checksum } of recorded) {
      const file = byName.get(name);
      if (file) {
        if (checksum !== null && checksum !== file.checksum)
          throw new MigrationChanged({ migration: name, appliedChecksum: checksum, fileChecksum: file.checksum });
      } else if (name > newest && !numbers.has(name.slice(0, 4))) {
        run.newerThanFiles.push(name);
      } else {
        throw new MigrationChanged({ migration: name, appliedChecksum: checksum ?? "unrecorded", fileChecksum: null });
      }
    }
    // Applied before checksums existed: what was applied cannot be known any more; the files as they are now are
    // recorded, and from now on a change to them is refused.
    const adopt = recorded.filter((r) => r.checksum === null && byName.has(r.name)).map((r) => byName.get(r.name)!);
    if (adopt.length) {
      await tx`
        update schema_migrations m set checksum = f.checksum
        from unnest(${adopt.map((m) => m.name)}::text[], ${adopt.map((m) => m.checksum)}::text[]) as f (name, checksum)
        where m.name = f.name`;
      run.checksumsRecorded = adopt.map((m) => m.name);
    }
    const done = new Set(recorded.map((r) => r.name));
    for (const m of files) {
      if (done.has(m.name)) continue;
      await tx
        .savepoint(async (sp) => {
          await sp.unsafe(m.sql);
          await sp`insert into schema_migrations (name, checksum) values (${m.name}, ${m.checksum})`;
        })
        .catch((error) => {
          if (isConnectionError(error)) throw error;
          throw new MigrationFailed({ migration: m.name, message: String((error as Error)?.message ?? error) });
        });
      run.applied.push(m.name);
    }
  });
  return run;
}

/** Logs what a run did that an operator should know: migrations applied, checksums adopted, a newer database. */
export function logMigrationRun(log: Logger, run: MigrationRun): void {
  if (run.applied.length) log.info("migrations applied", { applied: run.applied });
  if (run.checksumsRecorded.length) {
    log.info(
      "migration checksums recorded for migrations applied before checksums were kept (their files as they are now)",
      {
        migrations: run.checksumsRecorded,
      },
    );
  }
  if (run.newerThanFiles.length) {
    log.warn("the database has migrations this version does not ship: a newer version of the service migrated it", {
      migrations: run.newerThanFiles,
    });
  }
}
