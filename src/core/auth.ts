/**
 * The key check's statement: x-api-key → the key and its workspace (principal), what the bucket write took when one
 * was asked for, and the key-check read, in one round trip. It returns what it found; the lease book
 * (src/core/budget.ts) and the order of the checks (src/core/execute.ts) are the callers'.
 */
import { createHash, randomBytes } from "node:crypto";
import type { Db } from "./db.ts";
import { bucketColumns, takeLease } from "./budget.ts";
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
 * A live key as the key check's statement found it: the principal, the key's budget a minute, what the bucket write
 * left and granted (`taken`, only when a lease was asked for; null columns when the key has no bucket row), and what
 * the key-check read found when one was made (`value` null when it found nothing).
 */
export interface KeyFound {
  principal: Principal;
  capacity: number;
  taken?: { tokens: number | null; granted: number | null };
  keyCheckRead?: { value: unknown };
}

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
 * An operation's key-check read (core/key_check_read.ts) as SQL of the key check's statement: `read` is handed the
 * key's workspace; one that throws as it is made is no read (keyCheckReadSql).
 */
export function keyCheckReadOf(
  db: Db,
  read: ((workspace: WorkspaceScope) => ReadSql | undefined) | undefined,
): ReadSql | undefined {
  if (!read) return undefined;
  const workspace = keyWorkspace(db);
  const sql = keyCheckReadSql(() => read(workspace));
  return sql === undefined ? undefined : scopedRead(sql, workspace);
}

/**
 * Finds a live key by its value's hash (unknown, revoked and expired keys: undefined), in one statement that also
 * makes `keyCheckRead` and, with `takeLease`, takes a lease from the key's bucket (the row's lock serialises
 * concurrent writers across processes). Without `takeLease` it only reads: two rows by index.
 */
export async function findKey(
  db: Db,
  hash: Buffer,
  options: { takeLease: boolean; keyCheckRead?: ReadSql },
): Promise<KeyFound | undefined> {
  const row = options.takeLease
    ? await checkKeyTakingLease(db, hash, options.keyCheckRead)
    : await checkKey(db, hash, options.keyCheckRead);
  if (!row) return undefined;
  return {
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
    capacity: row.capacity,
    ...(options.takeLease ? { taken: { tokens: row.tokens, granted: row.granted } } : {}),
    ...(options.keyCheckRead ? { keyCheckRead: { value: row.keyCheckRead ?? null } } : {}),
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
