/**
 * The tenant's session: a link is spent by the POST of its page's "Continue" button (a mail scanner that fetches
 * the link with GET spends nothing), which starts a session bound to the link's row. Its cookie is random, stored
 * only as its SHA-256, HttpOnly, SameSite=Strict, Secure when the service is reached over https, scoped to the
 * workspace's pages (`/report/<slug>`), and lasts an hour; a later visit needs a new link.
 */
import { createHash, randomBytes } from "node:crypto";

/** How long a session started with a link lasts. */
export const tenantSessionMinutes = 60;

/** The cookie's name. */
export const tenantSessionCookie = "tenant_session";

/** The shape of a session value the service mints (32 bytes in base64url). */
const sessionShape = /^[A-Za-z0-9_-]{43}$/;

/** A new session value: 32 random bytes in base64url. */
export function newTenantSession(): string {
  return randomBytes(32).toString("base64url");
}

/** The stored form of a session value: its SHA-256. */
export function hashTenantSession(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}

/** The pages of a workspace's tenants, where the cookie goes: `/report/<slug>`. */
export function tenantPagesPath(slug: string): string {
  return `/report/${encodeURIComponent(slug)}`;
}

/** The page of a session's tenancy: `/report/<slug>/repairs`. */
export function tenantRepairsPath(slug: string): string {
  return `${tenantPagesPath(slug)}/repairs`;
}

/** The Set-Cookie header starting a session; `secure` when the service is reached over https. */
export function sessionCookie(slug: string, value: string, secure: boolean): string {
  const attributes = [
    `${tenantSessionCookie}=${value}`,
    `Path=${tenantPagesPath(slug)}`,
    `Max-Age=${tenantSessionMinutes * 60}`,
    "HttpOnly",
    "SameSite=Strict",
  ];
  if (secure) attributes.push("Secure");
  return attributes.join("; ");
}

/** The session value a request's Cookie header carries, when it has one of the minted shape. */
export function sessionOf(request: Request): string | undefined {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at < 0 || part.slice(0, at).trim() !== tenantSessionCookie) continue;
    const value = part.slice(at + 1).trim();
    if (sessionShape.test(value)) return value;
  }
  return undefined;
}
