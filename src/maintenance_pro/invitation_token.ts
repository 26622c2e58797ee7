/** The token of an invitation link: random, shown only in the email, stored only as its hash. */
import { createHash, randomBytes } from "node:crypto";

/** How long an invitation link works after its email is sent. */
export const invitationLifetimeDays = 7;

/** A new token: 32 random bytes in base64url (256 bits). */
export function newInvitationToken(): string {
  return randomBytes(32).toString("base64url");
}

/** The stored form of a token: its SHA-256. */
export function hashInvitationToken(token: string): Buffer {
  return createHash("sha256").update(token, "utf8").digest();
}

/** The link the landlord follows: `<portal base>/invitations/<token>`. */
export function invitationLink(portalBaseUrl: string, token: string): string {
  return `${portalBaseUrl.replace(/\/+$/, "")}/invitations/${token}`;
}
