/** A daily maintenance job: scheduled (an upsert, so every process may call it) and worked by pg-boss. */
import type { AppContext } from "./operation.ts";

/** Schedules `queue` at `cron` (Europe/London) and starts its worker, which runs `run` and logs what it returns. */
export async function startDailyJob(
  ctx: AppContext,
  job: { queue: string; cron: string; done: string; run: () => Promise<Record<string, unknown>> },
): Promise<void> {
  await ctx.jobs.ensureQueue(job.queue, { retryLimit: 3, retryDelay: 60, retryBackoff: true, heartbeatSeconds: 10 });
  const boss = await ctx.jobs.boss();
  await boss.schedule(job.queue, job.cron, {}, { tz: "Europe/London" });
  await boss.work(job.queue, async () => {
    const result = await job.run();
    ctx.log.info(job.done, result);
    return result;
  });
}
