/**
 * A tenant's link is spent once, by the POST of its page's Continue (a GET, as a mail scanner sends, spends
 * nothing), and starts a session whose cookie (HttpOnly, SameSite=Strict, Secure over https, scoped to the
 * workspace's pages) opens the tenancy's page for an hour; a used link is refused with a page saying how to get a
 * new one. A double click (the same browser's mark, given by the link's GET) opens the page with the same session
 * while it lasts; any other browser is refused. An ended tenancy's link and session are refused with a page saying so.
 */
import { expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { buildApp } from "../../src/app.ts";
import { hashInvitationToken, newInvitationToken } from "../../src/maintenance_pro/invitation_token.ts";
import { tenantSessionMinutes } from "../../src/maintenance_pro/tenant_session.ts";
import { harness } from "../support/harness.ts";

const h = await harness();
const db = h.database.db;
const app = buildApp({ ...h.ctx, config: { ...h.ctx.config, portalBudgetPerMinute: 100_000 } });
const ws = await h.workspace();
const rows = h.rows(ws);
const sameSite = { "sec-fetch-site": "same-origin", origin: "http://localhost" };

/** A tenancy of `ws` and an unused link to it; the link's path and the tenancy's unit label. */
async function link() {
  const contactId = await rows.contact({ name: "Tess Tenant", email: "tess@example.test", roles: ["tenant"] });
  const unitLabel = `Flat ${crypto.randomUUID().slice(0, 8)}`;
  const unitId = await rows.unit({ propertyId: await rows.property(), label: unitLabel });
  const tenancyId = await rows.tenancy({ unitId, occupants: [{ contactId, isLead: true }] });
  const token = newInvitationToken();
  const id = crypto.randomUUID();
  await db`insert into tenant_links (workspace_id, id, tenancy_id, contact_id, token_hash, expires_at)
           values (${ws.id}, ${id}, ${tenancyId}, ${contactId}, ${hashInvitationToken(token)},
                   now() + interval '24 hours')`;
  return { id, tenancyId, unitLabel, path: `/report/${ws.slug}/t/${token}` };
}

const get = (path: string, cookie = "", on = app) =>
  on.handle(new Request(`http://localhost${path}`, { headers: { accept: "text/html", cookie } }));
const post = (path: string, cookie = "", headers: Record<string, string> = sameSite, body = "", on = app) =>
  on.handle(
    new Request(`http://localhost${path}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html", cookie, ...headers },
      body,
    }),
  );
const cookieOf = (res: Response) => res.headers.get("set-cookie")!.split(";")[0]!;

test("fetching a link spends nothing and shows nothing of the tenancy; its Continue spends it once", async () => {
  const l = await link();
  for (let i = 0; i < 2; i++) {
    const page = await get(l.path);
    expect(page.status).toBe(200);
    const text = await page.text();
    expect(text).toContain('<form method="post">');
    expect(text).toContain(">Continue</button>");
    expect(text).not.toContain(l.unitLabel);
  }
  const opened = await post(l.path);
  expect(opened.status).toBe(303);
  expect(opened.headers.get("location")).toBe(`/report/${ws.slug}/repairs`);
  const setCookie = opened.headers.get("set-cookie")!;
  expect(setCookie.split("; ").slice(1).sort()).toEqual(
    ["HttpOnly", `Max-Age=${tenantSessionMinutes * 60}`, `Path=/report/${ws.slug}`, "SameSite=Strict"].sort(),
  );
  const value = cookieOf(opened).split("=")[1]!;
  const [stored] = await db<{ sessionHash: Buffer; spent: boolean; minutes: number }[]>`
    select session_hash as "sessionHash", spent_at is not null as spent,
           extract(epoch from session_expires_at - spent_at) / 60 as minutes
    from tenant_links where workspace_id = ${ws.id} and id = ${l.id}`;
  expect(stored!.spent).toBe(true);
  expect(Math.round(stored!.minutes)).toBe(tenantSessionMinutes);
  expect(Buffer.from(stored!.sessionHash).equals(createHash("sha256").update(value).digest())).toBe(true);

  for (const again of [await post(l.path), await get(l.path)]) {
    expect(again.status).toBe(410);
    expect(again.headers.get("set-cookie")).toBeNull();
    const text = await again.text();
    expect(text).toContain("This link has been used");
    expect(text).toContain(`<a href="/report/${ws.slug}">Ask for a new link</a>`);
  }
});

test("two Continues at once from browsers without a mark: one opens the page, the others are refused", async () => {
  const l = await link();
  const answers = await Promise.all([post(l.path), post(l.path), post(l.path)]);
  expect(answers.map((a) => a.status).sort()).toEqual([303, 410, 410]);
  const sessions = await db`select 1 from tenant_links where id = ${l.id} and session_hash is not null`;
  expect(sessions.length).toBe(1);
});

test("the session opens its tenancy's page; without it, after it or at another workspace's it is refused", async () => {
  const l = await link();
  const cookie = cookieOf(await post(l.path));
  const page = await get(`/report/${ws.slug}/repairs`, cookie);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain(l.unitLabel);
  // The used link, opened again in the browser holding its session, goes to the page.
  const back = await get(l.path, cookie);
  expect(back.status).toBe(303);
  expect(back.headers.get("location")).toBe(`/report/${ws.slug}/repairs`);

  const other = await h.workspace();
  for (const [path, sent] of [
    [`/report/${ws.slug}/repairs`, ""],
    [`/report/${ws.slug}/repairs`, `tenant_session=${"A".repeat(43)}`],
    [`/report/${other.slug}/repairs`, cookie],
  ] as const) {
    const refused = await get(path, sent);
    expect({ path, status: refused.status }).toEqual({ path, status: 401 });
    expect(await refused.text()).toContain("Please open a new link");
  }
  await db`update tenant_links set session_expires_at = now() - interval '1 second' where id = ${l.id}`;
  expect((await get(`/report/${ws.slug}/repairs`, cookie)).status).toBe(401);
  expect((await get(l.path, cookie)).status).toBe(410);
});

test("a report needs the session: without it nothing is made", async () => {
  const l = await link();
  const cookie = cookieOf(await post(l.path));
  const form = new URLSearchParams({
    formKey: "01TESTFORMKEY000000000000",
    category: "leak",
    location: "Kitchen",
    description: "Drip under the sink",
    risk: "no",
  }).toString();
  const refused = await post(`/report/${ws.slug}/repairs`, "", sameSite, form);
  expect(refused.status).toBe(401);
  const made = await db`select 1 from repairs where workspace_id = ${ws.id} and tenancy_id = ${l.tenancyId}`;
  expect(made.length).toBe(0);
  expect((await post(`/report/${ws.slug}/repairs`, cookie, sameSite, form)).status).toBe(200);
  const after = await db`select 1 from repairs where workspace_id = ${ws.id} and tenancy_id = ${l.tenancyId}`;
  expect(after.length).toBe(1);
});

test("a cross-site Continue and an expired link's Continue are refused and spend nothing", async () => {
  const l = await link();
  expect((await post(l.path, "", { "sec-fetch-site": "cross-site" })).status).toBe(403);
  expect((await post(l.path, "", { origin: "https://evil.example" })).status).toBe(403);
  expect((await get(l.path)).status).toBe(200);
  await db`update tenant_links set expires_at = now() - interval '1 second' where id = ${l.id}`;
  const expired = await post(l.path);
  expect(expired.status).toBe(410);
  expect(await expired.text()).toContain("This link has expired");
  const [row] = await db`select spent_at from tenant_links where id = ${l.id}`;
  expect(row!.spentAt).toBeNull();
});

test("the session's cookie is Secure when the service is reached over https", async () => {
  const secure = buildApp({
    ...h.ctx,
    config: { ...h.ctx.config, portalBudgetPerMinute: 100_000, publicBaseUrl: "https://lettings.example" },
  });
  const l = await link();
  const opened = await post(l.path, "", { "sec-fetch-site": "same-origin" }, "", secure);
  expect(opened.status).toBe(303);
  expect(opened.headers.get("set-cookie")!.split("; ")).toContain("Secure");
  const plain = await post((await link()).path);
  expect(plain.headers.get("set-cookie")!.split("; ")).not.toContain("Secure");
  const marked = await get((await link()).path, "", secure);
  expect(marked.headers.get("set-cookie")!.split("; ")).toContain("Secure");
  expect((await markOf((await link()).path)).header.split("; ")).not.toContain("Secure");
});

/** The browser's mark the link's GET gives (`name=value`), and the Set-Cookie header that carried it. */
async function markOf(path: string) {
  const page = await get(path);
  expect(page.status).toBe(200);
  const header = page.headers.get("set-cookie")!;
  return { mark: header.split(";")[0]!, header };
}

test("the link's page gives a browser without one its mark, scoped to the workspace's link pages", async () => {
  const l = await link();
  const { mark, header } = await markOf(l.path);
  expect(mark).toMatch(/^tenant_browser=[A-Za-z0-9_-]{43}$/);
  expect(header.split("; ").slice(1).sort()).toEqual(
    ["HttpOnly", "Max-Age=86400", `Path=/report/${ws.slug}/t`, "SameSite=Strict"].sort(),
  );
  // A browser with its mark keeps it; the GET spent nothing.
  expect((await get(l.path, mark)).headers.get("set-cookie")).toBeNull();
  const [row] = await db`select spent_at from tenant_links where id = ${l.id}`;
  expect(row!.spentAt).toBeNull();
});

test("a double click on Continue: every POST of the same browser opens the page with one session", async () => {
  const l = await link();
  const { mark } = await markOf(l.path);
  const answers = await Promise.all([post(l.path, mark), post(l.path, mark), post(l.path, mark)]);
  expect(answers.map((a) => a.status)).toEqual([303, 303, 303]);
  expect(answers.map((a) => a.headers.get("location"))).toEqual(Array(3).fill(`/report/${ws.slug}/repairs`));
  const cookies = new Set(answers.map(cookieOf));
  expect(cookies.size).toBe(1);
  const [cookie] = [...cookies];
  const [stored] = await db<{ sessionHash: Buffer }[]>`
    select session_hash as "sessionHash" from tenant_links where id = ${l.id}`;
  const value = cookie!.split("=")[1]!;
  expect(Buffer.from(stored!.sessionHash).equals(createHash("sha256").update(value).digest())).toBe(true);
  expect((await get(`/report/${ws.slug}/repairs`, cookie)).status).toBe(200);
  // Another browser, with no mark or its own, is told the link was used, even at once.
  const other = (await markOf((await link()).path)).mark;
  for (const sent of ["", other]) {
    const refused = await post(l.path, sent);
    expect(refused.status).toBe(410);
    expect(refused.headers.get("set-cookie")).toBeNull();
    expect(await refused.text()).toContain("This link has been used");
  }
});

test("the same browser's Continue opens the page again while the session lasts, and not after it", async () => {
  const l = await link();
  const { mark } = await markOf(l.path);
  const first = await post(l.path, mark);
  expect(first.status).toBe(303);
  const times = () =>
    db<{ spent: string; ends: string }[]>`
      select iso(spent_at) as spent, iso(session_expires_at) as ends from tenant_links where id = ${l.id}`;
  // Just inside the session's life: the same session again, which it does not lengthen.
  await db`update tenant_links set session_expires_at = now() + interval '2 seconds',
                                   spent_at = now() - interval '59 minutes' where id = ${l.id}`;
  const [moved] = await times();
  const again = await post(l.path, mark);
  expect(again.status).toBe(303);
  expect(cookieOf(again)).toBe(cookieOf(first));
  expect([...(await times())]).toEqual([moved!]);
  // Just after it: the link is used.
  await db`update tenant_links set session_expires_at = now() - interval '1 second' where id = ${l.id}`;
  const late = await post(l.path, mark);
  expect(late.status).toBe(410);
  expect(late.headers.get("set-cookie")).toBeNull();
  expect(await late.text()).toContain("This link has been used");
});

test("an ended tenancy's link and its session are refused with a page saying so, and spend nothing", async () => {
  const l = await link();
  const opened = await link();
  const cookie = cookieOf(await post(opened.path));
  await db`update tenancies set status = 'ended'
           where workspace_id = ${ws.id} and id in (${l.tenancyId}, ${opened.tenancyId})`;
  for (const refused of [await get(l.path), await post(l.path), await get(`/report/${ws.slug}/repairs`, cookie)]) {
    expect(refused.status).toBe(410);
    expect(refused.headers.get("set-cookie")).toBeNull();
    const text = await refused.text();
    expect(text).toContain("Your tenancy has ended");
    expect(text).not.toContain(l.unitLabel);
    expect(text).not.toContain(opened.unitLabel);
  }
  const [row] = await db`select spent_at from tenant_links where id = ${l.id}`;
  expect(row!.spentAt).toBeNull();
});
