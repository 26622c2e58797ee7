/** A database of its own on the test server, migrated only up to a migration: where a migration's test starts. */
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ulid } from "ulid";
import { connect, type Db } from "../../src/core/db.ts";
import { listMigrations, migrate, migrationsDir } from "../../src/core/migrate.ts";
import { testServerUrl } from "./server.ts";

/** A fresh database with the migrations named before `first` applied (`first` and later ones not); `drop()` ends it. */
export async function databaseMigratedBefore(first: string): Promise<{ db: Db; drop(): Promise<void> }> {
  const server = await testServerUrl();
  const name = `lettings_m_${ulid().toLowerCase()}`;
  const admin = connect(server, { max: 1 });
  await admin.unsafe(`create database "${name}"`).finally(() => admin.end());
  const url = new URL(server);
  url.pathname = `/${name}`;
  const db = connect(url.toString(), { max: 2 });
  const drop = async () => {
    await db.end();
    const admin = connect(server, { max: 1 });
    await admin.unsafe(`drop database if exists "${name}" with (force)`).finally(() => admin.end());
  };
  const before = mkdtempSync(join(tmpdir(), "lettings-mig-"));
  try {
    for (const m of listMigrations().filter((m) => m.name < first)) {
      copyFileSync(join(migrationsDir, m.name), join(before, m.name));
    }
    await migrate(db, before);
  } catch (error) {
    await drop();
    throw error;
  } finally {
    rmSync(before, { recursive: true, force: true });
  }
  return { db, drop };
}
