/**
 * The contractor's page of a works order: what, where, by when, who to contact, the key set (with them or to collect),
 * and the forms that move the order on (accept or decline, an appointment, the visit) or report that the key does not
 * work. Server-rendered HTML with no script, only our own inline style (allowed by its hash); every interpolated value
 * is escaped. Each form that moves the order carries its revision (the key report does not move it, and carries none).
 */
import { ukTimeText } from "../core/dates.ts";
import { type Html, html } from "../core/html.ts";
import { closedStatuses, contractorTransitions, visitPhotosMax } from "./contractor_actions.ts";
import { contractorLinkGraceDays, type ContractorView } from "./contractor_queries.ts";
import { pageFrame } from "./page_frame.ts";
import type { WorksOrder } from "./works_order_schema.ts";

/** The page's only style, inline and named by its hash in the policy. */
const style = `html { font-family: system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; color: #1f2328; }
body { margin: 0; background: #f6f8fa; line-height: 1.5; }
main { max-width: 34rem; margin: 2rem auto; padding: 1.5rem; background: #fff; border: 1px solid #d0d7de;
  border-radius: 8px; box-sizing: border-box; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; }
h2 { font-size: 1.2rem; margin: 1.5rem 0 0.5rem; }
p, form, dl { margin: 0 0 1rem; }
dt { font-weight: 600; }
dd { margin: 0 0 0.5rem; white-space: pre-wrap; overflow-wrap: anywhere; }
label { display: block; font-weight: 600; margin: 0 0 0.25rem; }
input, textarea { font: inherit; width: 100%; box-sizing: border-box; padding: 0.6rem; margin: 0 0 1rem;
  border: 1px solid #57606a; border-radius: 6px; }
button { font: inherit; font-size: 1.1rem; padding: 0.75rem 1.5rem; min-height: 44px; color: #fff;
  background: #1d4ed8; border: 0; border-radius: 6px; cursor: pointer; }
button.secondary { background: #57606a; }
button:focus-visible, input:focus-visible, textarea:focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
fieldset { border: 1px solid #d0d7de; border-radius: 6px; margin: 0 0 1rem; padding: 0.75rem; }
fieldset input[type="radio"], fieldset input[type="checkbox"] { width: auto; margin: 0 0.4rem 0 0; }
label.inline { display: inline; font-weight: 400; }
.choice { margin: 0 0 0.5rem; }
.notice { padding: 0.75rem; border-left: 4px solid #1d4ed8; background: #eff6ff; }
.status { font-weight: 700; }
.photos { list-style: none; padding: 0; }
.photos img { max-width: 100%; height: auto; border: 1px solid #d0d7de; }
@media (max-width: 36rem) { main { margin: 0; border: 0; border-radius: 0; min-height: 100vh; } }
`;

const frame = pageFrame(style, { images: "self" });

/** The Content-Security-Policy of the page: nothing loads, only our style applies, forms post to us. */
export const contractorPolicy = frame.policy;

/** A page as a response: UTF-8 HTML under the policy, never sniffed, cached, framed or referred from. */
export const contractorPage = frame.response;

/** A page of one line: a refusal or a notice. */
export function contractorNoticeHtml(title: string, text: string): string {
  return frame.document(title, html`<p>${text}</p>`);
}

/** The statuses in words. */
export const statusWords: Record<WorksOrder["status"], string> = {
  raised: "Waiting for you to accept or decline",
  accepted: "Accepted: please agree an appointment",
  declined: "Declined",
  scheduled: "Appointment agreed",
  attended: "Attended: the work is under way",
  completed: "Completed",
  no_access: "No access at the last visit: please agree a new appointment",
  cancelled: "Cancelled by the agency",
};

/** The purposes in words. */
const purposeWords: Record<WorksOrder["purpose"], string> = {
  investigation: "Investigate the problem",
  make_safe: "Make it safe",
  safety_work: "Safety work",
  preventative_work: "Work to stop it coming back",
  repair: "Repair",
};

const allowed = (order: WorksOrder, kind: keyof typeof contractorTransitions) =>
  contractorTransitions[kind].from.includes(order.status);

const revisionField = (order: WorksOrder) =>
  html`<input type="hidden" name="revision" value="${String(order.revision)}">`;

/** The forms the order's status allows. */
function forms(view: ContractorView): Html {
  const order = view.order;
  const parts: Html[] = [];
  if (allowed(order, "accept")) {
    parts.push(html`<h2>Accept or decline</h2>
<form method="post">${revisionField(order)}<input type="hidden" name="action" value="accept">
<button type="submit" id="accept">Accept the order</button>
</form>
<form method="post">${revisionField(order)}<input type="hidden" name="action" value="decline">
<label for="reason">Why you decline it</label>
<textarea id="reason" name="reason" required rows="3" maxlength="500"></textarea>
<button type="submit" class="secondary" id="decline">Decline the order</button>
</form>`);
  }
  if (allowed(order, "schedule")) {
    parts.push(html`<h2>${order.appointment ? "Agree a new appointment" : "Agree an appointment"}</h2>
<form method="post">${revisionField(order)}<input type="hidden" name="action" value="schedule">
<label for="date">Date</label>
<input type="date" id="date" name="date" required>
<label for="from">From (UK time)</label>
<input type="time" id="from" name="from" required>
<label for="to">To (UK time)</label>
<input type="time" id="to" name="to" required>
<button type="submit" id="schedule">Save the appointment</button>
</form>`);
  }
  const outcomes = (["attended", "no_access", "completed"] as const).filter((k) => allowed(order, k));
  if (outcomes.length) {
    const words = { attended: "I attended; the work goes on", no_access: "I could not get in", completed: "Completed" };
    const finding =
      order.purpose === "investigation"
        ? html`<fieldset><legend>What did you find? (needed when you attended or completed)</legend>
<div class="choice"><input type="radio" id="finding-hazard" name="finding" value="hazard_confirmed">\
<label class="inline" for="finding-hazard">A hazard</label></div>
<div class="choice"><input type="radio" id="finding-none" name="finding" value="no_hazard">\
<label class="inline" for="finding-none">No hazard</label></div>
</fieldset>`
        : "";
    parts.push(html`<h2>Record the visit</h2>
<form method="post" enctype="multipart/form-data">${revisionField(order)}\
<input type="hidden" name="action" value="visit">
<fieldset><legend>What happened</legend>
${outcomes.map(
  (k) => html`<div class="choice"><input type="radio" id="outcome-${k}" name="outcome" value="${k}" required>\
<label class="inline" for="outcome-${k}">${words[k]}</label></div>`,
)}
</fieldset>
${finding}
<label for="note">Note (required when you could not get in: what you tried)</label>
<textarea id="note" name="note" rows="4" maxlength="2000"></textarea>
<label for="photo">Photos, JPEG or PNG, up to ${String(visitPhotosMax)} of 5 MB each (at least one when you could not \
get in: what you tried)</label>
<input type="file" id="photo" name="photo" accept="image/jpeg,image/png" multiple>
<fieldset><legend>If you could not get in</legend>
<div class="choice"><input type="checkbox" id="refused" name="refused" value="yes">\
<label class="inline" for="refused">The household refused entry</label></div>
</fieldset>
<button type="submit" id="visit">Record the visit</button>
</form>`);
  }
  parts.push(keyReportForm(view));
  return html`${parts}`;
}

const problemRow = (view: ContractorView) =>
  view.repairTitle
    ? html`<dt>The problem reported</dt>
<dd>${view.repairTitle}${view.repairLocation ? ` (${view.repairLocation})` : ""}</dd>`
    : "";

const appointmentRow = (order: WorksOrder) =>
  order.appointment
    ? html`<dt>Appointment</dt>
<dd id="appointment">${ukTimeText(order.appointment.startsAt)} to ${ukTimeText(order.appointment.endsAt)}</dd>`
    : "";

/** The order's key set: whether the contractor has it (checked out to them) or collects it, and a report made. */
function keysText(view: ContractorView): string {
  const set = view.keySet;
  if (!set) return "No keys needed from us";
  const where = set.withContractor ? "You have it." : "Collect it from us.";
  const reported = view.keyReported ? " You told us the key does not work: we will be in touch." : "";
  return `Key set ${set.reference}: ${set.label}. ${where}${reported}`;
}

/** The longest note of a report that the key does not work (a visit's note is as long). */
export const keyNoteMax = 2000;

/** The form reporting that the key does not work: while the order is open and names a key set. */
const keyReportForm = (view: ContractorView) =>
  view.keySet
    ? html`<h2>The key does not work</h2>
<form method="post"><input type="hidden" name="action" value="key_report">
<label for="key-note">What is wrong with key set ${view.keySet.reference}</label>
<textarea id="key-note" name="note" required rows="3" maxlength="${String(keyNoteMax)}"></textarea>
<button type="submit" class="secondary" id="key-report">Report that the key does not work</button>
</form>`
    : html``;

/** A photo as the page shows it: where its bytes are (behind the page's own link) and what it is. */
export interface PagePhoto {
  url: string;
  width: number;
  height: number;
  source: "tenant" | "contractor" | "agency";
}

const photoSources = { tenant: "the tenant", contractor: "a contractor", agency: "us" } as const;

const photosPart = (photos: readonly PagePhoto[]) =>
  photos.length
    ? html`<h2>Photos</h2>
<ul class="photos">${photos.map(
        (p, i) => html`<li><img src="${p.url}" width="${String(p.width)}" height="${String(p.height)}" \
alt="Photo ${String(i + 1)} of the repair, sent by ${photoSources[p.source]}"></li>`,
      )}</ul>`
    : "";

/**
 * The order's page; `problems` lists what to fix in the form just sent, `notice` says why it was not taken, `photos`
 * are the repair's.
 */
export function contractorOrderHtml(
  view: ContractorView,
  problems: string[] = [],
  notice?: string,
  photos: readonly PagePhoto[] = [],
): string {
  const order = view.order;
  const contact = [view.contact.name, view.contact.email].filter(Boolean).join(", ");
  const closed = closedStatuses.includes(order.status);
  return frame.document(
    `Works order ${order.reference}`,
    html`<p>From <strong>${view.workspaceName}</strong> to ${view.contractorName}.</p>
${notice ? html`<p class="notice" role="status">${notice}</p>` : ""}
${problems.length ? html`<div role="alert"><ul>${problems.map((p) => html`<li>${p}</li>`)}</ul></div>` : ""}
<p>Status: <span class="status" id="status">${statusWords[order.status]}</span></p>
<dl>
<dt>Address</dt><dd>${view.address || "Not recorded: please ask us"}</dd>
<dt>What to do</dt><dd>${purposeWords[order.purpose]}. ${order.instructions}</dd>
${problemRow(view)}
<dt>Required by</dt><dd>${order.requiredBy ? ukTimeText(order.requiredBy) : "No date set"}</dd>
${appointmentRow(order)}
<dt>Keys</dt><dd>${keysText(view)}</dd>
<dt>Who to contact</dt><dd>${view.workspaceName}${contact ? `: ${contact}` : ""}</dd>
${order.declineReason ? html`<dt>Why you declined</dt><dd>${order.declineReason}</dd>` : ""}
${order.cancelReason ? html`<dt>Why it was cancelled</dt><dd>${order.cancelReason}</dd>` : ""}
</dl>
${photosPart(photos)}
${
  closed
    ? html`<p>This order is closed. The link shows it for ${String(contractorLinkGraceDays)} days after it closed.</p>`
    : forms(view)
}`,
  );
}
