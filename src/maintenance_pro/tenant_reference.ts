/**
 * The reference of a repair a tenant reported, sent to them once: the report writes a notice row and queues a job
 * (tenant-link queue) in its own transaction; the job locks the row while it sends and marks it sent in the same
 * transaction, so a retry, or a second run at once, sends nothing again.
 */
import { ukTimeText } from "../core/dates.ts";
import type { AppContext } from "../core/operation.ts";
import { br, type LinkEmail, linkEmail, oneLine } from "../email/link_email.ts";
import type { Mailer } from "../email/transport.ts";
import { messageIdOf } from "../email/transport.ts";
import { ensureSmsQueue } from "../telephony/worker.ts";
import { lockRepairNotice, markRepairNoticeSent } from "./tenant_queries.ts";
import { queueTenantSms } from "./tenant_sms.ts";

/** The job sending a repair's reference to the tenant who reported it. */
export interface TenantReferenceJob {
  kind: "reference";
  workspaceId: string;
  repairId: string;
}

/** The email carrying a repair's reference, and the link to the page where the tenant asks for a new link. */
export function referenceEmail(input: {
  workspaceName: string;
  reference: string;
  title: string;
  reportedAt: string;
  reportPage: string;
}): LinkEmail {
  const workspace = oneLine(input.workspaceName);
  return linkEmail({
    subject: `Your repair reference ${input.reference} with ${workspace}`,
    greeting: "Hello,",
    before: [
      [
        `We received your repair report (${oneLine(input.title)}) on ${ukTimeText(input.reportedAt)}. `,
        "Its reference is ",
        { strong: input.reference },
        ":",
        br,
        "please quote it when you contact us about it.",
      ],
    ],
    link: {
      url: input.reportPage,
      button: "Ask for a new link",
      lead: ["To see what must happen by when, ask for a new link", { textOnly: " at" }, { htmlOnly: ":" }],
      inline: true,
    },
    after: [["If anyone is in danger now, call 999. If you smell gas, call 0800 111 999."]],
    signature: workspace,
  });
}

/** The SMS carrying a repair's reference. */
export function referenceSms(input: { workspaceName: string; reference: string }): string {
  const workspace = oneLine(input.workspaceName).slice(0, 80);
  return `${workspace}: we received your repair report. Your reference is ${input.reference}. If anyone is in \
danger call 999; if you smell gas call 0800 111 999.`;
}

/** What one run of a reference's job did. */
export type ReferenceOutcome = "sent" | "already_sent" | "missing";

/**
 * Sends a repair's reference to its tenant unless its notice says it was sent: by email when the tenant has an
 * address, and by SMS when the workspace has the telephony module, the tenant a mobile and their thread is not
 * stopped (tenant_sms.ts). The notice stays locked while the message goes out and is marked sent in the same
 * transaction; a failure rolls it back (the SMS queued with it too) and is thrown for the queue to retry.
 */
export async function deliverRepairReference(
  ctx: Pick<AppContext, "db" | "config" | "jobs">,
  mailer: Mailer,
  job: TenantReferenceJob,
): Promise<ReferenceOutcome> {
  await ensureSmsQueue(ctx.jobs);
  return ctx.db.begin(async (tx): Promise<ReferenceOutcome> => {
    const notice = await lockRepairNotice(tx, job.workspaceId, job.repairId);
    if (!notice) return "missing";
    if (notice.sent) return "already_sent";
    // The SMS first: it only writes rows, which the email's failure rolls back with the rest.
    if (notice.telephony && notice.mobileNorm) {
      await queueTenantSms(tx, ctx, {
        workspaceId: job.workspaceId,
        mobile: notice.mobileNorm,
        body: referenceSms(notice),
        requestId: `tenant-reference-${job.repairId}`,
      });
    }
    if (notice.email) {
      const reportPage = `${ctx.config.publicBaseUrl.replace(/\/+$/, "")}/report/${notice.workspaceSlug}`;
      await mailer.send({
        to: notice.email,
        ...referenceEmail({ ...notice, reportPage }),
        messageId: messageIdOf(ctx.config.emailFrom, `tenant-reference-${job.repairId}`),
        reference: `tenant-reference-${job.repairId}`,
      });
    }
    await markRepairNoticeSent(tx, job.workspaceId, job.repairId);
    return "sent";
  });
}
