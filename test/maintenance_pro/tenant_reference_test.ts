/**
 * The tenant gets a reported repair's reference by email too, once: the report queues one job however often its
 * form is sent, and the job's runs (a retry after a failed send, two at once) send one message, whose Message-ID
 * is the repair's own.
 */
import { afterAll, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { buildApp } from "../../src/app.ts";
import { Jobs } from "../../src/core/jobs.ts";
import type { AppContext } from "../../src/core/operation.ts";
import { createMailer, type Mailer, messageIdOf, outboxDir } from "../../src/email/transport.ts";
import { hashInvitationToken, newInvitationToken } from "../../src/maintenance_pro/invitation_token.ts";
import { startTenantLinkWorker, tenantLinkQueue } from "../../src/maintenance_pro/tenant_link.ts";
import { deliverRepairReference, type TenantReferenceJob } from "../../src/maintenance_pro/tenant_reference.ts";
import { harness } from "../support/harness.ts";
import { parseEmail } from "../email/smtp.ts";
import { until } from "../telephony/fixtures.ts";
import { outboxContext } from "./portal_fixtures.ts";

const h = await harness();
const db = h.database.db;
const ctx = outboxContext(h);
const app = buildApp({ ...ctx, config: { ...ctx.config, portalBudgetPerMinute: 100_000 } });
const ws = await h.workspace();
const rows = h.rows(ws);
const sameSite = { "sec-fetch-site": "same-origin", origin: "http://localhost" };
const running: Jobs[] = [];
afterAll(async () => {
  for (const jobs of running) await jobs.stop(2000).catch(() => {});
  rmSync(ctx.config.dataDir, { recursive: true, force: true });
});

/** A tenant with an open session on their tenancy's page; the session's cookie. */
async function session(email: string): Promise<string> {
  const contactId = await rows.contact({ name: "Tess Tenant", email, roles: ["tenant"] });
  const unitId = await rows.unit({ propertyId: await rows.property() });
  const tenancyId = await rows.tenancy({ unitId, occupants: [{ contactId, isLead: true }] });
  const token = newInvitationToken();
  await db`insert into tenant_links (workspace_id, id, tenancy_id, contact_id, token_hash, expires_at)
           values (${ws.id}, ${crypto.randomUUID()}, ${tenancyId}, ${contactId}, ${hashInvitationToken(token)},
                   now() + interval '24 hours')`;
  const opened = await app.handle(
    new Request(`http://localhost/report/${ws.slug}/t/${token}`, { method: "POST", headers: sameSite }),
  );
  expect(opened.status).toBe(303);
  return opened.headers.get("set-cookie")!.split(";")[0]!;
}

/** Sends the report form; the repair's id and reference. */
async function report(cookie: string, formKey: string) {
  const res = await app.handle(
    new Request(`http://localhost/report/${ws.slug}/repairs`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie, ...sameSite },
      body: new URLSearchParams({
        formKey,
        category: "heating_hot_water",
        location: "Kitchen",
        description: "No hot water since Monday",
        risk: "no",
      }).toString(),
    }),
  );
  expect(res.status).toBe(200);
  const reference = /class="reference">([^<]+)</.exec(await res.text())![1]!;
  const [repair] = await db<{ id: string }[]>`
    select id from repairs where workspace_id = ${ws.id} and reference = ${reference}`;
  return { id: repair!.id, reference };
}

/** The reference jobs queued for a repair. */
const jobsOf = (repairId: string) =>
  db<{ data: TenantReferenceJob }[]>`
    select data from pgboss.job where name = ${tenantLinkQueue} and data->>'repairId' = ${repairId}`;

/** A mailer writing to the outbox that fails its first `failures` sends; what it sent. */
function countingMailer(failures = 0) {
  const outbox = createMailer(ctx.config, ctx.log);
  const sent: { to: string; subject: string; messageId: string }[] = [];
  let calls = 0;
  const mailer: Mailer = {
    kind: "outbox",
    async send(message) {
      if (++calls <= failures) throw new Error("SMTP connection lost");
      sent.push({ to: message.to, subject: message.subject, messageId: message.messageId });
      return outbox.send(message);
    },
    close: () => {},
  };
  return { mailer, sent };
}

test("a report queues one reference job however often it is sent; a retried job emails it once", async () => {
  const email = "hot.water@example.test";
  const cookie = await session(email);
  const first = await report(cookie, "01REFERENCEFORMKEY0000001");
  const again = await report(cookie, "01REFERENCEFORMKEY0000001");
  expect(again).toEqual(first);
  const jobs = await jobsOf(first.id);
  expect(jobs.map((j) => j.data)).toEqual([{ kind: "reference", workspaceId: ws.id, repairId: first.id }]);

  const { mailer, sent } = countingMailer(1);
  const job = jobs[0]!.data;
  await expect(deliverRepairReference(ctx, mailer, job)).rejects.toThrow("SMTP connection lost");
  expect(await deliverRepairReference(ctx, mailer, job)).toBe("sent");
  expect(await deliverRepairReference(ctx, mailer, job)).toBe("already_sent");
  const messageId = messageIdOf(ctx.config.emailFrom, `tenant-reference-${first.id}`);
  expect(sent).toEqual([{ to: email, subject: expect.stringContaining(first.reference), messageId }]);
  const eml = parseEmail(readFileSync(join(outboxDir(ctx.config), `tenant-reference-${first.id}.eml`), "utf8"));
  expect(eml.headers["message-id"]).toBe(messageId);
  expect(eml.text).toContain(`Its reference is ${first.reference}`);
});

test("two runs of a reference's job at once send it once", async () => {
  const cookie = await session("at.once@example.test");
  const repair = await report(cookie, "01REFERENCEFORMKEY0000002");
  const outbox = createMailer(ctx.config, ctx.log);
  const sent: string[] = [];
  let secondArrived: () => void = () => {};
  const second = new Promise<void>((resolve) => (secondArrived = resolve));
  // The first send is held until the other run either waits for the notice's lock or reaches its own send.
  const waitingOnLock = until(async () => {
    const [row] = await db`select count(*)::int as n from pg_stat_activity
                           where datname = current_database() and wait_event_type = 'Lock'`;
    return row!.n > 0 ? true : undefined;
  }, "the other run to wait for the notice's lock");
  const mailer: Mailer = {
    kind: "outbox",
    async send(message) {
      sent.push(message.messageId);
      if (sent.length === 1) await Promise.race([waitingOnLock, second]);
      else secondArrived();
      return outbox.send(message);
    },
    close: () => {},
  };
  const job: TenantReferenceJob = { kind: "reference", workspaceId: ws.id, repairId: repair.id };
  const outcomes = await Promise.all([
    deliverRepairReference(ctx, mailer, job),
    deliverRepairReference(ctx, mailer, job),
  ]);
  expect(outcomes.sort()).toEqual(["already_sent", "sent"]);
  expect(sent.length).toBe(1);
});

test("the link worker sends a reported repair's reference", async () => {
  const jobs = new Jobs(h.database.url, h.ctx.log, { superviseIntervalSeconds: 1, monitorIntervalSeconds: 1 });
  running.push(jobs);
  const workerCtx: AppContext = { ...ctx, jobs };
  await startTenantLinkWorker(workerCtx);
  const cookie = await session("worker@example.test");
  const repair = await report(cookie, "01REFERENCEFORMKEY0000003");
  const path = join(outboxDir(ctx.config), `tenant-reference-${repair.id}.eml`);
  await until(async () => (existsSync(path) ? true : undefined), "the reference's email");
  await until(async () => {
    const [row] = await db`select sent_at from tenant_repair_notices where repair_id = ${repair.id}`;
    return row?.sentAt ? true : undefined;
  }, "the notice to be marked sent");
  await jobs.stop(2000);
});
