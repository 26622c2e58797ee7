/**
 * The Postgres token bucket (`rate_buckets`, one row a key): capacity = the key's budget a minute, refilled
 * continuously over 60 s; the leases a process takes from it, and the SQL that takes them.
 */
import type { Db } from "./db.ts";
import { RateLimited } from "./errors.ts";

/** The bucket's state after a request was counted against it. */
export interface BucketState {
  capacity: number;
  /** Tokens left after this request. */
  tokens: number;
  /** Whether this request got a token. */
  admitted: boolean;
}

/** Tokens added per second for a capacity. */
export function refillPerSecond(capacity: number): number {
  return capacity / 60;
}

/** Whole seconds until one token is there again (at least 1). */
export function retryAfterSeconds(b: BucketState): number {
  return Math.max(1, Math.ceil((1 - b.tokens) / refillPerSecond(b.capacity)));
}

/** The IETF RateLimit and RateLimit-Policy fields for a bucket state. */
export function rateLimitHeaders(b: BucketState): Record<string, string> {
  const left = Math.max(0, Math.floor(b.tokens));
  const full = Math.max(0, Math.ceil((b.capacity - b.tokens) / refillPerSecond(b.capacity)));
  return {
    "ratelimit-policy": `"default";q=${b.capacity};w=60`,
    ratelimit: `"default";r=${left};t=${full}`,
  };
}

/**
 * The refusal of a request whose budget is spent: RateLimited naming the budget (by default the key's request
 * budget), with Retry-After.
 */
export function rateLimited(
  b: BucketState,
  key: string,
  budget = `The request budget of this key (${b.capacity} a minute)`,
): RateLimited {
  const wait = retryAfterSeconds(b);
  const error = new RateLimited({ key, retryAfterSeconds: wait, message: `${budget} is spent; retry in ${wait} s.` });
  error.headers["retry-after"] = String(wait);
  return error;
}

/** Tokens a process takes from a key's bucket in one write: 1% of the capacity, at least 1, at most 100. */
export function leaseSize(capacity: number): number {
  return Math.max(1, Math.min(100, Math.floor(capacity / 100)));
}

/** How long leased tokens may be spent before they are dropped (never returned: the bucket only loses). */
export const leaseMillis = 1000;

/** What a lease write left in the bucket and granted (null columns: the key has no bucket row). */
export interface Taken {
  tokens: number | null;
  granted: number | null;
}

/** Tokens a process leased from a key's bucket. */
export interface Lease {
  tokens: number;
  /** The bucket's tokens right after the lease was taken, and when. */
  bucketTokens: number;
  capacity: number;
  takenAt: number;
}

/**
 * A process's leases of bucket tokens, by key hash. Spending a leased token needs no write, so the hot path
 * is a read; the bucket row is written once per lease. Every admitted request was paid for by a token taken
 * from the bucket, so since its creation a key is never admitted more than capacity + refill × elapsed, across
 * processes. Over an arbitrary window, the tokens leased and unspent when it starts (at most leaseSize per
 * process, spent within leaseMillis) may come on top, and as many may be stranded in another process (a refusal
 * here while another process holds them). Keys of up to 199 requests a minute lease one token at a time: exactly
 * the unleased bucket. Two real processes under sustained load admitted 1,280 against a bound of 1,280.4
 * (test/core/budget_processes_test.ts).
 */
export class TokenLeases {
  readonly #leases = new Map<string, Lease>();
  readonly #writing = new Map<string, Promise<unknown>>();

  /**
   * The lease write in flight for a key, if any: concurrent requests wait for it instead of writing too, and fail
   * with it (during a database outage, retrying it one after the other made the last waiter wait for them all).
   */
  writing(hash: string): Promise<unknown> | undefined {
    return this.#writing.get(hash);
  }

  /** Records a lease write in flight until it settles. */
  track(hash: string, write: Promise<unknown>): void {
    this.#writing.set(hash, write);
    const settled = () => {
      if (this.#writing.get(hash) === write) this.#writing.delete(hash);
    };
    write.then(settled, settled);
  }

  /** Spends one leased token of the key, if a live lease has one. */
  spend(hash: string, now = Date.now()): Lease | undefined {
    const lease = this.#leases.get(hash);
    if (!lease) return undefined;
    if (lease.tokens < 1 || now - lease.takenAt > leaseMillis) {
      this.#leases.delete(hash);
      return undefined;
    }
    lease.tokens -= 1;
    return lease;
  }

  /** Keeps what a lease write granted beyond the token the request itself spent. */
  keep(hash: string, extra: number, bucketTokens: number, capacity: number, now = Date.now()): void {
    if (extra < 1) return;
    const held = this.#leases.get(hash);
    const tokens = extra + (held && now - held.takenAt <= leaseMillis ? held.tokens : 0);
    this.#leases.set(hash, { tokens, bucketTokens, capacity, takenAt: now });
  }

  /**
   * After this request's lease write (`taken`: the bucket's tokens left and the whole tokens granted, null when the
   * key has no bucket row, counted as an empty bucket): keeps what it granted beyond the request's own token. Called
   * before the write settles, so the requests waiting for it find the tokens in the book.
   */
  keepGranted(hash: string, taken: Taken, capacity: number): void {
    if ((taken.granted ?? 0) > 1) this.keep(hash, taken.granted! - 1, taken.tokens ?? 0, capacity);
  }

  /**
   * The bucket after this request's lease write; refused by the bucket, a token leased meanwhile by a concurrent
   * request of this process is spent from the book instead.
   */
  bucketAfterWrite(hash: string, taken: Taken, capacity: number): BucketState {
    const granted = taken.granted ?? 0;
    const spare = granted >= 1 ? undefined : this.spend(hash);
    return {
      capacity,
      tokens: (taken.tokens ?? 0) + Math.max(0, granted - 1) + (spare?.tokens ?? 0),
      admitted: granted >= 1 || !!spare,
    };
  }

  /** Drops the lease of a key (it was refused). */
  drop(hash: string): void {
    this.#leases.delete(hash);
  }
}

/** The leases of this process. */
export const processLeases = new TokenLeases();

/** The bucket after a request spent a leased token: refilled since the lease, with the tokens still leased. */
export function leasedBucket(lease: Lease, capacity: number, now = Date.now()): BucketState {
  const refilled = Math.min(lease.capacity, lease.bucketTokens + ((now - lease.takenAt) / 60_000) * lease.capacity);
  return { capacity, tokens: Math.min(capacity, refilled + lease.tokens), admitted: true };
}

/** The bucket's columns of a key row `k` (api_keys): `capacity`, and `lease` as leaseSize computes it. */
export function bucketColumns(db: Db) {
  return db`
    k.budget_per_minute::float8 as capacity,
    greatest(1, least(100, floor(k.budget_per_minute / 100.0)))::int as lease`;
}

/**
 * The CTEs `c` (the clock) and `b` (the write) that take a lease from the bucket of the key row `k` (with
 * bucketColumns): `b` returns the bucket's tokens after the write and the whole tokens `granted`; no row when the
 * key has no bucket.
 */
export function takeLease(db: Db) {
  // The bucket refills by elapsed × capacity / 60 up to capacity; `granted` whole tokens are taken (0 when
  // less than one is there), at most the lease size.
  // Why greatest(): the clock is read (c) before the UPDATE may wait for the row lock of another process's
  // lease write. After the wait, READ COMMITTED re-evaluates the SET expressions on the row that write left
  // (EvalPlanQual) but not c, whose time may now be before the row's updated_at: that time counts as no time
  // at all, and updated_at stays (going back would count the same refill twice; a negative refill, floored,
  // would grant a negative number and leave a token made from nothing).
  const level = db`
    least(k.capacity, rb.tokens + greatest(0, extract(epoch from c.at - rb.updated_at)) * k.capacity / 60.0)`;
  return db`
    c as (
      select clock_timestamp() as at
    ), b as (
      update rate_buckets rb set
        tokens = ${level} - least(k.lease, floor(${level})),
        granted = least(k.lease, floor(${level})),
        updated_at = greatest(rb.updated_at, c.at)
      from k, c
      where rb.key_id = k.id
      returning rb.tokens, rb.granted
    )`;
}
