/** A queue's worker that takes its jobs in batches and runs them one after the other, each settled on its own. */
import type { JobResult, JobWithMetadata } from "pg-boss";
import { errorText } from "./error_text.ts";
import type { QueuePolicy } from "./jobs.ts";
import type { AppContext } from "./operation.ts";

/** A worker of one queue. */
export interface JobLoop<T extends object> {
  queue: string;
  /** Created with the queue (and its dead-letter queue) if missing. */
  policy: QueuePolicy;
  /** Jobs a fetch (5 unless said). */
  batchSize?: number;
  /** Loops fetching side by side (1 unless said): each holds a database connection while it runs a job. */
  loops?: number;
  /** Fetch again at once while batches come back full (else wait the polling second). */
  burst?: boolean;
  /** What the log lines say: `<name>`, and `<name> failed`. */
  name: string;
  /** What the log lines name a job by (never personal data). */
  fields: (job: JobWithMetadata<T>) => Record<string, unknown>;
  /** Runs one job; what it did, for the job's output and the log. `final`: its last attempt. Throws to retry it. */
  run: (job: JobWithMetadata<T>, attempt: { final: boolean }) => Promise<Record<string, unknown>>;
  /** Runs when the queue stops (after the jobs running then ended). */
  onStop?: () => void;
  /** More fields for the line saying the worker started. */
  started?: Record<string, unknown>;
}

/**
 * Starts a worker: it takes up to `batchSize` jobs a fetch and runs them in turn; a job that throws is failed (for
 * the queue to retry, then dead-letter) and the others go on. Every job is logged with its attempt.
 */
export async function startJobLoop<T extends object>(ctx: Pick<AppContext, "jobs" | "log">, loop: JobLoop<T>) {
  await ctx.jobs.ensureQueue(loop.queue, loop.policy);
  const boss = await ctx.jobs.boss();
  await boss.work(
    loop.queue,
    {
      includeMetadata: true,
      perJobResults: true,
      batchSize: loop.batchSize ?? 5,
      pollingIntervalSeconds: 1,
      ...(loop.burst && { burstWhenBatchFull: true }),
      ...(loop.loops && { localConcurrency: loop.loops }),
    },
    async (jobs: JobWithMetadata<T>[]) => {
      const results: JobResult[] = [];
      for (const job of jobs) {
        const attempt = job.retryCount + 1;
        const final = job.retryCount >= job.retryLimit;
        try {
          const output = await loop.run(job, { final });
          ctx.log.info(loop.name, { ...loop.fields(job), ...output, attempt });
          results.push({ id: job.id, status: "completed", output });
        } catch (error) {
          ctx.log.warn(`${loop.name} failed`, { ...loop.fields(job), attempt, final, error: errorText(error) });
          results.push({ id: job.id, status: "failed", output: { message: errorText(error) } });
        }
      }
      return results;
    },
  );
  if (loop.onStop) boss.once("stopped", loop.onStop);
  ctx.log.info("worker started", { queue: loop.queue, ...loop.started });
}
