/** `bun run mcp`: the same server over stdio, spawned by the SDK's stdio client with LETTINGS_API_KEY and DATABASE_URL. */
import { describe, expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import { operations } from "../../src/operations.ts";
import { allScopes, scopeFor } from "../../src/core/groups.ts";
import { revokeApiKey } from "../../src/core/api_keys.ts";
import { hashKey } from "../../src/core/auth.ts";
import { suspendWorkspace } from "../../src/core/workspaces.ts";
import type { Operation } from "../../src/core/operation.ts";
import { toolOf } from "../../src/mcp/tools.ts";
import { bodyOf, connectStdio, expectSameAsRest, rest, type Era, type Handler, type Input } from "./support.ts";

const h = await harness();
const ws = await h.workspace();
const url = h.database.url;

function inputFor(op: Operation): Input {
  const params = Object.fromEntries(
    Object.keys((op.params as any)?.properties ?? {}).map((name) => [name, "ZZ-UNKNOWN"]),
  );
  return { params, query: {}, ...(op.method === "GET" ? {} : { body: {} }) };
}

async function idOf(key: string) {
  const [row] = await h.database.db<{ id: string }[]>`select id from api_keys where key_hash = ${hashKey(key)}`;
  return row!.id;
}

/** Runs `bun run mcp` to its exit and returns its exit code and stderr (for refused connections). */
async function runRefused(env: Record<string, string>) {
  const child = Bun.spawn([process.execPath, "run", "mcp"], {
    cwd: `${import.meta.dir}/../..`,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", DATABASE_URL: url, ...env },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, stderr, stdout] = await Promise.all([
    child.exited,
    new Response(child.stderr).text(),
    new Response(child.stdout).text(),
  ]);
  return { code, stderr: stderr.trim().split("\n").at(-1)!, stdout };
}

describe.each(["legacy", "modern"] as Era[])("over stdio, %s era", (era) => {
  test("initialize, tools/list and a call of each tool compared with the REST answer", async () => {
    const key = await h.key(ws, [...allScopes]);
    const s = await connectStdio({ databaseUrl: url, key, era });
    try {
      expect(s.client.getServerVersion()).toMatchObject({ name: "lettings-service" });
      const { tools } = await s.client.listTools();
      expect(tools.map((t) => t.name)).toEqual(operations.map((op) => toolOf(op).definition.name));
      for (const op of operations) {
        const input = inputFor(op);
        const answer = await rest(h.app as unknown as Handler, op, input, { key });
        await expectSameAsRest(s.client, op, input, answer, era);
      }
    } finally {
      await s.close();
    }
  });

  test("tools/list shows only the tools the key's scopes allow, and a call beyond them is ScopeMissing", async () => {
    const op = operations[0]!;
    const scope = scopeFor(op.group, op.method);
    const key = await h.key(ws, [scope]);
    const s = await connectStdio({ databaseUrl: url, key, era });
    try {
      const { tools } = await s.client.listTools();
      expect(tools.map((t) => t.name)).toEqual(
        operations.filter((o) => scopeFor(o.group, o.method) === scope).map((o) => toolOf(o).definition.name),
      );
      const outside = operations.find((o) => scopeFor(o.group, o.method) !== scope)!;
      const input = inputFor(outside);
      const answer = await rest(h.app as unknown as Handler, outside, input, { key });
      expect(answer.body._tag).toBe("ScopeMissing");
      await expectSameAsRest(s.client, outside, input, answer, era);
    } finally {
      await s.close();
    }
  });
});

describe("stdio: keys and budget", () => {
  test("no LETTINGS_API_KEY refuses the connection: Unauthenticated on stderr, exit code 2", async () => {
    const out = await runRefused({});
    expect(out.code).toBe(2);
    expect(JSON.parse(out.stderr)).toEqual({ _tag: "Unauthenticated" });
    expect(out.stdout).toBe("");
  });

  test("an unknown or revoked key refuses the connection: ApiKeyRejected on stderr, exit code 2", async () => {
    const revoked = await h.key(ws, [...allScopes]);
    await revokeApiKey(h.database.db, await idOf(revoked));
    for (const key of [`${ws.key}x`, revoked]) {
      const out = await runRefused({ LETTINGS_API_KEY: key });
      expect(out.code).toBe(2);
      expect(JSON.parse(out.stderr)).toEqual({ _tag: "ApiKeyRejected" });
    }
    await expect(connectStdio({ databaseUrl: url, key: revoked })).rejects.toThrow();
  });

  test("a key revoked between two calls is refused on the next call, and tools/list refuses it too", async () => {
    const key = await h.key(ws, [...allScopes]);
    const s = await connectStdio({ databaseUrl: url, key });
    try {
      const first: any = await s.client.callTool({ name: "tasks_cancel", arguments: { id: "T1" } });
      expect(bodyOf(first)._tag).not.toBe("ApiKeyRejected");
      await revokeApiKey(h.database.db, await idOf(key));
      const second: any = await s.client.callTool({ name: "tasks_cancel", arguments: { id: "T1" } });
      expect(second.isError).toBe(true);
      expect(second.structuredContent).toBeUndefined();
      expect(bodyOf(second)).toEqual({ _tag: "ApiKeyRejected" });
      expect(second._meta["lettings/status"]).toBe(401);
      await expect(s.client.listTools()).rejects.toThrow(/ApiKeyRejected/);
    } finally {
      await s.close();
    }
  });

  test("a workspace suspended after the connection was made: tools/list is refused with TenantSuspended, as a call is", async () => {
    const paused = await h.workspace();
    const s = await connectStdio({ databaseUrl: url, key: paused.key });
    try {
      expect((await s.client.listTools()).tools.length).toBeGreaterThan(0);
      await suspendWorkspace(h.database.db, paused.slug, "unpaid invoice");
      await expect(s.client.listTools()).rejects.toThrow(/TenantSuspended/);
      const call = await s.client.callTool({ name: "tasks_cancel", arguments: { id: "T1" } });
      expect(bodyOf(call)).toEqual({ _tag: "TenantSuspended", tenantId: paused.id, reason: "unpaid invoice" });
    } finally {
      await s.close();
    }
  });

  test("the connection check, tools/list and every call spend from the key's bucket, shared with REST", async () => {
    const key = await h.key(ws, [...allScopes], { budgetPerMinute: 3 });
    const s = await connectStdio({ databaseUrl: url, key });
    try {
      // start-up check: 1, tools/list: 1, a call: 1 — the bucket of 3 is spent (3 a minute refills one every 20 s).
      await s.client.listTools();
      const admitted: any = await s.client.callTool({ name: "tasks_cancel", arguments: { id: "T1" } });
      expect(bodyOf(admitted)._tag).not.toBe("RateLimited");
      expect(admitted._meta["lettings/headers"].ratelimit).toStartWith('"default";r=0;');
      const refused: any = await s.client.callTool({ name: "tasks_cancel", arguments: { id: "T1" } });
      expect(refused.isError).toBe(true);
      expect(bodyOf(refused)).toMatchObject({ _tag: "RateLimited", key: await idOf(key) });
      const viaRest = await h.request("POST", "/tasks/T1/cancel", { key, body: {} });
      expect(viaRest.status).toBe(429);
    } finally {
      await s.close();
    }
  });

  test("closing the client ends the server process", async () => {
    const s = await connectStdio({ databaseUrl: url, key: await h.key(ws, [...allScopes]) });
    const pid = s.pid!;
    await s.close();
    let alive = true;
    for (let i = 0; i < 100 && alive; i++) {
      try {
        process.kill(pid, 0);
        await Bun.sleep(50);
      } catch {
        alive = false;
      }
    }
    expect(alive).toBe(false);
  });
});
