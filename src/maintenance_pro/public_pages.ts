/**
 * What the public pages (the landlord's invitation, the tenant's and the contractor's) share: the shape of their
 * links' tokens, the hash prefix their logs name a token by, the cross-site check of their forms, and the words of
 * their refusals.
 */
import type { AppError } from "../core/errors.ts";
import type { PublicRequest } from "../core/public_route.ts";
import { hashInvitationToken } from "./invitation_token.ts";

/** The shape of a link's token as the service mints them (32 bytes in base64url). */
export const linkTokenShape = /^[A-Za-z0-9_-]{43}$/;

/** The first 12 hex digits of the token's SHA-256: enough to find its link in the logs, useless as a link. */
export function tokenHashPrefix(token: string): string {
  return hashInvitationToken(token).toString("hex").slice(0, 12);
}

/**
 * Whether a POST comes from another site. Browsers say so in Sec-Fetch-Site (only `same-origin`, or `none` for what
 * the user did themselves, pass); older ones send Origin, which must be the service's own (as reached, or as
 * PUBLIC_BASE_URL / PORTAL_BASE_URL say). A request with neither header is not from a browser: a forged form
 * cannot leave both out.
 */
export function crossSite(request: Request, url: URL, ownOrigins: readonly string[]): boolean {
  const site = request.headers.get("sec-fetch-site");
  if (site !== null) return site !== "same-origin" && site !== "none";
  const origin = request.headers.get("origin");
  if (origin === null) return false;
  return origin !== url.origin && !ownOrigins.includes(origin);
}

/** Whether the request is a cross-site post, the service's own origins being those of its configured addresses. */
export function crossSiteRequest(req: PublicRequest): boolean {
  const own = [req.app.config.publicBaseUrl, req.app.config.portalBaseUrl].map((u) => new URL(u).origin);
  return crossSite(req.request, req.url, own);
}

/** A refusal's page in words: its title and text (the tenant's and the contractor's pages show it as a notice). */
export interface RefusalNotice {
  title: string;
  text: string;
}

/** The words of a refusal by the budget (with its wait), of a cross-site post, or of anything else (a reference). */
export function refusalNotice(error: AppError, requestId: string): RefusalNotice {
  if (error.tag === "RateLimited") {
    const wait = error.headers["retry-after"] ?? "60";
    return {
      title: "Too many requests",
      text: `There have been too many requests. Please wait ${wait} seconds and try again.`,
    };
  }
  if (error.tag === "CrossSiteRequest") {
    return {
      title: "Please use the form on our page",
      text: "For your security, this form can only be sent from its own page. Please open the page again.",
    };
  }
  return {
    title: "Something went wrong",
    text: `Please try again in a moment. If it keeps happening, quote reference ${requestId}.`,
  };
}

/**
 * A photo as a public page's image: its bytes with its content type, never sniffed, cached or framed, and nothing
 * they could run (a sandbox with no source allowed).
 */
export function photoResponse(photo: { bytes: Uint8Array; contentType: string }, requestId: string): Response {
  return new Response(photo.bytes, {
    headers: {
      "content-type": photo.contentType,
      "x-content-type-options": "nosniff",
      "cache-control": "private, no-store",
      "content-security-policy": "default-src 'none'; sandbox",
      "cross-origin-resource-policy": "same-origin",
      "referrer-policy": "no-referrer",
      "x-request-id": requestId,
    },
  });
}
