/** The shared security suite: every declared operation refuses the same way (the key checks: src/core/api_description.ts). */
import { describe, expect, test } from "bun:test";
import { harness, type TestResponse } from "./support/harness.ts";
import { pathOf } from "./support/calls.ts";
import { operations } from "../src/operations.ts";
import { allScopes, moduleFor, scopeFor } from "../src/core/groups.ts";
import { suspendWorkspace, resumeWorkspace, unentitle, entitle } from "../src/core/workspaces.ts";
import { createApiKey, revokeApiKey } from "../src/core/api_keys.ts";
import { buildApp } from "../src/app.ts";
import { connectHttp } from "./mcp/support.ts";

const h = await harness();
const ws = await h.workspace();
const other = await h.workspace();

describe.each(operations.map((op) => [op.id, op] as const))("%s", (_id, op) => {
  const path = pathOf(op);
  const body = op.method === "GET" ? undefined : {};

  test("no key is Unauthenticated, with a challenge naming the x-api-key header", async () => {
    const res = await h.request(op.method, path, { body });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ _tag: "Unauthenticated" });
    expect(res.headers.get("www-authenticate")).toBe('ApiKey header="x-api-key"');
  });

  test("a bearer token in place of a key is Unauthenticated and spends nothing", async () => {
    const res = await h.request(op.method, path, { body, headers: { authorization: `Bearer ${ws.key}` } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ _tag: "Unauthenticated" });
    expect(res.headers.get("ratelimit")).toBeNull();
  });

  test("malformed and unknown keys are ApiKeyRejected alike", async () => {
    for (const key of ["nope", "lk_", `lk_${"A".repeat(43)}`, `${ws.key}x`]) {
      const res = await h.request(op.method, path, { key, body });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ _tag: "ApiKeyRejected" });
      expect(res.headers.get("www-authenticate")).toBe('ApiKey header="x-api-key"');
    }
  });

  test("X-Tenant naming another workspace is TenantMismatch", async () => {
    const res = await h.request(op.method, path, { key: ws.key, body, headers: { "x-tenant": other.slug } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ _tag: "TenantMismatch", header: other.slug, organizationId: ws.id });
  });

  test("a key without the group's scope is ScopeMissing", async () => {
    const scope = scopeFor(op.group, op.method);
    const key = await h.key(
      ws,
      allScopes.filter((s) => s !== scope),
    );
    const res = await h.request(op.method, path, { key, body });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ _tag: "ScopeMissing", scope });
  });

  if (op.method !== "GET") {
    test("write does not imply read and read does not imply write", async () => {
      const key = await h.key(ws, [`${op.group}:read`]);
      const res = await h.request(op.method, path, { key, body });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ _tag: "ScopeMissing", scope: `${op.group}:write` });
    });
  }

  const moduleId = moduleFor(op.group);
  if (moduleId) {
    test(`a workspace without the ${moduleId} module is EntitlementMissing`, async () => {
      const bare = await h.workspace({ modules: [] });
      const res = await h.request(op.method, path, { key: bare.key, body });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ _tag: "EntitlementMissing", tenantId: bare.id, moduleId });
    });
  }

  if (op.ownerOnly) {
    test("a key created by a non-owner is WorkspaceOwnerRequired", async () => {
      const staffId = await h.rows(ws).user({ name: "Staff" });
      const key = await h.key(ws, [...allScopes], { createdBy: staffId });
      const res = await h.request(op.method, path, { key, body });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ _tag: "WorkspaceOwnerRequired" });
    });
  }
});

describe("keys and workspaces", () => {
  // A read every check lets through: on a workspace with no blocks it answers 200 and an empty list, so a request
  // that gets past the checks is told apart from one refused (or failing) with any other status.
  const path = "/compliance/block-profiles";
  const expectAnswered = (res: TestResponse) => {
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  };

  test("a revoked key is refused on the very next request", async () => {
    const k = await createApiKey(h.database.db, {
      workspace: ws.slug,
      name: "r",
      scopes: [...allScopes],
      expiresInDays: 7,
    });
    expectAnswered(await h.request("GET", path, { key: k.key }));
    await revokeApiKey(h.database.db, k.id);
    const after = await h.request("GET", path, { key: k.key });
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ _tag: "ApiKeyRejected" });
  });

  test("an expired key is ApiKeyRejected", async () => {
    const k = await createApiKey(h.database.db, {
      workspace: ws.slug,
      name: "e",
      scopes: [...allScopes],
      expiresInDays: 7,
    });
    await h.database.db`update api_keys set expires_at = now() - interval '1 second' where id = ${k.id}`;
    const res = await h.request("GET", path, { key: k.key });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ _tag: "ApiKeyRejected" });
  });

  test("a key sent in the query string is never read", async () => {
    const res = await h.request("GET", `${path}?x-api-key=${ws.key}&api_key=${ws.key}`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ _tag: "Unauthenticated" });
  });

  test("X-Tenant naming the key's own workspace is accepted", async () => {
    expectAnswered(await h.request("GET", path, { key: ws.key, headers: { "x-tenant": ws.slug } }));
  });

  test("a suspended workspace is TenantSuspended for every operation until resumed", async () => {
    const s = await h.workspace();
    await suspendWorkspace(h.database.db, s.slug, "unpaid invoice");
    for (const o of operations) {
      const res = await h.request(o.method, pathOf(o), { key: s.key, body: o.method === "GET" ? undefined : {} });
      expect(res.status).toBe(402);
      expect(res.body).toEqual({ _tag: "TenantSuspended", tenantId: s.id, reason: "unpaid invoice" });
    }
    await resumeWorkspace(h.database.db, s.slug);
    expectAnswered(await h.request("GET", path, { key: s.key }));
  });

  test("the checks run in the contract's order: tenant, suspension, scope before module", async () => {
    const s = await h.workspace({ modules: [] });
    await suspendWorkspace(h.database.db, s.slug, "r");
    const key = await h.key(s, []);
    const mismatch = await h.request("GET", path, { key, headers: { "x-tenant": "elsewhere" } });
    expect(mismatch.body._tag).toBe("TenantMismatch");
    const suspended = await h.request("GET", path, { key });
    expect(suspended.body._tag).toBe("TenantSuspended");
    await resumeWorkspace(h.database.db, s.slug);
    const scope = await h.request("PUT", "/maintenance-pro/hazard-settings", { key, body: {} });
    expect(scope.body._tag).toBe("ScopeMissing");
  });

  test("unentitling a module refuses its groups from the next request", async () => {
    const s = await h.workspace();
    await unentitle(h.database.db, s.slug, "telephony");
    const res = await h.request("GET", "/telephony/sms/threads", { key: s.key });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ _tag: "EntitlementMissing", tenantId: s.id, moduleId: "telephony" });
    await entitle(h.database.db, s.slug, "telephony");
    expectAnswered(await h.request("GET", "/telephony/sms/threads", { key: s.key }));
  });
});

describe("links in answers (the next page)", () => {
  const hostile = "http://attacker.example";
  const linkOf = (res: Response) => /^<([^>]+)>; rel="next"$/.exec(res.headers.get("link") ?? "")?.[1];
  const feed = (app: { handle(r: Request): Promise<Response> }, base: string) =>
    app.handle(new Request(`${base}/events?limit=1`, { headers: { "x-api-key": ws.key } }));

  test("with PUBLIC_BASE_URL set, the Link is made from it whatever Host the request came with", async () => {
    const config = { ...h.ctx.config, publicBaseUrl: "https://api.lettings.example/v1", publicBaseUrlSet: true };
    const app = buildApp({ ...h.ctx, config });
    const res = await feed(app, hostile);
    expect(res.status).toBe(200);
    expect(linkOf(res)).toStartWith("https://api.lettings.example/v1/events?limit=1");
    // The same for a tool's answer over MCP (its link is made from the /mcp request's address otherwise).
    const session = await connectHttp(
      { handle: (r) => app.handle(new Request(r.url.replace("http://localhost", hostile), r)) },
      { key: ws.key },
    );
    const result = await session.client.callTool({ name: "events_list", arguments: { limit: 1 } });
    await session.close();
    const headers = result._meta?.["lettings/headers"] as Record<string, string> | undefined;
    const link = headers?.link;
    expect(link).toStartWith("<https://api.lettings.example/v1/events?limit=1");
  });

  test("without PUBLIC_BASE_URL, the Link names the address the request was sent to (its Host)", async () => {
    const app = buildApp({ ...h.ctx, config: { ...h.ctx.config, publicBaseUrlSet: false } });
    expect(linkOf(await feed(app, hostile))).toStartWith(`${hostile}/events?limit=1`);
    expect(linkOf(await feed(app, "http://localhost:3000"))).toStartWith("http://localhost:3000/events?limit=1");
  });
});
