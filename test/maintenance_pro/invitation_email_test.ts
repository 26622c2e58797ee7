/** Composing the invitation email: the workspace's name, the link, the expiry, safe HTML and one-line headers. */
import { describe, expect, test } from "bun:test";
import { invitationEmail, oneLine } from "../../src/maintenance_pro/invitation_email.ts";
import { invitationLink, newInvitationToken, hashInvitationToken } from "../../src/maintenance_pro/invitation_token.ts";

const input = {
  workspaceName: "Harbour Lettings",
  landlordName: "Ada Lovelace",
  link: "https://portal.test/invitations/tok_EN-123",
  expiresAt: "2026-07-01T08:30:00.000Z",
};

describe("invitationEmail", () => {
  test("names the workspace in the subject and both parts, and carries the link in both", () => {
    const email = invitationEmail(input);
    expect(email.subject).toBe("Harbour Lettings invites you to the landlord portal");
    for (const part of [email.text, email.html]) {
      expect(part).toContain("Harbour Lettings");
      expect(part).toContain("Ada Lovelace");
      expect(part).toContain(input.link);
    }
    expect(email.html).toContain(`<a href="${input.link}"`);
  });

  test("states the expiry in UK time (British Summer Time in July)", () => {
    const email = invitationEmail(input);
    expect(email.text).toContain("1 July 2026 at 09:30 (UK time)");
    expect(invitationEmail({ ...input, expiresAt: "2026-01-10T08:30:00.000Z" }).text).toContain(
      "10 January 2026 at 08:30 (UK time)",
    );
  });

  test("escapes names in the HTML part and keeps the subject on one line", () => {
    const email = invitationEmail({
      ...input,
      workspaceName: "A&B <Lets>\r\nBcc: x@evil.test",
      landlordName: '"Bob" <script>',
    });
    expect(email.subject).not.toMatch(/[\r\n]/);
    expect(email.html).not.toContain("<script>");
    expect(email.html).toContain("&quot;Bob&quot; &lt;script&gt;");
    expect(email.html).toContain("A&amp;B &lt;Lets&gt;");
  });

  test("control characters and line separators in the names become one space each run, in every part", () => {
    const email = invitationEmail({
      ...input,
      workspaceName: "\tHarbour\u0000\u007f Lettings\u2029",
      landlordName: "Ada \r\n Bcc: x@evil.test\u0085\u009bLovelace\nKing",
    });
    expect(email.subject).toBe("Harbour Lettings invites you to the landlord portal");
    expect(email.text.split("\r\n")[0]).toBe("Dear Ada Bcc: x@evil.test Lovelace King,");
    expect(email.text.replaceAll("\r\n", "")).not.toMatch(/[\p{Cc}\u2028\u2029]/u);
    expect(email.html).toContain("<p>Dear Ada Bcc: x@evil.test Lovelace King,</p>");
    expect(email.html.replaceAll("\n", "")).not.toMatch(/[\p{Cc}\u2028\u2029]/u);
    expect(oneLine("  Mary  Ann  ")).toBe("Mary  Ann");
  });
});

describe("invitation tokens", () => {
  test("are 256 random bits in base64url, different every time, hashed with SHA-256", () => {
    const tokens = new Set(Array.from({ length: 100 }, newInvitationToken));
    expect(tokens.size).toBe(100);
    for (const t of tokens) expect(t).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const [t] = tokens;
    expect(hashInvitationToken(t!)).toHaveLength(32);
    expect(hashInvitationToken(t!)).toEqual(hashInvitationToken(t!));
  });

  test("links are <portal base>/invitations/<token>, whatever trailing slashes the base has", () => {
    expect(invitationLink("https://portal.test/", "abc")).toBe("https://portal.test/invitations/abc");
    expect(invitationLink("https://portal.test/landlords", "abc")).toBe(
      "https://portal.test/landlords/invitations/abc",
    );
  });
});
