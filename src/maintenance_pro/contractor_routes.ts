/**
 * The contractor's public pages (group maintenance-pro-contractor): `GET /contractor/{token}` is the page of the
 * link's works order, `POST /contractor/{token}` one of its forms (field `action`: `accept`, `decline`, `schedule`,
 * `visit`, `key_report`). The token alone finds the order (and so its workspace); nothing else in the request names
 * one. Every request counts against the per-address budget `contractor`. Cross-site posts are refused.
 */
import type { AppError } from "../core/errors.ts";
import { londonInstant } from "../core/dates.ts";
import { isId } from "../core/schema.ts";
import type { Form, PublicRequest, PublicRoute } from "../core/public_route.ts";
import {
  actAsContractor,
  type ContractorAction,
  type ContractorOutcome,
  reportKeyAsContractor,
  visitPhotosMax,
} from "./contractor_actions.ts";
import {
  contractorNoticeHtml,
  contractorOrderHtml,
  contractorPage,
  keyNoteMax,
  type PagePhoto,
  statusWords,
} from "./contractor_page.ts";
import { repairPhotoBytes, repairPhotos } from "./photo_queries.ts";
import { type ContractorView, contractorViewByHash } from "./contractor_queries.ts";
import { CrossSiteRequest } from "./errors.ts";
import { hashInvitationToken } from "./invitation_token.ts";
import { type FormFields, formLimit, formPhotos, textFields } from "./page_forms.ts";
import { crossSiteRequest, linkTokenShape, photoResponse, refusalNotice, tokenHashPrefix } from "./public_pages.ts";

/** How far ahead an appointment may start. */
const appointmentHorizonDays = 366;

/** How a refusal is answered: a page. */
function refuse(error: AppError, req: Pick<PublicRequest, "requestId" | "request">): Response {
  const { title, text } = refusalNotice(error, req.requestId);
  return contractorPage(error.status, contractorNoticeHtml(title, text), req.requestId, error.headers);
}

const budget: PublicRoute["budget"] = {
  name: () => "contractor",
  perMinute: (config) => config.portalBudgetPerMinute,
};

/** The order of a request's link, or the page refusing it (unknown token, expired link). */
async function linkOf(req: PublicRequest): Promise<ContractorView | Response> {
  const token = req.params.token ?? "";
  const view = linkTokenShape.test(token)
    ? await contractorViewByHash(req.app.db, hashInvitationToken(token))
    : undefined;
  req.app.log.info("contractor link", { requestId: req.requestId, tokenHash: tokenHashPrefix(token) });
  if (!view) {
    req.logged.error = "ContractorLinkNotFound";
    const text = "This link is not valid. Please check that you opened the whole link from the email.";
    return contractorPage(404, contractorNoticeHtml("Link not recognised", text), req.requestId);
  }
  req.logged.workspaceId = view.workspaceId;
  if (view.expired) {
    req.logged.error = "ContractorLinkExpired";
    const text =
      "This works order closed some time ago, so the link no longer works. " + `Please contact ${view.workspaceName}.`;
    return contractorPage(410, contractorNoticeHtml("This link has expired", text), req.requestId);
  }
  return view;
}

/** The page of a link's works order. */
export const contractorOrder: PublicRoute = {
  id: "contractor.order",
  method: "GET",
  path: "/contractor/:token",
  budget,
  refuse,
  async handle(req) {
    const view = await linkOf(req);
    if (view instanceof Response) return view;
    return contractorPage(200, contractorOrderHtml(view, [], undefined, await pagePhotos(req, view)), req.requestId);
  },
};

/** The repair's photos as the order's page shows them: each behind the page's own link. */
async function pagePhotos(req: PublicRequest, view: ContractorView): Promise<PagePhoto[]> {
  const photos = (await repairPhotos(req.app.db, view.workspaceId, view.order.repairId)) ?? [];
  const page = req.url.pathname.replace(/\/+$/, "");
  return photos.map((p) => ({ url: `${page}/photos/${p.id}`, width: p.width, height: p.height, source: p.source }));
}

/**
 * A photo of the link's repair: its bytes, never sniffed, stored or framed, sandboxed if opened alone. A photo of
 * another repair, or unknown, is the page saying so (404).
 */
export const contractorPhoto: PublicRoute = {
  id: "contractor.photo",
  method: "GET",
  path: "/contractor/:token/photos/:photoId",
  budget,
  refuse,
  async handle(req) {
    const view = await linkOf(req);
    if (view instanceof Response) return view;
    const photoId = req.params.photoId ?? "";
    const photo = isId(photoId)
      ? await repairPhotoBytes(req.app.db, view.workspaceId, view.order.repairId, photoId)
      : undefined;
    if (!photo) {
      req.logged.error = "PhotoNotFound";
      const text = "There is no such photo of this works order's repair.";
      return contractorPage(404, contractorNoticeHtml("Photo not found", text), req.requestId);
    }
    return photoResponse(photo, req.requestId);
  },
};

/** A form read: the action and the revision it was sent against, or what to fix. */
export function readContractorForm(
  fields: FormFields,
  view: ContractorView,
  now = Date.now(),
): { action?: ContractorAction; revision?: number; problems: string[] } {
  const problems: string[] = [];
  const revisionText = fields.get("revision") ?? "";
  const revision = /^[1-9][0-9]{0,8}$/.test(revisionText) ? Number(revisionText) : undefined;
  if (revision === undefined) problems.push("Please send the form from its page.");
  const text = (name: string, max: number) => (fields.get(name) ?? "").trim().slice(0, max);
  const finding = () => {
    const value = fields.get("finding");
    if (value === "hazard_confirmed" || value === "no_hazard") return value;
    if (view.order.purpose === "investigation") problems.push("Please say what you found: a hazard or no hazard.");
    return null;
  };
  let action: ContractorAction | undefined;
  switch (fields.get("action")) {
    case "accept":
      action = { kind: "accept" };
      break;
    case "decline": {
      const reason = text("reason", 500);
      if (!reason) problems.push("Please say why you decline the order.");
      action = { kind: "decline", reason };
      break;
    }
    case "schedule": {
      const window = appointmentOf(fields.get("date") ?? "", fields.get("from") ?? "", fields.get("to") ?? "", now);
      if (typeof window === "string") problems.push(window);
      else action = { kind: "schedule", ...window };
      break;
    }
    case "visit": {
      const note = text("note", 2000);
      const outcome = fields.get("outcome");
      if (outcome === "no_access") {
        if (!note) problems.push("Please say what you tried when you could not get in.");
        action = { kind: "no_access", note, refused: fields.get("refused") === "yes" };
      } else if (outcome === "attended" || outcome === "completed") {
        action = { kind: outcome, note: note || null, finding: finding() };
      } else problems.push("Please choose what happened at the visit.");
      break;
    }
    default:
      problems.push("Please send the form from its page.");
  }
  return problems.length ? { problems } : { action, revision, problems };
}

/** An appointment's window from a London date and two London times, or what is wrong with it. */
function appointmentOf(date: string, from: string, to: string, now: number) {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || !/^\d{2}:\d{2}$/.test(from) || !/^\d{2}:\d{2}$/.test(to))
    return "Please give the appointment's date and its start and end times.";
  let starts: number;
  let ends: number;
  try {
    starts = londonInstant(date, from);
    ends = londonInstant(date, to);
  } catch {
    return "Please give the appointment's date and its start and end times.";
  }
  if (ends <= starts) return "The appointment must end after it starts.";
  if (ends <= now) return "The appointment must not be over already.";
  if (starts > now + appointmentHorizonDays * 86_400_000) return "The appointment must be within a year.";
  return { startsAt: new Date(starts).toISOString(), endsAt: new Date(ends).toISOString() };
}

/** The page answering a write that was not taken. */
function notTaken(req: PublicRequest, view: ContractorView, outcome: Exclude<ContractorOutcome, { kind: "done" }>) {
  const current = { ...view, order: outcome.order };
  const status = statusWords[outcome.order.status].toLowerCase();
  if (outcome.kind === "closed") {
    req.logged.error = "WorksOrderClosed";
    const notice = `Nothing was recorded: this order is now ${status}.`;
    return contractorPage(409, contractorOrderHtml(current, [], notice), req.requestId);
  }
  req.logged.error = outcome.kind === "stale" ? "RevisionConflict" : "WorksOrderNotNow";
  const notice = `Nothing was recorded: the order changed since you opened the page (now: ${status}). Please check it.`;
  return contractorPage(409, contractorOrderHtml(current, [], notice), req.requestId);
}

/** A visit's photos checked; "no access" needs at least one, as evidence of what was tried. */
async function visitPhotos(form: Form, kind: "attended" | "no_access" | "completed", problems: string[]) {
  const before = problems.length;
  const photos = await formPhotos(form, visitPhotosMax, problems);
  if (kind === "no_access" && !photos.length && problems.length === before)
    problems.push("Please add at least one photo of what you tried when you could not get in.");
  return photos;
}

/** The answer to a form that was taken: back to the page (303), which shows what it recorded. */
const backToPage = (req: PublicRequest) =>
  new Response(null, {
    status: 303,
    headers: { location: req.url.pathname, "cache-control": "no-store", "x-request-id": req.requestId },
  });

/**
 * The form "The key does not work": a note (required, trimmed, at most keyNoteMax characters) stored as a report on
 * the order's key set (source kind `repair`). Sent twice with the same note, it stores one report and both answers
 * go back to the page; a closed order, or one naming no key set, records nothing and the page says why.
 */
async function reportKey(req: PublicRequest, view: ContractorView, fields: FormFields): Promise<Response> {
  const note = (fields.get("note") ?? "").trim().slice(0, keyNoteMax);
  if (!note) {
    req.logged.error = "ValidationFailed";
    const problems = ["Please say what is wrong with the key."];
    return contractorPage(
      400,
      contractorOrderHtml(view, problems, undefined, await pagePhotos(req, view)),
      req.requestId,
    );
  }
  const outcome = await reportKeyAsContractor(req.app.db, view, note);
  if (outcome.kind === "closed") return notTaken(req, view, outcome);
  if (outcome.kind === "no_key_set") {
    req.logged.error = "WorksOrderHasNoKeySet";
    const notice = "Nothing was recorded: this order names no key set.";
    return contractorPage(409, contractorOrderHtml({ ...view, order: outcome.order }, [], notice), req.requestId);
  }
  req.app.log.info("contractor key report", {
    requestId: req.requestId,
    worksOrderId: view.order.id,
    keyReportId: outcome.kind === "done" ? outcome.reportId : null,
  });
  return backToPage(req);
}

/** A form of the page: answered with a redirect to the page once taken, else the page saying why not. */
export const contractorAct: PublicRoute = {
  id: "contractor.act",
  method: "POST",
  path: "/contractor/:token",
  budget,
  refuse,
  upload: {
    limit: formLimit(visitPhotosMax),
    // Before the body (up to ~15 MB) is read: a cross-site post or a link that opens nothing reads none of it.
    admit: async (req) => {
      if (crossSiteRequest(req)) throw new CrossSiteRequest();
      return linkOf(req);
    },
  },
  async handle(req) {
    const view = req.admitted as ContractorView;
    const form = req.form!;
    const fields = textFields(form);
    if (fields.get("action") === "key_report") return reportKey(req, view, fields);
    const { action, revision, problems } = readContractorForm(fields, view);
    const photos =
      action?.kind === "attended" || action?.kind === "no_access" || action?.kind === "completed"
        ? await visitPhotos(form, action.kind, problems)
        : [];
    if (!action || revision === undefined || problems.length) {
      req.logged.error = "ValidationFailed";
      return contractorPage(
        400,
        contractorOrderHtml(view, problems, undefined, await pagePhotos(req, view)),
        req.requestId,
      );
    }
    const outcome = await actAsContractor(req.app, req.app.db, view, action, revision, req.requestId, photos);
    if (outcome.kind !== "done") return notTaken(req, view, outcome);
    req.app.log.info("contractor write", { requestId: req.requestId, worksOrderId: outcome.order.id });
    return backToPage(req);
  },
};

/** The contractor's public routes. */
export const contractorRoutes: readonly PublicRoute[] = [contractorOrder, contractorAct, contractorPhoto];
