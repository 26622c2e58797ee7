/**
 * A tenant's link to the repair page of one tenancy: asked for with the property's postcode and the email or mobile
 * the agency holds, sent by the link worker to every matching occupant, working 24 hours. The token is random,
 * shown only in the message and stored only as its SHA-256 (as invitation tokens are).
 */
import type { JobWithMetadata } from "pg-boss";
import { ulid } from "ulid";
import { normaliseEmail, normaliseMobile } from "../contacts/normalise.ts";
import type { Jobs, QueuePolicy } from "../core/jobs.ts";
import type { AppContext } from "../core/operation.ts";
import { ukTimeText } from "../core/dates.ts";
import { type LinkEmail, linkEmail, oneLine } from "../email/link_email.ts";
import { startMailWorker } from "../email/mail_worker.ts";
import { type Mailer, messageIdOf } from "../email/transport.ts";
import { hashInvitationToken, newInvitationToken } from "./invitation_token.ts";
import { claimTenantLink, matchTenants } from "./tenant_queries.ts";
import { deliverRepairReference, type TenantReferenceJob } from "./tenant_reference.ts";
import { queueTenantSms } from "./tenant_sms.ts";
import { ensureSmsQueue } from "../telephony/worker.ts";

/** How long a tenant's link works. */
export const tenantLinkHours = 24;

/**
 * The queue of link requests (each request is a job, so the answer takes the same time whatever it matches), and of
 * the references sent to tenants once they reported a repair.
 */
export const tenantLinkQueue = "tenant-link";

/** Retries from 30 s doubling to at most an hour; exhausted jobs go to the dead-letter queue. */
export const tenantLinkQueuePolicy: QueuePolicy = {
  retryLimit: 5,
  retryDelay: 30,
  retryBackoff: true,
  retryDelayMax: 3600,
  expireInSeconds: 600,
  heartbeatSeconds: 10,
  deadLetter: `${tenantLinkQueue}-dead`,
};

/** A link request as queued: the workspace's slug and what the person typed. */
export interface TenantLinkJob {
  kind?: "link";
  slug: string;
  postcode: string;
  contact: string;
}

/** Creates the link queue and its dead-letter queue if missing (once for each queue client: `Jobs` keeps it). */
export function ensureTenantLinkQueue(jobs: Jobs): Promise<void> {
  return jobs.ensureQueue(tenantLinkQueue, tenantLinkQueuePolicy);
}

/** The page of a link: `<public base>/report/<slug>/t/<token>`. */
export function tenantLinkUrl(publicBaseUrl: string, slug: string, token: string): string {
  return `${publicBaseUrl.replace(/\/+$/, "")}/report/${encodeURIComponent(slug)}/t/${token}`;
}

/** The email carrying a link. */
export function tenantLinkEmail(input: { workspaceName: string; link: string; expiresAt: string }): LinkEmail {
  const workspace = oneLine(input.workspaceName);
  return linkEmail({
    subject: `Your link to report a repair to ${workspace}`,
    greeting: "Hello,",
    before: [],
    link: {
      url: input.link,
      button: "Report or follow a repair",
      lead: [
        "You asked for a link to report a repair to ",
        { strong: workspace },
        " and follow your repairs.",
        { textOnly: " Open it here:" },
      ],
    },
    after: [
      [`The link works until ${ukTimeText(input.expiresAt)}. If you did not ask for it, you can ignore this email.`],
    ],
    signature: workspace,
  });
}

/** The SMS carrying a link. */
export function tenantLinkSms(input: { workspaceName: string; link: string; expiresAt: string }): string {
  const workspace = oneLine(input.workspaceName).slice(0, 80);
  return `${workspace}: your link to report or follow a repair: ${input.link} It works once, until \
${ukTimeText(input.expiresAt)}. If you did not ask for it, ignore this message.`;
}

/**
 * Answers one link request, the job `jobId`: each occupant it matches gets a new link (its token's hash stored),
 * by email, and by SMS when the workspace has the telephony module, the occupant a mobile and their SMS thread is
 * not stopped; a request made with a mobile number goes by SMS alone when it can, else by email. The link is stored,
 * its SMS queued and its email sent in one transaction, under the key (job, tenancy, contact): a retry of the job
 * after a partial failure sends again only to the occupants whose link was not stored, and a concurrent run of the
 * same job waits for the first's transaction and then finds the key taken. Returns how many links it sent now.
 */
export async function deliverTenantLinks(
  ctx: Pick<AppContext, "db" | "config" | "jobs">,
  mailer: Mailer,
  job: TenantLinkJob,
  jobId: string,
): Promise<number> {
  const email = job.contact.includes("@") ? normaliseEmail(job.contact) : null;
  const mobile = email ? null : normaliseMobile(job.contact);
  if (!email && !mobile) return 0;
  const matches = await matchTenants(ctx.db, {
    slug: job.slug,
    postcode: job.postcode,
    emailNorm: email,
    mobileNorm: mobile,
  });
  if (matches.some((m) => m.telephony)) await ensureSmsQueue(ctx.jobs);
  let sent = 0;
  for (const match of matches) {
    const smsTo = match.telephony ? match.mobileNorm : null;
    if (!match.email && !smsTo) continue;
    const done = await ctx.db
      .begin(async (tx) => {
        const token = newInvitationToken();
        const id = ulid();
        const expiresAt = await claimTenantLink(tx, {
          workspaceId: match.workspaceId,
          id,
          jobId,
          tenancyId: match.tenancyId,
          contactId: match.contactId,
          tokenHash: hashInvitationToken(token),
          hours: tenantLinkHours,
        });
        if (!expiresAt) return false;
        const message = {
          workspaceName: match.workspaceName,
          link: tenantLinkUrl(ctx.config.publicBaseUrl, job.slug, token),
          expiresAt,
        };
        const texted = smsTo
          ? await queueTenantSms(tx, ctx, {
              workspaceId: match.workspaceId,
              mobile: smsTo,
              body: tenantLinkSms(message),
              requestId: jobId,
            })
          : undefined;
        const emailTo = match.email && (email || !texted) ? match.email : null;
        // Neither channel (a mobile request, no email, no SMS possible): the link is not kept.
        if (!texted && !emailTo) throw new NoChannel();
        // The row stays uncommitted while the message goes out: a failure rolls it back (the SMS too), so the retry
        // sends both.
        if (emailTo) {
          await mailer.send({
            to: emailTo,
            ...tenantLinkEmail(message),
            messageId: messageIdOf(ctx.config.emailFrom, `tenant-link-${id}`),
            reference: `tenant-link-${id}`,
          });
        }
        return true;
      })
      .catch((error) => {
        if (error instanceof NoChannel) return false;
        throw error;
      });
    if (done) sent++;
  }
  return sent;
}

/** Thrown to roll back a link that no channel could carry. */
class NoChannel extends Error {}

/** The jobs of the queue: link requests, and the references of repairs tenants reported (tenant_reference.ts). */
export type TenantJob = TenantLinkJob | TenantReferenceJob;

/** Runs one job of the queue; what it did, for the job's output and the log. */
async function runTenantJob(ctx: AppContext, mailer: Mailer, job: JobWithMetadata<TenantJob>) {
  const data = job.data;
  if (data.kind === "reference") {
    return { reference: await deliverRepairReference(ctx, mailer, data), repairId: data.repairId };
  }
  return { sent: await deliverTenantLinks(ctx, mailer, data, job.id) };
}

/** Starts the link worker: one job at a time; a link request's details are not logged. */
export async function startTenantLinkWorker(ctx: AppContext, options: { mailer?: Mailer } = {}): Promise<void> {
  await startMailWorker<TenantJob>(ctx, options.mailer, {
    queue: tenantLinkQueue,
    policy: tenantLinkQueuePolicy,
    name: "tenant message job",
    fields: (job) => ({ jobId: job.id }),
    run: (mailer, job) => runTenantJob(ctx, mailer, job),
  });
}
