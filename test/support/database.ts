/** A fresh database per test file, cloned from a migrated template, so files never see each other's rows. */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ulid } from "ulid";
import { connect, type Db } from "../../src/core/db.ts";
import { migrate, listMigrations } from "../../src/core/migrate.ts";
import { testServerUrl } from "./server.ts";
import { startPgBouncer, type PgBouncer } from "./pgbouncer.ts";

let pooler: Promise<PgBouncer> | undefined;

/**
 * With TEST_PGBOUNCER=1 every test database is reached through a PgBouncer in transaction mode that this process
 * starts in front of the test server (.ci/run runs the suite so too): the harness's pool, its job queue and the
 * service processes tests spawn on `url` all go through it. Databases are made and dropped on the server itself.
 */
export const throughPgBouncer = process.env.TEST_PGBOUNCER === "1";

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

let template: Promise<string> | undefined;

/** The template database for the current migrations (made once per server, under an advisory lock). */
async function templateName(): Promise<string> {
  template ??= (async () => {
    // Keyed by the migrations and by the runner that applies them (it also keeps schema_migrations' own columns).
    const digest = createHash("sha256").update(readFileSync(join(import.meta.dir, "../../src/core/migrate.ts")));
    for (const m of listMigrations()) digest.update(m.name).update(m.sql);
    const name = `lettings_tpl_${digest.digest("hex").slice(0, 16)}`;
    const admin = connect(await testServerUrl(), { max: 1 });
    const conn = await admin.reserve();
    try {
      // A session lock: CREATE DATABASE cannot run inside a transaction.
      await conn`select pg_advisory_lock(7402113002)`;
      const [found] = await conn`select 1 from pg_database where datname = ${name}`;
      if (!found) {
        const building = `${name}_building`;
        await conn.unsafe(`drop database if exists "${building}"`);
        await conn.unsafe(`create database "${building}"`);
        const db = connect(withDatabase(await testServerUrl(), building), { max: 1 });
        try {
          await migrate(db);
        } finally {
          await db.end();
        }
        await conn.unsafe(`alter database "${building}" rename to "${name}"`);
      }
      await conn`select pg_advisory_unlock(7402113002)`;
    } finally {
      conn.release();
      await admin.end();
    }
    return name;
  })();
  return template;
}

/** A test database: its client, its URL, and drop(). */
export interface TestDatabase {
  db: Db;
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** Creates a fresh, migrated database for one test file. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const tpl = await templateName();
  const name = `lettings_t_${ulid().toLowerCase()}`;
  const server = await testServerUrl();
  const admin = connect(server, { max: 1 });
  try {
    await admin.unsafe(`create database "${name}" template "${tpl}"`);
  } finally {
    await admin.end();
  }
  let url = withDatabase(server, name);
  if (throughPgBouncer) {
    pooler ??= startPgBouncer(server);
    url = (await pooler).urlFor(name);
  }
  const db = connect(url, { max: Number(process.env.TEST_POOL_MAX ?? 20), pooled: throughPgBouncer });
  return {
    db,
    url,
    name,
    drop: async () => {
      await db.end({ timeout: 5 });
      const a = connect(server, { max: 1 });
      try {
        await a.unsafe(`drop database if exists "${name}" with (force)`);
      } finally {
        await a.end();
      }
    },
  };
}
