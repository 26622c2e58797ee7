import { describe, expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import pkg from "../../package.json";

const h = await harness();

describe("the app", () => {
  test("health answers ok and the version while the database answers", async () => {
    const res = await h.request("GET", "/health");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok", version: pkg.version });
    expect(res.headers.get("x-request-id")).toHaveLength(26);
  });

  test("the root points to the documentation, in JSON; the OpenAPI document has the same version", async () => {
    const res = await h.request("GET", "/");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(res.body).toEqual({
      name: "lettings-service",
      version: pkg.version,
      docs: "/docs",
      openapi: "/openapi.json",
      health: "/health",
      mcp: "/mcp",
    });
    for (const path of [res.body.docs, res.body.openapi, res.body.health])
      expect((await h.request("GET", path)).status).toBe(200);
    expect((await h.request("GET", "/openapi.json")).body.info.version).toBe(pkg.version);
    expect((await h.request("POST", "/")).body).toEqual({ _tag: "RouteNotFound", method: "POST", path: "/" });
  });

  test("an unknown path is RouteNotFound with the request id echoed", async () => {
    const res = await h.request("GET", "/nope", { headers: { "x-request-id": "abc-123" } });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ _tag: "RouteNotFound", method: "GET", path: "/nope" });
    expect(res.headers.get("x-request-id")).toBe("abc-123");
    expect(res.headers.get("content-type")).toContain("application/json");
  });

  test("the OpenAPI document lists every operation with its operationId", async () => {
    const res = await h.request("GET", "/openapi.json");
    expect(res.status).toBe(200);
    const ids = Object.values(res.body.paths).flatMap((p: any) => Object.values(p).map((o: any) => o.operationId));
    expect(ids).toContain("handovers.forTenancy");
    expect(ids).toContain("tasks.cancel");
    expect(res.body.components.securitySchemes.apiKey.name).toBe("x-api-key");
  });

  test("a declared operation answers through the checks", async () => {
    const ws = await h.workspace();
    const res = await h.request("POST", "/tasks/T1/cancel", { key: ws.key });
    expect(res.headers.get("ratelimit-policy")).toBe('"default";q=600;w=60');
    expect(res.headers.get("ratelimit")).toMatch(/^"default";r=\d+;t=\d+$/);
  });
});
