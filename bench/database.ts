/** The benchmark's Postgres: DATABASE_URL's server or the embedded one, and a fresh database on it. */
import { ulid } from "ulid";
import { join } from "node:path";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { connect } from "../src/core/db.ts";
import { startEmbeddedPostgres, type EmbeddedServer } from "../src/core/embedded_postgres.ts";

/** The server the benchmark runs on: its admin URL and, when we started it, the embedded server. */
export interface BenchServer {
  url: string;
  embedded: EmbeddedServer | undefined;
}

/** DATABASE_URL's server when set, else the embedded Postgres with its data in `embeddedDir`. */
export async function openServer(databaseUrl: string | undefined, embeddedDir: string): Promise<BenchServer> {
  if (databaseUrl) return { url: databaseUrl, embedded: undefined };
  const embedded = await startEmbeddedPostgres(embeddedDir);
  return { url: embedded.url, embedded };
}

/** A connection string for another database of the same server. */
export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** A database made for one run: its name, its URL, and drop(). */
export interface BenchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** Creates `lettings_bench_<ulid>` on the server. */
export async function createBenchDatabase(serverUrl: string): Promise<BenchDatabase> {
  const name = `lettings_bench_${ulid().toLowerCase()}`;
  const admin = connect(serverUrl, { max: 1 });
  try {
    await admin.unsafe(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  return {
    name,
    url: withDatabase(serverUrl, name),
    drop: async () => {
      const a = connect(serverUrl, { max: 1 });
      try {
        await a.unsafe(`drop database if exists "${name}" with (force)`);
      } finally {
        await a.end();
      }
    },
  };
}

/** Milliseconds of the embedded Postgres's first start (initdb + start) in a fresh temporary folder. */
export async function timeEmbeddedFirstStart(): Promise<number> {
  const parent = mkdtempSync(join(tmpdir(), "lettings-bench-pg-"));
  // As root the server runs as the postgres user, which must reach the folder.
  chmodSync(parent, 0o755);
  try {
    const started = performance.now();
    const server = await startEmbeddedPostgres(join(parent, "pg"));
    const ms = performance.now() - started;
    await server.stop();
    return Math.round(ms);
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
}
