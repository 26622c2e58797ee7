/** Budget leases (core/auth.ts): the hot path reads; the bucket is written once per lease; the bound holds. */
import { describe, expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import { buildApp } from "../../src/app.ts";
import { TokenLeases, leaseSize, leaseMillis } from "../../src/core/budget.ts";
import { revokeApiKey, createApiKey } from "../../src/core/api_keys.ts";

const h = await harness();
const path = "/compliance/block-profiles";

describe("lease sizes and expiry", () => {
  test.each([
    [30, 1],
    [120, 1],
    [600, 6],
    [6000, 60],
    [1_000_000, 100],
  ])("a %p-a-minute key leases %p at a time", (capacity, size) => {
    expect(leaseSize(capacity)).toBe(size);
  });

  test("leased tokens are spent one by one and dropped after leaseMillis", () => {
    const leases = new TokenLeases();
    leases.keep("k", 2, 100, 600, 0);
    expect(leases.spend("k", 10)?.tokens).toBe(1);
    expect(leases.spend("k", 20)?.tokens).toBe(0);
    expect(leases.spend("k", 30)).toBeUndefined();
    leases.keep("k", 5, 100, 600, 0);
    expect(leases.spend("k", leaseMillis + 1)).toBeUndefined();
  });
});

describe("the bucket with leases", () => {
  test("a 6000-a-minute key writes its bucket once per lease of 60", async () => {
    const ws = await h.workspace();
    const k = await createApiKey(h.database.db, {
      workspace: ws.slug,
      name: "lease",
      scopes: ["compliance:read"],
      expiresInDays: 7,
      budgetPerMinute: 6000,
    });
    const bucket = async () =>
      (
        await h.database.db<
          { granted: number; updatedAt: Date }[]
        >`select granted, updated_at from rate_buckets where key_id = ${k.id}`
      )[0]!;
    const first = await h.request("GET", path, { key: k.key });
    expect(first.status).toBe(200);
    const after1 = await bucket();
    expect(after1.granted).toBe(60);
    for (let i = 0; i < 19; i++) expect((await h.request("GET", path, { key: k.key })).status).toBe(200);
    const after20 = await bucket();
    expect(after20.updatedAt.getTime()).toBe(after1.updatedAt.getTime());
    // the headers still count down as if every request had written
    const next = await h.request("GET", path, { key: k.key });
    expect(next.headers.get("ratelimit")).toMatch(/^"default";r=59(79|8\d|9\d);/);
  });

  test("two processes with their own leases never admit more than the bucket holds", async () => {
    const ws = await h.workspace();
    const k = await createApiKey(h.database.db, {
      workspace: ws.slug,
      name: "two",
      scopes: ["compliance:read"],
      expiresInDays: 7,
      budgetPerMinute: 300,
    });
    const a = buildApp({ ...h.ctx, leases: new TokenLeases() });
    const b = buildApp({ ...h.ctx, leases: new TokenLeases() });
    const started = performance.now();
    const statuses = await Promise.all(
      Array.from({ length: 400 }, (_, i) =>
        (i % 2 ? a : b)
          .handle(new Request(`http://localhost${path}`, { headers: { "x-api-key": k.key } }))
          .then((r) => r.status),
      ),
    );
    const elapsed = (performance.now() - started) / 1000;
    const admitted = statuses.filter((s) => s === 200).length;
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(admitted).toBeLessThanOrEqual(300 + Math.floor((300 / 60) * elapsed));
    // tokens leased by one process and unspent may be missing to the other: at most a lease each
    expect(admitted).toBeGreaterThanOrEqual(300 - 2 * leaseSize(300));
  });

  test("a revoked key is refused at once although this process holds leased tokens of it", async () => {
    const ws = await h.workspace();
    const k = await createApiKey(h.database.db, {
      workspace: ws.slug,
      name: "rev",
      scopes: ["compliance:read"],
      expiresInDays: 7,
      budgetPerMinute: 6000,
    });
    expect((await h.request("GET", path, { key: k.key })).status).toBe(200);
    await revokeApiKey(h.database.db, k.id);
    const res = await h.request("GET", path, { key: k.key });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ _tag: "ApiKeyRejected" });
  });
});
