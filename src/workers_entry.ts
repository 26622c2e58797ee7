/**
 * The workers' thread (src/workers_thread.ts): its own pool and job queue, then every worker of src/workers.ts.
 * A start that fails because the database cannot be reached (it went away after the service's own start-up step) is
 * made again, after 0.5, 1, 2 and then every 5 seconds, until the database is back: the service meanwhile answers
 * 503, as in any outage. Any other failure ends the start (the service exits with `workers:` and code 2).
 */
import type { FromWorkers, ToWorkers } from "./workers_thread.ts";
import { createLogger } from "./core/log.ts";
import { isConnectionError, servicePool, type Db } from "./core/db.ts";
import { Jobs } from "./core/jobs.ts";
import { startWorkers } from "./workers.ts";

declare const self: Worker;

/** Seconds before each new try to start while the database cannot be reached; the last repeats. */
const startRetrySeconds = [0.5, 1, 2, 5];

const send = (message: FromWorkers) => self.postMessage(message);
let running: { db: Db; jobs: Jobs } | undefined;

self.addEventListener("message", async (event: MessageEvent<ToWorkers>) => {
  const message = event.data;
  if (message.kind === "start") {
    const config = Object.freeze(message.config);
    const log = createLogger(config.logLevel);
    for (let tries = 1; ; tries++) {
      const db = servicePool(message.databaseUrl, config, { pooled: message.pooled, answerTimeout: true });
      const jobs = new Jobs(message.databaseUrl, log);
      running = { db, jobs };
      try {
        await startWorkers({ db, config, log, jobs });
        send({ kind: "started" });
        return;
      } catch (error) {
        running = undefined;
        await jobs.stop(0).catch(() => {});
        await db.end({ timeout: 1 }).catch(() => {});
        if (!isConnectionError(error)) {
          send({ kind: "failed", error: String((error as Error)?.message ?? error) });
          return;
        }
        const inSeconds = startRetrySeconds[Math.min(tries, startRetrySeconds.length) - 1]!;
        log.warn("workers not started: the database cannot be reached; trying again", {
          error: String((error as Error)?.message ?? error),
          code: (error as { code?: unknown }).code,
          tries,
          inSeconds,
        });
        await Bun.sleep(inSeconds * 1000);
      }
    }
  } else if (message.kind === "stop") {
    await running?.jobs.stop(message.timeoutMs).catch(() => {});
    await running?.db.end({ timeout: 5 }).catch(() => {});
    send({ kind: "stopped" });
  }
});
