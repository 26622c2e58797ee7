/**
 * The request budget across processes (README, Several replicas): two real service processes (`bun src/main.ts`) on one
 * database, one key, sustained concurrent load on both. The answers admitted stay within capacity + refill ×
 * elapsed, and every write of the bucket row, recorded by a trigger, keeps the arithmetic monotonic.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import { startService, type RunningService } from "../support/service.ts";
import { createApiKey } from "../../src/core/api_keys.ts";
import { leaseSize } from "../../src/core/budget.ts";

const h = await harness();
const db = h.database.db;
const path = "/compliance/block-profiles";
/**
 * Budgets a minute, each under its own key: the first leases a few tokens at a time, the second (the rate the
 * over-admission was first seen at) larger leases.
 */
const rates = [1200, 6000];
/**
 * The load lasts at least this long, and until twice the budget was refused (at most maxMillis: through PgBouncer
 * the load makes ~800 requests a second here, ~460 on a busy CI run, which needs ~50 s at 6,000 a minute).
 */
const loadMillis = 4000;
const maxMillis = 75_000;
const connectionsEach = 32;

const services: RunningService[] = [];
const bases: string[] = [];

beforeAll(async () => {
  // What is measured is the budget: the processes skip checking their answers' shapes, as in production.
  services.push(...(await Promise.all([0, 1].map(() => startService(h.database.url, { CHECK_RESPONSES: "false" })))));
  bases.push(...services.map((s) => s.base));
  // Every write of a bucket row, in the order the row lock let them through.
  await db.unsafe(`
    create table bucket_writes (
      n bigserial primary key, key_id text not null, old_tokens float8 not null, old_at timestamptz not null,
      tokens float8 not null, granted int not null, at timestamptz not null
    );
    create function record_bucket_write() returns trigger language plpgsql as $$
    begin
      insert into bucket_writes (key_id, old_tokens, old_at, tokens, granted, at)
      values (new.key_id, old.tokens, old.updated_at, new.tokens, new.granted, new.updated_at);
      return new;
    end $$;
    create trigger record_bucket_write after update on rate_buckets for each row execute function record_bucket_write();
  `);
}, 60_000);

afterAll(() => Promise.all(services.map((s) => s.stop())));

/** Sends requests one after another until `done`; counts the answers by status. */
async function loop(base: string, key: string, done: () => boolean, statuses: Map<number, number>) {
  while (!done()) {
    const res = await fetch(`${base}${path}`, { headers: { "x-api-key": key } });
    await res.arrayBuffer();
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
  }
}

test.each(rates)(
  "at %d a minute, two processes under sustained load never admit more than capacity + refill × elapsed, and the bucket's time never goes back",
  async (perMinute) => {
    const minRefused = 2 * perMinute;
    const ws = await h.workspace();
    const k = await createApiKey(db, {
      workspace: ws.slug,
      name: "load",
      scopes: ["compliance:read"],
      expiresInDays: 7,
      budgetPerMinute: perMinute,
    });
    const statuses = new Map<number, number>();
    const started = performance.now();
    // Sustained: a slow machine (or a server that flushes every commit) gets longer to show as many refusals.
    const done = () => {
      const spent = performance.now() - started;
      return spent >= maxMillis || (spent >= loadMillis && (statuses.get(429) ?? 0) >= minRefused);
    };
    await Promise.all(
      bases.flatMap((base) => Array.from({ length: connectionsEach }, () => loop(base, k.key, done, statuses))),
    );
    const elapsed = (performance.now() - started) / 1000;

    const admitted = statuses.get(200) ?? 0;
    const refused = statuses.get(429) ?? 0;
    const limit = perMinute + (perMinute / 60) * elapsed;
    const [writes] = await db<
      { n: number; backwards: number; negative: number; overfull: number; granted: number; bound: number }[]
    >`
    select count(*)::int as n,
      count(*) filter (where at < old_at)::int as backwards,
      count(*) filter (where granted < 0 or tokens < 0)::int as negative,
      count(*) filter (where tokens + greatest(granted, 0) > ${perMinute})::int as overfull,
      coalesce(sum(greatest(granted, 0)), 0)::int as granted,
      -- what the bucket held before its first write here, plus what refilled until its last
      ((array_agg(old_tokens order by n))[1]
        + extract(epoch from (array_agg(at order by n desc))[1] - (array_agg(old_at order by n))[1])::float8 * ${perMinute / 60}) as bound
    from bucket_writes where key_id = ${k.id}`;
    console.log(
      `budget of ${perMinute}/min across two processes: ${admitted} admitted, ${refused} refused in ${elapsed.toFixed(2)} s (bound ${limit.toFixed(1)}); ` +
        `${writes!.n} bucket writes granting ${writes!.granted} (bound ${writes!.bound.toFixed(1)}), ` +
        `${writes!.backwards} going back in time, ${writes!.negative} negative`,
    );
    expect([...statuses.keys()].filter((s) => s !== 200 && s !== 429)).toEqual([]);
    // The load was real: the budget was spent and refusals kept coming (at least a minute's budget of them; the load
    // aims at twice that, which a loaded machine through PgBouncer may not reach within maxMillis).
    expect(admitted).toBeGreaterThanOrEqual(perMinute);
    expect(refused).toBeGreaterThanOrEqual(perMinute);
    expect(admitted).toBeLessThanOrEqual(limit);
    // Two processes wrote the row all along, queueing behind each other's lock; no write went back in time or
    // below zero, or held more than the capacity.
    expect(writes!.n).toBeGreaterThan(perMinute / leaseSize(perMinute));
    expect(writes!.backwards).toBe(0);
    expect(writes!.negative).toBe(0);
    expect(writes!.overfull).toBe(0);
    // Every admitted answer was paid by a token the bucket granted, and it granted at most what it held at first
    // plus what refilled until its last write.
    expect(admitted).toBeLessThanOrEqual(writes!.granted);
    expect(writes!.granted).toBeLessThanOrEqual(writes!.bound + 1e-6);
  },
  maxMillis + 30_000,
);
