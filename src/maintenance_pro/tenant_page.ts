/**
 * The tenant's pages (report a repair, ask for a link, the repairs of a tenancy): small server-rendered HTML with no
 * script and only our own inline style (allowed by its hash); images only from our own origin (the photos the
 * tenants sent, behind the session's own pages). Every interpolated value is escaped. No page says whether a
 * postcode, email or mobile is known.
 */
import { ukTimeText } from "../core/dates.ts";
import { type Html, html } from "../core/html.ts";
import { pageFrame } from "./page_frame.ts";
import type { ClockKind } from "./clocks.ts";
import { categories, type Repair } from "./repair_schema.ts";
import type { TenantLinkView } from "./tenant_queries.ts";
import { reportPhotosMax } from "./tenant_report.ts";

/** The pages' only style, inline and named by its hash in the policy. */
const style = `html { font-family: system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; color: #1f2328; }
body { margin: 0; background: #f6f8fa; line-height: 1.5; }
main { max-width: 34rem; margin: 2rem auto; padding: 1.5rem; background: #fff; border: 1px solid #d0d7de;
  border-radius: 8px; box-sizing: border-box; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; }
h2 { font-size: 1.2rem; margin: 1.5rem 0 0.5rem; }
p, form { margin: 0 0 1rem; }
label { display: block; font-weight: 600; margin: 0 0 0.25rem; }
input, select, textarea { font: inherit; width: 100%; box-sizing: border-box; padding: 0.6rem; margin: 0 0 1rem;
  border: 1px solid #57606a; border-radius: 6px; }
button { font: inherit; font-size: 1.1rem; padding: 0.75rem 1.5rem; min-height: 44px; color: #fff;
  background: #1d4ed8; border: 0; border-radius: 6px; cursor: pointer; }
button:hover { background: #1e40af; }
button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible {
  outline: 3px solid #f59e0b; outline-offset: 2px; }
ul { padding-left: 1.2rem; }
fieldset { border: 1px solid #d0d7de; border-radius: 6px; margin: 0 0 1rem; padding: 0.75rem; }
fieldset input[type="radio"] { width: auto; margin: 0 0.4rem 0 0; }
label.inline { display: inline; margin-right: 1.5rem; }
.emergency { display: none; margin-top: 1rem; padding: 0.75rem; border-left: 4px solid #b91c1c; background: #fef2f2; }
#risk-yes:checked ~ .emergency { display: block; }
.summary { white-space: pre-wrap; }
.small { color: #57606a; font-size: 0.9rem; }
.photos { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 0.5rem; }
.photos img { display: block; max-width: 8rem; max-height: 8rem; width: auto; height: auto;
  border: 1px solid #d0d7de; }
@media (max-width: 36rem) { main { margin: 0; border: 0; border-radius: 0; min-height: 100vh; } }
`;

const frame = pageFrame(style, { images: "self" });

/** The Content-Security-Policy of the pages: only our style and our images, forms post to us. */
export const tenantPolicy = frame.policy;

/** A whole page around a title and body. */
export const tenantHtml = frame.document;

/** A page as a response: UTF-8 HTML under the policy, never sniffed, cached, framed or referred from. */
export const tenantPage = frame.response;

/** The form asking for a link; `problem` is a line saying what to fix. */
export function linkRequestHtml(workspaceName: string, problem?: string): string {
  return tenantHtml(
    "Report a repair",
    html`<p>To report a repair to <strong>${workspaceName}</strong> or follow one you reported, we will send you a \
link. Enter the postcode of the home you rent and the email address or mobile number ${workspaceName} has for you.</p>
${problem ? html`<p role="alert"><strong>${problem}</strong></p>` : ""}
<form method="post">
<label for="postcode">Postcode of the home</label>
<input id="postcode" name="postcode" autocomplete="postal-code" required maxlength="16">
<label for="contact">Your email address or mobile number</label>
<input id="contact" name="contact" autocomplete="email" required maxlength="200">
<button type="submit">Send me a link</button>
</form>
<p class="small">If there is a gas smell, call the National Gas Emergency line on 0800 111 999 now. If anyone is in \
danger, call 999.</p>`,
  );
}

/** The answer to every link request, whatever it matched. */
export function linkSentHtml(): string {
  return tenantHtml(
    "Check your messages",
    html`<p>If we found your tenancy, we have sent you a link by email or text message. It works once, within 24 \
hours.</p>
<p class="small">Nothing arrived? Check the details you entered and ask again, or contact your letting agent.</p>`,
  );
}

/** A page of one line: a refusal or a notice; `next` a link to follow (e.g. to ask for a new link). */
export function noticeHtml(title: string, text: string, next?: { href: string; label: string }): string {
  return tenantHtml(title, html`<p>${text}</p>${next ? html`<p><a href="${next.href}">${next.label}</a></p>` : ""}`);
}

/**
 * The page of an unused link: a button that opens the tenancy's page. Only its POST spends the link, so a mail
 * scanner fetching the link spends nothing and reads nothing of the tenancy.
 */
export function continueHtml(workspaceName: string): string {
  return tenantHtml(
    "Your repairs",
    html`<p>This link opens the page where you report repairs to <strong>${workspaceName}</strong> and follow the \
repairs you reported.</p>
<form method="post">
<button type="submit">Continue</button>
</form>
<p class="small">The link works once. Your visit then lasts an hour; for a later visit, ask for a new link.</p>`,
  );
}

/** The status of a repair in words. */
const statusWords: Record<string, string> = {
  reported: "Reported",
  triaged: "Assessed",
  in_progress: "Work in progress",
  completed: "Completed",
  cancelled: "Cancelled",
};

/** What each clock obliges the agency to do, as the tenant reads it. */
const clockDuties: Record<ClockKind, string> = {
  emergency_investigate: "We must inspect this emergency",
  emergency_make_safe: "We must make your home safe",
  significant_investigate: "We must inspect the problem",
  written_summary: "We must send you a written summary of what we found",
  safety_work_start: "We must start the work to make it safe",
  preventative_work_start: "We must start the work to stop it coming back",
};

/** What each milestone means to the tenant. */
const milestoneWords: Record<string, string> = {
  investigated: "Inspected",
  made_safe: "Made safe",
  decanted: "You were moved out while the work is done",
  completed: "Repair completed",
  summary_sent: "Written summary sent",
  safety_work_started: "Safety work started",
  preventative_work_started: "Work to stop it coming back started",
};

/** The categories a tenant chooses from, in words. */
export const categoryWords: Record<(typeof categories)[number], string> = {
  damp_mould: "Damp or mould",
  leak: "A leak or water coming in",
  heating_hot_water: "Heating or hot water",
  electrical: "Electrics",
  gas: "Gas (appliance, boiler, or a smell of gas)",
  fire_safety: "Fire safety (alarms, doors)",
  security: "Locks, doors or windows (security)",
  structural: "Walls, ceilings, floors or roof",
  pests: "Pests",
  sanitation: "Toilet, drains or sinks",
  other: "Something else",
};

/** One sentence per running clock: "We must inspect the problem by Mon 11 Jan 2027, 23:59 (UK time)." */
export function clockSentences(repair: Repair): string[] {
  return repair.clocks
    .filter((c) => c.status === "running")
    .map((c) => `${clockDuties[c.kind]} by ${ukTimeText(c.dueAt)}.`);
}

/** A photo as the page shows it: where its bytes are (behind the session's own pages) and its size. */
export interface PagePhoto {
  url: string;
  width: number;
  height: number;
}

/** A repair's photos, small, each with its place and the repair's reference as its text. */
const photosPart = (photos: readonly PagePhoto[], reference: string) =>
  photos.length
    ? html`<p>Photos sent with the report:</p>
<ul class="photos">${photos.map(
        (p, i) => html`<li><img src="${p.url}" width="${String(p.width)}" height="${String(p.height)}" \
alt="Photo ${String(i + 1)} sent with the report of ${reference}"></li>`,
      )}</ul>`
    : "";

/**
 * One repair as the tenant sees it: status, what must happen by when, what was done when, the written summaries,
 * the photos the tenants sent.
 */
function repairCard(repair: Repair, photos: readonly PagePhoto[]): Html {
  const done = repair.milestones.map((m) => html`<li>${milestoneWords[m.kind] ?? m.kind}: ${ukTimeText(m.at)}</li>`);
  const summaries = repair.milestones.filter((m) => m.kind === "summary_sent" && m.method === "portal" && m.note);
  return html`<section aria-labelledby="r-${repair.id}">
<h3 id="r-${repair.id}">${repair.reference ?? ""}: ${repair.title ?? ""}</h3>
<p>Status: <strong>${statusWords[repair.status ?? ""] ?? "Recorded"}</strong>.
 Reported ${ukTimeText(repair.createdAt)}.</p>
${clockSentences(repair).map((s) => html`<p>${s}</p>`)}
${done.length ? html`<p>What has been done:</p><ul>${done}</ul>` : ""}
${summaries.map((m) => html`<h4>Written summary (${ukTimeText(m.at)})</h4><p class="summary">${m.note ?? ""}</p>`)}
${photosPart(photos, repair.reference ?? "this repair")}
</section>`;
}

/** The emergency numbers that cannot wait for the agency. */
const emergencyNumbers = html`<p><strong>If anyone is in danger now, do not wait for us:</strong></p>
<ul>
<li>Smell gas or think there is a gas leak: call the National Gas Emergency line, <strong>0800 111 999</strong>,
 and leave the home if you can.</li>
<li>Fire, or someone hurt or in danger: call <strong>999</strong>.</li>
<li>Power cut or dangerous electrics outside the home: call <strong>105</strong>.</li>
<li>Water leaking from the street or the mains: call your water company.</li>
</ul>
<p>Then send this form so that we know.</p>`;

/** The repairs page of a link's tenancy, newest first, each with its photos (by repair id), and the form. */
export function tenancyHtml(
  view: TenantLinkView,
  repairs: readonly Repair[],
  formKey: string,
  problems: string[] = [],
  photos: ReadonlyMap<string, readonly PagePhoto[]> = new Map(),
) {
  const options = categories.map((c) => html`<option value="${c}">${categoryWords[c]}</option>`);
  return tenantHtml(
    "Your repairs",
    html`<p>${view.unitLabel}, ${view.propertyLabel}, with <strong>${view.workspaceName}</strong>.</p>
<h2>Report a repair</h2>
${problems.length ? html`<div role="alert"><ul>${problems.map((p) => html`<li>${p}</li>`)}</ul></div>` : ""}
<form method="post" enctype="multipart/form-data">
<input type="hidden" name="formKey" value="${formKey}">
<label for="category">What is wrong</label>
<select id="category" name="category" required><option value="">Choose one</option>${options}</select>
<label for="location">Where in the home</label>
<input id="location" name="location" required maxlength="200">
<label for="description">Describe the problem</label>
<textarea id="description" name="description" required rows="5" maxlength="4000"></textarea>
<fieldset class="risk">
<legend>Is anyone at risk now?</legend>
<input type="radio" id="risk-yes" name="risk" value="yes" required><label class="inline" for="risk-yes">Yes</label>
<input type="radio" id="risk-no" name="risk" value="no"><label class="inline" for="risk-no">No</label>
<div class="emergency" id="emergency">${emergencyNumbers}</div>
</fieldset>
<label for="photo">Photos (optional): up to ${String(reportPhotosMax)}, JPEG or PNG, 5 MB each</label>
<input type="file" id="photo" name="photo" accept="image/jpeg,image/png" multiple>
<button type="submit">Send the report</button>
</form>
<h2>Repairs you reported</h2>
${repairs.length ? repairs.map((r) => repairCard(r, photos.get(r.id) ?? [])) : html`<p>No repairs yet.</p>`}`,
  );
}

/** The answer to a report: its reference at once, and the way back to the tenancy's page. */
export function reportedHtml(repair: Repair, atRisk: boolean, repairsPath: string): string {
  return tenantHtml(
    "Repair reported",
    html`<p>Thank you. Your reference is <strong class="reference">${repair.reference ?? ""}</strong>.</p>
${atRisk ? emergencyNumbers : ""}
<p><a href="${repairsPath}">See your repairs and what must happen by when</a></p>
<p class="small">We are also sending you the reference. For a later visit, ask for a new link.</p>`,
  );
}
