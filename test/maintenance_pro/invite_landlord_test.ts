/** POST /maintenance-pro/landlords/{contactId}/portal-access/invite: the record, its transitions and refusals. */
import { describe, expect, test } from "bun:test";
import { harness, type TestWorkspace } from "../support/harness.ts";
import { addContact, invitationsOf, inviteJobs, setAccess } from "./fixtures.ts";

const h = await harness();
const db = h.database.db;
const ws = await h.workspace();
const invite = (contactId: string, w: TestWorkspace = ws, key = w.key) =>
  h.request("POST", `/maintenance-pro/landlords/${contactId}/portal-access/invite`, { key });

async function accessOf(contactId: string) {
  const [row] = await db<
    { status: string; invitedAt: string | null; acceptedAt: string | null; revokedAt: string | null }[]
  >`
    select status, iso(invited_at) as invited_at, iso(accepted_at) as accepted_at, iso(revoked_at) as revoked_at
    from landlord_portal_access where workspace_id = ${ws.id} and contact_id = ${contactId}`;
  return row;
}

async function activity(contactId: string) {
  return [
    ...(await db<{ actorKeyId: string; detail: { invitationId: string; replaces: string } }[]>`
    select actor_key_id, detail from activity_log
    where workspace_id = ${ws.id} and action = 'maintenance-pro.landlord_invited' and subject_id = ${contactId} order by id`),
  ];
}

describe("inviting a landlord", () => {
  test("a landlord with no access becomes pending; the record counts the landlord's properties", async () => {
    const landlord = await addContact(db, ws, { name: "Ada Lovelace" });
    const other = await addContact(db, ws);
    await h.rows(ws).property({ landlordIds: [landlord.id] });
    await h.rows(ws).property({ landlordIds: [landlord.id, other.id] });
    await h.rows(ws).property({ landlordIds: [other.id] });
    const res = await invite(landlord.id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      contactId: landlord.id,
      name: "Ada Lovelace",
      email: landlord.email,
      status: "pending",
      invitedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      acceptedAt: null,
      revokedAt: null,
      properties: 2,
      inviteBlocked: null,
    });
    expect(await accessOf(landlord.id)).toEqual({
      status: "pending",
      invitedAt: res.body.invitedAt,
      acceptedAt: null,
      revokedAt: null,
    });
    const [invitation, ...more] = await invitationsOf(db, ws.id, landlord.id);
    expect(more).toHaveLength(0);
    expect(invitation).toMatchObject({
      email: landlord.email,
      status: "queued",
      attempts: 0,
      supersededAt: null,
      tokenHash: null,
    });
    const jobs = await inviteJobs(db, ws.id);
    expect(jobs.find((j) => j.data.invitationId === invitation!.id)).toMatchObject({
      id: invitation!.jobId,
      data: { workspaceId: ws.id, invitationId: invitation!.id },
    });
    expect(await activity(landlord.id)).toEqual([
      { actorKeyId: ws.keyId, detail: { invitationId: invitation!.id, replaces: "nothing" } },
    ]);
  });

  test("a landlord owning no property is invited with properties 0", async () => {
    const landlord = await addContact(db, ws);
    const res = await invite(landlord.id);
    expect(res.status).toBe(200);
    expect(res.body.properties).toBe(0);
  });

  test("a revoked access becomes pending again with acceptedAt and revokedAt cleared", async () => {
    const landlord = await addContact(db, ws);
    await setAccess(db, ws, landlord.id, "revoked");
    const res = await invite(landlord.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: "pending", acceptedAt: null, revokedAt: null, inviteBlocked: null });
    const access = await accessOf(landlord.id);
    expect(access).toEqual({ status: "pending", invitedAt: res.body.invitedAt, acceptedAt: null, revokedAt: null });
    expect((await activity(landlord.id))[0]!.detail.replaces).toBe("revoked");
  });

  test("inviting a pending landlord again makes a new invitation and supersedes the previous one", async () => {
    const landlord = await addContact(db, ws);
    const first = await invite(landlord.id);
    const second = await invite(landlord.id);
    expect(second.status).toBe(200);
    expect(second.body.status).toBe("pending");
    expect(second.body.invitedAt >= first.body.invitedAt).toBe(true);
    const [older, newer] = await invitationsOf(db, ws.id, landlord.id);
    expect(older!.supersededAt).not.toBeNull();
    expect(newer!.supersededAt).toBeNull();
    expect(
      (await inviteJobs(db, ws.id)).filter((j) => [older!.id, newer!.id].includes(j.data.invitationId)),
    ).toHaveLength(2);
    expect((await activity(landlord.id)).map((a) => a.detail.replaces)).toEqual(["nothing", "pending"]);
  });

  test("an access already active is PortalAccessActive and nothing is written or queued", async () => {
    const landlord = await addContact(db, ws);
    await setAccess(db, ws, landlord.id, "active");
    const before = await accessOf(landlord.id);
    const jobsBefore = (await inviteJobs(db, ws.id)).length;
    const res = await invite(landlord.id);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ _tag: "PortalAccessActive", contactId: landlord.id });
    expect(await accessOf(landlord.id)).toEqual(before);
    expect(await invitationsOf(db, ws.id, landlord.id)).toHaveLength(0);
    expect(await inviteJobs(db, ws.id)).toHaveLength(jobsBefore);
  });

  test("concurrent invitations of one landlord each answer pending and leave exactly one live invitation", async () => {
    const landlord = await addContact(db, ws);
    const answers = await Promise.all(Array.from({ length: 6 }, () => invite(landlord.id)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const invitations = await invitationsOf(db, ws.id, landlord.id);
    expect(invitations).toHaveLength(6);
    expect(invitations.filter((i) => i.supersededAt === null)).toHaveLength(1);
    expect(invitations.at(-1)!.supersededAt).toBeNull();
  });
});

describe("refusals", () => {
  const cases = [
    { why: "an archived landlord", contact: { archived: true }, reason: "archived" },
    { why: "a contact without the landlord role", contact: { roles: ["tenant"] }, reason: "not_a_landlord" },
    { why: "a landlord without an email", contact: { email: null }, reason: "no_email" },
    { why: "a landlord whose email is blank", contact: { email: "   " }, reason: "no_email" },
    {
      why: "an archived tenant without an email (archived comes first)",
      contact: { archived: true, roles: ["tenant"], email: null },
      reason: "archived",
    },
    {
      why: "a tenant without an email (not_a_landlord comes before no_email)",
      contact: { roles: ["tenant"], email: null },
      reason: "not_a_landlord",
    },
  ] as const;

  for (const c of cases) {
    test(`${c.why} is InviteBlocked ${c.reason} and nothing is written or queued`, async () => {
      const contact = await addContact(db, ws, c.contact as any);
      const jobsBefore = (await inviteJobs(db, ws.id)).length;
      const res = await invite(contact.id);
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ _tag: "InviteBlocked", contactId: contact.id, reason: c.reason });
      expect(await accessOf(contact.id)).toBeUndefined();
      expect(await invitationsOf(db, ws.id, contact.id)).toHaveLength(0);
      expect(await inviteJobs(db, ws.id)).toHaveLength(jobsBefore);
      expect(await activity(contact.id)).toEqual([]);
    });
  }

  test("an archived landlord with active access is InviteBlocked, not PortalAccessActive", async () => {
    const contact = await addContact(db, ws, { archived: true });
    await setAccess(db, ws, contact.id, "active");
    const res = await invite(contact.id);
    expect(res.body).toEqual({ _tag: "InviteBlocked", contactId: contact.id, reason: "archived" });
  });

  test("an unknown contact, and another workspace's contact, are ContactNotFound", async () => {
    const unknown = await invite("01UNKNOWNCONTACT0000000000");
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ _tag: "ContactNotFound", contactId: "01UNKNOWNCONTACT0000000000" });
    const other = await h.workspace();
    const theirs = await addContact(db, other);
    const res = await invite(theirs.id);
    expect(res.body).toEqual({ _tag: "ContactNotFound", contactId: theirs.id });
    expect(await db`select 1 from landlord_portal_access where contact_id = ${theirs.id}`).toHaveLength(0);
  });

  test("a key without maintenance-pro:write is ScopeMissing; a workspace without the module is EntitlementMissing", async () => {
    const landlord = await addContact(db, ws);
    const readOnly = await h.key(ws, ["maintenance-pro:read"]);
    expect((await invite(landlord.id, ws, readOnly)).body).toEqual({
      _tag: "ScopeMissing",
      scope: "maintenance-pro:write",
    });
    const bare = await h.workspace({ modules: [] });
    const theirs = await addContact(db, bare);
    expect((await invite(theirs.id, bare)).body).toEqual({
      _tag: "EntitlementMissing",
      tenantId: bare.id,
      moduleId: "maintenance-pro",
    });
    expect(await accessOf(landlord.id)).toBeUndefined();
  });
});
