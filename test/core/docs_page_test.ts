/** /docs and its files are the service's own: escaped HTML, a strict policy, the pinned viewer's bytes, ETags. */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { harness } from "../support/harness.ts";
import { docsHtml, docsPolicy } from "../../src/core/docs_page.ts";

const h = await harness();
const viewerDir = join(import.meta.dir, "..", "..", "node_modules", "swagger-ui-dist");
const files = [
  "/docs",
  "/openapi.json",
  "/docs/swagger-ui-bundle.js",
  "/docs/swagger-ui.css",
  "/docs/docs.js",
  "/docs/docs.css",
  "/docs/favicon-32x32.png",
];

describe("the /docs page", () => {
  test("is UTF-8 HTML under a policy that allows only the service, with the request id", async () => {
    const res = await h.request("GET", "/docs", { headers: { "x-request-id": "docs-page-1" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("x-request-id")).toBe("docs-page-1");
    expect(res.headers.get("content-security-policy")).toBe(docsPolicy);
    expect(docsPolicy).toContain("default-src 'none'");
    expect(docsPolicy).not.toContain("unsafe");
    expect(res.text).toContain('<meta charset="utf-8">');
    expect((await h.request("GET", "/docs")).headers.get("x-request-id")).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  test("loads its scripts, styles and the document from the service only, by relative URLs", async () => {
    const { text } = await h.request("GET", "/docs");
    const urls = [...text.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((m) => m[1]);
    expect(urls.sort()).toEqual([
      "docs/docs.css",
      "docs/docs.js",
      "docs/favicon-32x32.png",
      "docs/swagger-ui-bundle.js",
      "docs/swagger-ui.css",
      "openapi.json",
    ]);
    expect(text).not.toMatch(/<script>|<style>|\bstyle="/);
  });

  test("escapes everything it puts into HTML", () => {
    const html = docsHtml({
      title: 'A <b>"title"</b>',
      version: "1 & 2",
      description: 'Quotes " end <capacity> and <s>struck</s> → here.\n\nSecond part.',
    });
    expect(html).toContain("<title>A &lt;b&gt;&quot;title&quot;&lt;/b&gt; 1 &amp; 2</title>");
    expect(html).toContain(
      '<meta name="description" content="Quotes &quot; end &lt;capacity&gt; and &lt;s&gt;struck&lt;/s&gt; → here.">',
    );
    expect(html).not.toContain("<s>");
    expect(html).not.toContain("Second part");
  });

  test("the service's own description stays inside its meta attribute", async () => {
    const { text } = await h.request("GET", "/docs");
    const meta = text.match(/<meta name="description" content="([^"]*)">/);
    expect(meta?.[1]).toStartWith("The service UK letting agents");
    expect(text.match(/</g)?.length).toBe(docsHtml({ title: "", version: "", description: "" }).match(/</g)?.length);
  });
});

describe("the viewer's files", () => {
  test("are the pinned swagger-ui-dist package's own bytes", async () => {
    const pinned = (
      JSON.parse(readFileSync(join(import.meta.dir, "..", "..", "package.json"), "utf8")) as {
        dependencies: Record<string, string>;
      }
    ).dependencies["swagger-ui-dist"];
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    expect(JSON.parse(readFileSync(join(viewerDir, "package.json"), "utf8")).version).toBe(pinned);
    for (const name of ["swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png"]) {
      const res = await h.app.handle(new Request(`http://localhost/docs/${name}`));
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(new Uint8Array(readFileSync(join(viewerDir, name))));
    }
  });

  test.each(files)("%s answers with its type, an ETag, the request id, and 304 for a current copy", async (path) => {
    const res = await h.app.handle(new Request(`http://localhost${path}`, { headers: { "x-request-id": "asset-1" } }));
    expect(res.status).toBe(200);
    const type =
      {
        js: "text/javascript; charset=utf-8",
        css: "text/css; charset=utf-8",
        png: "image/png",
        json: "application/json; charset=utf-8",
      }[path.split(".").pop()!] ?? "text/html; charset=utf-8";
    expect(res.headers.get("content-type")).toBe(type);
    expect(res.headers.get("x-request-id")).toBe("asset-1");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const etag = res.headers.get("etag")!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await h.app.handle(
      new Request(`http://localhost${path}`, { headers: { "if-none-match": `W/"other", ${etag}` } }),
    );
    expect(again.status).toBe(304);
    expect(again.headers.get("x-request-id")).toBeTruthy();
    expect(await again.text()).toBe("");
    const stale = await h.app.handle(
      new Request(`http://localhost${path}`, { headers: { "if-none-match": '"stale"' } }),
    );
    expect(stale.status).toBe(200);
  });

  test("text files are gzipped when the caller accepts it, and only then", async () => {
    const plain = await h.app.handle(new Request("http://localhost/docs/swagger-ui-bundle.js"));
    const plainBytes = new Uint8Array(await plain.arrayBuffer());
    const zipped = await h.app.handle(
      new Request("http://localhost/docs/swagger-ui-bundle.js", { headers: { "accept-encoding": "br, gzip" } }),
    );
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
    const zippedBytes = new Uint8Array(await zipped.arrayBuffer());
    expect(zippedBytes.length).toBeLessThan(plainBytes.length / 2);
    expect(Bun.gunzipSync(zippedBytes)).toEqual(plainBytes);
    const refused = await h.app.handle(
      new Request("http://localhost/docs/swagger-ui-bundle.js", { headers: { "accept-encoding": "gzip;q=0, br" } }),
    );
    expect(refused.headers.get("content-encoding")).toBeNull();
  });

  test("a path beside them is an unknown route", async () => {
    const res = await h.request("GET", "/docs/package.json");
    expect(res.status).toBe(404);
    expect(res.body._tag).toBe("RouteNotFound");
  });
});
