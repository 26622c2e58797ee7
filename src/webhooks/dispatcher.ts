/**
 * The dispatcher: follows every workspace's events in commit order (the feed's horizon) and, for each event and each
 * active subscription that wants it, creates a delivery, and queues the new deliveries' first attempts as jobs of up to
 * `deliveriesPerJob` deliveries, in one transaction with its position.
 * One process at a time holds the position's row lock; the others skip. A crash before the commit loses nothing.
 */
import { ulid } from "ulid";
import { bossDb, queues } from "../core/jobs.ts";
import type { AppContext } from "../core/operation.ts";
import { deliveriesPerJob, deliveryJob } from "./deliver.ts";
import { dispatchBatch, insertDeliveries, lockDispatchPosition } from "./queries.ts";

/** Events dispatched in one transaction. */
const batchSize = 500;
/** Milliseconds between two looks when there was nothing to dispatch. */
const idleMs = 200;

/** Dispatches one batch; returns how many events it passed (0: nothing new, or another process dispatches). */
export async function dispatchOnce(
  ctx: Pick<AppContext, "db" | "jobs">,
): Promise<{ events: number; deliveries: number }> {
  const boss = await ctx.jobs.boss();
  return ctx.db.begin(async (tx) => {
    const position = await lockDispatchPosition(tx);
    if (!position) return { events: 0, deliveries: 0 };
    const batch = await dispatchBatch(tx, position, batchSize);
    if (!batch.length) return { events: 0, deliveries: 0 };
    const deliveries = batch.flatMap((e) =>
      e.subscriptionIds.map((subscriptionId) => ({
        id: ulid(),
        workspaceId: e.workspaceId,
        eventId: e.eventId,
        subscriptionId,
      })),
    );
    const last = batch[batch.length - 1]!;
    await insertDeliveries(tx, deliveries, { tx: last.tx, id: last.eventId });
    if (deliveries.length) {
      const jobs = [];
      for (let i = 0; i < deliveries.length; i += deliveriesPerJob) {
        jobs.push({ data: deliveryJob(deliveries.slice(i, i + deliveriesPerJob)) });
      }
      await boss.insert(queues.webhookDeliver, jobs, { db: bossDb(tx) });
    }
    return { events: batch.length, deliveries: deliveries.length };
  });
}

/** Runs the dispatcher until the job queue stops. */
export function startDispatcher(ctx: AppContext): void {
  let running = true;
  ctx.jobs.onStop(() => {
    running = false;
  });
  void (async () => {
    while (running) {
      try {
        const { events } = await dispatchOnce(ctx);
        if (events < batchSize) await Bun.sleep(idleMs);
      } catch (error) {
        if (!running) break;
        ctx.log.warn("webhook dispatch failed", { error: String((error as Error)?.message ?? error) });
        await Bun.sleep(1000);
      }
    }
  })();
}
