/**
 * The frame of every email that carries a link (the landlord's invitation, the tenant's link and reference, the
 * contractor's works order): a greeting, paragraphs, the link, more paragraphs and the sender's name, written once as
 * plain text (CRLF lines) and once as HTML (with the `html` template, so every value is escaped) from the same parts.
 * In the HTML the link is a button, then written out to copy; in the text it follows its lead.
 */
import { html, type Html } from "../core/html.ts";

/** Line breaks inside a paragraph: a new line in the text, `<br>` in the HTML. */
export const br = { br: true } as const;

/**
 * A run of a paragraph's words: plain; `strong` (bold in the HTML); `textOnly` (only in the text, where the HTML says
 * it with its button) or `htmlOnly`; or a line break.
 */
export type Run = string | { strong: string } | { textOnly: string } | { htmlOnly: string } | typeof br;

/** A paragraph: its runs one after another. */
export type Paragraph = readonly Run[];

/** What a link email says. */
export interface LinkEmailParts {
  subject: string;
  /** The opening line ("Dear Ada," or "Hello,"). */
  greeting: string;
  /** The paragraphs above the link. */
  before: readonly Paragraph[];
  link: {
    url: string;
    /** The words of the button in the HTML. */
    button: string;
    /** The paragraph that leads to the link (the HTML shows it above the button, without its `textOnly` runs). */
    lead: Paragraph;
    /** Whether in the text the URL ends the lead's last line (after a space) rather than standing on its own line. */
    inline?: boolean;
  };
  /** The paragraphs below the link. */
  after: readonly Paragraph[];
  /** The closing line: who sends it. */
  signature: string;
}

/** A composed message. */
export interface LinkEmail {
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

function runText(run: Run): string {
  if (typeof run === "string") return run;
  if ("br" in run) return "\r\n";
  if ("strong" in run) return run.strong;
  return "textOnly" in run ? run.textOnly : "";
}

function runHtml(run: Run): Html | string {
  if (typeof run === "string") return run;
  if ("br" in run) return html`<br>`;
  if ("strong" in run) return html`<strong>${run.strong}</strong>`;
  return "htmlOnly" in run ? run.htmlOnly : "";
}

const textOf = (paragraph: Paragraph) => paragraph.map(runText).join("");
const htmlOf = (paragraph: Paragraph) => html`<p>${paragraph.map(runHtml)}</p>\n`;

/** Composes a link email: subject, plain text and HTML. */
export function linkEmail(parts: LinkEmailParts): LinkEmail {
  const { subject, link } = parts;
  const lead = textOf(link.lead);
  const text = [
    parts.greeting,
    "",
    ...parts.before.flatMap((p) => [textOf(p), ""]),
    link.inline ? `${lead} ${link.url}` : `${lead}\r\n${link.url}`,
    "",
    ...parts.after.flatMap((p) => [textOf(p), ""]),
    parts.signature,
    "",
  ].join("\r\n");
  const leadHtml = link.lead.map(runHtml).some((r) => r.toString() !== "") && htmlOf(link.lead);
  const markup = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${subject}</title></head>
<body style="font-family: Arial, sans-serif; line-height: 1.5; color: #222;">
<p>${parts.greeting}</p>
${parts.before.map(htmlOf)}${leadHtml}<p><a href="${link.url}" style="display: inline-block; padding: 10px 18px; \
background: #1d4ed8; color: #fff; text-decoration: none; border-radius: 4px;">${link.button}</a></p>
<p>Or copy this link into your browser:<br><a href="${link.url}">${link.url}</a></p>
${parts.after.map(htmlOf)}<p>${parts.signature}</p>
</body></html>
`;
  return { subject, text, html: markup.toString() };
}
