/**
 * The delivery worker: one POST per attempt, signed per Standard Webhooks, within WEBHOOK_TIMEOUT_MS (10 s) for the
 * whole exchange; 2xx is delivered; otherwise the next attempt is queued after the retry schedule's delay, in the
 * transaction that records this one. At least once; a delivery is attempted by one worker at a time (a lease).
 * First attempts are the dispatcher's (dispatcher.ts, with `attempt`, `post` and `settleFailure` from here); the
 * worker makes the retries, the first attempts to a failing subscription, and again any the dispatcher left unrecorded.
 */
import type { JobResult, JobWithMetadata } from "pg-boss";
import type { Tx } from "../core/db.ts";
import { queues, type Jobs, type QueuePolicy } from "../core/jobs.ts";
import type { AppContext } from "../core/operation.ts";
import { errorText } from "../core/error_text.ts";
import { recordEvent } from "../events/record.ts";
import { checkWebhookUrl, type WebhookTarget } from "./address.ts";
import { startDispatcher } from "./dispatcher.ts";
import { WebhookUrlRefused } from "./errors.ts";
import { http1Post, type Http1Post } from "./http1_client.ts";
import { webhookDisabled } from "./events.ts";
import {
  abandonDeliveries,
  claimDeliveries,
  noteSubscriptionFailure,
  recordAttempt,
  recordDelivered,
  type AttemptRecord,
  type ClaimedDelivery,
  type Deliverable,
  type DeliveryKey,
} from "./queries.ts";
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

/** What one job of a delivery did. */
export type DeliveryOutcome = "delivered" | "retry" | "failed" | "done_before" | "not_due" | "abandoned";

/** Records a failed attempt, queues the next one or fails the delivery, and may disable the subscription. */
export async function settleFailure(ctx: AppContext, tx: Tx, claimed: ClaimedDelivery, record: AttemptRecord) {
  const delays = ctx.config.webhookRetryDelays;
  const retry = claimed.attempt <= delays.length;
  await recordAttempt(
    tx,
    record,
    retry ? { kind: "retry", inSeconds: delays[claimed.attempt - 1]! } : { kind: "failed" },
  );
  if (retry) {
    await ctx.jobs.send(tx, queues.webhookDeliver, deliveryJob([claimed]), {
      startAfter: delays[claimed.attempt - 1]!,
    });
  }
  const disabled = await noteSubscriptionFailure(tx, claimed.workspaceId, claimed.subscriptionId, disableAfterDays);
  if (disabled) {
    await recordEvent(tx, webhookDisabled, {
      workspaceId: claimed.workspaceId,
      subjectId: disabled.id,
      data: disabled,
      requestId: null,
      actor: { kind: "worker", id: queues.webhookDeliver },
    });
  }
  return retry ? "retry" : "failed";
}

/** A delivery is held by another worker: pg-boss retries the job later (what this one settled is done by then). */
class DeliveryHeld extends Error {}

/**
 * Makes one attempt of a claimed delivery: checks the URL again (DNS may have changed; once a URL a batch) and POSTs.
 * Never throws: whatever goes wrong is the attempt's error. `ok`: the receiver answered 2xx.
 */
export async function attempt(
  ctx: AppContext,
  claimed: Deliverable,
  urlChecks: Map<string, Promise<WebhookTarget>>,
): Promise<AttemptRecord & { ok: boolean }> {
  const startedAt = new Date();
  let exchange: Exchange;
  try {
    let check = urlChecks.get(claimed.url);
    if (!check) {
      check = checkWebhookUrl(claimed.url, { allowPrivate: ctx.config.webhooksAllowPrivate });
      urlChecks.set(claimed.url, check);
    }
    exchange = await post(claimed, await check, ctx.config.webhookTimeoutMs, { now: startedAt.getTime() });
  } catch (error) {
    const reason = error instanceof WebhookUrlRefused ? `refused: ${error.fields.reason}` : String(error);
    exchange = { status: null, body: null, error: reason };
  }
  const ok = exchange.status !== null && exchange.status >= 200 && exchange.status < 300;
  return {
    ok,
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

/**
 * Makes one attempt of each given delivery that is due and not held, together: one statement claims them all, the
 * POSTs run at once, one statement records every success; a failure, which may queue a retry and record an event,
 * takes a transaction of its own. Answers each delivery's outcome, in the order given; throws `DeliveryHeld` after
 * settling the rest when another worker holds one of them.
 */
export async function attemptDeliveries(ctx: AppContext, keys: DeliveryKey[]): Promise<DeliveryOutcome[]> {
  const leaseSeconds = Math.ceil(ctx.config.webhookTimeoutMs / 1000) + 15;
  const { claimed, unclaimed } = await claimDeliveries(ctx.db, keys, leaseSeconds);
  const outcomes = new Map<string, DeliveryOutcome>();
  const sendable = (c: ClaimedDelivery): c is Deliverable => c.subscriptionStatus === "active" && c.body !== null;
  const live = claimed.filter(sendable);
  const dead = claimed.filter((c) => !sendable(c));
  if (dead.length) {
    await abandonDeliveries(ctx.db, dead, true);
    for (const c of dead) outcomes.set(c.id, "abandoned");
  }
  const urlChecks = new Map<string, Promise<WebhookTarget>>();
  const records = await Promise.all(live.map((c) => attempt(ctx, c, urlChecks)));
  const delivered = records.flatMap((r, i) => (r.ok ? [{ ...r, subscriptionId: live[i]!.subscriptionId }] : []));
  await recordDelivered(ctx.db, delivered);
  for (const r of delivered) outcomes.set(r.deliveryId, "delivered");
  for (const [i, r] of records.entries()) {
    if (r.ok) continue;
    outcomes.set(r.deliveryId, await ctx.db.begin((tx) => settleFailure(ctx, tx, live[i]!, r)));
  }
  const held: string[] = [];
  for (const [id, why] of unclaimed) {
    if (why === "held") held.push(id);
    outcomes.set(id, why === "done" ? "done_before" : "not_due");
  }
  if (held.length) throw new DeliveryHeld(`deliveries ${held.join(", ")} are being attempted by another worker`);
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
