/**
 * The delivery worker: one POST per attempt, signed per Standard Webhooks, within WEBHOOK_TIMEOUT_MS (10 s) for the
 * whole exchange; 2xx is delivered; otherwise the next attempt is queued after the retry schedule's delay, in the
 * transaction that records this one, and a warning logged. At least once; a delivery is attempted by one worker at a
 * time (a lease). First attempts are the dispatcher's (dispatcher.ts, with `attempt`, `post` and `settleFailure` from
 * here); the worker makes the retries, the first attempts to a failing subscription, and again any the dispatcher left
 * unrecorded. Every attempt takes a slot of its receiver's and its workspace's (share.ts) and passes its receiver's
 * breaker (breaker.ts): a delivery that finds neither is held back, unattempted, and due again later.
 */
import type { JobResult, JobWithMetadata } from "pg-boss";
import type { Db, Tx } from "../core/db.ts";
import { bossDb, queues, type Jobs, type QueuePolicy } from "../core/jobs.ts";
import type { AppContext } from "../core/operation.ts";
import { errorText } from "../core/error_text.ts";
import { recordEvent } from "../events/record.ts";
import { checkWebhookUrl, type WebhookTarget } from "./address.ts";
import { breakerRule, breakerSays, receiverOf, type BreakerSays } from "./breaker.ts";
import { startDispatcher } from "./dispatcher.ts";
import { WebhookUrlRefused } from "./errors.ts";
import { http1Post, type Http1Post } from "./http1_client.ts";
import { webhookDisabled } from "./events.ts";
import {
  abandonDeliveries,
  claimDeliveries,
  closeBreakers,
  deferDeliveries,
  noteReceiverUnreachable,
  noteSubscriptionFailure,
  recordAttempt,
  recordDelivered,
  takeProbe,
  type AttemptRecord,
  type ClaimedDelivery,
  type Deliverable,
  type DeliveryKey,
} from "./queries.ts";
import { backOffMs, busyDelayMs, fairLanes, postsPerReceiver, takeSlot, workspaceBusyMs } from "./share.ts";
import { signatureHeader } from "./signature.ts";

/**
 * The data of a delivery job: the deliveries it attempts, each as [workspaceId, id]. The dispatcher puts up to
 * `deliveriesPerJob` deliveries in one job (a failing subscription's new ones, or first attempts still in flight at
 * its hand-off: one job and one claim for many, not one each); a retry is a job of one.
 */
export interface DeliveryJob {
  deliveries: [workspaceId: string, id: string][];
}

/** Most deliveries in one job: they are claimed in one statement, POSTed together and recorded together. */
export const deliveriesPerJob = 50;

/** The job of the given deliveries. */
export function deliveryJob(keys: DeliveryKey[]): DeliveryJob {
  return { deliveries: keys.map((k) => [k.workspaceId, k.id]) };
}

/** Bytes of a receiver's answer kept with the attempt. */
export const responseCap = 1024;
/** Days of failing deliveries after which a subscription is disabled. */
export const disableAfterDays = 5;

/**
 * The queue's own retries cover only a job that did not finish (a crash: the heartbeat stops; or a delivery held by
 * another worker); the retry schedule of failed attempts is the delivery's, each retry a job of its own.
 */
export const deliveryQueuePolicy: QueuePolicy = {
  retryLimit: 20,
  retryDelay: 5,
  retryBackoff: true,
  retryDelayMax: 300,
  expireInSeconds: 120,
  heartbeatSeconds: 10,
  deadLetter: `${queues.webhookDeliver}-dead`,
};

/** Creates the delivery queue and its dead-letter queue if missing. */
export function ensureDeliveryQueue(jobs: Jobs): Promise<void> {
  return jobs.ensureQueue(queues.webhookDeliver, deliveryQueuePolicy);
}

/** Text without NUL bytes, at most `cap` bytes of UTF-8 (never a broken character). */
function storable(bytes: Uint8Array, cap: number): string {
  if (!bytes.length) return "";
  let text = new TextDecoder("utf-8").decode(bytes.subarray(0, cap), { stream: true }).replaceAll("\u0000", "");
  while (Buffer.byteLength(text) > cap) text = text.slice(0, -1);
  return text;
}

/** What one POST gave: a status and the start of the body, or an error. */
interface Exchange {
  status: number | null;
  body: string | null;
  error: string | null;
}

/**
 * Where a POST connects and what it says: to the checked address when there is one (the URL's host name kept in the
 * Host header and, for https, in the TLS server name that the certificate must match), else to the URL's host.
 */
export function pinned(target: WebhookTarget): Where {
  let where = pinnedTargets.get(target);
  if (!where) {
    where = pinnedOf(target);
    pinnedTargets.set(target, where);
  }
  return where;
}

type Where = Pick<Http1Post, "connectTo" | "port" | "host" | "path" | "tls">;

/** Each checked target's `pinned`, worked out once (a batch POSTs many deliveries to one target). */
const pinnedTargets = new WeakMap<WebhookTarget, Where>();

function pinnedOf(target: WebhookTarget): Where {
  const { url } = target;
  const https = url.protocol === "https:";
  const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1");
  return {
    connectTo: target.address ?? hostname,
    port: Number(url.port) || (https ? 443 : 80),
    host: url.host,
    path: `${url.pathname}${url.search}`,
    ...(https ? { tls: { serverName: hostname } } : {}),
  };
}

/**
 * POSTs the signed event to the checked target (http1_client.ts), the whole exchange bounded by `timeoutMs`. `ca`:
 * extra trusted certificates (PEM), for tests with a certificate of their own.
 */
export async function post(
  claimed: Pick<Deliverable, "eventId" | "body" | "secrets">,
  target: WebhookTarget,
  timeoutMs: number,
  options: { now?: number; ca?: string } = {},
): Promise<Exchange> {
  const timestamp = Math.floor((options.now ?? Date.now()) / 1000);
  const to = pinned(target);
  try {
    const answer = await http1Post({
      ...to,
      ...(to.tls && options.ca ? { tls: { ...to.tls, ca: options.ca } } : {}),
      headers: [
        ["content-type", "application/json"],
        ["user-agent", "lettings-service-webhooks/1"],
        ["webhook-id", claimed.eventId],
        ["webhook-timestamp", String(timestamp)],
        ["webhook-signature", signatureHeader(claimed.secrets, claimed.eventId, timestamp, claimed.body)],
      ],
      body: claimed.body,
      timeoutMs,
      bodyCap: responseCap,
    });
    return {
      status: answer.status,
      body: answer.body && storable(answer.body, responseCap),
      error: answer.error,
    };
  } catch (error) {
    return { status: null, body: null, error: errorText(error) };
  }
}

/**
 * What one job of a delivery did. `held`: its receiver is set aside (breaker.ts), `deferred`: no slot was free for it
 * (share.ts) or the job ran out of time to start it; both given back unattempted, due again later with a job.
 */
export type DeliveryOutcome =
  | "delivered"
  | "retry"
  | "failed"
  | "done_before"
  | "not_due"
  | "abandoned"
  | "held"
  | "deferred";

/** An attempt made: its record, whether the receiver answered 2xx (`ok`), and whether it answered at all. */
export type Attempted = AttemptRecord & { ok: boolean; unreachable: boolean };

/** A delivery not attempted: its receiver or its workspace had no slot free; to be tried again in `delayMs`. */
export interface Busy {
  busy: true;
  delayMs: number;
}

/** Notes a failure on the subscription; disables one failing for `disableAfterDays`, with its `webhook.disabled`. */
async function noteFailing(tx: Tx, workspaceId: string, subscriptionId: string) {
  const disabled = await noteSubscriptionFailure(tx, workspaceId, subscriptionId, disableAfterDays);
  if (disabled) {
    await recordEvent(tx, webhookDisabled, {
      workspaceId,
      subjectId: disabled.id,
      data: disabled,
      requestId: null,
      actor: { kind: "worker", id: queues.webhookDeliver },
    });
  }
}

/** Closes the breakers of receivers that answered; logs those that were open. */
export async function closeAnswered(
  ctx: AppContext,
  sql: Tx | Db,
  receivers: { workspaceId: string; receiver: string }[],
): Promise<void> {
  for (const b of await closeBreakers(sql, receivers)) {
    if (b.wasOpen) ctx.log.info("webhook receiver answers again", { workspace: b.workspaceId, receiver: b.receiver });
  }
}

/**
 * Records a failed attempt, queues the next one or fails the delivery, counts it on the receiver's breaker when the
 * receiver did not answer (`probe`: the attempt was the half-open breaker's probe), may disable the subscription, and
 * logs a warning (no URL, secret or body in it).
 */
export async function settleFailure(
  ctx: AppContext,
  tx: Tx,
  claimed: ClaimedDelivery,
  record: AttemptRecord & { unreachable?: boolean },
  options: { probe?: boolean } = {},
) {
  const delays = ctx.config.webhookRetryDelays;
  const retry = claimed.attempt <= delays.length;
  const delay = delays[claimed.attempt - 1]!;
  await recordAttempt(tx, record, retry ? { kind: "retry", inSeconds: delay } : { kind: "failed" });
  if (retry) await ctx.jobs.send(tx, queues.webhookDeliver, deliveryJob([claimed]), { startAfter: delay });
  const receiver = receiverOf(claimed.url);
  if (record.unreachable) {
    const b = await noteReceiverUnreachable(tx, claimed.workspaceId, receiver, !!options.probe, breakerRule);
    if (b.opened) {
      ctx.log.warn("webhook receiver set aside", {
        workspace: claimed.workspaceId,
        receiver,
        failures: b.failures,
        until: b.openUntil,
      });
    }
  } else if (record.responseStatus !== null && claimed.breakers?.has(receiver)) {
    await closeAnswered(ctx, tx, [{ workspaceId: claimed.workspaceId, receiver }]);
  }
  await noteFailing(tx, claimed.workspaceId, claimed.subscriptionId);
  ctx.log.warn("webhook delivery attempt failed", {
    workspace: claimed.workspaceId,
    subscription: claimed.subscriptionId,
    delivery: claimed.id,
    event: claimed.eventId,
    attempt: claimed.attempt,
    receiver,
    status: record.responseStatus,
    error: record.error,
    nextAttemptAt: retry ? new Date(Date.now() + delay * 1000).toISOString() : null,
  });
  return retry ? "retry" : "failed";
}

/** A delivery is held by another worker: pg-boss retries the job later (what this one settled is done by then). */
class DeliveryHeld extends Error {}

/**
 * Makes one attempt of a claimed delivery when its receiver (the address the POST connects to) and its workspace
 * each have a slot free (share.ts); else answers `Busy`. Checks the URL first (DNS may have changed; once a URL a
 * batch). Never throws: whatever goes wrong is the attempt's error. `ok`: the receiver answered 2xx; `unreachable`: it
 * did not answer (timed out, refused, closed before a status); a refused URL is neither.
 */
export async function attempt(
  ctx: AppContext,
  claimed: Deliverable,
  urlChecks: Map<string, Promise<WebhookTarget>>,
): Promise<Attempted | Busy> {
  let startedAt = new Date();
  let exchange: Exchange;
  let unreachable = false;
  let release: (() => void) | undefined;
  // A workspace without a slot free is told so before its URL is checked (a DNS lookup, in production).
  const waitMs = workspaceBusyMs(claimed.workspaceId, ctx.config.webhookTimeoutMs);
  if (waitMs !== undefined) return { busy: true, delayMs: waitMs };
  try {
    let check = urlChecks.get(claimed.url);
    if (!check) {
      check = checkWebhookUrl(claimed.url, { allowPrivate: ctx.config.webhooksAllowPrivate });
      urlChecks.set(claimed.url, check);
    }
    const target = await check;
    const to = pinned(target);
    const address = `${to.connectTo} ${to.port}`;
    release = takeSlot(claimed.workspaceId, address);
    if (!release) {
      return { busy: true, delayMs: busyDelayMs(claimed.workspaceId, address, ctx.config.webhookTimeoutMs) };
    }
    startedAt = new Date();
    exchange = await post(claimed, target, ctx.config.webhookTimeoutMs, { now: startedAt.getTime() });
    unreachable = exchange.status === null;
  } catch (error) {
    const reason = error instanceof WebhookUrlRefused ? `refused: ${error.fields.reason}` : String(error);
    exchange = { status: null, body: null, error: reason };
  } finally {
    release?.();
  }
  const ok = exchange.status !== null && exchange.status >= 200 && exchange.status < 300;
  return {
    ok,
    unreachable,
    workspaceId: claimed.workspaceId,
    deliveryId: claimed.id,
    attempt: claimed.attempt,
    startedAt,
    durationMs: Date.now() - startedAt.getTime(),
    responseStatus: exchange.status,
    responseBody: exchange.body,
    error: storableError(exchange.error ?? (ok ? null : `answered ${exchange.status}`)),
  };
}

/** An error message Postgres can store (as text and inside JSON): no NUL, no lone surrogate, at most 2,000 chars. */
function storableError(message: string | null): string | null {
  return message === null ? null : message.replaceAll("\u0000", "").slice(0, 2000).toWellFormed();
}

/** A delivery given back unattempted, due again in `dueInSeconds`. */
type Deferred = DeliveryKey & { dueInSeconds: number };

/**
 * Gives deliveries back unattempted (`deferDeliveries`) with their jobs, due when each is (jobs of up to
 * `deliveriesPerJob`); `failing`: subscriptions whose receiver is set aside, noted as failing (5 days disable them).
 */
async function giveBack(ctx: AppContext, deferred: Deferred[], failing: ClaimedDelivery[]): Promise<void> {
  if (!deferred.length) return;
  const boss = await ctx.jobs.boss();
  const byDue = new Map<number, Deferred[]>();
  for (const d of deferred) {
    const due = Math.ceil(d.dueInSeconds);
    const list = byDue.get(due);
    if (list) list.push(d);
    else byDue.set(due, [d]);
  }
  const jobs = [...byDue].flatMap(([due, list]) =>
    Array.from({ length: Math.ceil(list.length / deliveriesPerJob) }, (_, i) => ({
      data: deliveryJob(list.slice(i * deliveriesPerJob, (i + 1) * deliveriesPerJob)),
      startAfter: due,
    })),
  );
  await ctx.db.begin(async (tx) => {
    await deferDeliveries(tx, deferred);
    await boss.insert(queues.webhookDeliver, jobs, { db: bossDb(tx) });
    const seen = new Set<string>();
    for (const c of failing) {
      const key = `${c.workspaceId} ${c.subscriptionId}`;
      if (seen.has(key)) continue;
      seen.add(key);
      await noteFailing(tx, c.workspaceId, c.subscriptionId);
    }
  });
}

/**
 * Makes one attempt of each given delivery that is due and not held, together: one statement claims them all; the
 * breakers hold back those to a receiver set aside (one delivery probes a receiver whose cool-down is over); the rest
 * go out in fair lanes (share.ts), a receiver's one after another while it has a slot and the claim's lease leaves
 * time, those left given back for later; one statement records every success; a failure, which may queue a retry and
 * record an event, takes a transaction of its own. Answers each delivery's outcome, in the order given; throws
 * `DeliveryHeld` after settling the rest when another worker holds one of them.
 */
export async function attemptDeliveries(ctx: AppContext, keys: DeliveryKey[]): Promise<DeliveryOutcome[]> {
  const timeoutMs = ctx.config.webhookTimeoutMs;
  const leaseSeconds = Math.ceil(timeoutMs / 1000) + 15;
  // No attempt starts once its lease could end before it does (its timeout and a margin).
  const startBy = performance.now() + leaseSeconds * 1000 - timeoutMs - 5000;
  const { claimed, unclaimed } = await claimDeliveries(ctx.db, keys, leaseSeconds);
  const outcomes = new Map<string, DeliveryOutcome>();
  const sendable = (c: ClaimedDelivery): c is Deliverable => c.subscriptionStatus === "active" && c.body !== null;
  const live = claimed.filter(sendable);
  const dead = claimed.filter((c) => !sendable(c));
  if (dead.length) {
    await abandonDeliveries(ctx.db, dead, true);
    for (const c of dead) outcomes.set(c.id, "abandoned");
  }

  // The breakers, once a workspace and receiver.
  const verdicts = new Map<string, BreakerSays>();
  const probes = new Set<Deliverable>();
  const go: Deliverable[] = [];
  const held: Deliverable[] = [];
  const deferred: Deferred[] = [];
  for (const c of live) {
    const receiver = receiverOf(c.url);
    const key = `${c.workspaceId} ${receiver}`;
    let says = verdicts.get(key);
    if (!says) {
      says = breakerSays(c.breakers, receiver);
      if (says.kind === "probe") {
        if (await takeProbe(ctx.db, c.workspaceId, receiver, leaseSeconds)) probes.add(c);
        // The others wait for the probe's outcome (this one's or another process's).
        says = { kind: "wait", seconds: leaseSeconds };
      }
      verdicts.set(key, says);
      if (probes.has(c)) {
        go.push(c);
        continue;
      }
    }
    if (says.kind === "go") go.push(c);
    else if (says.kind === "wait") {
      held.push(c);
      deferred.push({ workspaceId: c.workspaceId, id: c.id, dueInSeconds: says.seconds });
      outcomes.set(c.id, "held");
    }
  }

  // The attempts, in fair lanes; a group that finds no slot, or whose receiver did not answer, stops: its deliveries
  // left are given back.
  const urlChecks = new Map<string, Promise<WebhookTarget>>();
  const records = new Map<Deliverable, Attempted>();
  const busyMs = new Map<string, number>();
  const groupOf = (d: Deliverable) => `${d.workspaceId} ${receiverOf(d.url)}`;
  await fairLanes(
    go,
    (d) => d.workspaceId,
    (d) => receiverOf(d.url),
    postsPerReceiver,
    async (d) => {
      if (performance.now() > startBy) return false;
      const r = await attempt(ctx, d, urlChecks);
      if ("busy" in r) {
        busyMs.set(groupOf(d), r.delayMs);
        return false;
      }
      records.set(d, r);
      if (!r.unreachable) return true;
      busyMs.set(groupOf(d), backOffMs);
      return false;
    },
  );
  for (const d of go) {
    if (records.has(d)) continue;
    deferred.push({ workspaceId: d.workspaceId, id: d.id, dueInSeconds: (busyMs.get(groupOf(d)) ?? 0) / 1000 });
    outcomes.set(d.id, "deferred");
  }

  const attempted = go.filter((d) => records.has(d));
  const delivered = attempted.flatMap((d) => {
    const r = records.get(d)!;
    return r.ok ? [{ ...r, subscriptionId: d.subscriptionId }] : [];
  });
  await recordDelivered(ctx.db, delivered);
  for (const r of delivered) outcomes.set(r.deliveryId, "delivered");
  const answered = new Map<string, { workspaceId: string; receiver: string }>();
  for (const d of attempted) {
    const r = records.get(d)!;
    const receiver = receiverOf(d.url);
    if (r.ok && d.breakers?.has(receiver)) answered.set(groupOf(d), { workspaceId: d.workspaceId, receiver });
  }
  if (answered.size) await closeAnswered(ctx, ctx.db, [...answered.values()]);
  for (const d of attempted) {
    const r = records.get(d)!;
    if (r.ok) continue;
    const probe = probes.has(d);
    outcomes.set(d.id, await ctx.db.begin((tx) => settleFailure(ctx, tx, d, r, { probe })));
  }
  await giveBack(ctx, deferred, held);

  const heldElsewhere: string[] = [];
  for (const [id, why] of unclaimed) {
    if (why === "held") heldElsewhere.push(id);
    outcomes.set(id, why === "done" ? "done_before" : "not_due");
  }
  if (heldElsewhere.length) {
    throw new DeliveryHeld(`deliveries ${heldElsewhere.join(", ")} are being attempted by another worker`);
  }
  return keys.map((k) => outcomes.get(k.id)!);
}

/** Starts the dispatcher and the delivery worker. */
export async function startWebhookWorkers(ctx: AppContext): Promise<void> {
  await ensureDeliveryQueue(ctx.jobs);
  const boss = await ctx.jobs.boss();
  // Two jobs a fetch, fetched again at once while fetches come back full (pg-boss ignores burstWhenBatchFull at a
  // batch of one, and would wait the polling interval after every job); two such loops a process.
  await boss.work(
    queues.webhookDeliver,
    {
      includeMetadata: true,
      perJobResults: true,
      batchSize: 2,
      burstWhenBatchFull: true,
      pollingIntervalSeconds: 0.5,
      localConcurrency: 2,
    },
    (jobs: JobWithMetadata<DeliveryJob>[]) =>
      Promise.all(
        jobs.map(async (job): Promise<JobResult> => {
          const keys = job.data.deliveries.map(([workspaceId, id]) => ({ workspaceId, id }));
          try {
            const outcomes = await attemptDeliveries(ctx, keys);
            ctx.log.debug("webhook deliveries", { deliveries: keys.length, outcomes });
            return { id: job.id, status: "completed", output: { outcomes } };
          } catch (error) {
            const message = String((error as Error)?.message ?? error);
            ctx.log.warn("webhook delivery job failed", { deliveries: keys.length, error: message });
            return { id: job.id, status: "failed", output: { error: message } };
          }
        }),
      ),
  );
  // A job that gave up (every try interrupted) leaves its pending deliveries failed.
  await boss.work(
    deliveryQueuePolicy.deadLetter!,
    { pollingIntervalSeconds: 5 },
    async ([job]: { data: DeliveryJob }[]) => {
      const keys = job!.data.deliveries.map(([workspaceId, id]) => ({ workspaceId, id }));
      await abandonDeliveries(ctx.db, keys, false);
    },
  );
  startDispatcher(ctx);
  ctx.log.info("worker started", { queue: queues.webhookDeliver });
}
