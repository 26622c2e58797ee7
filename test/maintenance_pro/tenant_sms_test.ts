/**
 * The tenant's link and reference by SMS, through the telephony group's send path: a request made with a mobile
 * number finds the tenant by it and texts the link (email when the workspace has no telephony or the tenant
 * texted STOP); an email request gets both; the reference of a reported repair is texted too; retries and a failed
 * email send nothing twice; the SMS worker hands the link to the provider.
 */
import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { buildApp } from "../../src/app.ts";
import { Jobs } from "../../src/core/jobs.ts";
import type { AppContext } from "../../src/core/operation.ts";
import { createMailer, type Mailer } from "../../src/email/transport.ts";
import { hashInvitationToken, newInvitationToken } from "../../src/maintenance_pro/invitation_token.ts";
import { deliverTenantLinks } from "../../src/maintenance_pro/tenant_link.ts";
import { deliverRepairReference } from "../../src/maintenance_pro/tenant_reference.ts";
import { startSmsWorker } from "../../src/telephony/worker.ts";
import { harness } from "../support/harness.ts";
import { insertThread, startFakeProvider } from "../telephony/fixtures.ts";
import { outboxContext } from "./portal_fixtures.ts";

const h = await harness();
const db = h.database.db;
const ctx = outboxContext(h);
const app = buildApp({ ...ctx, config: { ...ctx.config, portalBudgetPerMinute: 100_000 } });
const ws = await h.workspace();
const number = "+441174960101";
await db`insert into sms_numbers (number, workspace_id, source) values (${number}, ${ws.id}, 'cli')`;
const running: Jobs[] = [];
afterAll(async () => {
  for (const jobs of running) await jobs.stop(2000).catch(() => {});
  rmSync(ctx.config.dataDir, { recursive: true, force: true });
});

let mobiles = 0;
/** A tenancy of `workspace` at a new postcode whose occupant has a new mobile (and `email`, unless null). */
async function tenant(workspace: { id: string } = ws, email: string | null = `t${mobiles}@example.test`) {
  const n = String(++mobiles).padStart(3, "0");
  const mobile = `+447700900${n}`;
  const postcode = `BS${mobiles} 2AB`;
  const rows = h.rows(workspace);
  const contactId = await rows.contact({ name: "Tess Tenant", email, mobile: `07700 900${n}`, roles: ["tenant"] });
  const propertyId = await rows.property();
  await db`update properties set address_postcode = ${postcode} where workspace_id = ${workspace.id}
           and id = ${propertyId}`;
  const unitId = await rows.unit({ propertyId });
  const tenancyId = await rows.tenancy({ unitId, occupants: [{ contactId, isLead: true }] });
  return { contactId, tenancyId, mobile, local: `07700 900${n}`, postcode, email };
}

/** A mailer writing to the outbox that fails its first `failures` sends; the addresses it sent to. */
function counting(failures = 0) {
  const outbox = createMailer(ctx.config, ctx.log);
  const sent: string[] = [];
  let calls = 0;
  const mailer: Mailer = {
    kind: "outbox",
    async send(message) {
      if (++calls <= failures) throw new Error("SMTP connection lost");
      sent.push(message.to);
      return outbox.send(message);
    },
    close: () => {},
  };
  return { mailer, sent };
}

/** The SMS queued to `address` in the workspace, oldest first, with their thread's number and contact. */
const texts = (address: string, workspaceId = ws.id) =>
  db<{ id: string; body: string; localNumber: string; contactId: string | null }[]>`
    select m.id, m.body, t.local_number as "localNumber", t.contact_id as "contactId"
    from sms_messages m join sms_threads t on t.workspace_id = m.workspace_id and t.id = m.thread_id
    where m.workspace_id = ${workspaceId} and t.address = ${address} and m.direction = 'outbound'
    order by m.created_at, m.id`;

const tokenIn = (text: string) => /\/t\/([A-Za-z0-9_-]{43})/.exec(text)![1]!;

test("a request made with a mobile number texts the link alone, once, and the SMS worker hands it over", async () => {
  const t = await tenant();
  const { mailer, sent } = counting();
  const jobId = crypto.randomUUID();
  const job = { slug: ws.slug, postcode: t.postcode, contact: t.local };
  expect(await deliverTenantLinks(ctx, mailer, job, jobId)).toBe(1);
  expect(await deliverTenantLinks(ctx, mailer, job, jobId)).toBe(0);
  expect(sent).toEqual([]);
  const queued = await texts(t.mobile);
  expect(queued.length).toBe(1);
  expect(queued[0]).toMatchObject({ localNumber: number, contactId: t.contactId });
  const token = tokenIn(queued[0]!.body);
  const [link] = await db`select tenancy_id from tenant_links where token_hash = ${hashInvitationToken(token)}`;
  expect(link!.tenancyId).toBe(t.tenancyId);

  const fake = startFakeProvider();
  const jobs = new Jobs(h.database.url, h.ctx.log, { superviseIntervalSeconds: 1, monitorIntervalSeconds: 1 });
  running.push(jobs);
  const smsConfig = { ...ctx.config, smsProviderUrl: fake.url, smsAccountSid: "AC0123", smsAuthToken: "secret" };
  const workerCtx: AppContext = { ...ctx, config: smsConfig, jobs };
  await startSmsWorker(workerCtx);
  await fake.received(1);
  expect(fake.requests[0]).toMatchObject({ to: t.mobile, from: number, idempotencyKey: queued[0]!.id });
  expect(fake.requests[0]!.body).toContain(`/report/${ws.slug}/t/${token}`);
  await jobs.stop(2000);
  fake.stop();
});

test("an email request gets the link by email and by SMS; a retry after a failed email sends each once", async () => {
  const t = await tenant();
  const { mailer, sent } = counting(1);
  const jobId = crypto.randomUUID();
  const job = { slug: ws.slug, postcode: t.postcode, contact: t.email! };
  await expect(deliverTenantLinks(ctx, mailer, job, jobId)).rejects.toThrow("SMTP connection lost");
  // The failed email took the link's SMS with it.
  expect((await texts(t.mobile)).length).toBe(0);
  expect(await deliverTenantLinks(ctx, mailer, job, jobId)).toBe(1);
  expect(await deliverTenantLinks(ctx, mailer, job, jobId)).toBe(0);
  expect(sent).toEqual([t.email!]);
  const queued = await texts(t.mobile);
  expect(queued.length).toBe(1);
  const [stored] = await db`select count(*)::int as n from tenant_links where tenancy_id = ${t.tenancyId}`;
  expect(stored!.n).toBe(1);
});

test("a tenant who texted STOP gets no SMS: a mobile request goes by email", async () => {
  const t = await tenant();
  await insertThread(db, ws.id, { localNumber: number, address: t.mobile, contactId: t.contactId, stopped: true });
  const { mailer, sent } = counting();
  const job = { slug: ws.slug, postcode: t.postcode, contact: t.mobile };
  expect(await deliverTenantLinks(ctx, mailer, job, crypto.randomUUID())).toBe(1);
  expect(sent).toEqual([t.email!]);
  expect((await texts(t.mobile)).length).toBe(0);
});

test("without the telephony module a mobile request goes by email; with neither channel nothing is kept", async () => {
  const plain = await h.workspace({ modules: ["maintenance-pro"] });
  await db`insert into sms_numbers (number, workspace_id, source) values ('+441174960102', ${plain.id}, 'cli')`;
  const t = await tenant(plain);
  const { mailer, sent } = counting();
  expect(
    await deliverTenantLinks(
      ctx,
      mailer,
      { slug: plain.slug, postcode: t.postcode, contact: t.local },
      crypto.randomUUID(),
    ),
  ).toBe(1);
  expect(sent).toEqual([t.email!]);
  expect((await texts(t.mobile, plain.id)).length).toBe(0);

  const bare = await tenant(plain, null);
  const job = { slug: plain.slug, postcode: bare.postcode, contact: bare.local };
  expect(await deliverTenantLinks(ctx, mailer, job, crypto.randomUUID())).toBe(0);
  const [kept] = await db`select count(*)::int as n from tenant_links where tenancy_id = ${bare.tenancyId}`;
  expect(kept!.n).toBe(0);
});

test("a reported repair's reference is texted too, once", async () => {
  const t = await tenant();
  const token = newInvitationToken();
  await db`insert into tenant_links (workspace_id, id, tenancy_id, contact_id, token_hash, expires_at)
           values (${ws.id}, ${crypto.randomUUID()}, ${t.tenancyId}, ${t.contactId}, ${hashInvitationToken(token)},
                   now() + interval '24 hours')`;
  const sameSite = { "sec-fetch-site": "same-origin" };
  const opened = await app.handle(
    new Request(`http://localhost/report/${ws.slug}/t/${token}`, { method: "POST", headers: sameSite }),
  );
  const cookie = opened.headers.get("set-cookie")!.split(";")[0]!;
  const res = await app.handle(
    new Request(`http://localhost/report/${ws.slug}/repairs`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie, ...sameSite },
      body: new URLSearchParams({
        formKey: "01SMSREFERENCEFORMKEY0001",
        category: "electrical",
        location: "Hall",
        description: "Sockets spark",
        risk: "yes",
      }).toString(),
    }),
  );
  expect(res.status).toBe(200);
  const [repair] = await db<{ id: string; reference: string }[]>`
    select id, reference from repairs where workspace_id = ${ws.id} and tenancy_id = ${t.tenancyId}`;
  const { mailer, sent } = counting(1);
  const job = { kind: "reference" as const, workspaceId: ws.id, repairId: repair!.id };
  await expect(deliverRepairReference(ctx, mailer, job)).rejects.toThrow("SMTP connection lost");
  expect((await texts(t.mobile)).length).toBe(0);
  expect(await deliverRepairReference(ctx, mailer, job)).toBe("sent");
  expect(await deliverRepairReference(ctx, mailer, job)).toBe("already_sent");
  expect(sent).toEqual([t.email!]);
  const queued = await texts(t.mobile);
  expect(queued.map((m) => m.body)).toEqual([expect.stringContaining(`Your reference is ${repair!.reference}.`)]);
});
