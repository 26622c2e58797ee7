/**
 * The photos tenants sent with their reports, shown on the tenancy's page (small, with their text) under a policy
 * allowing images of our own origin only, and served behind the session's own pages: only a photo a tenant sent with
 * a repair of the session's tenancy; any other (another tenancy's, another workspace's, a contractor's, a made-up
 * id), or no session, an expired one or an ended tenancy's, gets a refusal page and never the bytes.
 */
import { expect, test } from "bun:test";
import { buildApp } from "../../src/app.ts";
import { hashInvitationToken, newInvitationToken } from "../../src/maintenance_pro/invitation_token.ts";
import { tenantPolicy } from "../../src/maintenance_pro/tenant_page.ts";
import { harness } from "../support/harness.ts";
import { addPhotos, tinyPng } from "./photo_fixtures.ts";

const h = await harness();
const db = h.database.db;
const app = buildApp({ ...h.ctx, config: { ...h.ctx.config, portalBudgetPerMinute: 100_000 } });
const sameSite = { "sec-fetch-site": "same-origin", origin: "http://localhost" };

type Workspace = Awaited<ReturnType<typeof h.workspace>>;

/**
 * A tenancy of `ws` (with the id given: ids may be imported, so two workspaces may both have one) with a session
 * opened by its link, and a repair reported on its page with two photos.
 */
async function reported(ws: Workspace, id?: string) {
  const rows = h.rows(ws);
  const contactId = await rows.contact({ name: "Tess Tenant", email: "tess@example.test", roles: ["tenant"] });
  const unitId = await rows.unit({ propertyId: await rows.property() });
  const tenancyId = await rows.tenancy({ id, unitId, occupants: [{ contactId, isLead: true }] });
  const token = newInvitationToken();
  const linkId = crypto.randomUUID();
  await db`insert into tenant_links (workspace_id, id, tenancy_id, contact_id, token_hash, expires_at)
           values (${ws.id}, ${linkId}, ${tenancyId}, ${contactId}, ${hashInvitationToken(token)},
                   now() + interval '24 hours')`;
  const opened = await app.handle(
    new Request(`http://localhost/report/${ws.slug}/t/${token}`, { method: "POST", headers: sameSite }),
  );
  expect(opened.status).toBe(303);
  const cookie = opened.headers.get("set-cookie")!.split(";")[0]!;
  const body = new FormData();
  const form = { formKey: crypto.randomUUID(), category: "leak", location: "Kitchen", description: "Drip", risk: "no" };
  for (const [name, value] of Object.entries(form)) body.set(name, value);
  for (const bytes of [tinyPng(30, 20), tinyPng(10, 40)]) body.append("photo", new Blob([bytes]), "IMG.png");
  const sent = await app.handle(
    new Request(`http://localhost/report/${ws.slug}/repairs`, {
      method: "POST",
      headers: { cookie, ...sameSite },
      body,
    }),
  );
  expect(sent.status).toBe(200);
  const [repair] = await db<{ id: string; reference: string }[]>`
    select id, reference from repairs where workspace_id = ${ws.id} and tenancy_id = ${tenancyId}`;
  const photos = await db<{ id: string }[]>`
    select id from repair_photos where workspace_id = ${ws.id} and repair_id = ${repair!.id} order by created_at, id`;
  return { ws, linkId, tenancyId, cookie, repair: repair!, photoIds: photos.map((p) => p.id) };
}

const get = (path: string, cookie = "") =>
  app.handle(new Request(`http://localhost${path}`, { headers: { accept: "text/html", cookie } }));

/** A refusal: the page saying so, with the status given, and none of the photo's bytes. */
async function expectRefused(res: Response, status: number, words: string) {
  expect({ status: res.status, type: res.headers.get("content-type") }).toEqual({
    status,
    type: "text/html; charset=utf-8",
  });
  expect(await res.text()).toContain(words);
}

const ws = await h.workspace();

test("the page shows the tenant's photos of each repair, small and with their text, under img-src 'self'", async () => {
  const t = await reported(ws);
  const page = await get(`/report/${ws.slug}/repairs`, t.cookie);
  expect(page.status).toBe(200);
  const policy = page.headers.get("content-security-policy")!;
  expect(policy).toBe(tenantPolicy);
  expect(policy.split("; ")).toContain("img-src 'self'");
  expect(policy).not.toMatch(/img-src[^;]*(\*|data:|https?:)/);
  const text = await page.text();
  expect(text).toContain('<ul class="photos">');
  for (const [i, id] of t.photoIds.entries()) {
    const size = i === 0 ? 'width="30" height="20"' : 'width="10" height="40"';
    expect(text).toContain(
      `<img src="/report/${ws.slug}/photos/${id}" ${size} ` +
        `alt="Photo ${i + 1} sent with the report of ${t.repair.reference}">`,
    );
  }
  expect(text).toContain(".photos img { display: block; max-width: 8rem; max-height: 8rem;");
});

test("a photo of the session's tenancy is served as its bytes, never sniffed, stored or framed", async () => {
  const t = await reported(ws);
  const res = await get(`/report/${ws.slug}/photos/${t.photoIds[0]}`, t.cookie);
  expect(res.status).toBe(200);
  expect(Object.fromEntries(res.headers)).toMatchObject({
    "content-type": "image/png",
    "x-content-type-options": "nosniff",
    "cache-control": "private, no-store",
    "content-security-policy": "default-src 'none'; sandbox",
    "cross-origin-resource-policy": "same-origin",
    "referrer-policy": "no-referrer",
  });
  expect(Buffer.from(await res.arrayBuffer()).equals(Buffer.from(tinyPng(30, 20)))).toBe(true);
});

test("without a live session of the workspace's pages, a photo is refused: the page asks for a link", async () => {
  const t = await reported(ws);
  const path = `/report/${ws.slug}/photos/${t.photoIds[0]}`;
  await expectRefused(await get(path), 401, "Please open a new link");
  await expectRefused(await get(path, `tenant_session=${"A".repeat(43)}`), 401, "Please open a new link");
  // The session's cookie at another workspace's pages.
  const other = await h.workspace();
  await expectRefused(await get(`/report/${other.slug}/photos/${t.photoIds[0]}`, t.cookie), 401, "new link");
  await db`update tenant_links set session_expires_at = now() - interval '1 second'
           where workspace_id = ${ws.id} and id = ${t.linkId}`;
  await expectRefused(await get(path, t.cookie), 401, "Please open a new link");
});

test("a photo of the session's tenancy once the tenancy ended is refused with a page saying so", async () => {
  const t = await reported(ws);
  await db`update tenancies set status = 'ended' where workspace_id = ${ws.id} and id = ${t.tenancyId}`;
  await expectRefused(await get(`/report/${ws.slug}/photos/${t.photoIds[0]}`, t.cookie), 410, "tenancy has ended");
});

test("another tenancy's photo, another workspace's (same tenancy id), a contractor's, made up: not found", async () => {
  const t = await reported(ws);
  const sibling = await reported(ws);
  const elsewhere = await reported(await h.workspace(), t.tenancyId);
  const [contractors] = await addPhotos(db, { workspaceId: ws.id, repairId: t.repair.id, source: "contractor" }, [
    [7, 7],
  ]);
  const page = await (await get(`/report/${ws.slug}/repairs`, t.cookie)).text();
  for (const id of [sibling.photoIds[0]!, elsewhere.photoIds[0]!, contractors!.id]) {
    expect(page).not.toContain(id);
    await expectRefused(await get(`/report/${ws.slug}/photos/${id}`, t.cookie), 404, "Photo not found");
  }
  for (const id of ["01ARZ3NDEKTSV4RRFFQ69G5FAV", "..%2F..%2Fetc", "x".repeat(65)])
    await expectRefused(await get(`/report/${ws.slug}/photos/${id}`, t.cookie), 404, "Photo not found");
  // Each is served to its own tenancy's session.
  expect((await get(`/report/${ws.slug}/photos/${sibling.photoIds[0]}`, sibling.cookie)).status).toBe(200);
  const theirs = `/report/${elsewhere.ws.slug}/photos/${elsewhere.photoIds[0]}`;
  expect((await get(theirs, elsewhere.cookie)).status).toBe(200);
});

test("the photos have their own budget: a page's photos do not spend the pages' budget", async () => {
  const t = await reported(ws);
  const small = buildApp({ ...h.ctx, config: { ...h.ctx.config, portalBudgetPerMinute: 2 } });
  const on = (path: string) =>
    small.handle(new Request(`http://localhost${path}`, { headers: { accept: "text/html", cookie: t.cookie } }));
  expect((await on(`/report/${ws.slug}/repairs`)).status).toBe(200);
  const photos = [];
  for (let i = 0; i < 3; i++)
    for (const id of t.photoIds) photos.push((await on(`/report/${ws.slug}/photos/${id}`)).status);
  expect(photos).toEqual(Array(6).fill(200));
  expect((await on(`/report/${ws.slug}/repairs`)).status).toBe(200);
  expect((await on(`/report/${ws.slug}/repairs`)).status).toBe(429);
});
