/** x-api-key → principal {workspace, key, scopes, modules, ownerCreated} and the budget, in one round trip. */
import { createHash, randomBytes } from "node:crypto";
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
export type KeyLookup = { found: false } | { found: true; principal: Principal; bucket: BucketState };

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
  scopes: string[];
  modules: string[];
  createdByUserId: string;
  ownerCreated: boolean;
  suspendedAt: Date | null;
  suspensionReason: string | null;
  capacity: number;
  tokens: number | null;
  admitted: boolean | null;
}

/**
 * Finds a live key by its value's hash and spends one token of its bucket, in one statement.
 * The bucket row lock serialises concurrent requests of one key, across processes, so a key is never
 * admitted more than capacity + refill × elapsed. Unknown, revoked and expired keys spend nothing.
 */
export async function authenticate(db: Db, keyValue: string): Promise<KeyLookup> {
  const hash = hashKey(keyValue);
  // Why one statement: the key check, the workspace facts and the bucket update cost one round trip.
  // The bucket refills by elapsed × capacity / 60 up to capacity; `admitted` records whether a token was taken.
  const [row] = await db<AuthRow[]>`
    with k as (
      select id, workspace_id, scopes, created_by_user_id, budget_per_minute::float8 as capacity
      from api_keys
      where key_hash = ${hash} and revoked_at is null and expires_at > clock_timestamp()
    ), c as (
      select clock_timestamp() as at
    ), b as (
      update rate_buckets rb set
        tokens = least(k.capacity, rb.tokens + extract(epoch from c.at - rb.updated_at) * k.capacity / 60.0)
                 - case when least(k.capacity, rb.tokens + extract(epoch from c.at - rb.updated_at) * k.capacity / 60.0) >= 1
                        then 1 else 0 end,
        admitted = least(k.capacity, rb.tokens + extract(epoch from c.at - rb.updated_at) * k.capacity / 60.0) >= 1,
        updated_at = c.at
      from k, c
      where rb.key_id = k.id
      returning rb.tokens, rb.admitted
    )
    select k.id as key_id, k.workspace_id, w.slug, w.name as workspace_name, k.scopes, k.created_by_user_id,
           k.capacity, w.suspended_at, w.suspension_reason, b.tokens, b.admitted,
           coalesce((select array_agg(m.module_id) from workspace_modules m where m.workspace_id = k.workspace_id), '{}') as modules,
           exists (select 1 from users u where u.workspace_id = k.workspace_id and u.id = k.created_by_user_id
                   and u.role = 'owner') as owner_created
    from k join workspaces w on w.id = k.workspace_id left join b on true`;
  if (!row) return { found: false };
  return {
    found: true,
    principal: {
      keyId: row.keyId,
      workspaceId: row.workspaceId,
      workspaceSlug: row.slug,
      workspaceName: row.workspaceName,
      scopes: new Set(row.scopes),
      modules: new Set(row.modules),
      createdByUserId: row.createdByUserId,
      ownerCreated: row.ownerCreated,
      suspended: row.suspendedAt ? { reason: row.suspensionReason ?? "" } : null,
    },
    // A key without a bucket row (never created so) is treated as an empty bucket, not as unlimited.
    bucket: { capacity: row.capacity, tokens: row.tokens ?? 0, admitted: row.admitted ?? false },
  };
}
