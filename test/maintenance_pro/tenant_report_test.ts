/**
 * A repair reported from the page of a tenant's link: channel portal, the tenant as reporter, the tenancy and unit,
 * aware when received; the reference at once; a double submit makes one repair; a cross-site post or an incomplete
 * form makes none; the page shows the clock's sentence once triaged and the written summary sent through the portal.
 */
import { afterAll, expect, test } from "bun:test";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { buildApp } from "../../src/app.ts";
import { createMailer, outboxDir } from "../../src/email/transport.ts";
import { deliverTenantLinks } from "../../src/maintenance_pro/tenant_link.ts";
import { harness } from "../support/harness.ts";
import { parseEmail } from "../email/smtp.ts";
import { tinyPng } from "./photo_fixtures.ts";
import { outboxContext } from "./portal_fixtures.ts";

const h = await harness();
const db = h.database.db;
const ctx = outboxContext(h);
afterAll(() => rmSync(ctx.config.dataDir, { recursive: true, force: true }));
const app = buildApp({ ...ctx, config: { ...ctx.config, portalBudgetPerMinute: 100_000 } });
const ws = await h.workspace();
const rows = h.rows(ws);
const sameSite = { "sec-fetch-site": "same-origin", origin: "http://localhost" };

/** A tenancy and a working link to it, minted by the link worker. */
async function linked() {
  const email = `t-${crypto.randomUUID()}@example.test`;
  const contactId = await rows.contact({ name: "Tess Tenant", email, roles: ["tenant"] });
  const propertyId = await rows.property();
  const postcode = `BS${Math.floor(Math.random() * 90) + 1} 1AA`;
  await db`update properties set address_postcode = ${postcode} where workspace_id = ${ws.id} and id = ${propertyId}`;
  const unitId = await rows.unit({ propertyId });
  const tenancyId = await rows.tenancy({ unitId, occupants: [{ contactId, isLead: true }] });
  const job = { slug: ws.slug, postcode, contact: email };
  await deliverTenantLinks(ctx, createMailer(ctx.config, ctx.log), job, crypto.randomUUID());
  const dir = outboxDir(ctx.config);
  const texts = readdirSync(dir).map((f) => parseEmail(readFileSync(join(dir, f), "utf8")).text ?? "");
  const text = texts.find((t) => !seen.has(t))!;
  seen.add(text);
  const token = /\/t\/([A-Za-z0-9_-]{43})/.exec(text)![1]!;
  const cookie = await open(`/report/${ws.slug}/t/${token}`);
  return { contactId, propertyId, unitId, tenancyId, path: `/report/${ws.slug}/repairs`, cookie };
}

/** Spends a link with its page's Continue; the session's cookie (`name=value`). */
async function open(linkPath: string): Promise<string> {
  const res = await app.handle(
    new Request(`http://localhost${linkPath}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html", ...sameSite },
      body: "",
    }),
  );
  expect(res.status).toBe(303);
  return res.headers.get("set-cookie")!.split(";")[0]!;
}
const seen = new Set<string>();

const get = async (path: string, cookie: string) => {
  const res = await app.handle(new Request(`http://localhost${path}`, { headers: { accept: "text/html", cookie } }));
  return { status: res.status, text: await res.text() };
};
const send = async (
  path: string,
  cookie: string,
  form: Record<string, string>,
  headers: Record<string, string> = sameSite,
) => {
  const res = await app.handle(
    new Request(`http://localhost${path}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html", cookie, ...headers },
      body: new URLSearchParams(form).toString(),
    }),
  );
  return { status: res.status, text: await res.text() };
};
const formKeyOf = (page: string) => /name="formKey" value="([A-Za-z0-9_-]+)"/.exec(page)![1]!;
const repairsOf = (tenancyId: string) =>
  db<
    {
      id: string;
      reference: string;
      channel: string;
      reporterKind: string;
      reporterContactId: string;
      unitId: string;
      aware: string;
      created: string;
    }[]
  >`
    select id, reference, channel, reporter_kind as "reporterKind", reporter_contact_id as "reporterContactId",
           unit_id as "unitId", iso(aware_at) as aware, iso(created_at) as created
    from repairs where workspace_id = ${ws.id} and tenancy_id = ${tenancyId}`;

test("a report makes one repair for the tenancy, however often the form is sent, and shows its reference", async () => {
  const t = await linked();
  const page = await get(t.path, t.cookie);
  expect(page.status).toBe(200);
  expect(page.text).toContain("Is anyone at risk now?");
  expect(page.text).toContain("0800 111 999");
  const form = {
    formKey: formKeyOf(page.text),
    category: "damp_mould",
    location: "Bedroom",
    description: "Black mould on the wall",
    risk: "no",
  };
  const first = await send(t.path, t.cookie, form);
  const again = await send(t.path, t.cookie, form);
  expect(first.status).toBe(200);
  const made = await repairsOf(t.tenancyId);
  expect(made.length).toBe(1);
  const repair = made[0]!;
  expect(first.text).toContain(`Your reference is <strong class="reference">${repair.reference}</strong>`);
  expect(again.text).toBe(first.text);
  expect(repair).toMatchObject({ channel: "portal", reporterKind: "tenant", reporterContactId: t.contactId });
  expect(repair.unitId).toBe(t.unitId);
  expect(repair.aware).toBe(repair.created);
  const events = await db`select type from events where workspace_id = ${ws.id} and subject_id = ${repair.id}`;
  expect(events.map((e) => e.type)).toEqual(["repair.reported"]);
});

test("a cross-site post or an incomplete form makes no repair", async () => {
  const t = await linked();
  const formKey = formKeyOf((await get(t.path, t.cookie)).text);
  const full = { formKey, category: "leak", location: "Kitchen", description: "Drip", risk: "yes" };
  expect((await send(t.path, t.cookie, full, { "sec-fetch-site": "cross-site" })).status).toBe(403);
  expect((await send(t.path, t.cookie, full, { origin: "https://evil.example" })).status).toBe(403);
  const partial = await send(t.path, t.cookie, { ...full, description: "" });
  expect(partial.status).toBe(400);
  expect(partial.text).toContain("Please describe the problem.");
  expect((await send(t.path, t.cookie, { ...full, category: "nonsense" })).status).toBe(400);
  expect((await repairsOf(t.tenancyId)).length).toBe(0);
  await db`update tenancies set status = 'ended' where workspace_id = ${ws.id} and id = ${t.tenancyId}`;
  expect((await send(t.path, t.cookie, full)).status).toBe(410);
  expect((await repairsOf(t.tenancyId)).length).toBe(0);
});

test("the page says what must happen by when, what was done, and the portal's written summary", async () => {
  const t = await linked();
  const formKey = formKeyOf((await get(t.path, t.cookie)).text);
  await send(t.path, t.cookie, {
    formKey,
    category: "damp_mould",
    location: "Bathroom",
    description: "Mould",
    risk: "no",
  });
  const [repair] = await repairsOf(t.tenancyId);
  const key = ws.key;
  const triage = await h.request("POST", `/maintenance-pro/repairs/${repair!.id}/triage`, {
    key,
    body: { expectedRevision: 1, hazard: "significant", hhsrsHazard: "damp_and_mould_growth" },
  });
  expect(triage.status).toBe(200);
  const triaged = await get(t.path, t.cookie);
  expect(triaged.text).toMatch(/We must inspect the problem by [^<]+\(UK time\)\./);
  const investigated = await h.request("POST", `/maintenance-pro/repairs/${repair!.id}/milestones`, {
    key,
    body: { expectedRevision: 2, kind: "investigated", at: new Date().toISOString(), outcome: "hazard_confirmed" },
  });
  expect(investigated.status).toBe(200);
  const noNote = await h.request("POST", `/maintenance-pro/repairs/${repair!.id}/milestones`, {
    key,
    body: { expectedRevision: 3, kind: "summary_sent", at: new Date().toISOString(), method: "portal" },
  });
  expect(noNote.status).toBe(400);
  expect(noNote.body._tag).toBe("RequestInvalid");
  const summary = "We found mould from a blocked vent. We will clear it and treat the wall by Friday.";
  const milestone = await h.request("POST", `/maintenance-pro/repairs/${repair!.id}/milestones`, {
    key,
    body: { expectedRevision: 3, kind: "summary_sent", at: new Date().toISOString(), method: "portal", note: summary },
  });
  expect({ status: milestone.status, body: milestone.status === 200 ? null : milestone.body }).toEqual({
    status: 200,
    body: null,
  });
  const after = await get(t.path, t.cookie);
  expect(after.text).toContain("Written summary sent");
  expect(after.text).toContain(summary);
});

/** Sends the report form as the page does with files chosen: multipart, each file a `photo` part. */
const sendWithPhotos = async (path: string, cookie: string, form: Record<string, string>, photos: Uint8Array[]) => {
  const body = new FormData();
  for (const [name, value] of Object.entries(form)) body.set(name, value);
  for (const [i, bytes] of photos.entries())
    body.append("photo", new Blob([bytes as Uint8Array<ArrayBuffer>], { type: "image/jpeg" }), `IMG_${i}.jpg`);
  const res = await app.handle(
    new Request(`http://localhost${path}`, {
      method: "POST",
      headers: { accept: "text/html", cookie, ...sameSite },
      body,
    }),
  );
  return { status: res.status, text: await res.text() };
};

test("photos come with the report, up to 5, known by their bytes; a refused one makes no repair", async () => {
  const t = await linked();
  const filled = (formKey: string) => ({
    formKey,
    category: "damp_mould",
    location: "Bedroom",
    description: "Black mould on the wall",
    risk: "no",
  });
  const page = await get(t.path, t.cookie);
  expect(page.text).toContain('enctype="multipart/form-data"');
  expect(page.text).toContain('name="photo" accept="image/jpeg,image/png" multiple');
  const notImage = await sendWithPhotos(t.path, t.cookie, filled(formKeyOf(page.text)), [
    tinyPng(),
    new TextEncoder().encode("<svg onload=alert(1)>"),
  ]);
  expect([notImage.status, notImage.text.includes("Photo 2 is not a JPEG or PNG image.")]).toEqual([400, true]);
  const six = await sendWithPhotos(
    t.path,
    t.cookie,
    filled(formKeyOf(page.text)),
    Array.from({ length: 6 }, () => tinyPng()),
  );
  expect([six.status, six.text.includes("Please send at most 5 photos.")]).toEqual([400, true]);
  expect(await repairsOf(t.tenancyId)).toHaveLength(0);

  const key = formKeyOf(page.text);
  const sent = await sendWithPhotos(t.path, t.cookie, filled(key), [tinyPng(30, 20), tinyPng(10, 40)]);
  expect(sent.status).toBe(200);
  // Sent again (a double submit): the same repair, no more photos.
  expect((await sendWithPhotos(t.path, t.cookie, filled(key), [tinyPng(30, 20), tinyPng(10, 40)])).status).toBe(200);
  const [repair] = await repairsOf(t.tenancyId);
  const listed = await h.request("GET", `/maintenance-pro/repairs/${repair!.id}/photos`, { key: ws.key });
  expect(
    listed.body.map((p: { width: number; height: number; source: string; contentType: string }) => [
      p.width,
      p.height,
      p.source,
      p.contentType,
    ]),
  ).toEqual([
    [30, 20, "tenant", "image/png"],
    [10, 40, "tenant", "image/png"],
  ]);
  // The repair lists them from its first answer: its repair.reported event carries them.
  const ids = listed.body.map((p: { id: string }) => p.id);
  const [event] = await db<{ data: { photos: { id: string; bytes: number }[] } }[]>`
    select data from events where subject_id = ${repair!.id} and type = 'repair.reported'`;
  expect(event!.data.photos.map((p) => [p.id, p.bytes])).toEqual([
    [ids[0], tinyPng(30, 20).length],
    [ids[1], tinyPng(10, 40).length],
  ]);
});
