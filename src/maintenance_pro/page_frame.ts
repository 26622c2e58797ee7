/**
 * The frame of the group's pages for people (the landlord's invitation pages, the tenant's repair pages): a whole
 * HTML document around a title and a body, with no script and one inline style named by its hash in the
 * Content-Security-Policy, answered never sniffed, cached, framed or referred from.
 */
import { createHash } from "node:crypto";
import { type Html, html, raw } from "../core/html.ts";

/** What the pages of one style share: their policy, their document and their response. */
export interface PageFrame {
  /** The Content-Security-Policy: nothing loads, only the style applies, forms post to us. */
  policy: string;
  /** A whole page: the title is also its heading. */
  document(title: string, body: Html): string;
  /** A page as a response: UTF-8 HTML under the policy. */
  response(status: number, page: string, requestId: string, headers?: Record<string, string>): Response;
}

/**
 * The frame of pages with `style`, a constant of the caller's module (a <style> body decodes no entities, so only a
 * constant may go there: `raw` takes no other string). With `images: "self"` the page may show images of its own
 * origin (a repair's photos, served behind the page's own link); otherwise none.
 */
export function pageFrame<S extends string>(
  style: string extends S ? never : S,
  options: { images?: "self" } = {},
): PageFrame {
  const policy = [
    "default-src 'none'",
    `style-src 'sha256-${createHash("sha256").update(style).digest("base64")}'`,
    options.images === "self" ? "img-src 'self'" : "img-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
  return {
    policy,
    document: (title, body) =>
      html`<!doctype html>
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
`.toString(),
    response: (status, page, requestId, headers = {}) =>
      new Response(page, {
        status,
        headers: {
          "content-type": "text/html; charset=utf-8",
          "content-security-policy": policy,
          "x-content-type-options": "nosniff",
          "cache-control": "no-store",
          "referrer-policy": "no-referrer",
          "x-frame-options": "DENY",
          "x-request-id": requestId,
          ...headers,
        },
      }),
  };
}
