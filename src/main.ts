/**
 * The service's entry, and with src/workers_entry.ts (the workers' thread) its only file with side effects:
 * config → database → migrations → HTTP → the workers' thread; graceful shutdown.
 */
import { loadConfig, ConfigError, type Config } from "./config.ts";
import { buildApp } from "./app.ts";
import { createLogger } from "./core/log.ts";
import { openDatabase } from "./core/open_database.ts";
import { Jobs } from "./core/jobs.ts";
import { startWorkersThread } from "./workers_thread.ts";
import { ensureDemo } from "./workspace_import/demo.ts";
import { databaseFailureLine, listenFailureLine } from "./core/startup_failure.ts";
import type { AppContext } from "./core/operation.ts";
import { randomBytes } from "node:crypto";
import { signedInboundCurl } from "./telephony/dev_curl.ts";

const dev = process.argv.includes("--dev");

/** Ends start-up with one line on stderr and exit code 2: the environment is wrong, the service is not broken. */
function fail(line: string): never {
  console.error(line);
  process.exit(2); // the embedded Postgres, if one started, is stopped by its exit hook
}

let config: Readonly<Config>;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) fail(`configuration: ${error.message}`);
  throw error;
}
// In development without a provider, a made-up auth token lets the printed curl line sign a webhook post.
if (dev && !config.smsAuthToken) config = { ...config, smsAuthToken: randomBytes(16).toString("hex") };
const started = performance.now();
const log = createLogger(config.logLevel);

// What to stop, in start order; a shutdown stops them in reverse. Signals are handled from the start, so one
// arriving mid start-up still stops what started (the embedded Postgres above all).
const running: { name: string; stop: () => Promise<unknown> }[] = [];
let stopping = false;
/** The exit code a shutdown ends with: 1 once anything crashed, whatever started the shutdown. */
let exitCode = 0;
/** Longest a shutdown step may take (jobs: 10 s for running jobs to finish, plus closing its pool). */
const stepLimitMs = 15_000;
/** Longest a process that crashed goes on, letting the requests in flight answer, before it exits anyway. */
const crashExitMs = 20_000;
/** Set on SIGTERM: /health answers 503 for SHUTDOWN_DRAIN_MS before the port closes (ctx.draining). */
const draining = { active: false };
async function shutdown(signal: string, code = 0) {
  exitCode = Math.max(exitCode, code);
  if (stopping) return;
  stopping = true;
  // A rolling restart: the balancer's health check sees 503 and sends new requests elsewhere while this process
  // still serves what reaches it; then the port closes. Ctrl-C (SIGINT) stops at once.
  if (signal === "SIGTERM" && config.shutdownDrainMs > 0 && running.some((part) => part.name === "http")) {
    draining.active = true;
    log.info("draining: /health answers 503", { signal, ms: config.shutdownDrainMs });
    await Bun.sleep(config.shutdownDrainMs);
  }
  log.info("shutting down", { signal });
  for (const part of running.reverse()) {
    // A step that hangs (pg-boss's stop once waited on a query through PgBouncer for good) must not keep the process
    // from exiting: after stepLimitMs the next step runs; a job left running is retried after its heartbeat lapses.
    const late = Bun.sleep(stepLimitMs).then(() => Promise.reject(new Error(`still running after ${stepLimitMs} ms`)));
    await Promise.race([part.stop(), late]).catch((error) =>
      log.error("shutdown step failed", { part: part.name, error: String(error) }),
    );
  }
  log.info("stopped");
  process.exit(exitCode);
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
// An error nothing caught (thrown from a timer, a promise nobody awaited): what state the process is in is no longer
// known, so it ends with exit code 1 and its supervisor (the container's restart policy) starts it afresh. But as a
// shutdown does, not at once (Bun's own way, which cut every request in flight): it stops taking requests, lets those
// in flight answer (a write answers once committed) and running jobs finish, within crashExitMs.
function crashed(kind: string, error: unknown) {
  log.error("crashed: an uncaught error; stopping", {
    kind,
    error: String(error),
    stack: (error as Error)?.stack,
  });
  if (process.exitCode !== 1) setTimeout(() => process.exit(1), crashExitMs).unref();
  process.exitCode = 1;
  void shutdown(kind, 1);
}
process.on("uncaughtException", (error) => crashed("uncaughtException", error));
process.on("unhandledRejection", (error) => crashed("unhandledRejection", error));
// `bun run dev` reloads with --watch-kill-signal SIGUSR2: Bun runs these handlers, then re-executes the process
// in place. Nothing is stopped: the next run reuses (and then owns) the embedded Postgres left running.
if (dev) process.on("SIGUSR2", () => log.info("reloading: the embedded Postgres stays up for the next run"));

// Database first (the embedded Postgres, migrations), then the port, then the workers: nothing runs in the
// background before the service can answer, and a failure ends start-up with one line and exit code 2 (but the
// workers' thread tries its start again while the database it reached a moment ago is unreachable: workers_entry.ts).
const database = await openDatabase(config, log, { answerTimeout: true }).catch((error) =>
  fail(databaseFailureLine(error, config)),
);
running.push({ name: "database", stop: () => database.close() });
const jobs = new Jobs(database.url, log);
running.push({ name: "jobs", stop: () => jobs.stop() }); // running jobs finish
const ctx: AppContext = { db: database.db, config, log, jobs, draining };
const app = buildApp(ctx);
// Elysia's listen serves each route from Bun's own router (one compiled handler a route, the same that
// app.handle runs); everything else (404s, /docs) falls through to app.fetch.
try {
  app.listen({
    hostname: config.host,
    port: config.port,
    // One process a port: a second instance must fail to start, not share the port.
    reusePort: false,
    // No limit of Bun's own: it would answer a bare 413 (no JSON, no request id) before our code runs. The routes
    // read at most 64 KiB (MCP 128 KiB) within REQUEST_BODY_TIMEOUT_MS and refuse the rest with a tagged 413 or
    // 408; a body nobody reads is not buffered (Bun stops reading the socket, and discards it after the answer).
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
  });
} catch (error) {
  await database.close();
  fail(listenFailureLine(error, config));
}
const server = app.server!;
running.push({ name: "http", stop: () => server.stop(false) }); // stop taking connections; requests in flight finish
if (config.workers) {
  // On a thread of their own (src/workers_thread.ts). A thread that ends unasked stops the service with exit code 1:
  // a supervisor restarts the whole process, as after any crash.
  const onCrash = (error: string) => {
    log.error("the workers' thread stopped", { error });
    void shutdown("workers", 1);
  };
  const thread = await startWorkersThread(config, database, onCrash).catch(async (error) => {
    if (stopping) return undefined;
    await jobs.stop().catch(() => {});
    await server.stop(true);
    await database.close();
    fail(`workers: ${String((error as Error)?.message ?? error)}`);
  });
  if (thread) running.push({ name: "workers", stop: () => thread.stop() }); // running jobs finish
}
const base = `http://${config.host === "0.0.0.0" ? "localhost" : config.host}:${server.port}`;
log.info("listening", {
  url: base,
  pid: process.pid,
  embeddedPostgres: database.embedded,
  startupMs: Math.round(performance.now() - started),
});

if (dev) {
  const demo = await ensureDemo(database.db);
  console.log(
    [
      "",
      `  Demo workspace "${demo.slug}" ${demo.created ? "created" : "ready"}. A fresh API key (shown once, ` +
        `expires ${demo.expiresAt}):`,
      "",
      `    ${demo.key}`,
      "",
      ...(demo.revokedKeys ? [`  The previous demo key${demo.revokedKeys > 1 ? "s were" : " was"} revoked.`, ""] : []),
      "  Try it:",
      `    curl -s -H 'x-api-key: ${demo.key}' ${base}/handovers/tenancies/ten-ashby-2b`,
      `    open ${base}/docs for the API reference`,
      "",
      "  A tenant's reply, signed as the SMS provider signs it (a second run is 409 WebhookDuplicate):",
      `    ${signedInboundCurl({
        base,
        publicBaseUrl: config.publicBaseUrl,
        authToken: config.smsAuthToken!,
        from: "+447700900201",
        to: "+441174960000",
        body: "Thanks, Thursday morning works for the fan.",
      })}`,
      `    curl -s -H 'x-api-key: ${demo.key}' ${base}/telephony/sms/threads/sms-chloe-martin/messages`,
      "",
    ].join("\n"),
  );
}
