/** x-api-key → principal {workspace, key, scopes, modules, ownerCreated} and the budget, in one round trip. */
import { createHash, randomBytes } from "node:crypto";
import type { Db } from "./db.ts";
import { bucketColumns, leasedBucket, processLeases, takeLease, type BucketState, type TokenLeases } from "./budget.ts";
import { keyCheckReadSql, keyWorkspace, scopedRead, type ReadSql, type WorkspaceScope } from "./key_check_read.ts";

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

/**
 * What a key lookup found: nothing usable, or the principal and its bucket after this request, and what the
 * key-check read found when one was made (`value` null when it found nothing).
 */
export type KeyLookup =
  | { found: false }
  | { found: true; principal: Principal; bucket: BucketState; keyCheckRead?: { value: unknown } };

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
  keyCheckRead?: unknown;
}

/**
 * Finds a live key by its value's hash and spends one token of its budget, in one statement.
 * While this process holds leased tokens of the key, the statement only reads (the key is checked on every
 * request, so a revocation takes effect at once); otherwise it also takes a lease from the bucket row, whose
 * lock serialises concurrent writers across processes. Unknown, revoked and expired keys spend nothing.
 * `read`, when given, is an operation's key-check read (core/key_check_read.ts): it is handed the key's
 * workspace and evaluated in the same statement; one that throws as it is made is no read (keyCheckReadSql).
 */
export async function authenticate(
  db: Db,
  keyValue: string,
  leases: TokenLeases = processLeases,
  read?: (workspace: WorkspaceScope) => ReadSql | undefined,
): Promise<KeyLookup> {
  let keyCheckRead: ReadSql | undefined;
  if (read) {
    const workspace = keyWorkspace(db);
    const sql = keyCheckReadSql(() => read(workspace));
    if (sql !== undefined) keyCheckRead = scopedRead(sql, workspace);
  }
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
    row = await checkKey(db, hash, keyCheckRead);
    if (!row) return refuse(leases, hex);
    bucket = leasedBucket(lease, row.capacity);
  } else {
    const write = (async () => {
      const r = await checkKeyTakingLease(db, hash, keyCheckRead);
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
    bucket = {
      capacity: row.capacity,
      tokens: tokens + Math.max(0, granted - 1) + (spare?.tokens ?? 0),
      admitted: granted >= 1 || !!spare,
    };
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
    ...(keyCheckRead ? { keyCheckRead: { value: row.keyCheckRead ?? null } } : {}),
  };
}

/**
 * The set of the names in a space-separated list, shared by every request with the same list (a key's scopes
 * change rarely): building the set, or parsing a text[] column, on each request cost a tenth of its CPU. Scope and
 * module names never contain a space.
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
 * The key (`k`), its workspace (`w`, with its modules and owner as the workspace row mirrors them, sql/0009),
 * whether the key's creator owns the workspace now, and the key-check read. Scopes and modules come as the
 * space-separated lists stored beside their arrays (sql/0010).
 */
function keyCheckColumns(db: Db, keyCheckRead: ReadSql | undefined) {
  return db`
    ${keyCheckRead ? db`(${keyCheckRead}) as key_check_read,` : db``}
    k.id as key_id, k.workspace_id, w.slug, w.name as workspace_name, k.scope_list as scopes, k.created_by_user_id,
    k.budget_per_minute::float8 as capacity, w.suspended_at, w.suspension_reason,
    w.module_list as modules, coalesce(k.created_by_user_id = w.owner_user_id, false) as owner_created`;
}

/**
 * A live key, read only (while this process holds leased tokens of it): two rows by index, the key and its workspace.
 */
async function checkKey(db: Db, hash: Buffer, keyCheckRead: ReadSql | undefined): Promise<AuthRow | undefined> {
  const [row] = await db<AuthRow[]>`
    select ${keyCheckColumns(db, keyCheckRead)}, null::float8 as tokens, null::int as granted
    from api_keys k join workspaces w on w.id = k.workspace_id
    where ${liveKey(db, hash)}`;
  return row;
}

/** A live key, taking a lease of up to leaseSize tokens from its bucket in the same statement. */
async function checkKeyTakingLease(
  db: Db,
  hash: Buffer,
  keyCheckRead: ReadSql | undefined,
): Promise<AuthRow | undefined> {
  // Why one statement: the key, its workspace's columns and the bucket write cost one round trip.
  const [row] = await db<AuthRow[]>`
    with k as (
      select k.*, ${bucketColumns(db)} from api_keys k where ${liveKey(db, hash)}
    ), ${takeLease(db)}
    select ${keyCheckColumns(db, keyCheckRead)}, b.tokens, b.granted
    from k join workspaces w on w.id = k.workspace_id left join b on true`;
  return row;
}
