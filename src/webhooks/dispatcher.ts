/**
 * The dispatcher: follows every workspace's events in commit order (the feed's horizon) and makes the first attempt
 * of each delivery itself, recording a batch's successes a run at a time.
 *
 * Per batch: (a) it takes the position's lease (one process at a time; the others skip) and reads the events after the
 * position, each with the active subscriptions that want it, its body, the subscriptions' URLs and secrets, and the
 * breakers of their workspaces' receivers; (b) with no transaction open (an open one would hold back the feed
 * horizon) it POSTs every delivery to a subscription that is not failing and a receiver not set aside (breaker.ts), in
 * fair lanes, each POST taking a slot of its receiver's and its workspace's (share.ts: at most 16 in flight to one
 * receiver and 32 for one workspace, held across batches and the worker's jobs; a delivery that finds none is not
 * started but held back), and waits for them at most WEBHOOK_HANDOFF_MS (one not started by then is left to a worker,
 * as a failing subscription's are); (c) one transaction records the successes as one `event_delivery_runs` row per
 * subscription (no delivery row), each failure as a delivery with its attempt and its retry queued (as a job's failure
 * is), each POST still in flight as a delivery pending with attempts = 1, held for the rest of the timeout with a job
 * queued after that (a crash retries it), each delivery to a failing subscription as a pending delivery and its job
 * (jobs of up to `deliveriesPerJob`), each held back one due later (when its receiver's breaker lets it, or its slots
 * may be free) with a job then, and moves the position, only while the lease is still its own (else it rolls back:
 * the new holder dispatches the batch again). (d) A POST that answers after (c) is recorded on its delivery then, as
 * the worker records one, and the queued job finds it done.
 * A crash at any instant loses nothing: the position moves only with the records. At least once: a batch whose lease
 * was lost, or whose process died before (c), is POSTed again.
 */
import { monotonicFactory } from "ulid";
import { bossDb, queues } from "../core/jobs.ts";
import type { AppContext } from "../core/operation.ts";
import type { WebhookTarget } from "./address.ts";
import { breakerSays, receiverOf } from "./breaker.ts";
import {
  attempt,
  closeAnswered,
  deliveriesPerJob,
  deliveryJob,
  settleFailure,
  type Attempted,
  type Busy,
} from "./deliver.ts";
import {
  deferDeliveries,
  dispatchBatch,
  dispatchTargets,
  insertDeliveries,
  insertRuns,
  lockDispatchLease,
  moveDispatchPosition,
  recordDelivered,
  releaseDispatchLease,
  takeDispatchLease,
  type ClaimedDelivery,
  type Deliverable,
  type DeliveryRun,
} from "./queries.ts";
import { backOffMs, busyWorkspaces, fairLanes, postsPerReceiver, workspaceBusyMs } from "./share.ts";

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
/**
 * Most deliveries in one batch counting those of workspaces with no slot free (share.ts), which `deliveriesPerBatch`
 * leaves out: held back, they cost a row each and no POST. A flooded workspace's backlog goes by in a few batches
 * instead of one batch of 500 after another, which the other workspaces' events waited behind.
 */
const heldPerBatch = 10 * deliveriesPerBatch;
/** Milliseconds between two looks when there was nothing to dispatch. */
const idleMs = 200;
/**
 * Seconds a dispatcher holds the position (from taking it to recording the batch: two reads, the hand-off and one
 * transaction, normally well under a second). A process that dies holding it delays dispatch this long.
 */
export const dispatchLeaseSeconds = 30;
/** POSTs past their hand-off a process keeps in flight; beyond, the dispatcher waits before its next batch. */
const maxLateAttempts = 2000;

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
  const saturated = busyWorkspaces();
  const batch = await dispatchBatch(ctx.db, position, batchSize, {
    posted: deliveriesPerBatch,
    all: heldPerBatch,
    held: saturated,
  });
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
  /** Deliveries held back, each due in `dueInSeconds`: to a receiver set aside, or with no slot free for it. */
  const held: { delivery: Deliverable; dueInSeconds: number }[] = [];
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
        breakers: target.breakers,
      };
      if (target.failing) {
        queued.push(delivery);
        continue;
      }
      // A receiver set aside: its deliveries wait for its cool-down; one whose cool-down is over is the worker's to
      // probe. A workspace with no slot free has its deliveries held back at once.
      const says = breakerSays(target.breakers, receiverOf(target.url));
      const busyMs = says.kind === "go" ? workspaceBusyMs(e.workspaceId, ctx.config.webhookTimeoutMs) : undefined;
      if (busyMs !== undefined) held.push({ delivery, dueInSeconds: busyMs / 1000 });
      else if (says.kind === "go") inline.push(delivery);
      else if (says.kind === "wait") held.push({ delivery, dueInSeconds: says.seconds });
      else queued.push(delivery);
    }
  }

  // (b) The first attempts, in fair lanes (share.ts): up to `postsPerReceiver` lanes a workspace and receiver (a few
  // kept-alive connections; hundreds at once opened a connection each, twice the CPU at both ends), started round
  // robin. A delivery that finds its receiver's or its workspace's slots taken (by this batch, an earlier one still in
  // flight, or the worker) stops its lane group: it and the group's rest are held back; so does an attempt the
  // receiver did not answer (the rest is held back `backOffMs`, its breaker counting). The hand-off waits for the
  // lanes at most WEBHOOK_HANDOFF_MS; an attempt not started by then is not started, but queued as a worker's job.
  const urlChecks = new Map<string, Promise<WebhookTarget>>();
  const index = new Map(inline.map((d, i) => [d, i]));
  const answers: (Attempted | undefined)[] = inline.map(() => undefined);
  const attempts: (Promise<Attempted | Busy> | undefined)[] = inline.map(() => undefined);
  const busyMs = new Map<string, number>();
  const busy = new Set<number>();
  const groupOf = (d: Deliverable) => `${d.workspaceId} ${receiverOf(d.url)}`;
  let handedOff = false;
  const lanes = fairLanes(
    inline,
    (d) => d.workspaceId,
    (d) => receiverOf(d.url),
    postsPerReceiver,
    async (d) => {
      if (handedOff) return false;
      const i = index.get(d)!;
      attempts[i] = attempt(ctx, d, urlChecks);
      const r = await attempts[i];
      if ("busy" in r) {
        busy.add(i);
        busyMs.set(groupOf(d), r.delayMs);
        return false;
      }
      answers[i] = r;
      if (!r.unreachable) return true;
      busyMs.set(groupOf(d), backOffMs);
      return false;
    },
  );
  if (inline.length) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      lanes,
      new Promise((resolve) => {
        timer = setTimeout(resolve, ctx.config.webhookHandoffMs);
      }),
    ]);
    clearTimeout(timer);
  }
  handedOff = true;
  const answered = answers.slice();
  const late: { delivery: Deliverable; answer: Promise<Attempted | Busy> }[] = [];
  for (const [i, d] of inline.entries()) {
    if (answered[i]) continue;
    const busyFor = busyMs.get(groupOf(d));
    if (attempts[i] && !busy.has(i)) late.push({ delivery: d, answer: attempts[i]! });
    else if (busyFor !== undefined) held.push({ delivery: d, dueInSeconds: busyFor / 1000 });
    else queued.push(d);
  }
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
    const failures: { delivery: ClaimedDelivery; record: Attempted }[] = [];
    /** Receivers with a breaker that answered: their breakers close. */
    const answering = new Map<string, { workspaceId: string; receiver: string }>();
    for (const [i, d] of inline.entries()) {
      const r = answered[i];
      if (!r) continue;
      if (!r.ok) {
        failures.push({ delivery: d, record: r });
        continue;
      }
      const receiver = receiverOf(d.url);
      if (d.breakers?.has(receiver)) answering.set(groupOf(d), { workspaceId: d.workspaceId, receiver });
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
    if (answering.size) await closeAnswered(ctx, tx, [...answering.values()]);
    const row = (d: ClaimedDelivery, attempts: number, leasedSeconds: number, dueInSeconds = 0) => ({
      id: d.id,
      workspaceId: d.workspaceId,
      eventId: d.eventId,
      subscriptionId: d.subscriptionId,
      attempts,
      leasedSeconds,
      dueInSeconds,
    });
    await insertDeliveries(tx, [
      ...failures.map((f) => row(f.delivery, 1, 0)),
      ...late.map((l) => row(l.delivery, 1, heldSeconds)),
      ...queued.map((d) => row(d, 0, 0)),
      ...held.map((h) => row(h.delivery, 0, 0, h.dueInSeconds)),
    ]);
    const jobs = [];
    for (let i = 0; i < late.length; i += deliveriesPerJob) {
      const keys = late.slice(i, i + deliveriesPerJob).map((l) => l.delivery);
      jobs.push({ data: deliveryJob(keys), startAfter: heldSeconds });
    }
    for (let i = 0; i < queued.length; i += deliveriesPerJob) {
      jobs.push({ data: deliveryJob(queued.slice(i, i + deliveriesPerJob)) });
    }
    const byDue = new Map<number, Deliverable[]>();
    for (const h of held) {
      const due = Math.ceil(h.dueInSeconds);
      const list = byDue.get(due);
      if (list) list.push(h.delivery);
      else byDue.set(due, [h.delivery]);
    }
    for (const [due, list] of byDue) {
      for (let i = 0; i < list.length; i += deliveriesPerJob) {
        jobs.push({ data: deliveryJob(list.slice(i, i + deliveriesPerJob)), startAfter: due });
      }
    }
    if (jobs.length) await boss.insert(queues.webhookDeliver, jobs, { db: bossDb(tx) });
    for (const f of failures) await settleFailure(ctx, tx, f.delivery, f.record);
    await moveDispatchPosition(tx, { tx: last.tx, id: last.eventId });
  });

  // (d) The POSTs still in flight are recorded on their deliveries when they answer. One that was not made after all
  // (its URL's check outlasted the hand-off, and then no slot was free) is given back, due when slots may be free (its
  // job, queued after the lease, finds it then).
  lateAttempts += late.length;
  const recorded = Promise.all(
    late.map(async ({ delivery, answer }) => {
      try {
        const r = await answer;
        if ("busy" in r) await deferDeliveries(ctx.db, [{ ...delivery, dueInSeconds: r.delayMs / 1000 }]);
        else if (r.ok) {
          await recordDelivered(ctx.db, [{ ...r, subscriptionId: delivery.subscriptionId }]);
          const receiver = receiverOf(delivery.url);
          if (delivery.breakers?.has(receiver)) {
            await closeAnswered(ctx, ctx.db, [{ workspaceId: delivery.workspaceId, receiver }]);
          }
        } else await ctx.db.begin((tx) => settleFailure(ctx, tx, delivery, r));
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
