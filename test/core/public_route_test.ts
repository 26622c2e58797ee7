/**
 * Public routes (no API key): each request is counted against its route's per-address Postgres bucket before the
 * body is read; spent budgets answer 429 with Retry-After and write nothing; bodies are capped like the API's;
 * refusals are tagged; the client's address is the socket's peer or, behind trusted proxies, what they saw.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { buildApp } from "../../src/app.ts";
import { purgeAddressBuckets } from "../../src/core/address_budget.ts";
import { clientAddress } from "../../src/core/client_address.ts";
import { WebhookRejected } from "../../src/core/errors.ts";
import type { PublicRoute } from "../../src/core/public_route.ts";
import { harness } from "../support/harness.ts";

const h = await harness();
const db = h.database.db;
const seen: { body: string | null; address: string; params: Record<string, string> }[] = [];

/** An echo route with a budget of `perMinute` per address, named after its path parameter. */
function echoRoute(perMinute: number): PublicRoute {
  return {
    id: "test.echo",
    method: "POST",
    path: "/echo/:name",
    budget: { name: (p) => `echo/${p.name}`, perMinute: () => perMinute },
    async handle(req) {
      seen.push({ body: req.body, address: req.clientAddress, params: req.params });
      if (req.body === "reject") throw new WebhookRejected({ integration: "test", reason: "asked to" });
      if (req.body === "crash") throw new Error("a bug");
      return new Response("<Response/>", { headers: { "content-type": "text/xml" } });
    },
  };
}

const app = buildApp(h.ctx, { publicRoutes: [echoRoute(5)] });
const behindProxy = buildApp(
  { ...h.ctx, config: { ...h.ctx.config, trustedProxyHops: 1 } },
  { publicRoutes: [echoRoute(3)] },
);

function post(target: typeof app, name: string, body: string, headers: Record<string, string> = {}) {
  return target.handle(new Request(`http://localhost/echo/${name}`, { method: "POST", body, headers }));
}

async function bucket(scope: string, address: string) {
  const [row] = await db<{ tokens: number; updatedAt: string }[]>`
    select tokens, to_json(updated_at)#>>'{}' as "updatedAt"
    from address_buckets where scope = ${scope} and address = ${address}`;
  return row;
}

describe("the per-address budget", () => {
  test("admits the capacity, then answers 429 RateLimited with Retry-After and writes nothing", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await post(app, "a", `m${i}`)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    const before = await bucket("echo/a", "local");
    expect(before!.tokens).toBeLessThan(1);
    const handled = seen.length;
    const refused = await post(app, "a", "one more");
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as { _tag: string; key: string };
    expect(body._tag).toBe("RateLimited");
    expect(body.key).toBe("echo/a");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get("ratelimit-policy")).toBe('"default";q=5;w=60');
    expect(seen.length).toBe(handled);
    expect(await bucket("echo/a", "local")).toEqual(before);
  });

  test("each bucket name has its own budget", async () => {
    expect((await post(app, "b", "x")).status).toBe(200);
  });

  test("the bucket refills with time (moved by the database)", async () => {
    await db`update address_buckets set updated_at = updated_at - interval '60 seconds' where scope = 'echo/a'`;
    expect((await post(app, "a", "later")).status).toBe(200);
  });

  test("40 concurrent requests on a fresh bucket of 5: exactly 5 admitted", async () => {
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => post(app, "race", `r${i}`)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 200).length).toBe(5);
    expect(statuses.filter((s) => s === 429).length).toBe(35);
  });

  test("behind a trusted proxy, addresses the proxy saw have their own buckets; what the client forged does not", async () => {
    const from = (chain: string) => post(behindProxy, "p", "x", { "x-forwarded-for": chain });
    expect([(await from("10.0.0.1")).status, (await from("10.0.0.1")).status, (await from("10.0.0.1")).status]).toEqual(
      [200, 200, 200],
    );
    expect((await from("10.0.0.1")).status).toBe(429);
    // A client putting another address first is still counted as the address the proxy appended.
    expect((await from("10.9.9.9, 10.0.0.1")).status).toBe(429);
    expect((await from("10.0.0.2")).status).toBe(200);
    expect(seen.at(-1)!.address).toBe("10.0.0.2");
  });

  test("buckets of addresses not seen for a day are purged", async () => {
    await db`update address_buckets set updated_at = now() - interval '25 hours' where scope = 'echo/b'`;
    expect(await purgeAddressBuckets(db, 24)).toBe(1);
    expect(await bucket("echo/b", "local")).toBeUndefined();
  });
});

describe("bodies and refusals", () => {
  test("a body over 64 KiB is 413 PayloadTooLarge, before the route sees it", async () => {
    const handled = seen.length;
    const res = await post(app, "big", "x".repeat(64 * 1024 + 1));
    expect(res.status).toBe(413);
    expect(((await res.json()) as { _tag: string })._tag).toBe("PayloadTooLarge");
    expect(seen.length).toBe(handled);
  });

  test("a tagged refusal of the route is answered as JSON with its status", async () => {
    const res = await post(app, "refusals", "reject");
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ _tag: "WebhookRejected", integration: "test", reason: "asked to" });
  });

  test("an unexpected fault is 500 InternalError with the request id", async () => {
    const res = await post(app, "refusals", "crash", { "x-request-id": "req-crash-1" });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ _tag: "InternalError", requestId: "req-crash-1" });
  });

  test("a route's own refusal renderer answers its refusals (a page for people)", async () => {
    const page: PublicRoute = {
      ...echoRoute(0),
      budget: { name: () => "page", perMinute: () => 1 },
      refuse: (error) => new Response(`<p>${error.tag}</p>`, { status: error.status }),
    };
    const pageApp = buildApp(h.ctx, { publicRoutes: [page] });
    expect((await post(pageApp, "x", "ok")).status).toBe(200);
    const refused = await post(pageApp, "x", "ok");
    expect(refused.status).toBe(429);
    expect(await refused.text()).toBe("<p>RateLimited</p>");
  });
});

describe("on the real server", () => {
  const served = buildApp(h.ctx, { publicRoutes: [echoRoute(100)] });
  served.listen({ port: 0, hostname: "127.0.0.1" });
  const base = `http://127.0.0.1:${served.server!.port}`;
  afterAll(() => served.stop(true));

  test("the client's address is the connection's peer, and a chunked body over the cap is 413", async () => {
    const ok = await fetch(`${base}/echo/real`, { method: "POST", body: "hello" });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe("<Response/>");
    expect(seen.at(-1)).toEqual({ body: "hello", address: "127.0.0.1", params: { name: "real" } });
    const chunks = new ReadableStream({
      start(c) {
        for (let i = 0; i < 80; i++) c.enqueue(new Uint8Array(1024));
        c.close();
      },
    });
    const big = await fetch(`${base}/echo/real`, { method: "POST", body: chunks });
    expect(big.status).toBe(413);
  });
});

describe("upload routes", () => {
  /** An upload route (a form with files) taking at most 200 KiB: answers what its form held. */
  const upload: PublicRoute = {
    id: "test.upload",
    method: "POST",
    path: "/upload/:name",
    budget: { name: (p) => `upload/${p.name}`, perMinute: () => 100 },
    upload: {
      limit: 200 * 1024,
      // Before the body: a request without its pass is answered at once, its body never read.
      admit: async (req) =>
        req.request.headers.get("x-pass") === "no"
          ? new Response("no pass", { status: 401 })
          : { name: req.params.name },
    },
    async handle(req) {
      const files = req.form!.getAll("photo").map((f) => (typeof f === "string" ? f.length : f.size));
      return Response.json({ body: req.body, note: req.form!.get("note"), files, admitted: req.admitted });
    },
  };
  const served = buildApp(h.ctx, { publicRoutes: [upload] });
  served.listen({ port: 0, hostname: "127.0.0.1" });
  const base = `http://127.0.0.1:${served.server!.port}`;
  afterAll(() => served.stop(true));
  const form = (sizes: number[]) => {
    const f = new FormData();
    f.set("note", "Mould by the window");
    for (const size of sizes) f.append("photo", new Blob([new Uint8Array(size)], { type: "image/jpeg" }), "p.jpg");
    return f;
  };

  test("a multipart form with files over 64 KiB reaches the route read by Bun's form parser", async () => {
    const res = await fetch(`${base}/upload/a`, { method: "POST", body: form([90 * 1024, 80 * 1024]) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      body: null,
      note: "Mould by the window",
      files: [90 * 1024, 80 * 1024],
      admitted: { name: "a" },
    });
  });

  test("a request its admission refuses is answered before its body is read: no 413, no wait for the body", async () => {
    const over = await fetch(`${base}/upload/a`, {
      method: "POST",
      body: form([150 * 1024, 60 * 1024]),
      headers: { "x-pass": "no" },
    });
    expect([over.status, await over.text()]).toEqual([401, "no pass"]);
    // A body that never ends: read, it would be 408 at the body deadline.
    const endless = new ReadableStream({ start: (c) => c.enqueue(new Uint8Array(10)) });
    const refused = await fetch(`${base}/upload/a`, { method: "POST", body: endless, headers: { "x-pass": "no" } });
    expect(refused.status).toBe(401);
  });

  test("over the route's limit is 413 with its limit, declared or chunked; a non-form or broken body is 400", async () => {
    const big = await fetch(`${base}/upload/a`, { method: "POST", body: form([150 * 1024, 60 * 1024]) });
    expect([big.status, await big.json()]).toEqual([413, { _tag: "PayloadTooLarge", limit: 200 * 1024 }]);
    const chunks = new ReadableStream({
      start(c) {
        for (let i = 0; i < 210; i++) c.enqueue(new Uint8Array(1024));
        c.close();
      },
    });
    const chunked = await fetch(`${base}/upload/a`, {
      method: "POST",
      body: chunks,
      headers: { "content-type": "multipart/form-data; boundary=x" },
    });
    expect(chunked.status).toBe(413);
    const json = await fetch(`${base}/upload/a`, {
      method: "POST",
      body: "{}",
      headers: { "content-type": "application/json" },
    });
    expect([json.status, ((await json.json()) as { _tag: string })._tag]).toEqual([400, "RequestInvalid"]);
    const broken = await fetch(`${base}/upload/a`, {
      method: "POST",
      body: '--x\r\nContent-Disposition: form-data; name="note"\r\n\r\nno end',
      headers: { "content-type": "multipart/form-data; boundary=x" },
    });
    expect([broken.status, ((await broken.json()) as { _tag: string })._tag]).toEqual([400, "RequestInvalid"]);
    const urlencoded = await fetch(`${base}/upload/a`, { method: "POST", body: new URLSearchParams({ note: "hi" }) });
    expect(await urlencoded.json()).toEqual({ body: null, note: "hi", files: [], admitted: { name: "a" } });
  });
});

describe("clientAddress", () => {
  const req = (xff?: string) => new Request("http://localhost/", xff ? { headers: { "x-forwarded-for": xff } } : {});
  test("without trusted hops the peer is the client, whatever X-Forwarded-For says", () => {
    expect(clientAddress(req("1.2.3.4"), "127.0.0.1", 0)).toBe("127.0.0.1");
    expect(clientAddress(req(), null, 0)).toBe("local");
  });
  test("with two trusted hops the client is the second entry from the right", () => {
    expect(clientAddress(req("6.6.6.6, 1.2.3.4, 10.0.0.5"), "127.0.0.1", 2)).toBe("1.2.3.4");
    expect(clientAddress(req("10.0.0.5"), "127.0.0.1", 2)).toBe("127.0.0.1");
  });
});
