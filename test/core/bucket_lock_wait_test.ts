/**
 * The bucket write under a row lock (core/budget.ts, takeLease, in core/auth.ts's checkKeyTakingLease): a lease
 * write that waits for another process's lock on the bucket row finds the row that process left, and its
 * arithmetic stays monotonic: `updated_at` never goes back, the grant is never negative, and no token appears from
 * nothing.
 */
import { expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import { authenticate } from "../../src/core/execute.ts";
import { TokenLeases } from "../../src/core/budget.ts";
import { createApiKey } from "../../src/core/api_keys.ts";

const h = await harness();
const db = h.database.db;

interface Bucket {
  tokens: number;
  granted: number;
  /** updated_at in microseconds since the epoch. */
  at: number;
}
const bucketOf = async (sql: typeof db, keyId: string) =>
  (
    await sql<Bucket[]>`
    select tokens, granted, (extract(epoch from updated_at) * 1000000)::bigint::float8 as at
    from rate_buckets where key_id = ${keyId}`
  )[0]!;

/** Waits until a statement of this database waits for a lock (the lease write queued behind the holder). */
async function untilWaitingForLock() {
  for (;;) {
    const [row] = await db<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock' and query like '%rate_buckets%'`;
    if (row!.n > 0) return;
    await Bun.sleep(1);
  }
}

test("a lease write that waited for the row lock takes the bucket as the lock holder left it: no time going back, no negative grant", async () => {
  const ws = await h.workspace();
  const k = await createApiKey(db, {
    workspace: ws.slug,
    name: "race",
    scopes: ["compliance:read"],
    expiresInDays: 7,
    budgetPerMinute: 6000,
  });
  const holder = await db.reserve();
  try {
    await holder`begin`;
    await holder`select 1 from rate_buckets where key_id = ${k.id} for update`;
    // Another process's lease write starts now and queues behind the lock...
    const waiting = authenticate(db, k.key, new TokenLeases());
    await untilWaitingForLock();
    // ...while the holder empties the bucket later in time, as a process taking the last tokens does.
    await holder`update rate_buckets set tokens = 0, granted = 1, updated_at = clock_timestamp() where key_id = ${k.id}`;
    const held = await bucketOf(holder as unknown as typeof db, k.id);
    await holder`commit`;
    const found = await waiting;
    const after = await bucketOf(db, k.id);
    expect(after.at).toBeGreaterThanOrEqual(held.at);
    expect(after.granted).toBeGreaterThanOrEqual(0);
    // What the waiter left and took is at most what refilled after the holder's write (100 a second).
    expect(after.tokens + after.granted).toBeLessThanOrEqual(((after.at - held.at) / 1e6) * 100 + 1e-9);
    expect(found.found && found.bucket.admitted).toBe(after.granted >= 1);
  } finally {
    await holder`rollback`.catch(() => {});
    holder.release();
  }
});
