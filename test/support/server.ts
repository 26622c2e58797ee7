/** The Postgres server tests run on: DATABASE_URL's when set, else the embedded one in ./.data/test-pg. */
import { startEmbeddedPostgres, type EmbeddedServer } from "../../src/core/embedded_postgres.ts";
import { join } from "node:path";

let server: Promise<{ url: string; embedded?: EmbeddedServer }> | undefined;

function start() {
  server ??= (async () => {
    if (process.env.DATABASE_URL) return { url: process.env.DATABASE_URL };
    const embedded = await startEmbeddedPostgres(join(import.meta.dir, "..", "..", ".data", "test-pg"));
    return { url: embedded.url, embedded };
  })();
  return server;
}

/** The admin connection string of the test server (started once per process). */
export async function testServerUrl(): Promise<string> {
  return (await start()).url;
}

/** Stops the embedded server if this process started it. */
export async function stopTestServer(): Promise<void> {
  if (!server) return;
  const s = await server;
  server = undefined;
  await s.embedded?.stop();
}
