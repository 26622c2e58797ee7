/** The worker that hands queued SMS to the provider: at least once, never twice for one message. */
import type { JobResult, JobWithMetadata } from "pg-boss";
import { queues, type Jobs, type QueuePolicy } from "../core/jobs.ts";
import type { AppContext } from "../core/operation.ts";
import { smsProviderFor, SmsSendError, type SmsProvider } from "./provider.ts";
import type { Db } from "../core/db.ts";
import type { Actor } from "../events/record.ts";
import { recordStatusChanged } from "./events.ts";
import { claimMessage, failStopped, lockSending, markSent, recordFailure } from "./queries.ts";

/** The data of an SMS job. */
export interface SmsJob {
  workspaceId: string;
  messageId: string;
}

/**
 * Retries back off from 5 s to at most 15 minutes (about an hour in all); then the message is `failed` with
 * its last error and the job goes to the dead-letter queue. A job whose worker died (its heartbeat stopped for
 * 10 s) is found within the supervisor's 10 s and retried after the first retry delay (5 to 10 s): within ~30 s
 * of the crash. The message's row lock and the provider's idempotency key keep a retry from sending twice. A
 * handler that never returns is failed after 60 s (a provider request gives up after 15 s).
 */
export const smsQueuePolicy: QueuePolicy = {
  retryLimit: 8,
  retryDelay: 5,
  retryBackoff: true,
  retryDelayMax: 900,
  expireInSeconds: 60,
  heartbeatSeconds: 10,
  deadLetter: `${queues.smsSend}-dead`,
};

/** Creates the SMS queue and its dead-letter queue if missing. */
export function ensureSmsQueue(jobs: Jobs): Promise<void> {
  return jobs.ensureQueue(queues.smsSend, smsQueuePolicy);
}

const actor: Actor = { kind: "worker", id: "sms" };

/** Records a failed attempt (see recordFailure) and, when the message is now `failed`, its event. */
async function fail(db: Db, job: SmsJob, error: string, final: boolean): Promise<void> {
  await db.begin(async (tx) => {
    const changed = await recordFailure(tx, job.workspaceId, job.messageId, error, final);
    if (changed && final) await recordStatusChanged(tx, job.workspaceId, job.messageId, null, actor);
  });
}

/** What one run of a message's job did. */
export type SmsOutcome = "sent" | "done_before" | "failed" | "stopped";

function describe(error: unknown): string {
  return String((error as Error)?.message ?? error).slice(0, 2000);
}

/**
 * Sends one message unless it was sent (or failed for good) already. The attempt is counted first; then the
 * message row stays locked while the provider is called and is marked sent in the same transaction, so
 * attempts never overlap and a sent message is never sent again. A crash between the provider's answer and
 * the commit leaves the message `sending`: the retry calls the provider again with the same idempotency key
 * (the message id), which the provider answers without sending twice. A message whose thread was stopped (STOP)
 * once its row is held is failed with errorCode `stopped` instead of sent.
 * A permanent refusal marks the message failed; any other failure is rethrown for pg-boss to retry.
 */
export async function deliverSms(
  ctx: Pick<AppContext, "db" | "log">,
  provider: SmsProvider,
  job: SmsJob,
  attempt: { final: boolean },
): Promise<SmsOutcome> {
  const { workspaceId, messageId } = job;
  const claimed = await claimMessage(ctx.db, workspaceId, messageId);
  if (!claimed) return "done_before";
  try {
    return await ctx.db.begin(async (tx): Promise<SmsOutcome> => {
      const held = await lockSending(tx, workspaceId, messageId);
      if (!held) return "done_before";
      if (held.stopped) {
        // The recipient texted STOP after the message was claimed: it is not sent.
        await failStopped(tx, workspaceId, { messageId });
        await recordStatusChanged(tx, workspaceId, messageId, null, actor);
        return "stopped";
      }
      const { providerMessageId } = await provider.send(tx, {
        workspaceId,
        messageId,
        from: claimed.from,
        to: claimed.to,
        body: claimed.body,
      });
      await markSent(tx, workspaceId, messageId, providerMessageId);
      await recordStatusChanged(tx, workspaceId, messageId, null, actor);
      return "sent";
    });
  } catch (error) {
    const permanent = error instanceof SmsSendError && error.permanent;
    await fail(ctx.db, job, describe(error), permanent || attempt.final);
    if (permanent) return "failed";
    throw error;
  }
}

/** Starts the SMS worker on the service's job queue. */
export async function startSmsWorker(ctx: AppContext, options: { provider?: SmsProvider } = {}): Promise<void> {
  const provider = options.provider ?? smsProviderFor(ctx.config, ctx.log);
  await ensureSmsQueue(ctx.jobs);
  const boss = await ctx.jobs.boss();
  // Up to 10 jobs a fetch, sent side by side and settled one by one; full batches are fetched again at once.
  await boss.work(
    queues.smsSend,
    {
      includeMetadata: true,
      perJobResults: true,
      batchSize: 10,
      burstWhenBatchFull: true,
      pollingIntervalSeconds: 1,
      localConcurrency: 2,
    },
    (batch: JobWithMetadata<SmsJob>[]) =>
      Promise.all(
        batch.map(async (job): Promise<JobResult> => {
          const final = job.retryCount >= job.retryLimit;
          const fields = {
            workspaceId: job.data.workspaceId,
            messageId: job.data.messageId,
            attempt: job.retryCount + 1,
          };
          try {
            const outcome = await deliverSms(ctx, provider, job.data, { final });
            if (outcome === "failed") ctx.log.warn("sms refused by the provider", fields);
            else ctx.log.info("sms", { ...fields, outcome });
            return { id: job.id, status: "completed", output: { outcome } };
          } catch (error) {
            ctx.log.warn("sms attempt failed", { ...fields, final, error: describe(error) });
            return { id: job.id, status: "failed", output: { error: describe(error) } };
          }
        }),
      ),
  );
  // A job that gave up (its last attempt failed or was interrupted) marks its message failed, if it is not yet.
  await boss.work(smsQueuePolicy.deadLetter!, { pollingIntervalSeconds: 5 }, async ([job]: { data: SmsJob }[]) => {
    await fail(ctx.db, job!.data, "gave up: the last attempt was interrupted", true);
  });
  ctx.log.info("worker started", { queue: queues.smsSend, provider: provider.kind });
}
