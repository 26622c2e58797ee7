/** The activity log every write appends to. */
import { ulid } from "ulid";
import type { Db, Tx } from "./db.ts";

/** One entry of the activity log. */
export interface ActivityEntry {
  workspaceId: string;
  /** The API key that made the change (null for the CLI and workers). */
  keyId: string | null;
  userId?: string | null;
  /** What happened, `<group>.<verb>`: `tasks.cancelled`. */
  action: string;
  subjectKind: string;
  subjectId: string;
  detail?: Record<string, unknown>;
}

/**
 * The statement that appends an entry, unsent: awaited on its own by recordActivity, or made a CTE of a write's own
 * statement (`with …, logged as (${activityInsert(tx, entry)}) …`) to save a statement.
 */
export function activityInsert(tx: Tx | Db, entry: ActivityEntry) {
  return tx`
    insert into activity_log (workspace_id, id, actor_key_id, actor_user_id, action, subject_kind, subject_id, detail)
    values (${entry.workspaceId}, ${ulid()}, ${entry.keyId}, ${entry.userId ?? null}, ${entry.action},
            ${entry.subjectKind}, ${entry.subjectId}, ${tx.json((entry.detail ?? {}) as any)})`;
}

/** Appends an entry, inside the caller's transaction. */
export async function recordActivity(tx: Tx | Db, entry: ActivityEntry): Promise<void> {
  await activityInsert(tx, entry);
}
