/**
 * The tenant's public pages (group maintenance-pro-public): `GET /report/{slug}` asks for the home's postcode and
 * the tenant's email or mobile, `POST /report/{slug}` queues the request and always answers the same page (the
 * link worker matches and sends), `GET /report/{slug}/t/{token}` is the page of a link, whose POST opens
 * `GET /report/{slug}/repairs`, the page of its tenancy, which shows the photos the tenants sent through
 * `GET /report/{slug}/photos/{id}`. Every request counts against the per-address budget `report` (a photo against
 * `report-photos`); a link request also against its postcode's budget.
 */
import { takeAddressToken } from "../core/address_budget.ts";
import { rateLimited, rateLimitHeaders } from "../core/budget.ts";
import type { AppError } from "../core/errors.ts";
import type { PublicRequest, PublicRoute } from "../core/public_route.ts";
import { CrossSiteRequest } from "./errors.ts";
import { hashInvitationToken } from "./invitation_token.ts";
import { isId } from "../core/schema.ts";
import { crossSiteRequest, linkTokenShape, photoResponse, refusalNotice, tokenHashPrefix } from "./public_pages.ts";
import { ensureTenantLinkQueue, type TenantLinkJob, tenantLinkQueue } from "./tenant_link.ts";
import {
  continueHtml,
  linkRequestHtml,
  linkSentHtml,
  noticeHtml,
  type PagePhoto,
  reportedHtml,
  tenancyHtml,
  tenantPage,
} from "./tenant_page.ts";
import { ulid } from "ulid";
import { currentWorkingCalendar } from "./bank_holidays.ts";
import { tenancyRepairRows } from "./queries.ts";
import { repairAnswer } from "./repair_rules.ts";
import { formLimit, formPhotos, textFields } from "./page_forms.ts";
import { readReportForm, reportByTenant, reportPhotosMax } from "./tenant_report.ts";
import {
  reportWorkspace,
  spendTenantLink,
  tenancyPhotoBytes,
  tenancyPhotos,
  type TenantLinkView,
  tenantLinkByHash,
  tenantLinkBySession,
} from "./tenant_queries.ts";
import {
  browserCookie,
  browserMarkOf,
  hashTenantSession,
  linkSession,
  newTenantSession,
  sessionCookie,
  sessionOf,
  tenantPagesPath,
  tenantPhotoPath,
  tenantRepairsPath,
  tenantSessionMinutes,
} from "./tenant_session.ts";

/** Link requests a minute for one postcode of one workspace, whoever asks. */
export const postcodeRequestsPerMinute = 5;

/** How a refusal is answered: a page. */
function refuse(error: AppError, req: Pick<PublicRequest, "requestId" | "request">): Response {
  const { title, text } = refusalNotice(error, req.requestId);
  return tenantPage(error.status, noticeHtml(title, text), req.requestId, error.headers);
}

const budget: PublicRoute["budget"] = { name: () => "report", perMinute: (config) => config.portalBudgetPerMinute };

/**
 * The photos' own budget `report-photos`, ten times the pages' a minute: one page shows up to 5 photos a repair,
 * each its own request, and a photo is read only with a live session.
 */
const photoBudget: PublicRoute["budget"] = {
  name: () => "report-photos",
  perMinute: (config) => config.portalBudgetPerMinute * 10,
};

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
    if (crossSiteRequest(req)) throw new CrossSiteRequest();
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

/**
 * The page of a link: a "Continue" button whose POST spends the link. Fetching it spends nothing (mail scanners
 * fetch links), so it shows nothing of the tenancy; it gives a browser without one its mark (tenant_session.ts).
 * Refused with a page: unknown (404), of an ended tenancy, expired or used (410). A used link opened again in the
 * browser its session lives in goes to the tenancy's page.
 */
export const reportLink: PublicRoute = {
  id: "report.link",
  method: "GET",
  path: "/report/:slug/t/:token",
  budget,
  refuse,
  async handle(req) {
    const view = await linkOf(req);
    if (view instanceof Response) return view;
    const headers: Record<string, string> = {};
    if (!browserMarkOf(req.request)) {
      headers["set-cookie"] = browserCookie(view.workspaceSlug, newTenantSession(), secureCookies(req));
    }
    return tenantPage(200, continueHtml(view.workspaceName), req.requestId, headers);
  },
};

/**
 * The link's "Continue": spends the link and starts its session (a cookie bound to the link's row, see
 * tenant_session.ts), then sends the browser to the tenancy's page. Posted again by the same browser (a double
 * click) while that session lasts, it answers the same session and page; from any other browser, or once the
 * session is over, the link is used (410). Cross-site posts are refused and spend nothing.
 */
export const reportOpenLink: PublicRoute = {
  id: "report.open_link",
  method: "POST",
  path: "/report/:slug/t/:token",
  budget,
  refuse,
  async handle(req) {
    if (crossSiteRequest(req)) throw new CrossSiteRequest();
    const view = await linkOf(req, { spent: true });
    if (view instanceof Response) return view;
    const session = linkSession(req.params.token ?? "", browserMarkOf(req.request));
    const spent = await spendTenantLink(req.app.db, {
      workspaceId: view.workspaceId,
      linkId: view.linkId,
      sessionHash: hashTenantSession(session),
      minutes: tenantSessionMinutes,
    });
    if (!spent) return usedLink(req, view);
    req.app.log.info("tenant link spent", { requestId: req.requestId, linkId: view.linkId, again: view.spent });
    const cookie = sessionCookie(view.workspaceSlug, session, secureCookies(req));
    return openPage(req, view.workspaceSlug, { "set-cookie": cookie });
  },
};

/** Whether cookies are Secure: the service is reached over https (the request, or its public address). */
function secureCookies(req: PublicRequest): boolean {
  return req.url.protocol === "https:" || req.app.config.publicBaseUrl.startsWith("https:");
}

/** The page of a session's tenancy: its repairs, and the form. */
export const reportRepairs: PublicRoute = {
  id: "report.repairs",
  method: "GET",
  path: "/report/:slug/repairs",
  budget,
  refuse,
  async handle(req) {
    const view = await sessionLink(req);
    if (view instanceof Response) return view;
    return tenantPage(200, await tenancyPage(req, view), req.requestId);
  },
};

/**
 * One photo a tenant sent with a repair of the session's tenancy: its bytes, never sniffed, stored or framed,
 * sandboxed if opened alone. Without a live session of this workspace's pages, the refusal page of the tenancy's
 * page (401, or 410 once the tenancy ended); a photo of another tenancy, another workspace, another source or
 * unknown: the page saying so (404).
 */
export const reportPhoto: PublicRoute = {
  id: "report.photo",
  method: "GET",
  path: "/report/:slug/photos/:photoId",
  budget: photoBudget,
  refuse,
  async handle(req) {
    const view = await sessionLink(req);
    if (view instanceof Response) return view;
    const photoId = req.params.photoId ?? "";
    const photo = isId(photoId)
      ? await tenancyPhotoBytes(req.app.db, view.workspaceId, view.tenancyId, photoId)
      : undefined;
    if (!photo) {
      req.logged.error = "PhotoNotFound";
      const text = "There is no such photo of your repairs.";
      return tenantPage(404, noticeHtml("Photo not found", text), req.requestId);
    }
    return photoResponse(photo, req.requestId);
  },
};

/** The page of a link's tenancy: its repairs with their clocks and photos, and the form with a fresh one-off key. */
async function tenancyPage(req: PublicRequest, view: TenantLinkView, problems: string[] = []): Promise<string> {
  const now = new Date().toISOString();
  const context = {
    calendar: await currentWorkingCalendar(req.app.db),
    prsInForceFrom: req.app.config.prsInForceFrom,
    now,
  };
  const rows = await tenancyRepairRows(req.app.db, view.workspaceId, view.tenancyId, 100);
  const repairs = rows.map((row) => repairAnswer(row, context));
  const photos = new Map<string, PagePhoto[]>();
  for (const p of await tenancyPhotos(req.app.db, view.workspaceId, view.tenancyId)) {
    const shown = { url: tenantPhotoPath(view.workspaceSlug, p.id), width: p.width, height: p.height };
    photos.set(p.repairId, [...(photos.get(p.repairId) ?? []), shown]);
  }
  return tenancyHtml(view, repairs, ulid(), problems, photos);
}

/** The refusal of a link used already; in the browser holding its live session, the way to the tenancy's page. */
async function usedLink(req: PublicRequest, view: TenantLinkView): Promise<Response> {
  const session = sessionOf(req.request);
  const held = session ? await tenantLinkBySession(req.app.db, hashTenantSession(session)) : undefined;
  if (held && held.linkId === view.linkId && held.workspaceId === view.workspaceId && !held.sessionOver) {
    return openPage(req, view.workspaceSlug);
  }
  req.logged.error = "TenantLinkUsed";
  const text = "Each link opens your page once, so this one no longer works. Please ask for a new link.";
  const next = { href: tenantPagesPath(view.workspaceSlug), label: "Ask for a new link" };
  return tenantPage(410, noticeHtml("This link has been used", text, next), req.requestId);
}

/** The answer sending the browser to the tenancy's page (303), with the headers given (the session's cookie). */
function openPage(req: PublicRequest, slug: string, headers: Record<string, string> = {}): Response {
  const to = tenantRepairsPath(slug);
  const page = noticeHtml("Your repairs", "Your page is open.", { href: to, label: "Continue" });
  return tenantPage(303, page, req.requestId, { location: to, ...headers });
}

/**
 * The link of a request, or the page refusing it (unknown, of an ended tenancy, expired, used); with `spent`, a used
 * link is answered too (its POST checks whether this browser may have its session again).
 */
async function linkOf(req: PublicRequest, allow: { spent?: boolean } = {}): Promise<TenantLinkView | Response> {
  const token = req.params.token ?? "";
  const view = linkTokenShape.test(token) ? await tenantLinkByHash(req.app.db, hashInvitationToken(token)) : undefined;
  req.app.log.info("tenant link", { requestId: req.requestId, tokenHash: tokenHashPrefix(token) });
  if (!view || view.workspaceSlug !== req.params.slug) {
    req.logged.error = "TenantLinkNotFound";
    const text = "This link is not valid. Please check that you opened the whole link, or ask for a new one.";
    return tenantPage(404, noticeHtml("Link not recognised", text), req.requestId);
  }
  req.logged.workspaceId = view.workspaceId;
  const ended = tenancyEnded(req, view);
  if (ended) return ended;
  if (view.spent) return allow.spent ? view : usedLink(req, view);
  if (view.expired) {
    req.logged.error = "TenantLinkExpired";
    const text = "Links work for 24 hours. Please ask for a new one from the report page.";
    const next = { href: tenantPagesPath(view.workspaceSlug), label: "Ask for a new link" };
    return tenantPage(410, noticeHtml("This link has expired", text, next), req.requestId);
  }
  return view;
}

/** The page refusing a link or session of a tenancy that ended, or undefined. */
function tenancyEnded(req: PublicRequest, view: TenantLinkView): Response | undefined {
  if (view.tenancyStatus !== "ended") return undefined;
  req.logged.error = "TenancyEnded";
  const text = `This tenancy has ended, so the link no longer works. Please contact ${view.workspaceName}.`;
  return tenantPage(410, noticeHtml("Your tenancy has ended", text), req.requestId);
}

/** The link of a request's session, or the page refusing it (none, another workspace's, over: 401; ended: 410). */
async function sessionLink(req: PublicRequest): Promise<TenantLinkView | Response> {
  const session = sessionOf(req.request);
  const view = session ? await tenantLinkBySession(req.app.db, hashTenantSession(session)) : undefined;
  if (!view || view.workspaceSlug !== req.params.slug || view.sessionOver) {
    req.logged.error = "TenantSessionMissing";
    if (view && view.workspaceSlug === req.params.slug) req.logged.workspaceId = view.workspaceId;
    const text = "Your visit has ended, or this page was opened without your link. Please ask for a new link.";
    const next = { href: tenantPagesPath(req.params.slug ?? ""), label: "Ask for a new link" };
    return tenantPage(401, noticeHtml("Please open a new link", text, next), req.requestId);
  }
  req.logged.workspaceId = view.workspaceId;
  return tenancyEnded(req, view) ?? view;
}

/**
 * A report from the page of a session's tenancy: the repair (channel portal, the tenant as reporter, the link's
 * tenancy and unit, aware now) and its reference at once. A form sent twice answers the first repair again.
 */
export const reportByLink: PublicRoute = {
  id: "report.report",
  method: "POST",
  path: "/report/:slug/repairs",
  budget,
  refuse,
  upload: {
    limit: formLimit(reportPhotosMax),
    // Before the body (up to ~25 MB) is read: a cross-site post or a request without a session reads none of it.
    admit: async (req) => {
      if (crossSiteRequest(req)) throw new CrossSiteRequest();
      return sessionLink(req);
    },
  },
  async handle(req) {
    const view = req.admitted as TenantLinkView;
    const { form, problems } = readReportForm(textFields(req.form!));
    const photos = await formPhotos(req.form!, reportPhotosMax, problems);
    if (!form || problems.length) {
      req.logged.error = "ValidationFailed";
      return tenantPage(400, await tenancyPage(req, view, problems), req.requestId);
    }
    const repair = await reportByTenant(req.app, req.app.db, view, form, req.requestId, photos);
    req.app.log.info("tenant report", { requestId: req.requestId, repairId: repair.id });
    return tenantPage(200, reportedHtml(repair, form.atRisk, tenantRepairsPath(view.workspaceSlug)), req.requestId);
  },
};

/** The tenant's public routes. */
export const tenantRoutes: readonly PublicRoute[] = [
  reportStart,
  reportRequestLink,
  reportLink,
  reportOpenLink,
  reportRepairs,
  reportByLink,
  reportPhoto,
];
