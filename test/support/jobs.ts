/** Running a queued job now, for tests of the service's job workers, instead of waiting for a worker's next poll. */
import type { PgBoss } from "pg-boss";

/**
 * Sends a job to `queue`, wakes this process's workers of the queue (a worker that polled a moment ago would
 * otherwise fetch it only after its polling interval, 2 s by default), and waits until the job is completed; throws
 * when it failed, or when it is not done within `limitMs`. Answers the job's id.
 */
export async function runJobNow(boss: PgBoss, queue: string, data: object = {}, limitMs = 20_000): Promise<string> {
  const id = await boss.send(queue, data);
  if (!id) throw new Error(`no job was queued on ${queue}`);
  const workers = boss.getWipData().filter((w) => w.name === queue);
  if (!workers.length) throw new Error(`no worker of ${queue} runs in this process`);
  for (const worker of workers) boss.notifyWorker(worker.id);
  const deadline = performance.now() + limitMs;
  for (;;) {
    const job = await boss.getJobById(queue, id);
    if (job?.state === "completed") return id;
    if (job?.state === "failed") throw new Error(`the ${queue} job failed: ${JSON.stringify(job.output)}`);
    if (performance.now() > deadline) throw new Error(`the ${queue} job is still ${job?.state} after ${limitMs} ms`);
    await Bun.sleep(20);
  }
}
