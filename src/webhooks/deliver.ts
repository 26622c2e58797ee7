/**
 * The delivery worker: one POST per attempt, signed per Standard Webhooks, within WEBHOOK_TIMEOUT_MS (10 s) for the
 * whole exchange; 2xx is delivered; otherwise the next attempt is queued after the retry schedule's delay, in the
 * transaction that records this one. At least once; a delivery is attempted by one worker at a time (a lease).
 */
import type { JobResult, JobWithMetadata } from "pg-boss";
import type { Tx } from "../core/db.ts";
import { queues, type Jobs, type QueuePolicy } from "../core/jobs.ts";
import type { AppContext } from "../core/operation.ts";
import { recordEvent } from "../events/record.ts";
import { checkWebhookUrl } from "./address.ts";
import { startDispatcher } from "./dispatcher.ts";
import { WebhookUrlRefused } from "./errors.ts";
import { webhookDisabled } from "./events.ts";
import {
  abandonDelivery,
  claimDelivery,
  noteSubscriptionFailure,
  recordAttempt,
  recordDelivered,
  type AttemptRecord,
  type ClaimedDelivery,
} from "./queries.ts";
import { signatureHeader } from "./signature.ts";

/** The data of a delivery job. */
export interface DeliveryJob {
  deliveryId: string;
}

/** Bytes of a receiver's answer kept with the attempt. */
export const responseCap = 1024;
/** Days of failing deliveries after which a subscription is disabled. */
export const disableAfterDays = 5;

/**
 * The queue's own retries cover only an attempt that did not finish (a crash: the heartbeat stops; or the delivery
 * held by another worker); the retry schedule of failed attempts is the delivery's, each attempt a job of its own.
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
  let text = new TextDecoder("utf-8").decode(bytes.subarray(0, cap), { stream: true }).replaceAll("\u0000", "");
  while (Buffer.byteLength(text) > cap) text = text.slice(0, -1);
  return text;
}

/** Reads at most `cap` bytes of a body, then cancels it; never waits past `deadline` (the attempt's end). */
async function readCapped(res: Response, cap: number, deadline: Promise<never>): Promise<Uint8Array> {
  const reader = res.body?.getReader();
  if (!reader) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < cap) {
      const { done, value } = await Promise.race([reader.read(), deadline]);
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } finally {
    reader.cancel().catch(() => {});
  }
  return Buffer.concat(chunks).subarray(0, cap);
}

/** What one POST gave: a status and the start of the body, or an error. */
interface Exchange {
  status: number | null;
  body: string | null;
  error: string | null;
}

/** POSTs the signed event to the subscription's URL, the whole exchange bounded by `timeoutMs`. */
export async function post(
  claimed: Pick<ClaimedDelivery, "url" | "eventId" | "body" | "secrets">,
  timeoutMs: number,
  now = Date.now(),
): Promise<Exchange> {
  const timestamp = Math.floor(now / 1000);
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
  });
  deadline.catch(() => {});
  try {
    const res = await Promise.race([
      fetch(claimed.url, {
        method: "POST",
        redirect: "manual",
        signal: controller.signal,
        headers: {
          "content-type": "application/json",
          "user-agent": "lettings-service-webhooks/1",
          "webhook-id": claimed.eventId,
          "webhook-timestamp": String(timestamp),
          "webhook-signature": signatureHeader(claimed.secrets, claimed.eventId, timestamp, claimed.body),
        },
        body: claimed.body,
      }),
      deadline,
    ]);
    let body: string | null = null;
    let error: string | null = null;
    try {
      body = storable(await readCapped(res, responseCap, deadline), responseCap);
    } catch (e) {
      error = `reading the answer: ${(e as Error).message}`;
    }
    return { status: res.status, body, error };
  } catch (e) {
    const message = controller.signal.aborted ? `timed out after ${timeoutMs} ms` : (e as Error).message;
    return { status: null, body: null, error: String(message).slice(0, 2000) };
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

/** What one job of a delivery did. */
export type DeliveryOutcome = "delivered" | "retry" | "failed" | "done_before" | "not_due" | "abandoned";

/** Records a failed attempt, queues the next one or fails the delivery, and may disable the subscription. */
async function settleFailure(ctx: AppContext, tx: Tx, claimed: ClaimedDelivery, record: AttemptRecord) {
  const delays = ctx.config.webhookRetryDelays;
  const retry = claimed.attempt <= delays.length;
  await recordAttempt(
    tx,
    record,
    retry ? { kind: "retry", inSeconds: delays[claimed.attempt - 1]! } : { kind: "failed" },
  );
  if (retry) {
    await ctx.jobs.send(
      tx,
      queues.webhookDeliver,
      { deliveryId: record.deliveryId },
      { startAfter: delays[claimed.attempt - 1]! },
    );
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

/** The delivery is held by another worker: pg-boss retries the job later. */
class DeliveryHeld extends Error {}

/** Makes one attempt of a delivery, if it is due and not held. */
export async function attemptDelivery(ctx: AppContext, deliveryId: string): Promise<DeliveryOutcome> {
  const leaseSeconds = Math.ceil(ctx.config.webhookTimeoutMs / 1000) + 15;
  const claimed = await claimDelivery(ctx.db, deliveryId, leaseSeconds);
  if (claimed === "done") return "done_before";
  if (claimed === "not_due") return "not_due";
  if (claimed === "held") throw new DeliveryHeld(`delivery ${deliveryId} is being attempted by another worker`);
  if (claimed.subscriptionStatus !== "active" || claimed.body === null) {
    await abandonDelivery(ctx.db, deliveryId, true);
    return "abandoned";
  }
  const startedAt = new Date();
  let exchange: Exchange;
  try {
    await checkWebhookUrl(claimed.url, { allowPrivate: ctx.config.webhooksAllowPrivate });
    exchange = await post(claimed, ctx.config.webhookTimeoutMs, startedAt.getTime());
  } catch (error) {
    if (!(error instanceof WebhookUrlRefused)) throw error;
    exchange = { status: null, body: null, error: `refused: ${error.fields.reason}` };
  }
  const ok = exchange.status !== null && exchange.status >= 200 && exchange.status < 300;
  const record: AttemptRecord = {
    workspaceId: claimed.workspaceId,
    deliveryId,
    attempt: claimed.attempt,
    startedAt,
    durationMs: Date.now() - startedAt.getTime(),
    responseStatus: exchange.status,
    responseBody: exchange.body,
    error: exchange.error ?? (ok ? null : `answered ${exchange.status}`),
  };
  // A success is one statement; a failure may queue a job and record an event, so it takes a transaction.
  if (ok) {
    await recordDelivered(ctx.db, record, claimed.subscriptionId);
    return "delivered";
  }
  return ctx.db.begin((tx) => settleFailure(ctx, tx, claimed, record));
}

/** Starts the dispatcher and the delivery worker. */
export async function startWebhookWorkers(ctx: AppContext): Promise<void> {
  await ensureDeliveryQueue(ctx.jobs);
  const boss = await ctx.jobs.boss();
  await boss.work(
    queues.webhookDeliver,
    {
      includeMetadata: true,
      perJobResults: true,
      batchSize: 20,
      burstWhenBatchFull: true,
      pollingIntervalSeconds: 0.5,
      localConcurrency: 2,
    },
    (batch: JobWithMetadata<DeliveryJob>[]) =>
      Promise.all(
        batch.map(async (job): Promise<JobResult> => {
          try {
            const outcome = await attemptDelivery(ctx, job.data.deliveryId);
            ctx.log.debug("webhook delivery", { deliveryId: job.data.deliveryId, outcome });
            return { id: job.id, status: "completed", output: { outcome } };
          } catch (error) {
            const message = String((error as Error)?.message ?? error);
            ctx.log.warn("webhook delivery job failed", { deliveryId: job.data.deliveryId, error: message });
            return { id: job.id, status: "failed", output: { error: message } };
          }
        }),
      ),
  );
  // A job that gave up (every try interrupted) leaves its delivery failed.
  await boss.work(
    deliveryQueuePolicy.deadLetter!,
    { pollingIntervalSeconds: 5 },
    async ([job]: { data: DeliveryJob }[]) => {
      await abandonDelivery(ctx.db, job!.data.deliveryId, false);
    },
  );
  startDispatcher(ctx);
  ctx.log.info("worker started", { queue: queues.webhookDeliver });
}
