/** The invitation email, sent by the worker through a real SMTP server: its parts, its link and its token. */
import { afterAll, describe, expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import { startSmtpServer, parseEmail, decodeHeader } from "../email/smtp.ts";
import { startInviteEmailWorker } from "../../src/maintenance_pro/invite_email_worker.ts";
import { hashInvitationToken } from "../../src/maintenance_pro/invitation_token.ts";
import { findLiveInvitation } from "../../src/maintenance_pro/queries.ts";
import type { AppContext } from "../../src/core/operation.ts";
import { addContact, eventually, invitationsOf, inviteJobs } from "./fixtures.ts";

const h = await harness();
const db = h.database.db;
const smtp = await startSmtpServer();
afterAll(() => smtp.close());
const portal = "https://portal.harbour.test/landlords";
const ctx: AppContext = {
  ...h.ctx,
  config: {
    ...h.ctx.config,
    smtpUrl: smtp.url,
    portalBaseUrl: portal,
    emailFrom: "Harbour Lettings <no-reply@harbour.test>",
  },
};
await startInviteEmailWorker(ctx);

const ws = await h.workspace();
await db`update workspaces set name = 'Harbour & Co <Lettings>' where id = ${ws.id}`;
const invite = (contactId: string) =>
  h.request("POST", `/maintenance-pro/landlords/${contactId}/portal-access/invite`, { key: ws.key });
const linkPattern = new RegExp(`${portal.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}/invitations/([A-Za-z0-9_-]+)`);

/**
 * Waits for the n-th message to an address and reads it with the token of its link. The SMTP server has the
 * message before the worker's transaction marks it sent, so this also waits for that commit (the stored hash).
 */
async function delivered(address: string, n = 1) {
  const message = await eventually(async () => smtp.to(address)[n - 1], `email ${n} to ${address}`);
  const email = parseEmail(message.raw);
  const token = linkPattern.exec(email.text ?? "")?.[1];
  if (!token) throw new Error(`no link in email ${n} to ${address}`);
  const hash = hashInvitationToken(token);
  await eventually(
    async () => (await db`select 1 from portal_invitations where token_hash = ${hash}`)[0],
    `invitation ${n} to ${address} marked sent`,
  );
  return { message, email, token };
}

describe("the invitation email", () => {
  test("arrives by SMTP with a text and an HTML part, the workspace's name, and a link whose token matches the stored hash", async () => {
    const landlord = await addContact(db, ws, { name: "Grace Hopper" });
    const res = await invite(landlord.id);
    expect(res.status).toBe(200);
    const { message, email, token } = await delivered(landlord.email!);
    const [invitation] = await invitationsOf(db, ws.id, landlord.id);

    expect(message.from).toBe("no-reply@harbour.test");
    expect(email.contentType).toStartWith("multipart/alternative");
    expect(email.headers["message-id"]).toBe(`<invitation-${invitation!.id}@harbour.test>`);
    expect(decodeHeader(email.headers.subject!)).toBe("Harbour & Co <Lettings> invites you to the landlord portal");
    expect(email.text).toContain("Dear Grace Hopper,");
    expect(email.text).toContain("Harbour & Co <Lettings> has invited you");
    expect(email.html).toContain("<strong>Harbour &amp; Co &lt;Lettings&gt;</strong>");
    expect(email.html).toContain(`href="${portal}/invitations/${token}"`);

    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(email.text).toContain(`${portal}/invitations/${token}`);
    expect(invitation!.tokenHash).toEqual(hashInvitationToken(token));
    expect(JSON.stringify(invitation)).not.toContain(token);
    expect(invitation).toMatchObject({
      status: "sent",
      attempts: 1,
      transport: "smtp",
      messageId: `<invitation-${invitation!.id}@harbour.test>`,
      expiresInDays: 7,
    });
    expect(await findLiveInvitation(db, hashInvitationToken(token))).toEqual({
      workspaceId: ws.id,
      invitationId: invitation!.id,
      contactId: landlord.id,
      expiresAt: invitation!.expiresAt!,
    });
    const job = await eventually(
      async () => (await inviteJobs(db, ws.id)).find((j) => j.id === invitation!.jobId && j.state === "completed"),
      "job completed",
    );
    expect(job.data).toEqual({ workspaceId: ws.id, invitationId: invitation!.id });
    expect(smtp.to(landlord.email!)).toHaveLength(1);
  });

  test("control characters in the landlord's and the workspace's names become spaces: no line or header breaks", async () => {
    const other = await h.workspace();
    await db`update workspaces set name = ${"Harbour\r\nLettings\u0007"} where id = ${other.id}`;
    const name = "Ada\r\nBcc: evil@attacker.test\r\n\r\nLovelace\u0085King\u2028x\ty";
    const landlord = await addContact(db, other, { name });
    const res = await h.request("POST", `/maintenance-pro/landlords/${landlord.id}/portal-access/invite`, {
      key: other.key,
    });
    expect(res.status).toBe(200);
    const { message, email } = await delivered(landlord.email!);
    expect(message.to).toEqual([landlord.email!]);
    expect(email.headers.bcc).toBeUndefined();
    const lines = email.text!.split("\r\n");
    expect(lines[0]).toBe("Dear Ada Bcc: evil@attacker.test Lovelace King x y,");
    expect(decodeHeader(email.headers.subject!)).toBe("Harbour Lettings invites you to the landlord portal");
    expect(lines.at(-2)).toBe("Harbour Lettings");
    expect(lines.filter((line) => /^(Bcc|Lovelace|Lettings)\b/.test(line))).toEqual([]);
    expect(email.text!.replaceAll("\r\n", "")).not.toMatch(/[\p{Cc}\u2028\u2029]/u);
    expect(email.html).toContain("<p>Dear Ada Bcc: evil@attacker.test Lovelace King x y,</p>");
    expect(email.html!.replace(/\r?\n/g, "")).not.toMatch(/[\p{Cc}\u2028\u2029]/u);
  });

  test("a new invitation makes the previous link stop working at once; the new link works", async () => {
    const landlord = await addContact(db, ws);
    await invite(landlord.id);
    const first = await delivered(landlord.email!, 1);
    expect(await findLiveInvitation(db, hashInvitationToken(first.token))).toBeDefined();
    expect((await invite(landlord.id)).status).toBe(200);
    expect(await findLiveInvitation(db, hashInvitationToken(first.token))).toBeUndefined();
    const second = await delivered(landlord.email!, 2);
    expect(second.token).not.toBe(first.token);
    const live = await findLiveInvitation(db, hashInvitationToken(second.token));
    const [, newer] = await invitationsOf(db, ws.id, landlord.id);
    expect(live?.invitationId).toBe(newer!.id);
  });

  test("a link stops working when it expires or when the access is no longer pending", async () => {
    const landlord = await addContact(db, ws);
    await invite(landlord.id);
    const { token } = await delivered(landlord.email!);
    const hash = hashInvitationToken(token);
    expect(await findLiveInvitation(db, hash)).toBeDefined();
    await db`update landlord_portal_access set status = 'revoked', revoked_at = now() where workspace_id = ${ws.id} and contact_id = ${landlord.id}`;
    expect(await findLiveInvitation(db, hash)).toBeUndefined();
    await db`update landlord_portal_access set status = 'pending', revoked_at = null where workspace_id = ${ws.id} and contact_id = ${landlord.id}`;
    expect(await findLiveInvitation(db, hash)).toBeDefined();
    await db`update portal_invitations set expires_at = now() - interval '1 second' where token_hash = ${hash}`;
    expect(await findLiveInvitation(db, hash)).toBeUndefined();
  });

  test("a made-up token opens nothing", async () => {
    expect(await findLiveInvitation(db, hashInvitationToken("not-a-token"))).toBeUndefined();
  });
});
