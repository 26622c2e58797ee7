/** POST /mcp with the SDK's own client: the same keys, checks, answers and budget as REST (README, MCP). */
import { describe, expect, test } from "bun:test";
import { harness, type TestWorkspace } from "../support/harness.ts";
import { buildApp } from "../../src/app.ts";
import { operations } from "../../src/operations.ts";
import { allScopes, scopeFor } from "../../src/core/groups.ts";
import { revokeApiKey } from "../../src/core/api_keys.ts";
import { hashKey } from "../../src/core/auth.ts";
import { suspendWorkspace } from "../../src/core/workspaces.ts";
import type { Operation } from "../../src/core/operation.ts";
import { toolOf } from "../../src/mcp/tools.ts";
import { bodyOf, connectHttp, expectSameAsRest, rest, type Era, type Handler, type Input } from "./support.ts";
import { echo, guarded, list, probes, replay } from "./fixtures.ts";

const h = await harness();
const ws = await h.workspace();
const probeApp = buildApp(h.ctx, { operations: probes }) as unknown as Handler;

/** The input every operation gets in the equivalence test: unknown ids, no query, an empty body for writes. */
function inputFor(op: Operation): Input {
  const params = Object.fromEntries(
    Object.keys((op.params as any)?.properties ?? {}).map((name) => [name, "ZZ-UNKNOWN"]),
  );
  return { params, query: {}, ...(op.method === "GET" ? {} : { body: {} }) };
}

async function keyIdOf(
  workspace: TestWorkspace,
  scopes: string[],
  options: { createdBy?: string; budgetPerMinute?: number } = {},
) {
  const key = await h.key(workspace, scopes, options);
  const [row] = await h.database.db<{ id: string }[]>`select id from api_keys where key_hash = ${hashKey(key)}`;
  return { key, id: row!.id };
}

/** The callers of the equivalence test: each one reaches a different key check (src/core/api_description.ts). */
async function callers() {
  const staffId = await h.rows(ws).user({ name: "Staff" });
  const bare = await h.workspace({ modules: [] });
  const suspended = await h.workspace();
  await suspendWorkspace(h.database.db, suspended.slug, "unpaid invoice");
  const other = await h.workspace();
  return [
    { label: "the owner's key with every scope", key: await h.key(ws, [...allScopes]) },
    { label: "a key with no scope", key: await h.key(ws, []) },
    { label: "a key created by a non-owner", key: await h.key(ws, [...allScopes], { createdBy: staffId }) },
    { label: "a workspace without modules", key: bare.key },
    { label: "a suspended workspace", key: suspended.key },
    {
      label: "X-Tenant naming another workspace",
      key: await h.key(ws, [...allScopes]),
      headers: { "x-tenant": other.slug },
    },
  ];
}

describe.each(["legacy", "modern"] as Era[])("over Streamable HTTP, %s era", (era) => {
  test("initialize names the server and offers tools", async () => {
    const s = await connectHttp(h.app, { key: ws.key, era });
    expect(s.client.getServerVersion()).toMatchObject({ name: "lettings-service", version: "1.0.0" });
    expect(s.client.getServerCapabilities()?.tools).toBeDefined();
    expect(s.client.getInstructions()).toContain("structuredContent");
    await s.close();
  });

  test("tools/list shows every operation as a generated tool to a key with every scope", async () => {
    const s = await connectHttp(h.app, { key: ws.key, era });
    const { tools } = await s.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(operations.map((op) => toolOf(op).definition.name));
    for (const op of operations) {
      const listed = tools.find((t) => t.name === toolOf(op).definition.name)!;
      const generated = toolOf(op).definition;
      expect(listed.description).toBe(generated.description);
      expect(listed.inputSchema).toEqual(generated.inputSchema);
      expect(listed.annotations).toEqual(generated.annotations);
    }
    await s.close();
  });

  test("tools/list shows only the tools the key's scopes allow", async () => {
    const scopes = [
      scopeFor(operations[0]!.group, operations[0]!.method),
      scopeFor(operations.at(-1)!.group, operations.at(-1)!.method),
    ];
    const s = await connectHttp(h.app, { key: await h.key(ws, scopes), era });
    const { tools } = await s.client.listTools();
    const expected = operations
      .filter((op) => scopes.includes(scopeFor(op.group, op.method)))
      .map((op) => toolOf(op).definition.name);
    expect(tools.map((t) => t.name)).toEqual(expected);
    await s.close();
    const none = await connectHttp(h.app, { key: await h.key(ws, []), era });
    expect((await none.client.listTools()).tools).toEqual([]);
    await none.close();
  });

  test("each tool answers what its REST operation answers for the same input, whoever calls", async () => {
    for (const caller of await callers()) {
      const s = await connectHttp(h.app, { key: caller.key, headers: caller.headers, era });
      for (const op of operations) {
        const input = inputFor(op);
        const answer = await rest(h.app as unknown as Handler, op, input, { key: caller.key, headers: caller.headers });
        await expectSameAsRest(s.client, op, input, answer, era);
      }
      await s.close();
    }
  });

  test("a success's structuredContent is the REST body, byte for byte, with path, query and body fields in one input", async () => {
    const s = await connectHttp(probeApp, { key: ws.key, era });
    const cases: [Operation, Input][] = [
      [
        echo,
        {
          params: { probeId: "p-1" },
          query: { limit: 5, loud: true },
          body: { note: "Gas safety — 2 meters", tags: ["a", "é"], nested: { n: 1.5 } },
        },
      ],
      [echo, { params: { probeId: "p-2" }, query: {}, body: { note: "n", tags: [] } }],
      [list, { params: {}, query: {} }],
      [replay, { params: {}, query: {} }],
      [guarded, { params: {}, query: {} }],
    ];
    for (const [op, input] of cases) {
      const answer = await rest(probeApp, op, input, { key: ws.key });
      expect(answer.status).toBeLessThan(300);
      await expectSameAsRest(s.client, op, input, answer, era);
    }
    await s.close();
  });

  test("the operation's status and headers (the next page's Link) travel in _meta", async () => {
    const s = await connectHttp(probeApp, { key: ws.key, era });
    const created: any = await s.client.callTool({
      name: "probes_echo",
      arguments: { probeId: "p", note: "n", tags: [] },
    });
    expect(created._meta["lettings/status"]).toBe(201);
    const page: any = await s.client.callTool({ name: "probes_list", arguments: {} });
    expect(page._meta["lettings/headers"].link).toBe('<http://localhost/probes?cursor=c2>; rel="next"');
    expect(page._meta["lettings/headers"]["ratelimit-policy"]).toBe('"default";q=600;w=60');
    const replayed: any = await s.client.callTool({ name: "probes_replay", arguments: {} });
    expect(replayed._meta["lettings/headers"]["idempotent-replayed"]).toBe("true");
    await s.close();
  });

  test("refusals are tool errors carrying the REST error body: validation, unknown fields, size, scope, module, owner", async () => {
    const staffId = await h.rows(ws).user({ name: "Staff" });
    const bare = await h.workspace({ modules: [] });
    const cases: [string, Operation, Input, string][] = [
      [ws.key, echo, { params: { probeId: "p" }, query: {}, body: { note: "", tags: [] } }, "RequestInvalid"],
      [
        ws.key,
        echo,
        { params: { probeId: "p" }, query: {}, body: { note: "n", tags: [], revision: 3 } },
        "RequestInvalid",
      ],
      [ws.key, echo, { params: { probeId: "not an id!" }, query: {}, body: { note: "n", tags: [] } }, "RequestInvalid"],
      [
        ws.key,
        echo,
        { params: { probeId: "p" }, query: { limit: 0 }, body: { note: "n", tags: [] } },
        "RequestInvalid",
      ],
      [
        ws.key,
        echo,
        { params: { probeId: "p" }, query: {}, body: { note: "x".repeat(70 * 1024), tags: [] } },
        "PayloadTooLarge",
      ],
      [
        await h.key(ws, ["tasks:read"]),
        echo,
        { params: { probeId: "p" }, query: {}, body: { note: "n", tags: [] } },
        "ScopeMissing",
      ],
      [bare.key, guarded, { params: {}, query: {} }, "EntitlementMissing"],
      [
        await h.key(ws, [...allScopes], { createdBy: staffId }),
        guarded,
        { params: {}, query: {} },
        "WorkspaceOwnerRequired",
      ],
    ];
    for (const [key, op, input, tag] of cases) {
      const s = await connectHttp(probeApp, { key, era });
      const answer = await rest(probeApp, op, input, { key });
      expect(answer.body._tag).toBe(tag);
      await expectSameAsRest(s.client, op, input, answer, era);
      await s.close();
    }
  });

  test("a tool name that no operation has is a protocol error, not a tool result", async () => {
    const s = await connectHttp(h.app, { key: ws.key, era });
    await expect(s.client.callTool({ name: "tasks_delete", arguments: {} })).rejects.toThrow(/Unknown tool/);
    await s.close();
  });
});

describe("the connection", () => {
  test("no key refuses the connection with 401 Unauthenticated and a challenge naming the x-api-key header", async () => {
    const res = await h.app.handle(mcpPost({ jsonrpc: "2.0", id: 1, method: "tools/list" }));
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe('ApiKey header="x-api-key"');
    expect(await res.json()).toEqual({ _tag: "Unauthenticated" });
    await expect(connectHttp(h.app, {})).rejects.toThrow();
  });

  test("a bearer token in place of a key is Unauthenticated and spends nothing", async () => {
    const { key, id } = await keyIdOf(ws, ["compliance:read"], { budgetPerMinute: 6 });
    const res = await h.app.handle(
      mcpPost({ jsonrpc: "2.0", id: 1, method: "tools/list" }, { authorization: `Bearer ${key}` }),
    );
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ _tag: "Unauthenticated" });
    const [bucket] = await h.database.db<{ tokens: number }[]>`select tokens from rate_buckets where key_id = ${id}`;
    expect(bucket!.tokens).toBe(6);
  });

  test("malformed, unknown and expired keys are refused with 401 ApiKeyRejected alike", async () => {
    const { key, id } = await keyIdOf(ws, [...allScopes]);
    await h.database.db`update api_keys set expires_at = now() - interval '1 second' where id = ${id}`;
    for (const bad of ["nope", "lk_", `lk_${"A".repeat(43)}`, `${ws.key}x`, key]) {
      const res = await h.app.handle(mcpPost({ jsonrpc: "2.0", id: 1, method: "tools/list" }, { "x-api-key": bad }));
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('ApiKey header="x-api-key"');
      expect(await res.json()).toEqual({ _tag: "ApiKeyRejected" });
      await expect(connectHttp(h.app, { key: bad })).rejects.toThrow();
    }
  });

  test("a key revoked between two calls is refused on the next call", async () => {
    const { key, id } = await keyIdOf(ws, [...allScopes]);
    for (const era of ["legacy", "modern"] as Era[]) {
      const { key: k, id: kid } = era === "legacy" ? { key, id } : await keyIdOf(ws, [...allScopes]);
      const s = await connectHttp(h.app, { key: k, era });
      const first: any = await s.client.callTool({ name: "tasks_cancel", arguments: { id: "T1" } });
      expect(bodyOf(first)._tag).not.toBe("ApiKeyRejected");
      await revokeApiKey(h.database.db, kid);
      await expect(s.client.callTool({ name: "tasks_cancel", arguments: { id: "T1" } })).rejects.toThrow();
      const refused = s.exchanges.at(-1)!;
      expect(refused.status).toBe(401);
      expect(refused.body).toEqual({ _tag: "ApiKeyRejected" });
      await expect(s.client.listTools()).rejects.toThrow();
      await s.close();
    }
  });

  test("tools/list is refused like a REST request: 403 TenantMismatch for X-Tenant naming another workspace, 402 TenantSuspended", async () => {
    const other = await h.workspace();
    const suspended = await h.workspace();
    await suspendWorkspace(h.database.db, suspended.slug, "unpaid invoice");
    for (const era of ["legacy", "modern"] as Era[]) {
      // The connection is made (a tool call answers these refusals as tool errors); tools/list is refused as a whole.
      const mismatch = await connectHttp(h.app, { key: ws.key, era, headers: { "x-tenant": other.slug } });
      await expect(mismatch.client.listTools()).rejects.toThrow(/TenantMismatch/);
      expect(mismatch.exchanges.at(-1)).toMatchObject({
        rpc: "tools/list",
        status: 403,
        body: { _tag: "TenantMismatch", header: other.slug, organizationId: ws.id },
      });
      await mismatch.close();
      const paused = await connectHttp(h.app, { key: suspended.key, era });
      await expect(paused.client.listTools()).rejects.toThrow(/TenantSuspended/);
      expect(paused.exchanges.at(-1)).toMatchObject({
        rpc: "tools/list",
        status: 402,
        body: { _tag: "TenantSuspended", tenantId: suspended.id, reason: "unpaid invoice" },
      });
      await paused.close();
      // X-Tenant naming the key's own workspace lists the tools.
      const own = await connectHttp(h.app, { key: ws.key, era, headers: { "x-tenant": ws.slug } });
      expect((await own.client.listTools()).tools.length).toBe(operations.length);
      await own.close();
    }
  });

  test("tools/list takes the checks in the contract's order: X-Tenant before suspension, both before the budget", async () => {
    const other = await h.workspace();
    const suspended = await h.workspace();
    await suspendWorkspace(h.database.db, suspended.slug, "unpaid invoice");
    const { key, id } = await keyIdOf(suspended, [...allScopes], { budgetPerMinute: 6 });
    await h.database.db`update rate_buckets set tokens = 0, updated_at = clock_timestamp() where key_id = ${id}`;
    const list = { jsonrpc: "2.0", id: 1, method: "tools/list" };
    const both = await h.app.handle(mcpPost(list, { "x-api-key": key, "x-tenant": other.slug }));
    expect([both.status, ((await both.json()) as { _tag: string })._tag]).toEqual([403, "TenantMismatch"]);
    const spent = await h.app.handle(mcpPost(list, { "x-api-key": key }));
    expect([spent.status, ((await spent.json()) as { _tag: string })._tag]).toEqual([402, "TenantSuspended"]);
  });

  test("a message over 128 KiB is refused with 413 PayloadTooLarge before the SDK reads it", async () => {
    const message = {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "tasks_cancel", arguments: { id: "T1", pad: "x".repeat(130 * 1024) } },
    };
    const res = await h.app.handle(mcpPost(message, { "x-api-key": ws.key }));
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ _tag: "PayloadTooLarge", limit: 128 * 1024 });
  });

  test("GET and DELETE answer 405: the endpoint is stateless and takes POST only", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await h.app.handle(new Request("http://localhost/mcp", { method, headers: { "x-api-key": ws.key } }));
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
      expect(await res.json()).toEqual({ _tag: "MethodNotAllowed", method, allow: ["POST"] });
    }
  });

  test("answers are JSON (no event stream) and carry the request id and the RateLimit fields", async () => {
    const s = await connectHttp(h.app, { key: ws.key, era: "legacy" });
    await s.client.listTools();
    await s.close();
    const m = await connectHttp(h.app, { key: ws.key, era: "modern" });
    await m.client.callTool({ name: "tasks_cancel", arguments: { id: "T1" } });
    await m.close();
    for (const x of [...s.exchanges, ...m.exchanges].filter((e) => e.method === "POST" && e.status === 200)) {
      expect(x.headers.get("content-type")).toContain("application/json");
      expect(x.headers.get("x-request-id")).toHaveLength(26);
      expect(x.headers.get("ratelimit")).toMatch(/^"default";r=\d+;t=\d+$/);
    }
  });

  test("a real client over the network: Bun.serve on 127.0.0.1, the SDK's own fetch", async () => {
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => h.app.handle(request) });
    try {
      const { Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
      const client = new Client({ name: "network", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.port}/mcp`), {
          requestInit: { headers: { "x-api-key": ws.key } },
        }),
      );
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(operations.length);
      const op = operations.find((o) => o.method === "GET")!;
      const input = inputFor(op);
      await expectSameAsRest(
        client,
        op,
        input,
        await rest(h.app as unknown as Handler, op, input, { key: ws.key }),
        "legacy",
      );
      await client.close();
    } finally {
      server.stop(true);
    }
  });
});

describe("the request budget", () => {
  test("every MCP request spends one token from the key's bucket, and a tool call exactly one", async () => {
    const { key, id } = await keyIdOf(ws, [...allScopes], { budgetPerMinute: 6 });
    const s = await connectHttp(h.app, { key, era: "legacy" });
    await s.client.listTools();
    await s.client.callTool({ name: "tasks_cancel", arguments: { id: "T1" } });
    const posts = s.exchanges.filter((e) => e.method === "POST");
    expect(posts.map((e) => e.rpc)).toEqual(["initialize", "notifications/initialized", "tools/list", "tools/call"]);
    // 6 a minute refills 0.1 a second: the count below holds for the first ten seconds of the test.
    expect(posts.map((e) => e.headers.get("ratelimit")!.split(";")[1])).toEqual(["r=5", "r=4", "r=3", "r=2"]);
    const result: any = await s.client.callTool({ name: "tasks_cancel", arguments: { id: "T1" } });
    expect(result._meta["lettings/headers"].ratelimit).toStartWith('"default";r=1;');
    // REST shares the bucket.
    const restAnswer = await h.request("POST", "/tasks/T1/cancel", { key, body: {} });
    expect(restAnswer.headers.get("ratelimit")).toStartWith('"default";r=0;');
    const [bucket] = await h.database.db<{ tokens: number }[]>`select tokens from rate_buckets where key_id = ${id}`;
    expect(bucket!.tokens).toBeLessThan(1);
    await s.close();
  });

  test("with the bucket spent a tool call is a RateLimited tool error, and any other message is refused with 429", async () => {
    const { key, id } = await keyIdOf(ws, [...allScopes], { budgetPerMinute: 6 });
    for (const era of ["legacy", "modern"] as Era[]) {
      await h.database.db`update rate_buckets set tokens = 6, updated_at = clock_timestamp() where key_id = ${id}`;
      const s = await connectHttp(h.app, { key, era });
      await h.database.db`update rate_buckets set tokens = 0, updated_at = clock_timestamp() where key_id = ${id}`;
      const op = operations.find((o) => o.id === "tasks.cancel")!;
      const input = inputFor(op);
      const answer = await rest(h.app as unknown as Handler, op, input, { key });
      expect(answer.status).toBe(429);
      const result = await expectSameAsRest(s.client, op, input, answer, era);
      expect(bodyOf(result)).toMatchObject({ _tag: "RateLimited", key: id });
      expect(bodyOf(result).retryAfterSeconds).toBeGreaterThanOrEqual(1);
      await expect(s.client.listTools()).rejects.toThrow();
      const refused = s.exchanges.at(-1)!;
      expect(refused.status).toBe(429);
      expect(refused.body).toMatchObject({ _tag: "RateLimited", key: id });
      expect(Number(refused.headers.get("retry-after"))).toBe(refused.body.retryAfterSeconds);
      await s.close();
    }
  });

  test("concurrent tool calls never admit more than the bucket holds", async () => {
    const { key, id } = await keyIdOf(ws, [...allScopes], { budgetPerMinute: 10 });
    const s = await connectHttp(h.app, { key, era: "modern" });
    await h.database.db`update rate_buckets set tokens = 10, updated_at = clock_timestamp() where key_id = ${id}`;
    const started = performance.now();
    const results: any[] = await Promise.all(
      Array.from({ length: 30 }, () => s.client.callTool({ name: "tasks_cancel", arguments: { id: "T1" } })),
    );
    const elapsed = (performance.now() - started) / 1000;
    const admitted = results.filter((r) => bodyOf(r)._tag !== "RateLimited").length;
    // 10 a minute refills 1 every 6 s.
    expect(admitted).toBeGreaterThanOrEqual(10);
    expect(admitted).toBeLessThanOrEqual(10 + Math.floor(elapsed / 6));
    await s.close();
  });
});

/** A raw JSON-RPC POST to /mcp. */
function mcpPost(message: unknown, headers: Record<string, string> = {}) {
  return new Request("http://localhost/mcp", {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(message),
  });
}
