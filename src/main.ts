/** The only file with side effects: config → database → migrations → HTTP + workers; graceful shutdown. */
import { loadConfig, ConfigError } from "./config.ts";
import { buildApp } from "./app.ts";
import { createLogger } from "./core/log.ts";
import { openDatabase } from "./core/runtime.ts";
import { Jobs } from "./core/jobs.ts";
import { startWorkers } from "./workers.ts";
import { ensureDemo } from "./workspace_import/demo.ts";
import type { AppContext } from "./core/operation.ts";

const dev = process.argv.includes("--dev");

let config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(`configuration: ${error.message}`);
    process.exit(2);
  }
  throw error;
}
const started = performance.now();
const log = createLogger(config.logLevel);
const database = await openDatabase(config, log);
const jobs = new Jobs(database.url, log);
const ctx: AppContext = { db: database.db, config, log, jobs };
if (config.workers) await startWorkers(ctx);
const app = buildApp(ctx);
// Elysia's listen serves each route from Bun's own router (one compiled handler a route, the same that
// app.handle runs); everything else (404s, /docs) falls through to app.fetch.
app.listen({
  hostname: config.host,
  port: config.port,
  // One process a port: a second instance must fail to start, not share the port.
  reusePort: false,
  // Bodies up to 1 MiB are read so that anything over 64 KiB gets a tagged PayloadTooLarge answer.
  maxRequestBodySize: 1024 * 1024,
});
const server = app.server!;
const base = `http://${config.host === "0.0.0.0" ? "localhost" : config.host}:${server.port}`;
log.info("listening", { url: base, embeddedPostgres: database.embedded, startupMs: Math.round(performance.now() - started) });

if (dev) {
  const demo = await ensureDemo(database.db);
  console.log(
    [
      "",
      `  Demo workspace "${demo.slug}" ${demo.created ? "created" : "ready"}. A fresh API key (shown once, expires ${demo.expiresAt}):`,
      "",
      `    ${demo.key}`,
      "",
      "  Try it:",
      `    curl -s -H 'x-api-key: ${demo.key}' ${base}/handovers/tenancies/ten-ashby-2b`,
      `    open ${base}/docs for the API reference`,
      "",
    ].join("\n"),
  );
}

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log.info("shutting down", { signal });
  await server.stop(false); // stop taking connections; requests in flight finish
  await jobs.stop(); // running jobs finish
  await database.close();
  log.info("stopped");
  process.exit(0);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
