/** The worker that emails landlord portal invitations: at least once, never twice for one invitation. */
import type { JobResult, JobWithMetadata } from "pg-boss";
import { queues, type Jobs, type QueuePolicy } from "../core/jobs.ts";
import type { AppContext } from "../core/operation.ts";
import { createMailer, type Mailer, messageIdOf, type SentEmail } from "../email/transport.ts";
import { invitationEmail } from "./invitation_email.ts";
import { hashInvitationToken, invitationLink, newInvitationToken } from "./invitation_token.ts";
import { lockDelivery, markFailed, markSent, markSkipped } from "./queries.ts";
import { errorText } from "../core/error_text.ts";

/** The data of an invitation email job. */
export interface InviteEmailJob {
  workspaceId: string;
  invitationId: string;
}

/**
 * Retries back off from 30 s, doubling with jitter, to at most an hour (one to two hours in all); then the job goes
 * to the dead-letter queue with its last error. A job whose worker died (its heartbeat stopped for 10 s) is found
 * within the supervisor's 10 s and retried after the first retry delay (30 to 60 s): about a minute after the
 * crash, at most ~80 s. The delivery ledger keeps a retry of a job still being sent from sending twice. A handler
 * that never returns is failed after 10 minutes (a batch of 5 sends ends well before that: every SMTP phase times
 * out within 30 s).
 */
export const inviteEmailQueuePolicy: QueuePolicy = {
  retryLimit: 8,
  retryDelay: 30,
  retryBackoff: true,
  retryDelayMax: 3600,
  expireInSeconds: 600,
  heartbeatSeconds: 10,
  deadLetter: `${queues.inviteEmail}-dead`,
};

/** Creates the invitation email queue and its dead-letter queue if missing. */
export function ensureInviteEmailQueue(jobs: Jobs): Promise<void> {
  return jobs.ensureQueue(queues.inviteEmail, inviteEmailQueuePolicy);
}

/** What one run of an invitation's job did. */
export type DeliveryOutcome = "sent" | "already_sent" | "skipped" | "missing";

/**
 * Sends one invitation's email unless its ledger says it was sent. The ledger row stays locked while the
 * message goes out and is marked sent in the same transaction, so concurrent or repeated runs of the job send
 * it once. The link's token is minted here and only its hash is stored. Throws when sending failed.
 */
export async function deliverInvitationEmail(
  ctx: Pick<AppContext, "db" | "config">,
  mailer: Mailer,
  job: InviteEmailJob,
  attempt: { final: boolean },
): Promise<DeliveryOutcome> {
  const { workspaceId, invitationId } = job;
  const result = await ctx.db.begin(async (tx) => {
    const delivery = await lockDelivery(tx, workspaceId, invitationId);
    if (!delivery) return { outcome: "missing" as const };
    if (delivery.status === "sent") return { outcome: "already_sent" as const };
    if (delivery.status === "skipped") return { outcome: "skipped" as const };
    if (delivery.superseded || delivery.accessStatus !== "pending") {
      const reason = delivery.superseded
        ? "superseded by a newer invitation"
        : `portal access is ${delivery.accessStatus ?? "gone"}`;
      await markSkipped(tx, workspaceId, invitationId, reason);
      return { outcome: "skipped" as const };
    }
    const token = newInvitationToken();
    const parts = invitationEmail({
      workspaceName: delivery.workspaceName,
      landlordName: delivery.landlordName,
      link: invitationLink(ctx.config.portalBaseUrl, token),
      expiresAt: delivery.expiresAt,
    });
    let sent: SentEmail;
    try {
      sent = await mailer.send({
        to: delivery.email,
        ...parts,
        messageId: messageIdOf(ctx.config.emailFrom, `invitation-${invitationId}`),
        reference: `invitation-${invitationId}`,
      });
    } catch (error) {
      await markFailed(tx, workspaceId, invitationId, errorText(error), attempt.final);
      return { outcome: "failed" as const, error };
    }
    await markSent(tx, workspaceId, invitationId, { tokenHash: hashInvitationToken(token), ...sent });
    return { outcome: "sent" as const };
  });
  if (result.outcome === "failed") throw result.error;
  return result.outcome;
}

/**
 * Starts the invitation email worker on the service's job queue. Two loops each take up to 5 jobs at a time and
 * send them one after the other (so the worker holds at most two database connections), fetching again at once
 * while batches come back full; each job is settled on its own.
 */
export async function startInviteEmailWorker(ctx: AppContext, options: { mailer?: Mailer } = {}): Promise<void> {
  const mailer = options.mailer ?? createMailer(ctx.config, ctx.log);
  await ensureInviteEmailQueue(ctx.jobs);
  const boss = await ctx.jobs.boss();
  await boss.work(
    queues.inviteEmail,
    {
      includeMetadata: true,
      perJobResults: true,
      batchSize: 5,
      burstWhenBatchFull: true,
      pollingIntervalSeconds: 1,
      localConcurrency: 2,
    },
    async (jobs: JobWithMetadata<InviteEmailJob>[]) => {
      const results: JobResult[] = [];
      for (const job of jobs) {
        const attempt = job.retryCount + 1;
        const final = job.retryCount >= job.retryLimit;
        try {
          const outcome = await deliverInvitationEmail(ctx, mailer, job.data, { final });
          ctx.log.info("invitation email", { invitationId: job.data.invitationId, outcome, attempt });
          results.push({ id: job.id, status: "completed", output: { outcome } });
        } catch (error) {
          ctx.log.warn("invitation email failed", {
            invitationId: job.data.invitationId,
            attempt,
            final,
            error: errorText(error),
          });
          results.push({ id: job.id, status: "failed", output: { message: errorText(error) } });
        }
      }
      return results;
    },
  );
  boss.once("stopped", () => mailer.close());
  ctx.log.info("worker started", { queue: queues.inviteEmail, transport: mailer.kind });
}
