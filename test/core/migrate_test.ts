/** The migration runner: every file once, in order, all or nothing, one runner at a time. */
import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ulid } from "ulid";
import { connect, type Db } from "../../src/core/db.ts";
import { listMigrations, migrate, migrationsDir } from "../../src/core/migrate.ts";
import { testServerUrl } from "../support/server.ts";

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
  const rows = await db<{ tableName: string }[]>`select table_name from information_schema.tables where table_schema = 'public' order by 1`;
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
    expect(await migrate(db)).toEqual(names);
    expect(await tables(db)).toContain("workspaces");
    expect((await db`select name from schema_migrations order by name`).map((r) => r.name)).toEqual(names);
    const before = await tables(db);
    expect(await migrate(db)).toEqual([]);
    expect(await tables(db)).toEqual(before);
  });

  test("two runners at once apply each migration exactly once", async () => {
    const db = await emptyDatabase();
    const url = new URL(server);
    url.pathname = `/${made.at(-1)}`;
    const other = connect(url.toString(), { max: 2 });
    pools.push(other);
    const [a, b] = await Promise.all([migrate(db), migrate(other)]);
    expect([a, b].map((r) => r.length).sort()).toEqual([0, listMigrations().length]);
    expect(await db`select count(*)::int as n from schema_migrations`).toEqual([{ n: listMigrations().length }] as any);
  });

  test("a failing migration on an empty database leaves nothing applied", async () => {
    const db = await emptyDatabase();
    const dir = folderWith({ "9001_broken.sql": "create table half_done (x int);\nselect 1 / 0;" });
    await expect(migrate(db, dir)).rejects.toThrow(/division by zero/);
    expect(await tables(db)).toEqual([]);
  });

  test("a failing migration on a migrated database leaves it as it was; once fixed, it applies", async () => {
    const db = await emptyDatabase();
    await migrate(db);
    const before = await tables(db);
    const broken = folderWith({ "9001_next.sql": "create table half_done (x int);\ninsert into missing_table values (1);" });
    await expect(migrate(db, broken)).rejects.toThrow(/missing_table/);
    expect(await tables(db)).toEqual(before);
    expect(await db`select 1 from schema_migrations where name = '9001_next.sql'`).toHaveLength(0);
    const fixed = folderWith({ "9001_next.sql": "create table half_done (x int);", "README.md": "not a migration", "9002_Bad-Name.sql": "select 1/0;" });
    expect(await migrate(db, fixed)).toEqual(["9001_next.sql"]);
    expect(await tables(db)).toContain("half_done");
  });
});
