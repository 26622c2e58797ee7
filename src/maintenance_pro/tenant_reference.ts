/**
 * The reference of a repair a tenant reported, sent to them once: the report writes a notice row and queues a job
 * (tenant-link queue) in its own transaction; the job locks the row while it sends and marks it sent in the same
 * transaction, so a retry, or a second run at once, sends nothing again.
 */
import { ukTimeText } from "../core/dates.ts";
import { html } from "../core/html.ts";
import type { AppContext } from "../core/operation.ts";
import type { Mailer } from "../email/transport.ts";
import { messageIdOf } from "../email/transport.ts";
import { oneLine } from "./invitation_email.ts";
import { ensureSmsQueue } from "../telephony/worker.ts";
import { lockRepairNotice, markRepairNoticeSent } from "./tenant_queries.ts";
import { queueTenantSms } from "./tenant_sms.ts";

/** The job sending a repair's reference to the tenant who reported it. */
export interface TenantReferenceJob {
  kind: "reference";
  workspaceId: string;
  repairId: string;
}

/** The email carrying a repair's reference. */
export function referenceEmail(input: {
  workspaceName: string;
  reference: string;
  title: string;
  reportedAt: string;
  reportPage: string;
}) {
  const workspace = oneLine(input.workspaceName);
  const title = oneLine(input.title);
  const reported = ukTimeText(input.reportedAt);
  const subject = `Your repair reference ${input.reference} with ${workspace}`;
  const text = [
    "Hello,",
    "",
    `We received your repair report (${title}) on ${reported}. Its reference is ${input.reference}:`,
    "please quote it when you contact us about it.",
    "",
    `To see what must happen by when, ask for a new link at ${input.reportPage}`,
    "",
    "If anyone is in danger now, call 999. If you smell gas, call 0800 111 999.",
    "",
    workspace,
    "",
  ].join("\r\n");
  const markup = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${subject}</title></head>
<body style="font-family: Arial, sans-serif; line-height: 1.5; color: #222;">
<p>Hello,</p>
<p>We received your repair report (${title}) on ${reported}. Its reference is <strong>${input.reference}</strong>:
please quote it when you contact us about it.</p>
<p>To see what must happen by when, <a href="${input.reportPage}">ask for a new link</a>.</p>
<p>If anyone is in danger now, call 999. If you smell gas, call 0800 111 999.</p>
<p>${workspace}</p>
</body></html>
`;
  return { subject, text, html: markup.toString() };
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
