/**
 * The API reference on the service itself: `/openapi.json`, and `/docs`, a page of ours running Swagger UI from
 * the pinned `swagger-ui-dist` package. Nothing is loaded from elsewhere, so the reference works offline.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { html } from "./html.ts";

/** The Content-Security-Policy of /docs: the page may load and fetch only from the service. */
export const docsPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  // Swagger UI's stylesheet draws its icons as data: SVG images.
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** One file the docs routes answer with, prepared once at start. */
interface Asset {
  body: Uint8Array;
  gzipped?: Uint8Array;
  type: string;
  etag: string;
  headers: Record<string, string>;
}

/** Our script starting Swagger UI (a file, not inline, so the policy can forbid inline scripts). */
const startScript = `"use strict";
window.ui = SwaggerUIBundle({
  url: "openapi.json",
  dom_id: "#swagger-ui",
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout",
  deepLinking: true,
  docExpansion: "list",
  defaultModelsExpandDepth: 0,
  validatorUrl: null,
  queryConfigEnabled: false,
  tryItOutEnabled: false,
});
`;

/** Our few styles around Swagger UI's own. */
const pageStyle = `html { box-sizing: border-box; overflow-y: scroll; }
*, *::before, *::after { box-sizing: inherit; }
body { margin: 0; background: #fafafa; }
`;

/** The first paragraph of a Markdown description as plain text, for the page's meta description. */
function summaryOf(markdown: string): string {
  return (markdown.split(/\n\s*\n/)[0] ?? "").replace(/`/g, "").replace(/\s+/g, " ").trim();
}

/** The HTML of /docs; every interpolated value is escaped. */
export function docsHtml(info: { title: string; version: string; description: string }): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${info.title} ${info.version}</title>
<meta name="description" content="${summaryOf(info.description)}">
<link rel="icon" type="image/png" href="docs/favicon-32x32.png">
<link rel="stylesheet" href="docs/swagger-ui.css">
<link rel="stylesheet" href="docs/docs.css">
</head>
<body>
<noscript><p>This reference needs JavaScript. The OpenAPI document itself is at \
<a href="openapi.json">openapi.json</a>.</p></noscript>
<div id="swagger-ui"></div>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/docs.js"></script>
</body>
</html>
`.toString();
}

/** An asset from its bytes, with its ETag (a hash of the bytes); the gzipped copy is made on first demand. */
function asset(body: Uint8Array | string, type: string, headers: Record<string, string> = {}): Asset {
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  const etag = `"${new Bun.CryptoHasher("sha256").update(bytes).digest("base64url").slice(0, 27)}"`;
  return { body: bytes, type, etag, headers };
}

let viewer: [string, Asset][] | undefined;

/** Swagger UI's files and ours around it, read once a process (they do not depend on the document). */
function viewerAssets(): [string, Asset][] {
  if (viewer) return viewer;
  const dir = dirname(fileURLToPath(import.meta.resolve("swagger-ui-dist/package.json")));
  const file = (name: string) => readFileSync(join(dir, name));
  viewer = [
    ["/docs/swagger-ui-bundle.js", asset(file("swagger-ui-bundle.js"), "text/javascript; charset=utf-8")],
    ["/docs/swagger-ui.css", asset(file("swagger-ui.css"), "text/css; charset=utf-8")],
    ["/docs/favicon-32x32.png", asset(file("favicon-32x32.png"), "image/png")],
    ["/docs/docs.js", asset(startScript, "text/javascript; charset=utf-8")],
    ["/docs/docs.css", asset(pageStyle, "text/css; charset=utf-8")],
  ];
  return viewer;
}

/** Whether an If-None-Match header names this ETag. */
function matches(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.trim() === "*" || ifNoneMatch.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}

/** Whether an Accept-Encoding header accepts gzip (listed without `q=0`). */
function acceptsGzip(acceptEncoding: string | null): boolean {
  return (acceptEncoding ?? "").split(",").some((part) => {
    const [coding, ...params] = part.split(";").map((s) => s.trim().toLowerCase());
    return coding === "gzip" && !params.some((p) => /^q=0(\.0*)?$/.test(p));
  });
}

/** The docs routes: `/openapi.json`, `/docs` and the viewer's files under `/docs/`. */
export function docsSite(document: { info: { title: string; version: string; description: string } }) {
  const assets = new Map<string, Asset>([
    ["/openapi.json", asset(JSON.stringify(document), "application/json; charset=utf-8")],
    [
      "/docs",
      asset(docsHtml(document.info), "text/html; charset=utf-8", {
        "content-security-policy": docsPolicy,
        "x-frame-options": "DENY",
        "referrer-policy": "no-referrer",
      }),
    ],
    ...viewerAssets(),
  ]);
  return {
    /** The paths answered. */
    paths: [...assets.keys()],
    /** The answer for one of `paths`: the file, gzipped when accepted, or 304 when the caller's copy is current. */
    answer(path: string, request: Request, requestId: string): Response {
      const a = assets.get(path)!;
      const headers: Record<string, string> = {
        "content-type": a.type,
        etag: a.etag,
        "cache-control": "no-cache",
        vary: "accept-encoding",
        "x-content-type-options": "nosniff",
        "x-request-id": requestId,
        ...a.headers,
      };
      if (matches(request.headers.get("if-none-match"), a.etag)) return new Response(null, { status: 304, headers });
      const gzip = a.type !== "image/png" && acceptsGzip(request.headers.get("accept-encoding"));
      if (!gzip) return new Response(a.body, { status: 200, headers });
      a.gzipped ??= Bun.gzipSync(a.body as Uint8Array<ArrayBuffer>);
      return new Response(a.gzipped, { status: 200, headers: { ...headers, "content-encoding": "gzip" } });
    },
  };
}
