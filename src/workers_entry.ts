/** The workers' thread (src/workers_thread.ts): its own pool and job queue, then every worker of src/workers.ts. */
import type { FromWorkers, ToWorkers } from "./workers_thread.ts";
import { createLogger } from "./core/log.ts";
import { servicePool, type Db } from "./core/db.ts";
import { Jobs } from "./core/jobs.ts";
import { startWorkers } from "./workers.ts";

declare const self: Worker;

const send = (message: FromWorkers) => self.postMessage(message);
let running: { db: Db; jobs: Jobs } | undefined;

self.addEventListener("message", async (event: MessageEvent<ToWorkers>) => {
  const message = event.data;
  if (message.kind === "start") {
    const config = Object.freeze(message.config);
    const log = createLogger(config.logLevel);
    const db = servicePool(message.databaseUrl, config, { pooled: message.pooled, answerTimeout: true });
    const jobs = new Jobs(message.databaseUrl, log);
    running = { db, jobs };
    try {
      await startWorkers({ db, config, log, jobs });
      send({ kind: "started" });
    } catch (error) {
      await jobs.stop(0).catch(() => {});
      await db.end({ timeout: 1 }).catch(() => {});
      send({ kind: "failed", error: String((error as Error)?.message ?? error) });
    }
  } else if (message.kind === "stop") {
    await running?.jobs.stop(message.timeoutMs).catch(() => {});
    await running?.db.end({ timeout: 5 }).catch(() => {});
    send({ kind: "stopped" });
  }
});
