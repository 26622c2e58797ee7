/** The invitation email: subject, plain text and HTML, naming the workspace and carrying the link. */
import { ukTimeText } from "../core/dates.ts";
import { br, type LinkEmail, linkEmail, oneLine } from "../email/link_email.ts";

export { oneLine };

/** What the email says. */
export interface InvitationEmailInput {
  workspaceName: string;
  landlordName: string;
  link: string;
  /** When the link stops working (an instant). */
  expiresAt: string;
}

/** The composed message parts. */
export type InvitationEmail = LinkEmail;

/** Composes the invitation email. The names are put on one line (oneLine) in the subject and both parts. */
export function invitationEmail(input: InvitationEmailInput): InvitationEmail {
  const workspace = oneLine(input.workspaceName);
  return linkEmail({
    subject: `${workspace} invites you to the landlord portal`,
    greeting: `Dear ${oneLine(input.landlordName)},`,
    before: [
      [
        { strong: workspace },
        " has invited you to its landlord portal, where you can follow the repairs, maintenance and compliance of " +
          "your properties.",
      ],
    ],
    link: { url: input.link, button: "Accept the invitation", lead: [{ textOnly: "Accept the invitation here:" }] },
    after: [
      [
        `The link works until ${ukTimeText(input.expiresAt)}. ` +
          "If a newer invitation reaches you, only the newest link works.",
        br,
        "If you were not expecting this, you can ignore this email.",
      ],
    ],
    signature: workspace,
  });
}
