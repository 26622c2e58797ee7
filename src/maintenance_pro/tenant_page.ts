/**
 * The tenant's pages (report a repair, ask for a link, the repairs of a tenancy): small server-rendered HTML with no
 * script and only our own inline style (allowed by its hash). Every interpolated value is escaped. No page says
 * whether a postcode, email or mobile is known.
 */
import { createHash } from "node:crypto";
import { ukTimeText } from "../core/dates.ts";
import { type Html, html, raw } from "../core/html.ts";
import type { TenantLinkView, TenantRepairRow } from "./tenant_queries.ts";

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
.small { color: #57606a; font-size: 0.9rem; }
@media (max-width: 36rem) { main { margin: 0; border: 0; border-radius: 0; min-height: 100vh; } }
`;

/** The Content-Security-Policy of the pages: nothing loads, only our style applies, forms post to us. */
export const tenantPolicy = [
  "default-src 'none'",
  `style-src 'sha256-${createHash("sha256").update(style).digest("base64")}'`,
  "img-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** A whole page around a title and body. */
export function tenantHtml(title: string, body: Html): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex">
<title>${title}</title>
<style>${raw(style)}</style>
</head>
<body>
<main>
<h1>${title}</h1>
${body}
</main>
</body>
</html>
`.toString();
}

/** A page as a response: UTF-8 HTML under the policy, never sniffed, cached, framed or referred from. */
export function tenantPage(status: number, page: string, requestId: string, headers: Record<string, string> = {}) {
  return new Response(page, {
    status,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": tenantPolicy,
      "x-content-type-options": "nosniff",
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
      "x-frame-options": "DENY",
      "x-request-id": requestId,
      ...headers,
    },
  });
}

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
    "Check your email",
    html`<p>If we found your tenancy, we have sent you a link. It works for 24 hours.</p>
<p class="small">Nothing arrived? Check the details you entered and ask again, or contact your letting agent.</p>`,
  );
}

/** A page of one line: a refusal or a notice. */
export function noticeHtml(title: string, text: string): string {
  return tenantHtml(title, html`<p>${text}</p>`);
}

/** The status of a repair in words. */
const statusWords: Record<string, string> = {
  reported: "Reported",
  triaged: "Assessed",
  in_progress: "Work in progress",
  completed: "Completed",
  cancelled: "Cancelled",
};

/** The repairs page of a link's tenancy, newest first. */
export function tenancyHtml(view: TenantLinkView, repairs: readonly TenantRepairRow[]): string {
  const items = repairs.map(
    (r) => html`<li><strong>${r.reference ?? ""}</strong> ${r.title ?? ""}: ${statusWords[r.status] ?? r.status}
<span class="small">(reported ${ukTimeText(r.createdAt)})</span></li>`,
  );
  return tenantHtml(
    "Your repairs",
    html`<p>${view.unitLabel}, ${view.propertyLabel}, with <strong>${view.workspaceName}</strong>.</p>
<h2>Repairs you reported</h2>
${repairs.length ? html`<ul>${items}</ul>` : html`<p>No repairs yet.</p>`}`,
  );
}
