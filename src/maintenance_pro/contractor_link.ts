/**
 * The contractor's link to a works order: queued by the raise (in its transaction), emailed by the link worker at
 * least once and never twice (the ledger row stays locked while the message goes out). The token is random, minted
 * when the email is sent, shown only in it and stored only as its SHA-256 (as invitation tokens are). The link opens
 * the order's page while the order is open and, read-only, for `contractorLinkGraceDays` after it closed.
 */
import type { JobResult, JobWithMetadata } from "pg-boss";
import { errorText } from "../core/error_text.ts";
import type { Jobs, QueuePolicy } from "../core/jobs.ts";
import type { AppContext } from "../core/operation.ts";
import { ukTimeText } from "../core/dates.ts";
import { html } from "../core/html.ts";
import { createMailer, type Mailer, messageIdOf, type SentEmail } from "../email/transport.ts";
import { hashInvitationToken, newInvitationToken } from "./invitation_token.ts";
import { oneLine } from "./invitation_email.ts";
import {
  contractorLinkGraceDays,
  lockContractorDelivery,
  markContractorLinkFailed,
  markContractorLinkSent,
  markContractorLinkSkipped,
} from "./contractor_queries.ts";

/** The queue of link emails, one job per works order. */
export const contractorLinkQueue = "contractor-link";

/** Retries from 30 s doubling to at most an hour; exhausted jobs go to the dead-letter queue (as invitations). */
export const contractorLinkQueuePolicy: QueuePolicy = {
  retryLimit: 8,
  retryDelay: 30,
  retryBackoff: true,
  retryDelayMax: 3600,
  expireInSeconds: 600,
  heartbeatSeconds: 10,
  deadLetter: `${contractorLinkQueue}-dead`,
};

/** A link email job: the order whose link to send. */
export interface ContractorLinkJob {
  workspaceId: string;
  worksOrderId: string;
}

/** Creates the link queue and its dead-letter queue if missing (once for each queue client). */
export function ensureContractorLinkQueue(jobs: Jobs): Promise<void> {
  return jobs.ensureQueue(contractorLinkQueue, contractorLinkQueuePolicy);
}

/** The page of a link: `<public base>/contractor/<token>`. */
export function contractorLinkUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl.replace(/\/+$/, "")}/contractor/${token}`;
}

/** The email carrying a link. */
export function contractorLinkEmail(input: {
  workspaceName: string;
  contractorName: string;
  reference: string;
  address: string;
  requiredBy: string | null;
  link: string;
}) {
  const workspace = oneLine(input.workspaceName);
  const name = oneLine(input.contractorName);
  const address = oneLine(input.address);
  const due = input.requiredBy ? `It is required by ${ukTimeText(input.requiredBy)}.` : "";
  const subject = `Works order ${input.reference} from ${workspace}`;
  const lifetime =
    `The link works until the order is closed and for ${contractorLinkGraceDays} days after. ` +
    "Do not share it: anyone with it can act on the order.";
  const text = [
    `Dear ${name},`,
    "",
    `${workspace} has sent you works order ${input.reference} at ${address}. ${due}`.trim(),
    "",
    "Open it to accept or decline it, agree an appointment and record your visits:",
    input.link,
    "",
    lifetime,
    "",
    workspace,
    "",
  ].join("\r\n");
  const markup = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${subject}</title></head>
<body style="font-family: Arial, sans-serif; line-height: 1.5; color: #222;">
<p>Dear ${name},</p>
<p><strong>${workspace}</strong> has sent you works order <strong>${input.reference}</strong> at ${address}. ${due}</p>
<p><a href="${input.link}">Open the works order</a></p>
<p>Or copy this link into your browser:<br>${input.link}</p>
<p>${lifetime}</p>
<p>${workspace}</p>
</body></html>
`;
  return { subject, text, html: markup.toString() };
}

/** What one run of a link's job did. */
export type ContractorLinkOutcome = "sent" | "already_sent" | "skipped" | "missing";

/**
 * Sends one order's link unless its ledger says it was sent or skipped. The ledger row stays locked while the
 * message goes out and is marked sent in the same transaction, so concurrent or repeated runs send it once. The
 * token is minted here and only its hash stored. Throws when sending failed.
 */
export async function deliverContractorLink(
  ctx: Pick<AppContext, "db" | "config">,
  mailer: Mailer,
  job: ContractorLinkJob,
  attempt: { final: boolean },
): Promise<ContractorLinkOutcome> {
  const { workspaceId, worksOrderId } = job;
  const result = await ctx.db.begin(async (tx) => {
    const delivery = await lockContractorDelivery(tx, workspaceId, worksOrderId);
    if (!delivery) return { outcome: "missing" as const };
    if (delivery.status === "sent") return { outcome: "already_sent" as const };
    if (delivery.status === "skipped") return { outcome: "skipped" as const };
    const closedFirst = ["completed", "declined", "cancelled"].includes(delivery.orderStatus);
    if (!delivery.email || closedFirst) {
      const reason = delivery.email ? `the order is ${delivery.orderStatus}` : "the contractor has no email address";
      await markContractorLinkSkipped(tx, workspaceId, worksOrderId, reason);
      return { outcome: "skipped" as const };
    }
    const token = newInvitationToken();
    const parts = contractorLinkEmail({
      workspaceName: delivery.workspaceName,
      contractorName: delivery.contractorName,
      reference: delivery.reference,
      address: delivery.address,
      requiredBy: delivery.requiredBy,
      link: contractorLinkUrl(ctx.config.publicBaseUrl, token),
    });
    let sent: SentEmail;
    try {
      sent = await mailer.send({
        to: delivery.email,
        ...parts,
        messageId: messageIdOf(ctx.config.emailFrom, `works-order-${worksOrderId}`),
        reference: `works-order-${worksOrderId}`,
      });
    } catch (error) {
      await markContractorLinkFailed(tx, workspaceId, worksOrderId, errorText(error), attempt.final);
      return { outcome: "failed" as const, error };
    }
    await markContractorLinkSent(tx, workspaceId, worksOrderId, { tokenHash: hashInvitationToken(token), ...sent });
    return { outcome: "sent" as const };
  });
  if (result.outcome === "failed") throw result.error;
  return result.outcome;
}

/** Starts the link worker: up to 5 jobs at a time, each settled on its own. */
export async function startContractorLinkWorker(ctx: AppContext, options: { mailer?: Mailer } = {}): Promise<void> {
  const mailer = options.mailer ?? createMailer(ctx.config, ctx.log);
  await ensureContractorLinkQueue(ctx.jobs);
  const boss = await ctx.jobs.boss();
  await boss.work(
    contractorLinkQueue,
    { includeMetadata: true, perJobResults: true, batchSize: 5, pollingIntervalSeconds: 1 },
    async (jobs: JobWithMetadata<ContractorLinkJob>[]) => {
      const results: JobResult[] = [];
      for (const job of jobs) {
        const final = job.retryCount >= job.retryLimit;
        try {
          const outcome = await deliverContractorLink(ctx, mailer, job.data, { final });
          ctx.log.info("contractor link email", { worksOrderId: job.data.worksOrderId, outcome });
          results.push({ id: job.id, status: "completed", output: { outcome } });
        } catch (error) {
          ctx.log.warn("contractor link email failed", {
            worksOrderId: job.data.worksOrderId,
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
  ctx.log.info("worker started", { queue: contractorLinkQueue, transport: mailer.kind });
}
