/**
 * The contractor's link to a works order: queued by the raise (in its transaction), emailed by the link worker at
 * least once and never twice (the ledger row stays locked while the message goes out). The token is random, minted
 * when the email is sent, shown only in it and stored only as its SHA-256 (as invitation tokens are). The link opens
 * the order's page while the order is open and, read-only, for `contractorLinkGraceDays` after it closed.
 */
import { ukTimeText } from "../core/dates.ts";
import type { Jobs, QueuePolicy } from "../core/jobs.ts";
import type { AppContext } from "../core/operation.ts";
import { type LinkEmail, linkEmail, oneLine } from "../email/link_email.ts";
import { startMailWorker } from "../email/mail_worker.ts";
import type { Mailer } from "../email/transport.ts";
import { deliverLinkOnce, type LinkDeliveryOutcome, type LinkLedger } from "./link_delivery.ts";
import {
  type ContractorDeliveryRow,
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
}): LinkEmail {
  const workspace = oneLine(input.workspaceName);
  const due = input.requiredBy ? ` It is required by ${ukTimeText(input.requiredBy)}.` : "";
  return linkEmail({
    subject: `Works order ${input.reference} from ${workspace}`,
    greeting: `Dear ${oneLine(input.contractorName)},`,
    before: [
      [
        { strong: workspace },
        " has sent you works order ",
        { strong: input.reference },
        ` at ${oneLine(input.address)}.${due}`,
      ],
    ],
    link: {
      url: input.link,
      button: "Open the works order",
      lead: [{ textOnly: "Open it to accept or decline it, agree an appointment and record your visits:" }],
    },
    after: [
      [
        `The link works until the order is closed and for ${contractorLinkGraceDays} days after. ` +
          "Do not share it: anyone with it can act on the order.",
      ],
    ],
    signature: workspace,
  });
}

/**
 * Sends one order's link unless its ledger says it was sent or skipped (link_delivery.ts): once, whatever runs of its
 * job there are. A contractor without an email address, or an order closed before its link went, is skipped. Throws
 * when sending failed.
 */
export function deliverContractorLink(
  ctx: Pick<AppContext, "db" | "config">,
  mailer: Mailer,
  job: ContractorLinkJob,
  attempt: { final: boolean },
): Promise<LinkDeliveryOutcome> {
  return deliverLinkOnce(
    ctx,
    mailer,
    contractorLedger,
    {
      workspaceId: job.workspaceId,
      id: job.worksOrderId,
      address: (delivery) => {
        if (!delivery.email) return { skip: "the contractor has no email address" };
        if (closedStatuses.includes(delivery.orderStatus)) return { skip: `the order is ${delivery.orderStatus}` };
        return { to: delivery.email };
      },
      compose: (delivery, token) =>
        contractorLinkEmail({ ...delivery, link: contractorLinkUrl(ctx.config.publicBaseUrl, token) }),
      reference: `works-order-${job.worksOrderId}`,
    },
    attempt,
  );
}

/** The ledger of the link emails (contractor_links). */
const contractorLedger: LinkLedger<ContractorDeliveryRow> = {
  lock: lockContractorDelivery,
  markSkipped: markContractorLinkSkipped,
  markFailed: markContractorLinkFailed,
  markSent: markContractorLinkSent,
};

/** The statuses of a closed order: its link is no longer sent. */
const closedStatuses = ["completed", "declined", "cancelled"];

/** Starts the link worker: up to 5 jobs at a time, each settled on its own. */
export async function startContractorLinkWorker(ctx: AppContext, options: { mailer?: Mailer } = {}): Promise<void> {
  await startMailWorker<ContractorLinkJob>(ctx, options.mailer, {
    queue: contractorLinkQueue,
    policy: contractorLinkQueuePolicy,
    name: "contractor link email",
    fields: (job) => ({ worksOrderId: job.data.worksOrderId }),
    run: async (mailer, job, attempt) => ({ outcome: await deliverContractorLink(ctx, mailer, job.data, attempt) }),
  });
}
