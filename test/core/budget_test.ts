/** The request budget (src/core/api_description.ts): a Postgres token bucket per key, exact under concurrency. */
import { describe, expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import { throughPgBouncer } from "../support/database.ts";
import { buildApp } from "../../src/app.ts";
import { connect } from "../../src/core/db.ts";

const h = await harness();
const path = "/compliance/block-profiles";

describe("the request budget", () => {
  test("100 concurrent requests on a 30-a-minute key admit exactly the capacity plus what refilled", async () => {
    const ws = await h.workspace();
    const key = await h.key(ws, ["compliance:read"], { budgetPerMinute: 30 });
    const started = performance.now();
    const answers = await Promise.all(Array.from({ length: 100 }, () => h.request("GET", path, { key })));
    const elapsed = (performance.now() - started) / 1000;
    const admitted = answers.filter((a) => a.status !== 429).length;
    expect(admitted).toBeGreaterThanOrEqual(30);
    expect(admitted).toBeLessThanOrEqual(30 + Math.floor((30 / 60) * elapsed));
    const refused = answers.filter((a) => a.status === 429);
    expect(refused.length).toBe(100 - admitted);
    for (const r of refused) {
      expect(r.body._tag).toBe("RateLimited");
      expect(Number(r.headers.get("retry-after"))).toBe(r.body.retryAfterSeconds);
      expect(r.body.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(r.body.key).not.toContain("lk_");
    }
  });

  test("two processes sharing one database never admit more than the bucket holds", async () => {
    const ws = await h.workspace();
    const key = await h.key(ws, ["compliance:read"], { budgetPerMinute: 20 });
    // A second app on its own pool stands for another process of the service.
    const db2 = connect(h.database.url, { max: 10, pooled: throughPgBouncer });
    const app2 = buildApp({ ...h.ctx, db: db2 });
    try {
      const started = performance.now();
      const call = (app: typeof h.app) =>
        app.handle(new Request(`http://localhost${path}`, { headers: { "x-api-key": key } })).then((r) => r.status);
      const statuses = await Promise.all(Array.from({ length: 80 }, (_, i) => call(i % 2 ? app2 : h.app)));
      const elapsed = (performance.now() - started) / 1000;
      const admitted = statuses.filter((s) => s !== 429).length;
      expect(admitted).toBeGreaterThanOrEqual(20);
      expect(admitted).toBeLessThanOrEqual(20 + Math.floor((20 / 60) * elapsed));
    } finally {
      await db2.end();
    }
  });

  test("every identified answer carries RateLimit and RateLimit-Policy, counting down", async () => {
    const ws = await h.workspace();
    const key = await h.key(ws, ["compliance:read"], { budgetPerMinute: 120 });
    const first = await h.request("GET", path, { key });
    const second = await h.request("GET", path, { key });
    expect(first.headers.get("ratelimit-policy")).toBe('"default";q=120;w=60');
    expect(first.headers.get("ratelimit")).toMatch(/^"default";r=119;t=1$/);
    expect(second.headers.get("ratelimit")).toMatch(/^"default";r=118;t=1$/);
    // refusals after the key check spend too
    const refused = await h.request("GET", path, { key, headers: { "x-tenant": "other" } });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("ratelimit")).toMatch(/^"default";r=117;t=\d+$/);
  });

  test("a retry after Retry-After succeeds, and not before", async () => {
    const ws = await h.workspace();
    const key = await h.key(ws, ["compliance:read"], { budgetPerMinute: 60 });
    const bucket = h.database
      .db`key_id = (select id from api_keys where workspace_id = ${ws.id} and budget_per_minute = 60)`;
    // empty the bucket as if the minute's budget had been spent
    await h.database.db`update rate_buckets set tokens = 0, updated_at = clock_timestamp() where ${bucket}`;
    const refused = await h.request("GET", path, { key });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    // Time passes in the bucket's clock, not in the test's: its last write is moved back.
    const wait = async (seconds: number) =>
      h.database.db`update rate_buckets set updated_at = updated_at - ${seconds} * interval '1 second' where ${bucket}`;
    // Half-way through Retry-After, a retry is refused (and loses nothing of what refilled).
    await wait(refused.body.retryAfterSeconds / 2);
    expect((await h.request("GET", path, { key })).status).toBe(429);
    await wait(refused.body.retryAfterSeconds / 2);
    const retried = await h.request("GET", path, { key });
    expect(retried.status).not.toBe(429);
  });

  test("unknown keys and missing keys spend no token of anyone", async () => {
    const ws = await h.workspace();
    const key = await h.key(ws, ["compliance:read"], { budgetPerMinute: 100 });
    await h.request("GET", path, { headers: { authorization: `Bearer ${key}` } });
    await h.request("GET", path, { key: `${key}0` });
    const res = await h.request("GET", path, { key });
    expect(res.headers.get("ratelimit")).toMatch(/^"default";r=99;/);
  });
});
