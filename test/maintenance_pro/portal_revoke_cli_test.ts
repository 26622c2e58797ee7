/**
 * `bun run cli portal revoke`, run as a subprocess against the test database: pending or active → revoked with
 * revokedAt and the reason kept; the link stops working at once; refusals exit 2 and change nothing.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { runCli } from "../support/service.ts";
import { harness } from "../support/harness.ts";
import { addContact } from "./fixtures.ts";
import { outboxContext, sendInvitation } from "./portal_fixtures.ts";

const h = await harness();
const db = h.database.db;
const ctx = outboxContext(h);
afterAll(() => rmSync(ctx.config.dataDir, { recursive: true, force: true }));
const ws = await h.workspace();

const cli = (args: string[]) => runCli(args, { databaseUrl: h.database.url });

const revoke = (contactId: string, ...more: string[]) =>
  cli(["portal", "revoke", "--workspace", ws.slug, "--contact", contactId, ...more]);
const page = (token: string) => h.app.handle(new Request(`http://localhost/portal/invitations/${token}`));
const stored = async (contactId: string) =>
  (await db`select * from landlord_portal_access where workspace_id = ${ws.id} and contact_id = ${contactId}`)[0];
const revokedEvents = async (contactId: string) =>
  (await db`select actor_kind, actor_id, data from events
            where workspace_id = ${ws.id} and subject_id = ${contactId} and type = 'portal_access.revoked'`) as {
    actorKind: string;
    actorId: string | null;
    data: Record<string, unknown>;
  }[];

describe("portal revoke", () => {
  test("a pending access: revoked with revokedAt and the reason, its link stops at once, one event", async () => {
    const landlord = await addContact(db, ws, { name: "Mary Jackson" });
    const { token } = await sendInvitation(h, ctx, ws, landlord.id);
    expect((await page(token)).status).toBe(200);
    const run = await revoke(landlord.id, "--reason", "Sold the property");
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    expect(run.out).toMatchObject({
      contactId: landlord.id,
      name: "Mary Jackson",
      status: "revoked",
      acceptedAt: null,
      revokeReason: "Sold the property",
      changed: true,
    });
    expect(Date.parse(run.out.revokedAt)).toBeGreaterThan(0);
    expect((await page(token)).status).toBe(410);
    const events = await revokedEvents(landlord.id);
    expect(events.map((e) => [e.actorKind, e.actorId, e.data.status])).toEqual([["cli", null, "revoked"]]);
    const [activity] = await db`
      select detail from activity_log where workspace_id = ${ws.id} and subject_id = ${landlord.id}
      and action = 'maintenance-pro.portal_access_revoked'`;
    expect(activity!.detail).toEqual({ was: "pending", reason: "Sold the property" });
  });

  test("revoking again changes nothing (changed: false, no second event), exit 0", async () => {
    const landlord = await addContact(db, ws);
    await sendInvitation(h, ctx, ws, landlord.id);
    expect((await revoke(landlord.id)).out.changed).toBe(true);
    const before = await stored(landlord.id);
    const again = await revoke(landlord.id, "--reason", "twice");
    expect(again.code).toBe(0);
    expect(again.out).toMatchObject({ status: "revoked", changed: false, revokeReason: null });
    expect(await stored(landlord.id)).toEqual(before);
    expect((await revokedEvents(landlord.id)).length).toBe(1);
  });

  test("refusals exit 2 with a tagged error and change nothing", async () => {
    const never = await addContact(db, ws);
    const none = await revoke(never.id);
    expect([none.code, none.stdout, none.err]).toEqual([2, "", { _tag: "PortalAccessNotFound", contactId: never.id }]);
    expect(await stored(never.id)).toBeUndefined();
    const unknown = await revoke("01NOSUCHCONTACT0000000000");
    expect([unknown.code, unknown.err?._tag]).toEqual([2, "ContactNotFound"]);
    const noWorkspace = await cli(["portal", "revoke", "--workspace", "no-such-ws", "--contact", never.id]);
    expect([noWorkspace.code, noWorkspace.err?._tag]).toEqual([2, "TenantNotFound"]);
    const missing = await cli(["portal", "revoke", "--workspace", ws.slug]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("portal revoke needs --contact");
    // A contact of another workspace is unknown here.
    const other = await h.workspace();
    const theirs = await addContact(db, other);
    await sendInvitation(h, ctx, other, theirs.id);
    expect((await revoke(theirs.id)).err?._tag).toBe("ContactNotFound");
    expect(
      (await stored(theirs.id)) ??
        (await db`select status from landlord_portal_access where contact_id = ${theirs.id}`)[0],
    ).toMatchObject({ status: "pending" });
  });
});
