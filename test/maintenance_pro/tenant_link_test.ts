/**
 * The tenant's link through the service's public routes: the report page, a link request answered the same whatever
 * it matches, the link worker's email (to the outbox) and its token stored only as a hash, the page of a link, an
 * expired link and an ended tenancy refused, cross-site posts refused, the per-postcode and per-address budgets.
 */
import { afterAll, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { buildApp } from "../../src/app.ts";
import { createMailer, outboxDir } from "../../src/email/transport.ts";
import { deliverTenantLinks, type TenantLinkJob, tenantLinkQueue } from "../../src/maintenance_pro/tenant_link.ts";
import { hashInvitationToken } from "../../src/maintenance_pro/invitation_token.ts";
import { tenantPolicy } from "../../src/maintenance_pro/tenant_page.ts";
import { postcodeRequestsPerMinute } from "../../src/maintenance_pro/tenant_routes.ts";
import { harness } from "../support/harness.ts";
import { parseEmail } from "../email/smtp.ts";
import { outboxContext } from "./portal_fixtures.ts";

const h = await harness();
const db = h.database.db;
const ctx = outboxContext(h);
afterAll(() => rmSync(ctx.config.dataDir, { recursive: true, force: true }));
const app = buildApp({ ...ctx, config: { ...ctx.config, portalBudgetPerMinute: 100_000 } });
const ws = await h.workspace();
const rows = h.rows(ws);

/** A tenancy at `postcode` whose occupant has `email` and `mobile`. */
async function tenancyAt(postcode: string, status: "active" | "notice_given" | "ended" = "active") {
  const email = `t-${crypto.randomUUID()}@example.test`;
  const contactId = await rows.contact({ name: "Tess Tenant", email, mobile: "07700 900123", roles: ["tenant"] });
  const propertyId = await rows.property();
  await db`update properties set address_postcode = ${postcode} where workspace_id = ${ws.id} and id = ${propertyId}`;
  const unitId = await rows.unit({ propertyId });
  const tenancyId = await rows.tenancy({ unitId, status, occupants: [{ contactId, isLead: true }] });
  return { email, contactId, tenancyId };
}

const sameSite = { "sec-fetch-site": "same-origin", origin: "http://localhost" };
const post = (slug: string, form: Record<string, string>, headers: Record<string, string> = sameSite, on = app) =>
  on.handle(
    new Request(`http://localhost/report/${slug}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html", ...headers },
      body: new URLSearchParams(form).toString(),
    }),
  );
const get = (path: string) => app.handle(new Request(`http://localhost${path}`, { headers: { accept: "text/html" } }));

/** The queued link requests of the workspace, oldest first. */
async function queued(): Promise<{ id: string; data: TenantLinkJob }[]> {
  return db<{ id: string; data: TenantLinkJob }[]>`
    select id, data from pgboss.job where name = ${tenantLinkQueue} and data->>'slug' = ${ws.slug} order by created_on`;
}

/** Runs the queued requests as the worker does, then forgets them; the tokens of the links emailed. */
async function deliverQueued(): Promise<string[]> {
  const mailer = createMailer(ctx.config, ctx.log);
  const before = new Set(safeList());
  for (const job of await queued()) await deliverTenantLinks(ctx, mailer, job.data, job.id);
  await db`delete from pgboss.job where name = ${tenantLinkQueue} and data->>'slug' = ${ws.slug}`;
  return safeList()
    .filter((f) => !before.has(f))
    .map((f) => {
      const text = parseEmail(readFileSync(join(outboxDir(ctx.config), f), "utf8")).text ?? "";
      return /\/report\/[a-z0-9-]+\/t\/([A-Za-z0-9_-]{43})/.exec(text)![1]!;
    });
}
function safeList(): string[] {
  try {
    return readdirSync(outboxDir(ctx.config)).filter((f) => f.startsWith("tenant-link-"));
  } catch {
    return [];
  }
}

test("the report page asks for postcode and contact, under the policy; an unknown workspace is not found", async () => {
  const res = await get(`/report/${ws.slug}`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-security-policy")).toBe(tenantPolicy);
  const page = await res.text();
  expect(page).toContain('name="postcode"');
  expect(page).toContain('name="contact"');
  expect(page).not.toContain("<script");
  expect((await get("/report/no-such-agency")).status).toBe(404);
});

test("a request answers the same page whether or not it matches; only a match gets a link", async () => {
  const known = await tenancyAt("BS1 4DJ");
  const answers = [];
  for (const form of [
    { postcode: "bs14dj", contact: known.email.toUpperCase() },
    { postcode: "BS1 4DJ", contact: "nobody@example.test" },
    { postcode: "ZZ9 9ZZ", contact: known.email },
  ]) {
    const res = await post(ws.slug, form);
    answers.push({ status: res.status, body: await res.text() });
  }
  expect(answers[1]).toEqual(answers[0]!);
  expect(answers[2]).toEqual(answers[0]!);
  expect(answers[0]!.status).toBe(200);
  expect(answers[0]!.body).toContain("If we found your tenancy, we have sent you a link");
  expect((await queued()).length).toBe(3);
  const tokens = await deliverQueued();
  expect(tokens.length).toBe(1);
  const [stored] = await db<{ tokenHash: Buffer; hours: number }[]>`
    select token_hash as "tokenHash", extract(epoch from expires_at - created_at) / 3600 as hours
    from tenant_links where workspace_id = ${ws.id} and tenancy_id = ${known.tenancyId}`;
  expect(Buffer.from(stored!.tokenHash).equals(createHash("sha256").update(tokens[0]!).digest())).toBe(true);
  expect(Math.round(stored!.hours)).toBe(24);
  const page = await get(`/report/${ws.slug}/t/${tokens[0]}`);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain("Your repairs");
});

test("a mobile number finds the tenancy too; notice_given matches, ended does not", async () => {
  const notice = await tenancyAt("BS2 0AA", "notice_given");
  await post(ws.slug, { postcode: "BS2 0AA", contact: "+44 7700 900123" });
  expect((await deliverQueued()).length).toBe(1);
  const ended = await tenancyAt("BS3 0AA", "ended");
  await post(ws.slug, { postcode: "BS3 0AA", contact: ended.email });
  expect((await deliverQueued()).length).toBe(0);
  expect(notice.tenancyId).toBeTruthy();
});

test("an expired link and the link of an ended tenancy are refused with a page saying so", async () => {
  const t = await tenancyAt("BS4 1AA");
  await post(ws.slug, { postcode: "BS4 1AA", contact: t.email });
  const [token] = await deliverQueued();
  await db`update tenancies set status = 'ended' where workspace_id = ${ws.id} and id = ${t.tenancyId}`;
  const ended = await get(`/report/${ws.slug}/t/${token}`);
  expect(ended.status).toBe(410);
  expect(await ended.text()).toContain("Your tenancy has ended");
  await db`update tenancies set status = 'active' where workspace_id = ${ws.id} and id = ${t.tenancyId}`;
  await db`update tenant_links set expires_at = now() - interval '1 second'
           where workspace_id = ${ws.id} and tenancy_id = ${t.tenancyId}`;
  const expired = await get(`/report/${ws.slug}/t/${token}`);
  expect(expired.status).toBe(410);
  expect(await expired.text()).toContain("This link has expired");
  expect((await get(`/report/${ws.slug}/t/${"A".repeat(43)}`)).status).toBe(404);
  expect((await get(`/report/other-slug/t/${token}`)).status).toBe(404);
});

test("a suspended workspace's links and report page are not found, and its links report nothing", async () => {
  const other = await h.workspace();
  const t = await h.rows(other).contact({ name: "Sam Tenant", email: "sam@example.test", roles: ["tenant"] });
  const propertyId = await h.rows(other).property();
  const unitId = await h.rows(other).unit({ propertyId });
  const tenancyId = await h.rows(other).tenancy({ unitId, occupants: [{ contactId: t, isLead: true }] });
  const token = "S".repeat(43);
  await db`insert into tenant_links (workspace_id, id, tenancy_id, contact_id, token_hash, expires_at)
           values (${other.id}, 'link-suspended', ${tenancyId}, ${t}, ${hashInvitationToken(token)},
                   now() + interval '1 hour')`;
  expect((await get(`/report/${other.slug}/t/${token}`)).status).toBe(200);
  await db`update workspaces set suspended_at = now() where id = ${other.id}`;
  expect((await get(`/report/${other.slug}`)).status).toBe(404);
  const page = await get(`/report/${other.slug}/t/${token}`);
  expect(page.status).toBe(404);
  expect(await page.text()).toContain("Link not recognised");
});

test("a cross-site post is refused and queues nothing", async () => {
  const res = await post(
    ws.slug,
    { postcode: "BS1 4DJ", contact: "x@example.test" },
    {
      "sec-fetch-site": "cross-site",
      origin: "https://evil.example",
    },
  );
  expect(res.status).toBe(403);
  const old = await post(
    ws.slug,
    { postcode: "BS1 4DJ", contact: "x@example.test" },
    {
      origin: "https://evil.example",
    },
  );
  expect(old.status).toBe(403);
  expect((await queued()).length).toBe(0);
});

test("one postcode's requests are budgeted whoever asks", async () => {
  const statuses = [];
  for (let i = 0; i <= postcodeRequestsPerMinute; i++) {
    const from = { ...sameSite, "x-forwarded-for": `203.0.113.${i + 1}` };
    statuses.push((await post(ws.slug, { postcode: "CF10 1AA", contact: `p${i}@example.test` }, from)).status);
  }
  expect(statuses.slice(0, postcodeRequestsPerMinute).every((s) => s === 200)).toBe(true);
  expect(statuses.at(-1)).toBe(429);
  expect((await post(ws.slug, { postcode: "CF10 1AB", contact: "q@example.test" })).status).toBe(200);
  await deliverQueued();
});

test("each client address has its budget of report requests", async () => {
  const small = buildApp({ ...ctx, config: { ...ctx.config, portalBudgetPerMinute: 2 } });
  const statuses = [];
  for (let i = 0; i < 3; i++) {
    const res = await small.handle(
      new Request(`http://localhost/report/${ws.slug}`, { headers: { accept: "text/html" } }),
    );
    statuses.push(res.status);
  }
  expect(statuses).toEqual([200, 200, 429]);
});
