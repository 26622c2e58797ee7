/** x-api-key → principal {workspace, key, scopes, modules, ownerCreated} and the budget, in one round trip. */
import { createHash, randomBytes } from "node:crypto";
import type postgres from "postgres";
import type { Db } from "./db.ts";
import type { BucketState } from "./budget.ts";

/** Who is calling: the key and its workspace. */
export interface Principal {
  keyId: string;
  workspaceId: string;
  workspaceSlug: string;
  workspaceName: string;
  scopes: ReadonlySet<string>;
  modules: ReadonlySet<string>;
  /** The user who created the key. */
  createdByUserId: string;
  /** Whether the key's creator is the workspace's owner now. */
  ownerCreated: boolean;
  suspended: { reason: string } | null;
}

/** What a key lookup found: nothing usable, or the principal and its bucket after this request. */
export type KeyLookup =
  | { found: false }
  | { found: true; principal: Principal; bucket: BucketState; prefetched?: { value: unknown } };

/** A scalar subquery the key check's statement evaluates as well (an operation's prefetch; see Prefetch). */
export type ExtraRead = postgres.PendingQuery<postgres.Row[]>;

/** The stored hash of a key value (keys are looked up by hash, never compared in code). */
export function hashKey(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}

/** A new key value: `lk_` and 32 random bytes in base64url (256 bits). */
export function newKeyValue(): string {
  return `lk_${randomBytes(32).toString("base64url")}`;
}

interface AuthRow {
  keyId: string;
  workspaceId: string;
  slug: string;
  workspaceName: string;
  /** The key's scopes, space-separated (names never hold spaces). */
  scopes: string;
  /** The workspace's modules, space-separated. */
  modules: string;
  createdByUserId: string;
  ownerCreated: boolean;
  suspendedAt: Date | null;
  suspensionReason: string | null;
  capacity: number;
  tokens: number | null;
  granted: number | null;
  prefetched?: unknown;
}

/** Tokens a process takes from a key's bucket in one write: 1% of the capacity, at least 1, at most 100. */
export function leaseSize(capacity: number): number {
  return Math.max(1, Math.min(100, Math.floor(capacity / 100)));
}

/** How long leased tokens may be spent before they are dropped (never returned: the bucket only loses). */
export const leaseMillis = 1000;

interface Lease {
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
 * process, spent within leaseMillis) may come on top.
 */
export class TokenLeases {
  readonly #leases = new Map<string, Lease>();
  readonly #writing = new Map<string, Promise<unknown>>();

  /** The lease write in flight for a key, if any: concurrent requests wait for it instead of writing too. */
  writing(hash: string): Promise<unknown> | undefined {
    return this.#writing.get(hash);
  }

  /** Records a lease write in flight until it settles. */
  track(hash: string, write: Promise<unknown>): void {
    const settled = write.then(
      () => {},
      () => {},
    );
    this.#writing.set(hash, settled);
    void settled.then(() => {
      if (this.#writing.get(hash) === settled) this.#writing.delete(hash);
    });
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

  /** Drops the lease of a key (it was refused). */
  drop(hash: string): void {
    this.#leases.delete(hash);
  }
}

/** The leases of this process. */
export const processLeases = new TokenLeases();

/**
 * Finds a live key by its value's hash and spends one token of its budget, in one statement.
 * While this process holds leased tokens of the key, the statement only reads (the key is checked on every
 * request, so a revocation takes effect at once); otherwise it also takes a lease from the bucket row, whose
 * lock serialises concurrent writers across processes. Unknown, revoked and expired keys spend nothing.
 */
export async function authenticate(db: Db, keyValue: string, leases: TokenLeases = processLeases, extra?: ExtraRead): Promise<KeyLookup> {
  const hash = hashKey(keyValue);
  const hex = hash.toString("hex");
  // One lease write per key at a time in this process: the others wait for it and spend from the book.
  let lease = leases.spend(hex);
  for (let writing = leases.writing(hex); !lease && writing; writing = leases.writing(hex)) {
    await writing;
    lease = leases.spend(hex);
  }
  let row: AuthRow | undefined;
  let bucket: BucketState;
  if (lease) {
    row = await readKey(db, hash, extra);
    if (!row) return refuse(leases, hex);
    const refilled = Math.min(lease.capacity, lease.bucketTokens + ((Date.now() - lease.takenAt) / 60_000) * lease.capacity);
    bucket = { capacity: row.capacity, tokens: Math.min(row.capacity, refilled + lease.tokens), admitted: true };
  } else {
    const write = (async () => {
      const r = await leaseKey(db, hash, extra);
      // What the write granted beyond this request's own token waits in the book for the next requests.
      if (r && (r.granted ?? 0) > 1) leases.keep(hex, r.granted! - 1, r.tokens ?? 0, r.capacity);
      return r;
    })();
    leases.track(hex, write);
    row = await write;
    if (!row) return refuse(leases, hex);
    // A key without a bucket row (never created so) is treated as an empty bucket, not as unlimited.
    const granted = row.granted ?? 0;
    const tokens = row.tokens ?? 0;
    // Refused by the bucket, but tokens leased by a concurrent request of this process may be in the book.
    const spare = granted >= 1 ? undefined : leases.spend(hex);
    bucket = { capacity: row.capacity, tokens: tokens + Math.max(0, granted - 1) + (spare?.tokens ?? 0), admitted: granted >= 1 || !!spare };
  }
  return {
    found: true,
    principal: {
      keyId: row.keyId,
      workspaceId: row.workspaceId,
      workspaceSlug: row.slug,
      workspaceName: row.workspaceName,
      scopes: setOf(row.scopes),
      modules: setOf(row.modules),
      createdByUserId: row.createdByUserId,
      ownerCreated: row.ownerCreated,
      suspended: row.suspendedAt ? { reason: row.suspensionReason ?? "" } : null,
    },
    bucket,
    ...(extra ? { prefetched: { value: row.prefetched ?? null } } : {}),
  };
}

/**
 * The set of the names in a space-separated list, shared by every request with the same list (a key's scopes
 * change rarely): building the set, or parsing a text[] column, on each request cost a tenth of its CPU.
 */
const sets = new Map<string, ReadonlySet<string>>();
function setOf(list: string): ReadonlySet<string> {
  let set = sets.get(list);
  if (!set) {
    if (sets.size >= 1000) sets.clear();
    set = new Set(list === "" ? [] : list.split(" "));
    sets.set(list, set);
  }
  return set;
}

function refuse(leases: TokenLeases, hex: string): KeyLookup {
  leases.drop(hex);
  return { found: false };
}

/** The conditions of a live key with this hash (not revoked, not expired), on `api_keys k`. */
function liveKey(db: Db, hash: Buffer) {
  return db`k.key_hash = ${hash} and k.revoked_at is null and k.expires_at > clock_timestamp()`;
}

/**
 * The key (`k`), its workspace's facts (`w`: modules and owner as the workspace row mirrors them, sql/0009),
 * whether the key's creator owns the workspace now, and the extra read. Scopes and modules come as the
 * space-separated lists stored beside their arrays (sql/0010).
 */
function keyFacts(db: Db, extra: ExtraRead | undefined) {
  return db`
    ${extra ? db`(${extra}) as prefetched,` : db``}
    k.id as key_id, k.workspace_id, w.slug, w.name as workspace_name, k.scope_list as scopes, k.created_by_user_id,
    k.budget_per_minute::float8 as capacity, w.suspended_at, w.suspension_reason,
    w.module_list as modules, coalesce(k.created_by_user_id = w.owner_user_id, false) as owner_created`;
}

/** A live key, read only (while this process holds leased tokens of it): two rows by index, the key and its workspace. */
async function readKey(db: Db, hash: Buffer, extra: ExtraRead | undefined): Promise<AuthRow | undefined> {
  const [row] = await db<AuthRow[]>`
    select ${keyFacts(db, extra)}, null::float8 as tokens, null::int as granted
    from api_keys k join workspaces w on w.id = k.workspace_id
    where ${liveKey(db, hash)}`;
  return row;
}

/** A live key, taking a lease of up to leaseSize tokens from its bucket in the same statement. */
async function leaseKey(db: Db, hash: Buffer, extra: ExtraRead | undefined): Promise<AuthRow | undefined> {
  // Why one statement: the key check, the workspace facts and the bucket write cost one round trip.
  // The bucket refills by elapsed × capacity / 60 up to capacity; `granted` whole tokens are taken (0 when
  // less than one is there), at most the lease size.
  const [row] = await db<AuthRow[]>`
    with k as (
      select k.*, k.budget_per_minute::float8 as capacity, greatest(1, least(100, floor(k.budget_per_minute / 100.0)))::int as lease
      from api_keys k where ${liveKey(db, hash)}
    ), c as (
      select clock_timestamp() as at
    ), b as (
      update rate_buckets rb set
        tokens = least(k.capacity, rb.tokens + extract(epoch from c.at - rb.updated_at) * k.capacity / 60.0)
                 - least(k.lease, floor(least(k.capacity, rb.tokens + extract(epoch from c.at - rb.updated_at) * k.capacity / 60.0))),
        granted = least(k.lease, floor(least(k.capacity, rb.tokens + extract(epoch from c.at - rb.updated_at) * k.capacity / 60.0))),
        updated_at = c.at
      from k, c
      where rb.key_id = k.id
      returning rb.tokens, rb.granted
    )
    select ${keyFacts(db, extra)}, b.tokens, b.granted
    from k join workspaces w on w.id = k.workspace_id left join b on true`;
  return row;
}
