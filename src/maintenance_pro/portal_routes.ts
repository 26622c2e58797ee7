/**
 * The landlord's side of an invitation (group maintenance-pro-public): `GET /portal/invitations/{token}`, a page for
 * every state of the link, and `POST /portal/invitations/{token}/accept`, its form's target (JSON for the portal's
 * own front end). Both count against one per-address budget, `portal`. No token is logged, only its hash's prefix.
 */
import type { AppError } from "../core/errors.ts";
import { errorResponse, jsonResponse } from "../core/json_response.ts";
import type { PublicRequest, PublicRoute, PublicRouteDoc } from "../core/public_route.ts";
import {
  CrossSiteRequest,
  InvitationAccepted,
  InvitationExpired,
  InvitationNotFound,
  InvitationSuperseded,
  PortalAccessRevoked,
} from "./errors.ts";
import { LandlordPortalAccess } from "./schema.ts";
import { stateRefusal, type InvitationState } from "./invitation_state.ts";
import { acceptByToken, lookUpLink } from "./portal_access.ts";
import { acceptAction, portalHtml, portalPage } from "./portal_page.ts";
import { crossSiteRequest, tokenHashPrefix } from "./public_pages.ts";

/** The status of a state's page: a link that can never work again is gone, an unknown one not found. */
const pageStatus: Record<InvitationState, number> = {
  pending: 200,
  accepted: 200,
  expired: 410,
  superseded: 410,
  revoked: 410,
  unknown: 404,
};

/** Whether the caller asked for JSON (the portal's front end) rather than a page. */
export function wantsJson(request: Request): boolean {
  const accept = (request.headers.get("accept") ?? "").toLowerCase();
  return accept.includes("application/json") && !accept.includes("text/html");
}

/** How a refusal of the budget, the body or the service is answered: JSON when asked for, else a page. */
function refuse(error: AppError, req: Pick<PublicRequest, "requestId" | "request">): Response {
  if (wantsJson(req.request)) return errorResponse(error, req.requestId);
  const kind = error.tag === "RateLimited" ? "tooMany" : error.tag === "CrossSiteRequest" ? "crossSite" : "trouble";
  const wait = error.headers["retry-after"];
  const text = kind === "tooMany" ? `${wait ?? 60} seconds` : req.requestId;
  return portalPage(error.status, portalHtml(kind, undefined, { text }), req.requestId, error.headers);
}

const budget: PublicRoute["budget"] = { name: () => "portal", perMinute: (config) => config.portalBudgetPerMinute };

/** The invitation page of a link, in whatever state it is. */
export const invitationPage: PublicRoute = {
  id: "portal.invitation",
  method: "GET",
  path: "/portal/invitations/:token",
  budget,
  refuse,
  async handle(req) {
    const token = req.params.token ?? "";
    const { state, view } = await lookUpLink(req.app.db, token);
    if (view) req.logged.workspaceId = view.workspaceId;
    if (state !== "pending" && pageStatus[state] >= 400) req.logged.error = stateRefusal(state).tag;
    req.app.log.info("portal invitation", { requestId: req.requestId, tokenHash: tokenHashPrefix(token), state });
    const action = acceptAction(req.url.pathname, token);
    return portalPage(pageStatus[state], portalHtml(state, view, { action }), req.requestId);
  },
};

/** What OpenAPI says of accepting: the portal's own front end may call it with JSON. */
const acceptDoc: PublicRouteDoc = {
  tag: "portal",
  summary: "Accepts a landlord's portal invitation by its link's token.",
  description: [
    "Public: no API key; the token in the path (from the invitation email's link) is the secret. The link itself,",
    "`GET /portal/invitations/{token}`, is a page for people (HTML, no script) that greets the landlord and posts",
    "its form here; a portal front end of the service's own origin may post with `Accept: application/json` and",
    "gets JSON: the portal access record, or a tagged refusal.",
    "",
    "- A pending invitation becomes `active` with `acceptedAt`; the token is spent (concurrent accepts: one wins).",
    "- Expired (7 days after sending) → 410 `InvitationExpired`; replaced by a newer invitation → 410",
    "  `InvitationSuperseded`; revoked (`bun run cli portal revoke`) → 410 `PortalAccessRevoked`; already accepted →",
    "  409 `InvitationAccepted`; unknown or malformed token → 404 `InvitationNotFound`. None changes anything.",
    "- Cross-site posts are refused (403 `CrossSiteRequest`): `Sec-Fetch-Site` other than `same-origin` or `none`,",
    "  or without it an `Origin` that is not the service's own.",
    "- Each client address may make `PORTAL_BUDGET_PER_MINUTE` requests a minute (30 unless configured) to the",
    "  portal's routes together: beyond that 429 `RateLimited` with `Retry-After`.",
  ].join("\n"),
  parameters: [
    {
      name: "token",
      in: "path",
      required: true,
      description: "The token of the invitation link.",
      schema: { type: "string" },
    },
  ],
  requestBody: {
    "application/x-www-form-urlencoded": { schema: { type: "object", additionalProperties: { type: "string" } } },
  },
  success: {
    status: 200,
    response: {
      description: "Accepted: the access record (JSON), or the welcome page (HTML) for a browser's form.",
      content: { "application/json": { schema: LandlordPortalAccess }, "text/html": { schema: { type: "string" } } },
    },
  },
  errors: [
    InvitationNotFound,
    InvitationExpired,
    InvitationSuperseded,
    InvitationAccepted,
    PortalAccessRevoked,
    CrossSiteRequest,
  ],
};

/** Accepting an invitation: the form's target, or JSON (`Accept: application/json`) answering the access record. */
export const acceptInvitation: PublicRoute = {
  id: "portal.accept",
  method: "POST",
  path: "/portal/invitations/:token/accept",
  budget,
  refuse,
  openapi: acceptDoc,
  async handle(req) {
    const token = req.params.token ?? "";
    const tokenHash = tokenHashPrefix(token);
    if (crossSiteRequest(req)) {
      req.app.log.warn("portal accept refused", { requestId: req.requestId, tokenHash, reason: "cross-site" });
      throw new CrossSiteRequest();
    }
    const outcome = await acceptByToken(req.app.db, token, req.requestId);
    if (outcome.view) req.logged.workspaceId = outcome.view.workspaceId;
    const state = outcome.kind === "accepted" ? "pending" : outcome.state;
    req.app.log.info("portal accept", { requestId: req.requestId, tokenHash, state, outcome: outcome.kind });
    if (outcome.kind === "accepted") {
      if (wantsJson(req.request)) return jsonResponse(200, JSON.stringify(outcome.access), req.requestId);
      return portalPage(200, portalHtml("welcome", outcome.view), req.requestId);
    }
    const error = stateRefusal(outcome.state);
    req.logged.error = error.tag;
    if (wantsJson(req.request)) return errorResponse(error, req.requestId);
    return portalPage(error.status, portalHtml(outcome.state, outcome.view), req.requestId);
  },
};

/** The portal's public routes. */
export const portalRoutes: readonly PublicRoute[] = [invitationPage, acceptInvitation];
