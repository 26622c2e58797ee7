/** The invitation email: subject, plain text and HTML, naming the workspace and carrying the link. */
import { ukTimeText } from "../core/dates.ts";
import { html } from "../core/html.ts";

/** What the email says. */
export interface InvitationEmailInput {
  workspaceName: string;
  landlordName: string;
  link: string;
  /** When the link stops working (an instant). */
  expiresAt: string;
}

/** The composed message parts. */
export interface InvitationEmail {
  subject: string;
  text: string;
  html: string;
}

/**
 * A name fit for one line: each run of control characters (CR, LF, tab, NUL…, DEL, C1 such as NEL) and Unicode line
 * or paragraph separators, with the spaces around it, becomes one space; the ends are trimmed.
 */
export function oneLine(text: string): string {
  return text.replace(/[\s\p{Cc}]*[\p{Cc}\p{Zl}\p{Zp}][\s\p{Cc}]*/gu, " ").trim();
}

/** Composes the invitation email. The names are put on one line (oneLine) in the subject and both parts. */
export function invitationEmail(input: InvitationEmailInput): InvitationEmail {
  const workspace = oneLine(input.workspaceName);
  const landlord = oneLine(input.landlordName);
  const expires = ukTimeText(input.expiresAt);
  const subject = `${workspace} invites you to the landlord portal`;
  const text = [
    `Dear ${landlord},`,
    "",
    `${workspace} has invited you to its landlord portal, where you can follow the repairs, maintenance and ` +
      `compliance of your properties.`,
    "",
    "Accept the invitation here:",
    input.link,
    "",
    `The link works until ${expires}. If a newer invitation reaches you, only the newest link works.`,
    "If you were not expecting this, you can ignore this email.",
    "",
    workspace,
    "",
  ].join("\r\n");
  const markup = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${subject}</title></head>
<body style="font-family: Arial, sans-serif; line-height: 1.5; color: #222;">
<p>Dear ${landlord},</p>
<p><strong>${workspace}</strong> has invited you to its landlord portal, where you can follow the repairs, \
maintenance and compliance of your properties.</p>
<p><a href="${input.link}" style="display: inline-block; padding: 10px 18px; background: #1d4ed8; color: #fff; \
text-decoration: none; border-radius: 4px;">Accept the invitation</a></p>
<p>Or copy this link into your browser:<br><a href="${input.link}">${input.link}</a></p>
<p>The link works until ${expires}. If a newer invitation reaches you, only the newest link works.<br>\
If you were not expecting this, you can ignore this email.</p>
<p>${workspace}</p>
</body></html>
`;
  return { subject, text, html: markup.toString() };
}
