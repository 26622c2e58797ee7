/**
 * The dispatcher: follows every workspace's events in commit order (the feed's horizon) and makes the first attempt
 * of each delivery itself, recording a batch's successes a run at a time.
 *
 * Per batch: (a) it takes the position's lease (one process at a time; the others skip) and reads the events after the
 * position, each with the active subscriptions that want it, its body, and the subscriptions' URLs and secrets;
 * (b) with no transaction open (an open one would hold back the feed horizon) it POSTs every delivery to a subscription
 * that is not failing (up to `postsPerOrigin` at once to one origin), and waits for them at most WEBHOOK_HANDOFF_MS
 * (one not started by then is left to a worker, as a failing subscription's are); (c) one transaction records the
 * successes as one `event_delivery_runs` row per subscription (no delivery row), each failure as a delivery with its
 * attempt and its retry queued (as a job's failure is), each POST still in flight as a delivery pending with
 * attempts = 1, held for the rest of the timeout with a job queued after that (a crash retries it), each delivery to a
 * failing subscription as a pending delivery and its job (jobs of up to `deliveriesPerJob`), and moves the position,
 * only while the lease is still its own (else it rolls back: the new holder dispatches the batch again). (d) A POST
 * that answers after (c) is recorded on its delivery then, as the worker records one, and the queued job finds it done.
 * A crash at any instant loses nothing: the position moves only with the records. At least once: a batch whose lease
 * was lost, or whose process died before (c), is POSTed again.
 */
import { monotonicFactory } from "ulid";
import { bossDb, queues } from "../core/jobs.ts";
import type { AppContext } from "../core/operation.ts";
import type { WebhookTarget } from "./address.ts";
import { attempt, deliveriesPerJob, deliveryJob, settleFailure } from "./deliver.ts";
import {
  dispatchBatch,
  dispatchTargets,
  insertDeliveries,
  insertRuns,
  lockDispatchLease,
  moveDispatchPosition,
  recordDelivered,
  releaseDispatchLease,
  takeDispatchLease,
  type AttemptRecord,
  type ClaimedDelivery,
  type Deliverable,
  type DeliveryRun,
} from "./queries.ts";

/** Ids of leases, deliveries and runs: ulid's plain `ulid()` looks for its random source again at every call. */
const ulid = monotonicFactory();

/** Most events in one batch. */
const batchSize = 500;
/**
 * Most deliveries in one batch: events are taken whole until the batch reaches this many (the first always). As
 * many as the events a batch reads: with one subscription for each event, every event read is used (at 200, a batch
 * read 500 events to use 200, and the read cost Postgres 2.5 times what it used: bench/README.md, "Webhooks").
 */
export const deliveriesPerBatch = batchSize;
/** Milliseconds between two looks when there was nothing to dispatch. */
const idleMs = 200;
/**
 * Seconds a dispatcher holds the position (from taking it to recording the batch: two reads, the hand-off and one
 * transaction, normally well under a second). A process that dies holding it delays dispatch this long.
 */
export const dispatchLeaseSeconds = 30;
/** POSTs past their hand-off a process keeps in flight; beyond, the dispatcher waits before its next batch. */
const maxLateAttempts = 2000;
/**
 * First attempts a batch makes to one origin (scheme, host and port) at once: the connections the HTTP client keeps to
 * it (`maxIdlePerPlace` is more), whatever the number of subscriptions with URLs there.
 */
const postsPerOrigin = 16;

let lateAttempts = 0;

/** The lease was taken over by another process: this batch is rolled back, the other dispatches it. */
export class DispatchLeaseLost extends Error {}

/** What one batch did; `late` settles when the POSTs still in flight at the hand-off are recorded. */
export interface DispatchResult {
  events: number;
  deliveries: number;
  /** The batch was cut by its bound (events or deliveries): more may be waiting. */
  full: boolean;
  late: Promise<void>;
}

const nothing: DispatchResult = { events: 0, deliveries: 0, full: false, late: Promise.resolve() };

/** Seconds a delivery whose first attempt is in flight stays held: the attempt's timeout and the worker's margin. */
function inFlightLeaseSeconds(ctx: AppContext): number {
  return Math.ceil(ctx.config.webhookTimeoutMs / 1000) + 15;
}

/**
 * Dispatches one batch (see above). `hooks.beforeRecord` runs after the hand-off, before (c) (tests use it to take
 * the lease away).
 */
export async function dispatchOnce(
  ctx: AppContext,
  hooks: { beforeRecord?: () => Promise<void> } = {},
): Promise<DispatchResult> {
  const leaseId = ulid();
  const position = await takeDispatchLease(ctx.db, leaseId, dispatchLeaseSeconds);
  if (!position) return nothing;
  try {
    return await dispatchLeased(ctx, leaseId, position, hooks);
  } catch (error) {
    await releaseDispatchLease(ctx.db, leaseId).catch(() => {});
    throw error;
  }
}

async function dispatchLeased(
  ctx: AppContext,
  leaseId: string,
  position: { tx: string; id: string },
  hooks: { beforeRecord?: () => Promise<void> },
): Promise<DispatchResult> {
  // (a) The batch and its subscriptions.
  const batch = await dispatchBatch(ctx.db, position, batchSize, deliveriesPerBatch);
  if (!batch.length) {
    await releaseDispatchLease(ctx.db, leaseId);
    return nothing;
  }
  const wanted = new Map<string, { workspaceId: string; id: string }>();
  for (const e of batch) {
    for (const id of e.subscriptionIds) wanted.set(`${e.workspaceId}/${id}`, { workspaceId: e.workspaceId, id });
  }
  const targets = new Map(
    (await dispatchTargets(ctx.db, [...wanted.values()])).map((t) => [`${t.workspaceId}/${t.id}`, t]),
  );
  const inline: Deliverable[] = [];
  const queued: Deliverable[] = [];
  for (const e of batch) {
    for (const subscriptionId of e.subscriptionIds) {
      const target = targets.get(`${e.workspaceId}/${subscriptionId}`);
      if (!target) continue; // gone since the batch was read
      const delivery: Deliverable = {
        workspaceId: e.workspaceId,
        id: ulid(),
        attempt: 1,
        eventId: e.eventId,
        subscriptionId,
        subscriptionStatus: "active",
        url: target.url,
        body: e.body!,
        secrets: target.secrets,
      };
      (target.failing ? queued : inline).push(delivery);
    }
  }

  // (b) The first attempts: up to `postsPerOrigin` at once to one origin (a few kept-alive connections; hundreds at
  // once opened a connection each, twice the CPU at both ends; 64 subscriptions to one receiver, grouped by URL, kept
  // 16 connections each), the origins in parallel. The hand-off waits for them at most WEBHOOK_HANDOFF_MS; an
  // attempt not started by then is not started, but queued as a worker's job.
  const urlChecks = new Map<string, Promise<WebhookTarget>>();
  const answers: ((AttemptRecord & { ok: boolean }) | undefined)[] = inline.map(() => undefined);
  const attempts: (Promise<AttemptRecord & { ok: boolean }> | undefined)[] = inline.map(() => undefined);
  let handedOff = false;
  const origins = new Map<string, string>();
  const byOrigin = new Map<string, number[]>();
  for (const [i, d] of inline.entries()) {
    let origin = origins.get(d.url);
    if (origin === undefined) {
      origin = URL.parse(d.url)?.origin ?? d.url;
      origins.set(d.url, origin);
    }
    const indexes = byOrigin.get(origin);
    if (indexes) indexes.push(i);
    else byOrigin.set(origin, [i]);
  }
  const lanes = [...byOrigin.values()].flatMap((indexes) => {
    let next = 0;
    return Array.from({ length: Math.min(postsPerOrigin, indexes.length) }, async () => {
      while (!handedOff && next < indexes.length) {
        const i = indexes[next++]!;
        attempts[i] = attempt(ctx, inline[i]!, urlChecks);
        answers[i] = await attempts[i];
      }
    });
  });
  if (lanes.length) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.all(lanes),
      new Promise((resolve) => {
        timer = setTimeout(resolve, ctx.config.webhookHandoffMs);
      }),
    ]);
    clearTimeout(timer);
  }
  handedOff = true;
  const answered = answers.slice();
  const late = inline.flatMap((d, i) => (!answered[i] && attempts[i] ? [{ delivery: d, answer: attempts[i]! }] : []));
  queued.push(...inline.filter((_, i) => !attempts[i]));
  await hooks.beforeRecord?.();

  // (c) One transaction records the batch and moves the position, while the lease is ours.
  const last = batch[batch.length - 1]!;
  const heldSeconds = inFlightLeaseSeconds(ctx);
  const boss = await ctx.jobs.boss();
  await ctx.db.begin(async (tx) => {
    if (!(await lockDispatchLease(tx, leaseId))) {
      throw new DispatchLeaseLost("the dispatcher's lease was taken over; the batch is left to its new holder");
    }
    const runs = new Map<string, DeliveryRun>();
    const failures: { delivery: ClaimedDelivery; record: AttemptRecord }[] = [];
    for (const [i, d] of inline.entries()) {
      const r = answered[i];
      if (!r) continue;
      if (!r.ok) {
        failures.push({ delivery: d, record: r });
        continue;
      }
      const key = `${d.workspaceId}/${d.subscriptionId}`;
      let run = runs.get(key);
      if (!run) {
        run = {
          workspaceId: d.workspaceId,
          subscriptionId: d.subscriptionId,
          id: ulid(),
          startedAt: r.startedAt,
          eventIds: [],
          responseStatuses: [],
          durationsMs: [],
          responseBodies: [],
          errors: [],
        };
        runs.set(key, run);
      }
      if (r.startedAt < run.startedAt) run.startedAt = r.startedAt;
      run.eventIds.push(d.eventId);
      run.responseStatuses.push(r.responseStatus!);
      run.durationsMs.push(r.durationMs);
      run.responseBodies.push(r.responseBody);
      run.errors.push(r.error);
    }
    await insertRuns(tx, [...runs.values()]);
    const row = (d: ClaimedDelivery, attempts: number, leasedSeconds: number) => ({
      id: d.id,
      workspaceId: d.workspaceId,
      eventId: d.eventId,
      subscriptionId: d.subscriptionId,
      attempts,
      leasedSeconds,
    });
    await insertDeliveries(tx, [
      ...failures.map((f) => row(f.delivery, 1, 0)),
      ...late.map((l) => row(l.delivery, 1, heldSeconds)),
      ...queued.map((d) => row(d, 0, 0)),
    ]);
    const jobs = [];
    for (let i = 0; i < late.length; i += deliveriesPerJob) {
      const keys = late.slice(i, i + deliveriesPerJob).map((l) => l.delivery);
      jobs.push({ data: deliveryJob(keys), startAfter: heldSeconds });
    }
    for (let i = 0; i < queued.length; i += deliveriesPerJob) {
      jobs.push({ data: deliveryJob(queued.slice(i, i + deliveriesPerJob)) });
    }
    if (jobs.length) await boss.insert(queues.webhookDeliver, jobs, { db: bossDb(tx) });
    for (const f of failures) await settleFailure(ctx, tx, f.delivery, f.record);
    await moveDispatchPosition(tx, { tx: last.tx, id: last.eventId });
  });

  // (d) The POSTs still in flight are recorded on their deliveries when they answer.
  lateAttempts += late.length;
  const recorded = Promise.all(
    late.map(async ({ delivery, answer }) => {
      try {
        const r = await answer;
        if (r.ok) await recordDelivered(ctx.db, [{ ...r, subscriptionId: delivery.subscriptionId }]);
        else await ctx.db.begin((tx) => settleFailure(ctx, tx, delivery, r));
      } catch (error) {
        // The delivery's job, queued after its lease, makes the attempt again.
        ctx.log.warn("webhook first attempt not recorded", {
          delivery: delivery.id,
          error: String((error as Error)?.message ?? error),
        });
      } finally {
        lateAttempts--;
      }
    }),
  ).then(() => {});
  const deliveries = batch.reduce((n, e) => n + e.subscriptionIds.length, 0);
  return {
    events: batch.length,
    deliveries,
    full: batch.length === batchSize || deliveries >= deliveriesPerBatch,
    late: recorded,
  };
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
        while (running && lateAttempts > maxLateAttempts) await Bun.sleep(50);
        const { full } = await dispatchOnce(ctx);
        if (!full) await Bun.sleep(idleMs);
      } catch (error) {
        if (!running) break;
        ctx.log.warn("webhook dispatch failed", { error: String((error as Error)?.message ?? error) });
        await Bun.sleep(1000);
      }
    }
  })();
}
