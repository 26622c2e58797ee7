/** The worker that emails landlord portal invitations: at least once, never twice for one invitation. */
import { queues, type Jobs, type QueuePolicy } from "../core/jobs.ts";
import type { AppContext } from "../core/operation.ts";
import { startMailWorker } from "../email/mail_worker.ts";
import type { Mailer } from "../email/transport.ts";
import { invitationEmail } from "./invitation_email.ts";
import { invitationLink } from "./invitation_token.ts";
import { deliverLinkOnce, type LinkDeliveryOutcome } from "./link_delivery.ts";
import { lockDelivery, markFailed, markSent, markSkipped } from "./queries.ts";

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

/**
 * Sends one invitation's email unless its ledger says it was sent (link_delivery.ts): once, whatever runs of its job
 * there are. An invitation superseded by a newer one, or whose portal access is no longer pending, is skipped. Throws
 * when sending failed.
 */
export function deliverInvitationEmail(
  ctx: Pick<AppContext, "db" | "config">,
  mailer: Mailer,
  job: InviteEmailJob,
  attempt: { final: boolean },
): Promise<LinkDeliveryOutcome> {
  return deliverLinkOnce(
    ctx,
    mailer,
    { lock: lockDelivery, markSkipped, markFailed, markSent },
    {
      workspaceId: job.workspaceId,
      id: job.invitationId,
      address: (delivery) => {
        if (delivery.superseded) return { skip: "superseded by a newer invitation" };
        if (delivery.accessStatus !== "pending") return { skip: `portal access is ${delivery.accessStatus ?? "gone"}` };
        return { to: delivery.email };
      },
      compose: (delivery, token) =>
        invitationEmail({
          workspaceName: delivery.workspaceName,
          landlordName: delivery.landlordName,
          link: invitationLink(ctx.config.portalBaseUrl, token),
          expiresAt: delivery.expiresAt,
        }),
      reference: `invitation-${job.invitationId}`,
    },
    attempt,
  );
}

/**
 * Starts the invitation email worker on the service's job queue. Two loops each take up to 5 jobs at a time and
 * send them one after the other (so the worker holds at most two database connections), fetching again at once
 * while batches come back full; each job is settled on its own.
 */
export async function startInviteEmailWorker(ctx: AppContext, options: { mailer?: Mailer } = {}): Promise<void> {
  await startMailWorker<InviteEmailJob>(ctx, options.mailer, {
    queue: queues.inviteEmail,
    policy: inviteEmailQueuePolicy,
    loops: 2,
    burst: true,
    name: "invitation email",
    fields: (job) => ({ invitationId: job.data.invitationId }),
    run: async (mailer, job, attempt) => ({ outcome: await deliverInvitationEmail(ctx, mailer, job.data, attempt) }),
  });
}
