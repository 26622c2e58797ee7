/**
 * The tenant's public pages (group maintenance-pro-public): `GET /report/{slug}` asks for the home's postcode and
 * the tenant's email or mobile, `POST /report/{slug}` queues the request and always answers the same page (the
 * link worker matches and sends), `GET /report/{slug}/t/{token}` is the page of a link's tenancy. Every request
 * counts against the per-address budget `report`; a link request also against its postcode's budget.
 */
import { takeAddressToken } from "../core/address_budget.ts";
import { rateLimited, rateLimitHeaders } from "../core/budget.ts";
import type { AppError } from "../core/errors.ts";
import type { PublicRequest, PublicRoute } from "../core/public_route.ts";
import { CrossSiteRequest } from "./errors.ts";
import { hashInvitationToken } from "./invitation_token.ts";
import { crossSite, tokenHashPrefix } from "./portal_routes.ts";
import { ensureTenantLinkQueue, type TenantLinkJob, tenantLinkQueue } from "./tenant_link.ts";
import { linkRequestHtml, linkSentHtml, noticeHtml, reportedHtml, tenancyHtml, tenantPage } from "./tenant_page.ts";
import { ulid } from "ulid";
import { currentWorkingCalendar } from "./bank_holidays.ts";
import { tenancyRepairRows } from "./queries.ts";
import { repairAnswer } from "./repair_rules.ts";
import { readReportForm, reportByTenant } from "./tenant_report.ts";
import { reportWorkspace, type TenantLinkView, tenantLinkByHash } from "./tenant_queries.ts";

/** Link requests a minute for one postcode of one workspace, whoever asks. */
export const postcodeRequestsPerMinute = 5;

/** The shape of a token the service mints (32 bytes in base64url). */
const tokenShape = /^[A-Za-z0-9_-]{43}$/;

/** The origins of the configured addresses. */
function ownOrigins(req: PublicRequest): string[] {
  return [req.app.config.publicBaseUrl, req.app.config.portalBaseUrl].map((u) => new URL(u).origin);
}

/** How a refusal is answered: a page. */
function refuse(error: AppError, req: Pick<PublicRequest, "requestId" | "request">): Response {
  if (error.tag === "RateLimited") {
    const wait = error.headers["retry-after"] ?? "60";
    const text = `There have been too many requests. Please wait ${wait} seconds and try again.`;
    return tenantPage(error.status, noticeHtml("Too many requests", text), req.requestId, error.headers);
  }
  if (error.tag === "CrossSiteRequest") {
    const text = "For your security, this form can only be sent from its own page. Please open the page again.";
    return tenantPage(error.status, noticeHtml("Please use the form on our page", text), req.requestId);
  }
  const text = `Please try again in a moment. If it keeps happening, quote reference ${req.requestId}.`;
  return tenantPage(error.status, noticeHtml("Something went wrong", text), req.requestId, error.headers);
}

const budget: PublicRoute["budget"] = { name: () => "report", perMinute: (config) => config.portalBudgetPerMinute };

/** The page of a slug no workspace has. */
function noWorkspace(req: PublicRequest): Response {
  req.logged.error = "WorkspaceNotFound";
  const text = "There is no letting agent at this address. Please check the link your agent gave you.";
  return tenantPage(404, noticeHtml("Page not found", text), req.requestId);
}

/** The form asking for a link. */
export const reportStart: PublicRoute = {
  id: "report.start",
  method: "GET",
  path: "/report/:slug",
  budget,
  refuse,
  async handle(req) {
    const workspace = await reportWorkspace(req.app.db, req.params.slug ?? "");
    if (!workspace) return noWorkspace(req);
    req.logged.workspaceId = workspace.id;
    return tenantPage(200, linkRequestHtml(workspace.name), req.requestId);
  },
};

/**
 * A link request: the same page in the same time whatever it matches, since matching and sending happen in the
 * link worker. Cross-site posts are refused; a postcode's budget spent is refused whoever asks.
 */
export const reportRequestLink: PublicRoute = {
  id: "report.request_link",
  method: "POST",
  path: "/report/:slug",
  budget,
  refuse,
  async handle(req) {
    if (crossSite(req.request, req.url, ownOrigins(req))) throw new CrossSiteRequest();
    const slug = req.params.slug ?? "";
    const form = new URLSearchParams(req.body ?? "");
    const postcode = (form.get("postcode") ?? "").trim().slice(0, 16);
    const contact = (form.get("contact") ?? "").trim().slice(0, 200);
    if (!postcode || !contact) {
      const workspace = await reportWorkspace(req.app.db, slug);
      if (!workspace) return noWorkspace(req);
      req.logged.error = "ValidationFailed";
      const problem = "Please enter both the postcode and your email address or mobile number.";
      return tenantPage(400, linkRequestHtml(workspace.name, problem), req.requestId);
    }
    const compact = postcode.replace(/\s+/g, "").toUpperCase();
    const bucket = `report-postcode/${slug}`;
    const state = await takeAddressToken(req.app.db, bucket, compact, postcodeRequestsPerMinute);
    if (!state.admitted) {
      const error = rateLimited(state, bucket, "The link requests for this postcode");
      Object.assign(error.headers, rateLimitHeaders(state));
      throw error;
    }
    await ensureTenantLinkQueue(req.app.jobs);
    const job: TenantLinkJob = { slug, postcode, contact };
    await req.app.db.begin((tx) => req.app.jobs.send(tx, tenantLinkQueue, job));
    req.app.log.info("tenant link requested", { requestId: req.requestId });
    return tenantPage(200, linkSentHtml(), req.requestId);
  },
};

/** The page of a link: its tenancy's repairs; an expired link, or one of an ended tenancy, is refused with a page. */
export const reportTenancy: PublicRoute = {
  id: "report.tenancy",
  method: "GET",
  path: "/report/:slug/t/:token",
  budget,
  refuse,
  async handle(req) {
    const view = await linkOf(req);
    if (view instanceof Response) return view;
    return tenantPage(200, await tenancyPage(req, view), req.requestId);
  },
};

/** The page of a link's tenancy: its repairs with their clocks, and the form with a fresh one-off key. */
async function tenancyPage(req: PublicRequest, view: TenantLinkView, problems: string[] = []): Promise<string> {
  const now = new Date().toISOString();
  const context = {
    calendar: await currentWorkingCalendar(req.app.db),
    prsInForceFrom: req.app.config.prsInForceFrom,
    now,
  };
  const rows = await tenancyRepairRows(req.app.db, view.workspaceId, view.tenancyId, 100);
  const repairs = rows.map((row) => repairAnswer(row, context));
  return tenancyHtml(view, repairs, ulid(), problems);
}

/** The link of a request, or the page refusing it (unknown, of an ended tenancy, expired). */
async function linkOf(req: PublicRequest): Promise<TenantLinkView | Response> {
  const token = req.params.token ?? "";
  const view = tokenShape.test(token) ? await tenantLinkByHash(req.app.db, hashInvitationToken(token)) : undefined;
  req.app.log.info("tenant link", { requestId: req.requestId, tokenHash: tokenHashPrefix(token) });
  if (!view || view.workspaceSlug !== req.params.slug) {
    req.logged.error = "TenantLinkNotFound";
    const text = "This link is not valid. Please check that you opened the whole link, or ask for a new one.";
    return tenantPage(404, noticeHtml("Link not recognised", text), req.requestId);
  }
  req.logged.workspaceId = view.workspaceId;
  if (view.tenancyStatus === "ended") {
    req.logged.error = "TenancyEnded";
    const text = `This tenancy has ended, so the link no longer works. Please contact ${view.workspaceName}.`;
    return tenantPage(410, noticeHtml("Your tenancy has ended", text), req.requestId);
  }
  if (view.expired) {
    req.logged.error = "TenantLinkExpired";
    const text = "Links work for 24 hours. Please ask for a new one from the report page.";
    return tenantPage(410, noticeHtml("This link has expired", text), req.requestId);
  }
  return view;
}

/**
 * A report from the page of a link: the repair (channel portal, the tenant as reporter, the link's tenancy and
 * unit, aware now) and its reference at once. A form sent twice answers the first repair again.
 */
export const reportByLink: PublicRoute = {
  id: "report.report",
  method: "POST",
  path: "/report/:slug/t/:token",
  budget,
  refuse,
  async handle(req) {
    if (crossSite(req.request, req.url, ownOrigins(req))) throw new CrossSiteRequest();
    const view = await linkOf(req);
    if (view instanceof Response) return view;
    const { form, problems } = readReportForm(req.body ?? "");
    if (!form) {
      req.logged.error = "ValidationFailed";
      return tenantPage(400, await tenancyPage(req, view, problems), req.requestId);
    }
    const repair = await reportByTenant(req.app, req.app.db, view, form, req.requestId);
    req.app.log.info("tenant report", { requestId: req.requestId, repairId: repair.id });
    return tenantPage(200, reportedHtml(repair, form.atRisk), req.requestId);
  },
};

/** The tenant's public routes. */
export const tenantRoutes: readonly PublicRoute[] = [reportStart, reportRequestLink, reportTenancy, reportByLink];
