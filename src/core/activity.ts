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

/** Appends an entry, inside the caller's transaction. */
export async function recordActivity(tx: Tx | Db, entry: ActivityEntry): Promise<void> {
  await tx`
    insert into activity_log (workspace_id, id, actor_key_id, actor_user_id, action, subject_kind, subject_id, detail)
    values (${entry.workspaceId}, ${ulid()}, ${entry.keyId}, ${entry.userId ?? null}, ${entry.action},
            ${entry.subjectKind}, ${entry.subjectId}, ${tx.json((entry.detail ?? {}) as any)})`;
}
