/**
 * The tenant's session: a link is spent by the POST of its page's "Continue" button (a mail scanner that fetches
 * the link with GET spends nothing), which starts a session bound to the link's row. Its cookie is stored only as
 * its SHA-256, HttpOnly, SameSite=Strict, Secure when the service is reached over https, scoped to the workspace's
 * pages (`/report/<slug>`), and lasts an hour; a later visit needs a new link.
 *
 * A double click on Continue sends two POSTs before either answer arrives, and the browser keeps the second answer.
 * So that it too opens the page, the link's GET gives the browser a random mark (cookie `tenant_browser`, scoped to
 * the workspace's link pages `/report/<slug>/t`, kept a day, never stored by the service), and a POST carrying a
 * mark starts the session HMAC-SHA256(mark, token): the same browser posting the same link again computes the same
 * session, which the link's row already holds, and is answered with it while that session lasts. Any other browser
 * (another mark, or none) is refused as the link was used: a used link never starts a second session, and a mark
 * alone (without the link) or the link alone (without the mark) yields nothing. A POST without a mark (cookies
 * refused) starts a random session, as before.
 */
import { createHash, createHmac, randomBytes } from "node:crypto";

/** How long a session started with a link lasts. */
export const tenantSessionMinutes = 60;

/** The cookie's name. */
export const tenantSessionCookie = "tenant_session";

/** The cookie of a browser's mark. */
export const tenantBrowserCookie = "tenant_browser";

/** How long a browser's mark is kept: a day, as long as a link works. */
const browserMarkHours = 24;

/** The shape of a session value or mark the service mints (32 bytes in base64url). */
const sessionShape = /^[A-Za-z0-9_-]{43}$/;

/** A new session value or browser mark: 32 random bytes in base64url. */
export function newTenantSession(): string {
  return randomBytes(32).toString("base64url");
}

/** The session a link's POST starts: HMAC-SHA256(mark, token) for a browser with a mark, else a random one. */
export function linkSession(token: string, mark: string | undefined): string {
  if (!mark) return newTenantSession();
  return createHmac("sha256", mark).update(token, "utf8").digest("base64url");
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

/** The address of one of the photos a session's tenancy page shows: `/report/<slug>/photos/<id>`. */
export function tenantPhotoPath(slug: string, photoId: string): string {
  return `${tenantPagesPath(slug)}/photos/${encodeURIComponent(photoId)}`;
}

/** A Set-Cookie header: HttpOnly, SameSite=Strict, and Secure when `secure` (the service is reached over https). */
function strictCookie(name: string, value: string, path: string, seconds: number, secure: boolean): string {
  const attributes = [`${name}=${value}`, `Path=${path}`, `Max-Age=${seconds}`, "HttpOnly", "SameSite=Strict"];
  if (secure) attributes.push("Secure");
  return attributes.join("; ");
}

/** The Set-Cookie header starting a session; `secure` when the service is reached over https. */
export function sessionCookie(slug: string, value: string, secure: boolean): string {
  return strictCookie(tenantSessionCookie, value, tenantPagesPath(slug), tenantSessionMinutes * 60, secure);
}

/** The Set-Cookie header giving a browser its mark, sent back only to the workspace's link pages. */
export function browserCookie(slug: string, mark: string, secure: boolean): string {
  return strictCookie(tenantBrowserCookie, mark, `${tenantPagesPath(slug)}/t`, browserMarkHours * 3600, secure);
}

/** The value of the cookie `name` a request carries, when it has the minted shape. */
function cookieOf(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at < 0 || part.slice(0, at).trim() !== name) continue;
    const value = part.slice(at + 1).trim();
    if (sessionShape.test(value)) return value;
  }
  return undefined;
}

/** The session value a request's Cookie header carries, when it has one of the minted shape. */
export function sessionOf(request: Request): string | undefined {
  return cookieOf(request, tenantSessionCookie);
}

/** The browser's mark a request carries, when it has one of the minted shape. */
export function browserMarkOf(request: Request): string | undefined {
  return cookieOf(request, tenantBrowserCookie);
}
