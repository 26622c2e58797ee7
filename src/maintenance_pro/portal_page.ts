/**
 * The landlord's invitation pages: small server-rendered HTML, one per state of a link, with no script and only our
 * own inline style (allowed by its hash). Every interpolated value is escaped; nothing is said beyond the invitation.
 */
import { ukTimeText } from "../core/dates.ts";
import { type Html, html } from "../core/html.ts";
import { pageFrame } from "./page_frame.ts";
import type { InvitationState } from "./invitation_state.ts";
import type { InvitationView } from "./queries.ts";

/** The page's only style, inline and named by its hash in the policy. */
const style = `html { font-family: system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; color: #1f2328; }
body { margin: 0; background: #f6f8fa; line-height: 1.5; }
main { max-width: 34rem; margin: 2rem auto; padding: 1.5rem; background: #fff; border: 1px solid #d0d7de;
  border-radius: 8px; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; }
p, form { margin: 0 0 1rem; }
button { font: inherit; font-size: 1.1rem; padding: 0.75rem 1.5rem; min-height: 44px; color: #fff;
  background: #1d4ed8; border: 0; border-radius: 6px; cursor: pointer; }
button:hover { background: #1e40af; }
button:focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
.small { color: #57606a; font-size: 0.9rem; }
@media (max-width: 36rem) { main { margin: 0; border: 0; border-radius: 0; min-height: 100vh; } }
`;

const frame = pageFrame(style);

/** The Content-Security-Policy of the pages: nothing loads, only our style applies, the form posts to us. */
export const portalPolicy = frame.policy;

/**
 * The target of a pending page's form, relative to the page's own path (so it holds behind a proxy that adds a
 * prefix): `<token>/accept` from `…/invitations/<token>`, and `accept` from `…/invitations/<token>/`, which the
 * router serves too (a link copied with a trailing slash).
 */
export function acceptAction(pagePath: string, token: string): string {
  return pagePath.endsWith("/") ? "accept" : `${token}/accept`;
}

/** What a page shows: its title (also the heading) and its paragraphs. */
interface PageContent {
  title: string;
  body: Html;
}

/** The page of every state, and of the answers that are not about the invitation. */
export type PageKind = InvitationState | "welcome" | "crossSite" | "tooMany" | "trouble";

/** What a page needs beyond the invitation: the form's target (acceptAction) or a line of text. */
export interface PageDetail {
  action?: string;
  text?: string;
}

/** What the page of `kind` says; `view` is the invitation when one has the link. */
function content(kind: PageKind, view: InvitationView | undefined, detail: PageDetail) {
  const workspace = view?.workspaceName ?? "the letting agent";
  const pages: Record<PageKind, () => PageContent> = {
    pending: () => {
      const count = view?.properties ?? 0;
      const covers = `${count} ${count === 1 ? "property" : "properties"}`;
      return {
        title: "Your landlord portal invitation",
        body: html`<p>Hello ${view?.landlordName ?? ""},</p>
<p><strong>${workspace}</strong> invites you to its landlord portal, where you can follow the repairs, \
maintenance and compliance of your properties. The access covers ${covers}.</p>
<form method="post" action="${detail.action ?? ""}">
<button type="submit">Accept invitation</button>
</form>
<p class="small">This link works until ${ukTimeText(view?.expiresAt ?? 0)}. \
If you were not expecting this invitation, you can close this page.</p>`,
      };
    },
    welcome: () => ({
      title: "Invitation accepted",
      body: html`<p>Thank you, ${view?.landlordName ?? ""}. Your access to the landlord portal of \
<strong>${workspace}</strong> is now active.</p>
<p>You can close this page.</p>`,
    }),
    accepted: () => ({
      title: "Invitation already accepted",
      body: html`<p>This invitation has already been accepted, and the access is active. There is nothing more to do \
with this link.</p>`,
    }),
    expired: () => ({
      title: "This link has expired",
      body: html`<p>Invitation links work for 7 days after they are sent. Please ask <strong>${workspace}</strong> to \
send you a new invitation.</p>`,
    }),
    superseded: () => ({
      title: "This link has been replaced",
      body: html`<p>A newer invitation has been sent to you, and only the link in the newest email works. Please use \
that one.</p>`,
    }),
    revoked: () => ({
      title: "Access withdrawn",
      body: html`<p>The portal access this invitation was for has been withdrawn, so the link no longer works. If you \
think this is a mistake, please contact the letting agent.</p>`,
    }),
    unknown: () => ({
      title: "Link not recognised",
      body: html`<p>This invitation link is not valid. Please check that you opened the whole link from the email.</p>`,
    }),
    crossSite: () => ({
      title: "Please accept from the invitation page",
      body: html`<p>For your security, an invitation can only be accepted from its own page. Please open the link in \
the email again.</p>`,
    }),
    tooMany: () => ({
      title: "Too many requests",
      body: html`<p>There have been too many requests from your network. Please wait ${detail.text ?? "a minute"} \
and try again.</p>`,
    }),
    trouble: () => ({
      title: "Something went wrong",
      body: html`<p>Please try again in a moment. If it keeps happening, contact the letting agent and quote \
reference <code>${detail.text ?? ""}</code>.</p>`,
    }),
  };
  return pages[kind]();
}

/** The HTML of a page. */
export function portalHtml(kind: PageKind, view: InvitationView | undefined, detail: PageDetail = {}): string {
  const page = content(kind, view, detail);
  return frame.document(page.title, page.body);
}

/** A page as a response: UTF-8 HTML under the policy, never sniffed, cached, framed or referred from. */
export const portalPage = frame.response;
