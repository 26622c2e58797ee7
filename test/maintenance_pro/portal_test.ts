/**
 * The landlord's side of an invitation through the service's public routes: the page of every state of a link,
 * accepting by form and by JSON (once, however many try at once), cross-site posts refused, revocation, the
 * per-address budget, no token in the logs; every refusal changes nothing. Time is moved in the database.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { Value } from "@sinclair/typebox/value";
import { buildApp } from "../../src/app.ts";
import { ConfigError, loadConfig } from "../../src/config.ts";
import type { Logger } from "../../src/core/log.ts";
import { revokePortalAccess } from "../../src/maintenance_pro/portal_access.ts";
import { portalPolicy } from "../../src/maintenance_pro/portal_page.ts";
import { tokenHashPrefix } from "../../src/maintenance_pro/public_pages.ts";
import { LandlordPortalAccess } from "../../src/maintenance_pro/schema.ts";
import { harness } from "../support/harness.ts";
import { addContact } from "./fixtures.ts";
import { outboxContext, sendInvitation } from "./portal_fixtures.ts";

const h = await harness();
const db = h.database.db;
const lines: string[] = [];
const log: Logger = {
  debug: (msg, fields) => void lines.push(JSON.stringify({ msg, ...fields })),
  info: (msg, fields) => void lines.push(JSON.stringify({ msg, ...fields })),
  warn: (msg, fields) => void lines.push(JSON.stringify({ msg, ...fields })),
  error: (msg, fields) => void lines.push(JSON.stringify({ msg, ...fields })),
};
const ctx = { ...outboxContext(h), log };
afterAll(() => rmSync(ctx.config.dataDir, { recursive: true, force: true }));
const app = buildApp({ ...ctx, config: { ...ctx.config, portalBudgetPerMinute: 100_000 } });

const ws = await h.workspace();
await db`update workspaces set name = 'Harbour & Co <Lettings>' where id = ${ws.id}`;

/** A landlord of `properties` properties with a sent invitation. */
async function invited(properties = 2, name = "Ada O'Brien <3") {
  const landlord = await addContact(db, ws, { name });
  for (let i = 0; i < properties; i++) await h.rows(ws).property({ landlordIds: [landlord.id] });
  const { token, invitationId } = await sendInvitation(h, ctx, ws, landlord.id);
  return { ...landlord, token, invitationId };
}

const page = (token: string, target = app) =>
  target.handle(new Request(`http://localhost/portal/invitations/${token}`, { headers: { accept: "text/html" } }));
const accept = (token: string, headers: Record<string, string> = {}, target = app) =>
  target.handle(
    new Request(`http://localhost/portal/invitations/${token}/accept`, {
      method: "POST",
      headers: {
        accept: "text/html",
        "content-type": "application/x-www-form-urlencoded",
        "sec-fetch-site": "same-origin",
        origin: "http://localhost",
        ...headers,
      },
      body: "",
    }),
  );
const acceptJson = (token: string) => accept(token, { accept: "application/json", "sec-fetch-site": "same-origin" });
const heading = (html: string) => /<h1>([^<]*)<\/h1>/.exec(html)?.[1];

/** What a refusal must not change: the contact's access, its invitations, the workspace's events and activity. */
async function snapshot(contactId: string) {
  const [access] =
    await db`select * from landlord_portal_access where workspace_id = ${ws.id} and contact_id = ${contactId}`;
  const invitations = await db`
    select * from portal_invitations where workspace_id = ${ws.id} and contact_id = ${contactId} order by id`;
  const [counts] = await db`
    select (select count(*)::int from events where workspace_id = ${ws.id}) as events,
           (select count(*)::int from activity_log where workspace_id = ${ws.id}) as activity`;
  return { access, invitations, counts };
}

const accessOf = async (contactId: string) =>
  (
    await db`select status, accepted_at, revoked_at, revoke_reason from landlord_portal_access
            where workspace_id = ${ws.id} and contact_id = ${contactId}`
  )[0]!;
const eventsOf = (contactId: string) =>
  db<{ type: string; subjectKind: string; data: Record<string, unknown>; actorKind: string; actorId: string | null }[]>`
    select type, subject_kind, data, actor_kind, actor_id from events
    where workspace_id = ${ws.id} and subject_id = ${contactId} order by tx_id, id`;
const reinvite = (contactId: string) =>
  h.request("POST", `/maintenance-pro/landlords/${contactId}/portal-access/invite`, { key: ws.key });

describe("the invitation page", () => {
  test("greets the landlord, names the workspace and the properties, offers one button; strict headers", async () => {
    const landlord = await invited(2);
    const res = await page(landlord.token);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("content-security-policy")).toBe(portalPolicy);
    expect(portalPolicy).toContain("default-src 'none'");
    expect(portalPolicy).toContain("form-action 'self'");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    const html = await res.text();
    expect(heading(html)).toBe("Your landlord portal invitation");
    expect(html).toContain("Hello Ada O&#x27;Brien &lt;3,");
    expect(html).toContain("<strong>Harbour &amp; Co &lt;Lettings&gt;</strong> invites you");
    expect(html).toContain("The access covers 2 properties.");
    expect(html).toContain(`<form method="post" action="${landlord.token}/accept">`);
    expect(html.match(/<button/g)?.length).toBe(1);
    expect(html).toContain(">Accept invitation</button>");
    expect(html).not.toContain("<script");
    expect(html).not.toContain(landlord.email!);
  });

  test("a link with a trailing slash shows the same page, whose form posts to that link's accept", async () => {
    const landlord = await invited();
    const link = `http://localhost/portal/invitations/${landlord.token}/`;
    const res = await app.handle(new Request(link, { headers: { accept: "text/html" } }));
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(heading(html)).toBe("Your landlord portal invitation");
    // Where a browser posts the form: its action resolved against the page's address.
    const target = new URL(/<form method="post" action="([^"]*)">/.exec(html)![1]!, link).href;
    expect(target).toBe(`http://localhost/portal/invitations/${landlord.token}/accept`);
    const posted = await app.handle(
      new Request(target, {
        method: "POST",
        headers: {
          accept: "text/html",
          "sec-fetch-site": "same-origin",
          "content-type": "application/x-www-form-urlencoded",
        },
        body: "",
      }),
    );
    expect(heading(await posted.text())).toBe("Invitation accepted");
    expect((await accessOf(landlord.id)).status).toBe("active");
  });

  test("one property is said in the singular", async () => {
    expect(await (await page((await invited(1)).token)).text()).toContain("The access covers 1 property.");
  });

  test("an unknown token and a malformed one answer the same 404 page", async () => {
    const unknown = await page("A".repeat(43));
    const malformed = await page("not-a-token%00<b>");
    expect([unknown.status, malformed.status]).toEqual([404, 404]);
    const [a, b] = [await unknown.text(), await malformed.text()];
    expect(a).toBe(b);
    expect(heading(a)).toBe("Link not recognised");
    const [ja, jb] = [await acceptJson("B".repeat(43)), await acceptJson("short")];
    expect([ja.status, jb.status]).toEqual([404, 404]);
    expect(await ja.json()).toEqual({ _tag: "InvitationNotFound" });
    expect(await jb.json()).toEqual({ _tag: "InvitationNotFound" });
  });
});

describe("accepting", () => {
  test("by the form: the confirmation, the access active with acceptedAt, an event and an activity entry", async () => {
    const landlord = await invited();
    const res = await accept(landlord.token);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(heading(html)).toBe("Invitation accepted");
    expect(html).toContain("is now active");
    const access = await accessOf(landlord.id);
    expect(access.status).toBe("active");
    expect(access.acceptedAt).toBeInstanceOf(Date);
    const events = await eventsOf(landlord.id);
    expect(events.map((e) => [e.type, e.subjectKind, e.actorKind, e.actorId])).toEqual([
      ["portal_access.invited", "portal_access", "key", ws.keyId],
      ["portal_access.accepted", "portal_access", "provider", "portal"],
    ]);
    expect(Value.Check(LandlordPortalAccess, events[1]!.data)).toBe(true);
    expect(events[1]!.data).toMatchObject({ contactId: landlord.id, status: "active", properties: 2 });
    const [activity] = await db`
      select action, detail from activity_log where workspace_id = ${ws.id} and subject_id = ${landlord.id}
      and action = 'maintenance-pro.portal_access_accepted'`;
    expect(activity!.detail).toEqual({ invitationId: landlord.invitationId });
    // Through the API: the access is active, so inviting again is refused.
    const again = await reinvite(landlord.id);
    expect(again.status).toBe(409);
    expect(again.body._tag).toBe("PortalAccessActive");
  });

  test("the token is spent: the page says already accepted, a second accept is 409 and changes nothing", async () => {
    const landlord = await invited();
    expect((await accept(landlord.token)).status).toBe(200);
    const before = await snapshot(landlord.id);
    const shown = await page(landlord.token);
    expect(shown.status).toBe(200);
    expect(heading(await shown.text())).toBe("Invitation already accepted");
    const second = await accept(landlord.token);
    expect(second.status).toBe(409);
    expect(heading(await second.text())).toBe("Invitation already accepted");
    const json = await acceptJson(landlord.token);
    expect(json.status).toBe(409);
    expect(await json.json()).toEqual({ _tag: "InvitationAccepted" });
    expect(await snapshot(landlord.id)).toEqual(before);
  });

  test("by JSON: the portal access record", async () => {
    const landlord = await invited(3);
    const res = await acceptJson(landlord.token);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    const body = (await res.json()) as { acceptedAt: string; invitedAt: string };
    expect(Value.Check(LandlordPortalAccess, body)).toBe(true);
    expect(body).toMatchObject({
      contactId: landlord.id,
      name: landlord.name,
      email: landlord.email,
      status: "active",
      revokedAt: null,
      properties: 3,
      inviteBlocked: null,
    });
    expect(Date.parse(body.acceptedAt)).toBeGreaterThanOrEqual(Date.parse(body.invitedAt));
  });

  test("20 concurrent accepts of one link: exactly one acceptance, one event", async () => {
    const landlord = await invited();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? acceptJson(landlord.token) : accept(landlord.token))),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200).length).toBe(1);
    expect(statuses.filter((s) => s === 409).length).toBe(19);
    expect((await eventsOf(landlord.id)).filter((e) => e.type === "portal_access.accepted").length).toBe(1);
    const [{ n }] = (await db`
      select count(*)::int as n from activity_log where workspace_id = ${ws.id} and subject_id = ${landlord.id}
      and action = 'maintenance-pro.portal_access_accepted'`) as unknown as [{ n: number }];
    expect(n).toBe(1);
  });
});

describe("links that no longer work", () => {
  test("7 days after sending (moved in the database) the link has expired; accepting is refused, nothing changes", async () => {
    const landlord = await invited();
    // A minute before the end it still works.
    await db`update portal_invitations set expires_at = now() + interval '1 minute' where id = ${landlord.invitationId}`;
    expect(heading(await (await page(landlord.token)).text())).toBe("Your landlord portal invitation");
    // The email was sent 7 days ago.
    await db`update email_deliveries set sent_at = sent_at - interval '7 days' where invitation_id = ${landlord.invitationId}`;
    await db`
      update portal_invitations i set expires_at = d.sent_at + interval '7 days'
      from email_deliveries d where d.invitation_id = i.id and i.id = ${landlord.invitationId}`;
    const before = await snapshot(landlord.id);
    const res = await page(landlord.token);
    expect(res.status).toBe(410);
    const html = await res.text();
    expect(heading(html)).toBe("This link has expired");
    expect(html).toContain("Harbour &amp; Co &lt;Lettings&gt;");
    expect(html).not.toContain("Ada");
    expect(html).not.toContain("<form");
    const post = await accept(landlord.token);
    expect(post.status).toBe(410);
    expect(heading(await post.text())).toBe("This link has expired");
    expect(await (await acceptJson(landlord.token)).json()).toEqual({ _tag: "InvitationExpired" });
    expect(await snapshot(landlord.id)).toEqual(before);
    expect((await accessOf(landlord.id)).status).toBe("pending");
  });

  test("a newer invitation replaces the link: the old one says so, the new one works", async () => {
    const landlord = await invited();
    const newer = await sendInvitation(h, ctx, ws, landlord.id);
    const before = await snapshot(landlord.id);
    const old = await page(landlord.token);
    expect(old.status).toBe(410);
    expect(heading(await old.text())).toBe("This link has been replaced");
    const post = await accept(landlord.token);
    expect(post.status).toBe(410);
    expect(heading(await post.text())).toBe("This link has been replaced");
    expect(await (await acceptJson(landlord.token)).json()).toEqual({ _tag: "InvitationSuperseded" });
    expect(await snapshot(landlord.id)).toEqual(before);
    expect((await accept(newer.token)).status).toBe(200);
    expect((await accessOf(landlord.id)).status).toBe("active");
  });

  test("revoking stops a pending link at once; inviting again makes a new pending access with a working link", async () => {
    const landlord = await invited();
    const revoked = await revokePortalAccess(db, { workspaceId: ws.id, contactId: landlord.id, reason: "sold up" });
    expect(revoked).toMatchObject({ status: "revoked", changed: true, revokeReason: "sold up", acceptedAt: null });
    const before = await snapshot(landlord.id);
    const res = await page(landlord.token);
    expect(res.status).toBe(410);
    expect(heading(await res.text())).toBe("Access withdrawn");
    expect((await accept(landlord.token)).status).toBe(410);
    expect(await (await acceptJson(landlord.token)).json()).toEqual({ _tag: "PortalAccessRevoked" });
    expect(await snapshot(landlord.id)).toEqual(before);

    const again = await sendInvitation(h, ctx, ws, landlord.id);
    const access = await accessOf(landlord.id);
    expect([access.status, access.revokedAt, access.revokeReason]).toEqual(["pending", null, null]);
    expect(heading(await (await page(landlord.token)).text())).toBe("This link has been replaced");
    expect((await accept(again.token)).status).toBe(200);
    expect((await eventsOf(landlord.id)).map((e) => e.type)).toEqual([
      "portal_access.invited",
      "portal_access.revoked",
      "portal_access.invited",
      "portal_access.accepted",
    ]);
  });

  test("revoking an active access: its accepted link says access withdrawn", async () => {
    const landlord = await invited();
    expect((await accept(landlord.token)).status).toBe(200);
    await revokePortalAccess(db, { workspaceId: ws.id, contactId: landlord.id, reason: null });
    expect(heading(await (await page(landlord.token)).text())).toBe("Access withdrawn");
  });
});

describe("cross-site posts", () => {
  test("refused by Sec-Fetch-Site or a foreign Origin, with a page, changing nothing", async () => {
    const landlord = await invited();
    const before = await snapshot(landlord.id);
    const bySite = await accept(landlord.token, { "sec-fetch-site": "cross-site", origin: "https://evil.test" });
    expect(bySite.status).toBe(403);
    expect(heading(await bySite.text())).toBe("Please accept from the invitation page");
    expect((await accept(landlord.token, { "sec-fetch-site": "same-site" })).status).toBe(403);
    // An older browser: no Sec-Fetch-Site, only Origin.
    const headers = new Headers({ origin: "https://evil.test", accept: "application/json" });
    const byOrigin = await app.handle(
      new Request(`http://localhost/portal/invitations/${landlord.token}/accept`, { method: "POST", headers }),
    );
    expect(byOrigin.status).toBe(403);
    expect(await byOrigin.json()).toEqual({ _tag: "CrossSiteRequest" });
    const nullOrigin = new Headers({ origin: "null" });
    const sandboxed = await app.handle(
      new Request(`http://localhost/portal/invitations/${landlord.token}/accept`, {
        method: "POST",
        headers: nullOrigin,
      }),
    );
    expect(sandboxed.status).toBe(403);
    expect(await snapshot(landlord.id)).toEqual(before);
    // The service's own origin passes.
    const own = new Headers({ origin: "http://localhost", accept: "application/json" });
    const ok = await app.handle(
      new Request(`http://localhost/portal/invitations/${landlord.token}/accept`, { method: "POST", headers: own }),
    );
    expect(ok.status).toBe(200);
  });
});

describe("abuse", () => {
  test("beyond the per-address budget: 429 with Retry-After, a page for people, JSON for the front end", async () => {
    const landlord = await invited();
    const small = buildApp({ ...ctx, config: { ...ctx.config, portalBudgetPerMinute: 3 } });
    await db`delete from address_buckets where scope = 'portal'`;
    const before = await snapshot(landlord.id);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await page("C".repeat(43), small)).status);
    expect(statuses).toEqual([404, 404, 404]);
    const refused = await page(landlord.token, small);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(refused.headers.get("content-security-policy")).toBe(portalPolicy);
    const html = await refused.text();
    expect(heading(html)).toBe("Too many requests");
    expect(html).toContain(`wait ${refused.headers.get("retry-after")} seconds`);
    const json = await accept(landlord.token, { accept: "application/json" }, small);
    expect(json.status).toBe(429);
    expect(((await json.json()) as { _tag: string })._tag).toBe("RateLimited");
    expect(await snapshot(landlord.id)).toEqual(before);
    // The budget is the portal's own: the API is not affected.
    expect((await h.request("GET", "/maintenance-pro/hazard-settings", { key: ws.key })).status).toBe(200);
  });

  test("no token reaches the logs, only its hash's prefix", async () => {
    const landlord = await invited();
    lines.length = 0;
    await page(landlord.token);
    await accept(landlord.token, { "sec-fetch-site": "cross-site" });
    await accept(landlord.token);
    await accept(landlord.token);
    const text = lines.join("\n");
    expect(lines.length).toBeGreaterThanOrEqual(4);
    expect(text).not.toContain(landlord.token);
    expect(text).not.toContain(landlord.token.slice(0, 12));
    expect(text).toContain(tokenHashPrefix(landlord.token));
    expect(lines.map((l) => JSON.parse(l).state).filter(Boolean)).toEqual(["pending", "pending", "accepted"]);
  });
});

describe("configuration", () => {
  test("PORTAL_BASE_URL defaults to the service's own /portal, following PUBLIC_BASE_URL or PORT", () => {
    expect(loadConfig({ PORT: "4100" }).portalBaseUrl).toBe("http://localhost:4100/portal");
    expect(loadConfig({ PUBLIC_BASE_URL: "https://lettings.example/" }).portalBaseUrl).toBe(
      "https://lettings.example/portal",
    );
    expect(loadConfig({ PORTAL_BASE_URL: "https://portal.example/l/" }).portalBaseUrl).toBe("https://portal.example/l");
    expect(loadConfig({}).portalBudgetPerMinute).toBe(30);
    expect(loadConfig({ PORTAL_BUDGET_PER_MINUTE: "5" }).portalBudgetPerMinute).toBe(5);
    expect(() => loadConfig({ PORTAL_BUDGET_PER_MINUTE: "0" })).toThrow(ConfigError);
  });
});
