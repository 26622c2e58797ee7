/** The migration runner: every file once, in order, all or nothing, one runner at a time. */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createHash } from "node:crypto";
import { copyFileSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ulid } from "ulid";
import { connect, type Db } from "../../src/core/db.ts";
import { listMigrations, migrate, MigrationChanged, migrationsDir } from "../../src/core/migrate.ts";
import { testServerUrl } from "../support/server.ts";

// Bun applies the preload's timeout to the first file only; this file talks to Postgres or subprocesses.
setDefaultTimeout(30_000);

const server = await testServerUrl();
const made: string[] = [];
const pools: Db[] = [];

/** A new, empty database on the test server, and a pool on it. */
async function emptyDatabase(): Promise<Db> {
  const name = `lettings_m_${ulid().toLowerCase()}`;
  const admin = connect(server, { max: 1 });
  try {
    await admin.unsafe(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  made.push(name);
  const url = new URL(server);
  url.pathname = `/${name}`;
  const db = connect(url.toString(), { max: 4 });
  pools.push(db);
  return db;
}

async function tables(db: Db): Promise<string[]> {
  const rows = await db<
    { tableName: string }[]
  >`select table_name from information_schema.tables where table_schema = 'public' order by 1`;
  return rows.map((r) => r.tableName);
}

afterAll(async () => {
  await Promise.all(pools.map((p) => p.end({ timeout: 5 })));
  const admin = connect(server, { max: 1 });
  try {
    for (const name of made) await admin.unsafe(`drop database if exists "${name}" with (force)`);
  } finally {
    await admin.end();
  }
});

/** A folder with the shipped migrations and extra files. */
function folderWith(extra: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "lettings-migrations-"));
  for (const m of listMigrations()) copyFileSync(join(migrationsDir, m.name), join(dir, m.name));
  for (const [name, sql] of Object.entries(extra)) writeFileSync(join(dir, name), sql);
  return dir;
}

describe("migrate", () => {
  test("on an empty database it applies every migration in order, and a second run applies nothing", async () => {
    const db = await emptyDatabase();
    const names = listMigrations().map((m) => m.name);
    expect(names[0]).toBe("0001_core.sql");
    expect((await migrate(db)).applied).toEqual(names);
    expect(await tables(db)).toContain("workspaces");
    expect((await db`select name from schema_migrations order by name`).map((r) => r.name)).toEqual(names);
    const before = await tables(db);
    expect(await migrate(db)).toEqual({ applied: [], checksumsRecorded: [], newerThanFiles: [] });
    expect(await tables(db)).toEqual(before);
  });

  test("two runners at once apply each migration exactly once", async () => {
    const db = await emptyDatabase();
    const url = new URL(server);
    url.pathname = `/${made.at(-1)}`;
    const other = connect(url.toString(), { max: 2 });
    pools.push(other);
    const [a, b] = await Promise.all([migrate(db), migrate(other)]);
    expect([a, b].map((r) => r.applied.length).sort()).toEqual([0, listMigrations().length]);
    expect(await db`select count(*)::int as n from schema_migrations`).toEqual([{ n: listMigrations().length }] as any);
  });

  test("a failing migration on an empty database leaves nothing applied", async () => {
    const db = await emptyDatabase();
    const dir = folderWith({ "9001_broken.sql": "create table half_done (x int);\nselect 1 / 0;" });
    await expect(migrate(db, dir)).rejects.toThrow(/division by zero/);
    await expect(migrate(db, dir)).rejects.toMatchObject({
      tag: "MigrationFailed",
      fields: { migration: "9001_broken.sql" },
    });
    expect(await tables(db)).toEqual([]);
  });

  test("a failing migration on a migrated database leaves it as it was; once fixed, it applies", async () => {
    const db = await emptyDatabase();
    await migrate(db);
    const before = await tables(db);
    const broken = folderWith({
      "9001_next.sql": "create table half_done (x int);\ninsert into missing_table values (1);",
    });
    await expect(migrate(db, broken)).rejects.toThrow(/missing_table/);
    expect(await tables(db)).toEqual(before);
    expect(await db`select 1 from schema_migrations where name = '9001_next.sql'`).toHaveLength(0);
    const fixed = folderWith({
      "9001_next.sql": "create table half_done (x int);",
      "README.md": "not a migration",
      "9002_Bad-Name.sql": "select 1/0;",
    });
    expect((await migrate(db, fixed)).applied).toEqual(["9001_next.sql"]);
    expect(await tables(db)).toContain("half_done");
  });
});

/** The SHA-256 of a file's bytes, computed here rather than by the runner. */
const sha256 = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

/** The recorded checksums by name. */
async function recorded(db: Db): Promise<Record<string, string | null>> {
  const rows = await db<{ name: string; checksum: string | null }[]>`select name, checksum from schema_migrations`;
  return Object.fromEntries(rows.map((r) => [r.name, r.checksum]));
}

/** The error a run throws (fails the test when it succeeds). */
async function refusal(db: Db, dir: string) {
  const error = await migrate(db, dir).then(
    () => undefined,
    (e) => e,
  );
  expect(error).toBeInstanceOf(MigrationChanged);
  return (error as MigrationChanged).toBody();
}

const taskMigration = "0007_tasks_calendar_sms.sql";

describe("checksums of applied migrations", () => {
  test("each applied migration records the SHA-256 of its file", async () => {
    const db = await emptyDatabase();
    await migrate(db);
    const expected = Object.fromEntries(listMigrations().map((m) => [m.name, sha256(join(migrationsDir, m.name))]));
    expect(await recorded(db)).toEqual(expected);
  });

  test("a landed migration whose file changed refuses the run, naming it; nothing pending is applied", async () => {
    const db = await emptyDatabase();
    const dir = folderWith({});
    await migrate(db, dir);
    const before = await tables(db);
    const appliedSum = sha256(join(dir, taskMigration));
    writeFileSync(join(dir, taskMigration), `${readFileSync(join(dir, taskMigration), "utf8")}\n-- an edit\n`);
    writeFileSync(join(dir, "9001_next.sql"), "create table next_one (x int);");
    expect(await refusal(db, dir)).toEqual({
      _tag: "MigrationChanged",
      migration: taskMigration,
      appliedChecksum: appliedSum,
      fileChecksum: sha256(join(dir, taskMigration)),
      message: `migration ${taskMigration} was changed after it was applied to this database (sha256 ${appliedSum.slice(0, 12)}… when applied, ${sha256(join(dir, taskMigration)).slice(0, 12)}… now); a change is a new migration file`,
    });
    expect(await tables(db)).toEqual(before);
    expect((await recorded(db))[taskMigration]).toBe(appliedSum);
  });

  test("a landed migration deleted or renamed refuses the run; a renamed one is not applied again", async () => {
    const db = await emptyDatabase();
    await migrate(db);
    const deleted = folderWith({});
    rmSync(join(deleted, taskMigration));
    expect(await refusal(db, deleted)).toMatchObject({
      migration: taskMigration,
      fileChecksum: null,
      message: expect.stringContaining("no file has that name any more (renamed or deleted)"),
    });
    const renamed = folderWith({});
    renameSync(join(renamed, taskMigration), join(renamed, "0007_tasks_and_calendar.sql"));
    expect(await refusal(db, renamed)).toMatchObject({ migration: taskMigration, fileChecksum: null });
    expect(await recorded(db)).not.toHaveProperty("0007_tasks_and_calendar.sql");
  });

  test("a new migration file is applied and its checksum recorded", async () => {
    const db = await emptyDatabase();
    await migrate(db);
    const dir = folderWith({ "9001_next.sql": "create table next_one (x int);" });
    expect(await migrate(db, dir)).toEqual({ applied: ["9001_next.sql"], checksumsRecorded: [], newerThanFiles: [] });
    expect((await recorded(db))["9001_next.sql"]).toBe(sha256(join(dir, "9001_next.sql")));
  });

  test("migrations newer than every file (a newer version migrated the database) are reported, not refused", async () => {
    const db = await emptyDatabase();
    await migrate(db, folderWith({ "9001_next.sql": "create table next_one (x int);" }));
    expect(await migrate(db)).toEqual({ applied: [], checksumsRecorded: [], newerThanFiles: ["9001_next.sql"] });
  });

  test("a database migrated before checksums were kept gets its files' checksums on the first run, then is checked", async () => {
    const db = await emptyDatabase();
    await migrate(db);
    await db`alter table schema_migrations drop column checksum`;
    const names = listMigrations().map((m) => m.name);
    expect(await migrate(db)).toEqual({ applied: [], checksumsRecorded: names, newerThanFiles: [] });
    expect(Object.values(await recorded(db))).not.toContain(null);
    expect(await migrate(db)).toEqual({ applied: [], checksumsRecorded: [], newerThanFiles: [] });
    const changed = folderWith({});
    writeFileSync(join(changed, taskMigration), "-- not what was applied\n");
    expect(await refusal(db, changed)).toMatchObject({ migration: taskMigration });
  });

  test("a checkout with CRLF line endings is the same file", async () => {
    const db = await emptyDatabase();
    await migrate(db);
    const crlf = folderWith({});
    for (const m of listMigrations()) writeFileSync(join(crlf, m.name), m.sql.replace(/\n/g, "\r\n"));
    expect(await migrate(db, crlf)).toEqual({ applied: [], checksumsRecorded: [], newerThanFiles: [] });
  });
});

/** The public schema as text lines: columns with type, nullability and default; indexes; functions' volatility. */
async function schemaOf(db: Db): Promise<string[]> {
  const rows = await db<{ line: string }[]>`
    select format('column %s.%s %s %s %s', table_name, column_name, data_type, is_nullable, column_default) as line
    from information_schema.columns where table_schema = 'public'
    union all select format('index %s', indexdef) from pg_indexes where schemaname = 'public'
    union all select format('function %s %s', p.oid::regprocedure, p.provolatile)
    from pg_proc p where p.pronamespace = 'public'::regnamespace
    order by 1`;
  return rows.map((r) => r.line);
}

describe("sql/0011: the edits made to 0001 and 0007 after they landed", () => {
  test("a database migrated with the files as they first landed ends up with the schema of a fresh one", async () => {
    const fresh = await emptyDatabase();
    await migrate(fresh);
    const old = await emptyDatabase();
    const first = mkdtempSync(join(tmpdir(), "lettings-migrations-"));
    for (const m of listMigrations().filter((m) => m.name < "0008")) {
      let sql = m.sql;
      if (m.name === "0001_core.sql") {
        sql = sql
          .replace(/(create function (iso|ymd)\([^)]*\) returns text language sql) stable/g, "$1 immutable")
          .replace("granted    integer not null default 0,", "admitted   boolean not null default true,");
      }
      if (m.name === taskMigration) sql = sql.replace(/^create index sms_threads_stopped .*$/m, "");
      if (m.name === "0001_core.sql" || m.name === taskMigration) expect(sql).not.toBe(m.sql);
      writeFileSync(join(first, m.name), sql);
    }
    await migrate(old, first);
    expect(await schemaOf(old)).not.toEqual(await schemaOf(fresh));
    // Migrated by a runner that kept no checksums.
    await old`alter table schema_migrations drop column checksum`;
    const run = await migrate(old);
    expect(run.applied[0]).toBe("0008_handover_rows.sql");
    expect(run.applied).toContain("0011_landed_edits.sql");
    expect(await schemaOf(old)).toEqual(await schemaOf(fresh));
  });
});
