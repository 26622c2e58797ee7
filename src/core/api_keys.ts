/** Creating, revoking and listing API keys: the operator's side (no API operation does this). */
import { ulid } from "ulid";
import type { Db, Tx } from "./db.ts";
import { hashKey, newKeyValue } from "./auth.ts";
import { isScope } from "./groups.ts";
import { Type } from "@sinclair/typebox";
import { ScopeUnknown, TaggedError } from "./errors.ts";
import { workspaceIdOf } from "./workspaces.ts";

/** A key could not be created: its name, expiry or budget is out of bounds (`field` names which). */
export class ApiKeyCreateRejected extends TaggedError("ApiKeyCreateRejected", 400, {
  reason: Type.String(),
  field: Type.String(),
}) {}
/** The user a key is to be created by is not a user of the workspace. */
export class UserNotFound extends TaggedError("UserNotFound", 404, { slug: Type.String(), userId: Type.String() }) {}

/** The expiry choices, in days. */
export const expiryChoices = [7, 30, 90, 365] as const;

/** A new key: its value is in `key`, shown this once. */
export interface CreatedKey {
  id: string;
  key: string;
  name: string;
  scopes: string[];
  expiresAt: string;
}

/**
 * Creates a key for a workspace; `createdBy` is "owner" (default) or a user id of the workspace. `alongside` runs in
 * the key's transaction, after its insert (the key's id and its workspace's given).
 */
export async function createApiKey(
  db: Db,
  input: {
    workspace: string;
    name: string;
    scopes: string[];
    expiresInDays: number;
    createdBy?: string;
    budgetPerMinute?: number;
  },
  alongside?: (tx: Tx, key: { id: string; workspaceId: string }) => Promise<unknown>,
): Promise<CreatedKey> {
  for (const scope of input.scopes) if (!isScope(scope)) throw new ScopeUnknown({ scope });
  if (!(expiryChoices as readonly number[]).includes(input.expiresInDays)) {
    throw new ApiKeyCreateRejected({ reason: "The expiry is 7, 30, 90 or 365 days.", field: "expiresInDays" });
  }
  if (!input.name || input.name.length > 200)
    throw new ApiKeyCreateRejected({ reason: "A key name is 1 to 200 characters.", field: "name" });
  const budget = input.budgetPerMinute ?? 600;
  if (!Number.isInteger(budget) || budget < 1 || budget > 1_000_000) {
    throw new ApiKeyCreateRejected({
      reason: "The budget is a whole number of requests a minute from 1 to 1000000.",
      field: "budgetPerMinute",
    });
  }
  const workspaceId = await workspaceIdOf(db, input.workspace);
  const [creator] = await db<{ id: string }[]>`
    select id from users where workspace_id = ${workspaceId}
      and ${input.createdBy && input.createdBy !== "owner" ? db`id = ${input.createdBy}` : db`role = 'owner'`}`;
  if (!creator) throw new UserNotFound({ slug: input.workspace, userId: input.createdBy ?? "owner" });
  const id = ulid();
  const key = newKeyValue();
  const scopes = [...new Set(input.scopes)];
  const [row] = await db.begin(async (tx) => {
    const rows = await tx<{ expiresAt: string }[]>`
      insert into api_keys (id, workspace_id, name, key_hash, scopes, created_by_user_id, budget_per_minute, expires_at)
      values (${id}, ${workspaceId}, ${input.name}, ${hashKey(key)}, ${scopes}, ${creator.id}, ${budget},
              now() + make_interval(days => ${input.expiresInDays}))
      returning iso(expires_at) as expires_at`;
    await tx`insert into rate_buckets (key_id, tokens) values (${id}, ${budget})`;
    await alongside?.(tx, { id, workspaceId });
    return rows;
  });
  return { id, key, name: input.name, scopes, expiresAt: row!.expiresAt };
}

/** Revokes a key: refused from the next request on, everywhere. */
export async function revokeApiKey(db: Db, id: string) {
  const [row] = await db<{ id: string; revokedAt: string }[]>`
    update api_keys set revoked_at = coalesce(revoked_at, now()) where id = ${id}
    returning id, iso(revoked_at) as revoked_at`;
  return row ?? null;
}

/** The keys of a workspace, without their values (only hashes are stored). */
export async function listApiKeys(db: Db, workspace: string) {
  const workspaceId = await workspaceIdOf(db, workspace);
  return db`
    select id, name, scopes, created_by_user_id, budget_per_minute,
           iso(created_at) as created_at,
           iso(expires_at) as expires_at,
           iso(revoked_at) as revoked_at
    from api_keys where workspace_id = ${workspaceId} order by created_at, id`;
}
