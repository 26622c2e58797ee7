/**
 * The real server (`bun src/main.ts`, Elysia's listen: routes served from Bun's router) answers exactly as
 * app.handle does, which the rest of the suite uses: same status, same body, for routes, path parameters
 * (encoded ones too), unknown paths and methods, bodies, refusals.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { harness } from "./support/harness.ts";
import { startService, type RunningService } from "./support/service.ts";
import { Seed } from "./handovers/fixtures.ts";

const h = await harness();
const ws = await h.workspace();
const seed = new Seed(h.database.db, ws.id);
const unitId = await seed.unit({ meters: ["gas"] });
const tenancyId = await seed.tenancy({ unitId, id: "ten-http-1" });
await seed.keySet({ unitId, status: "checked_out", holderType: "tenant", tenancyId });

let service: RunningService;
let base = "";

beforeAll(async () => {
  service = await startService(h.database.url);
  base = service.base;
});

afterAll(() => service?.stop());

type Case = { name: string; method: string; path: string; key?: boolean; body?: string; contentType?: string };
const cases: Case[] = [
  { name: "a stored or computed handover row", method: "GET", path: `/handovers/tenancies/${tenancyId}`, key: true },
  { name: "the same row again (stored)", method: "GET", path: `/handovers/tenancies/${tenancyId}`, key: true },
  { name: "an encoded path parameter", method: "GET", path: "/handovers/tenancies/ten%2Dhttp%2D1", key: true },
  { name: "an unknown tenancy", method: "GET", path: "/handovers/tenancies/ten-unknown", key: true },
  { name: "an invalid id", method: "GET", path: "/handovers/tenancies/bad%20id", key: true },
  { name: "a malformed escape", method: "GET", path: "/handovers/tenancies/bad%zz", key: true },
  { name: "a NUL byte in a path parameter", method: "GET", path: "/handovers/tenancies/ten%00x", key: true },
  {
    name: "an escaped percent sign is decoded once",
    method: "GET",
    path: "/handovers/tenancies/ten%252Dhttp%252D1",
    key: true,
  },
  {
    name: "an encoded slash stays in the parameter",
    method: "GET",
    path: "/handovers/tenancies/ten%2Fhttp",
    key: true,
  },
  { name: "a trailing slash", method: "GET", path: `/handovers/tenancies/${tenancyId}/`, key: true },
  { name: "a missing parameter", method: "GET", path: "/handovers/tenancies/", key: true },
  { name: "an unknown method on a known path", method: "DELETE", path: `/handovers/tenancies/${tenancyId}`, key: true },
  { name: "an unknown path", method: "GET", path: "/no/such/route", key: true },
  { name: "no key", method: "GET", path: `/handovers/tenancies/${tenancyId}` },
  { name: "a query parameter", method: "GET", path: "/calendar/agenda?limit=5", key: true },
  { name: "a query parameter of the wrong type", method: "GET", path: "/calendar/agenda?limit=abc", key: true },
  { name: "an unknown query parameter", method: "GET", path: "/calendar/agenda?color=red", key: true },
  {
    name: "a JSON body",
    method: "POST",
    path: "/contacts/duplicate-check",
    key: true,
    body: JSON.stringify({ email: "nobody@example.com" }),
  },
  {
    name: "a body that is not JSON",
    method: "POST",
    path: "/contacts/duplicate-check",
    key: true,
    body: "email=x",
    contentType: "text/plain",
  },
  {
    name: "a body over 64 KiB",
    method: "POST",
    path: "/contacts/duplicate-check",
    key: true,
    body: JSON.stringify({ email: "x".repeat(70_000) }),
  },
  { name: "the health check", method: "GET", path: "/health" },
  { name: "the root", method: "GET", path: "/" },
];

describe("the real server answers as app.handle does", () => {
  for (const c of cases) {
    test(c.name, async () => {
      const headers: Record<string, string> = {};
      if (c.key) headers["x-api-key"] = ws.key;
      if (c.body !== undefined) headers["content-type"] = c.contentType ?? "application/json";
      const viaHandle = await h.request(c.method, c.path, { headers, body: c.body });
      const res = await fetch(`${base}${c.path}`, { method: c.method, headers, body: c.body });
      const text = await res.text();
      expect({ status: res.status, body: JSON.parse(text) }).toEqual({
        status: viaHandle.status,
        body: viaHandle.body,
      });
      expect(res.headers.get("content-type")).toBe(viaHandle.headers.get("content-type"));
      expect(res.headers.get("x-request-id")).toBeTruthy();
    });
  }

  test("a malformed escape, a double escape, an encoded slash and a NUL byte are refused as invalid ids, not looked up", async () => {
    for (const path of ["bad%zz", "ten%252Dhttp%252D1", "ten%2Fhttp", "ten%00x"]) {
      const res = await fetch(`${base}/handovers/tenancies/${path}`, { headers: { "x-api-key": ws.key } });
      expect({ path, status: res.status, tag: ((await res.json()) as any)._tag }).toEqual({
        path,
        status: 400,
        tag: "RequestInvalid",
      });
    }
  });

  test("the OpenAPI document and its page are served", async () => {
    expect((await fetch(`${base}/openapi.json`)).status).toBe(200);
    expect((await fetch(`${base}/docs`)).status).toBe(200);
  });
});
