/** The worker that hands queued SMS to the provider: at least once, never twice for one message. */
import type { JobResult, JobWithMetadata } from "pg-boss";
import { queues, type Jobs, type QueuePolicy } from "../core/jobs.ts";
import type { AppContext } from "../core/operation.ts";
import { smsProviderFor, SmsSendError, type SmsProvider } from "./provider.ts";
import { claimMessage, lockSending, markSent, recordFailure } from "./queries.ts";

/** The data of an SMS job. */
export interface SmsJob {
  workspaceId: string;
  messageId: string;
}

/**
 * Retries back off from 5 s to at most 15 minutes (about an hour in all); then the message is `failed` with
 * its last error and the job goes to the dead-letter queue. A job whose worker died is retried after 60 s
 * (a provider request gives up after 15 s).
 */
export const smsQueuePolicy: QueuePolicy = {
  retryLimit: 8,
  retryDelay: 5,
  retryBackoff: true,
  retryDelayMax: 900,
  expireInSeconds: 60,
  deadLetter: `${queues.smsSend}-dead`,
};

/** Creates the SMS queue and its dead-letter queue if missing. */
export function ensureSmsQueue(jobs: Jobs): Promise<void> {
  return jobs.ensureQueue(queues.smsSend, smsQueuePolicy);
}

/** What one run of a message's job did. */
export type SmsOutcome = "sent" | "done_before" | "failed";

function describe(error: unknown): string {
  return String((error as Error)?.message ?? error).slice(0, 2000);
}

/**
 * Sends one message unless it was sent (or failed for good) already. The attempt is counted first; then the
 * message row stays locked while the provider is called and is marked sent in the same transaction, so
 * attempts never overlap and a sent message is never sent again. A crash between the provider's answer and
 * the commit leaves the message `sending`: the retry calls the provider again with the same idempotency key
 * (the message id), which the provider answers without sending twice.
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
    const sent = await ctx.db.begin(async (tx) => {
      if (!(await lockSending(tx, workspaceId, messageId))) return false;
      const { providerMessageId } = await provider.send(tx, {
        workspaceId, messageId, from: claimed.from, to: claimed.to, body: claimed.body,
      });
      await markSent(tx, workspaceId, messageId, providerMessageId);
      return true;
    });
    return sent ? "sent" : "done_before";
  } catch (error) {
    const permanent = error instanceof SmsSendError && error.permanent;
    await recordFailure(ctx.db, workspaceId, messageId, describe(error), permanent || attempt.final);
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
    { includeMetadata: true, perJobResults: true, batchSize: 10, burstWhenBatchFull: true, pollingIntervalSeconds: 1, localConcurrency: 2 },
    (batch: JobWithMetadata<SmsJob>[]) =>
      Promise.all(batch.map(async (job): Promise<JobResult> => {
        const final = job.retryCount >= job.retryLimit;
        const fields = { workspaceId: job.data.workspaceId, messageId: job.data.messageId, attempt: job.retryCount + 1 };
        try {
          const outcome = await deliverSms(ctx, provider, job.data, { final });
          if (outcome === "failed") ctx.log.warn("sms refused by the provider", fields);
          else ctx.log.info("sms", { ...fields, outcome });
          return { id: job.id, status: "completed", output: { outcome } };
        } catch (error) {
          ctx.log.warn("sms attempt failed", { ...fields, final, error: describe(error) });
          return { id: job.id, status: "failed", output: { error: describe(error) } };
        }
      })),
  );
  // A job that gave up (its last attempt failed or was interrupted) marks its message failed, if it is not yet.
  await boss.work(smsQueuePolicy.deadLetter!, { pollingIntervalSeconds: 5 }, async ([job]: { data: SmsJob }[]) => {
    await recordFailure(ctx.db, job!.data.workspaceId, job!.data.messageId, "gave up: the last attempt was interrupted", true);
  });
  ctx.log.info("worker started", { queue: queues.smsSend, provider: provider.kind });
}
