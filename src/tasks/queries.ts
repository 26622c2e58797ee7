/** The SQL of the tasks group. */
import type { Static } from "@sinclair/typebox";
import type { Db, Tx } from "../core/db.ts";
import type { Task } from "./schema.ts";

/** A task row, already in response shape. */
export type TaskRow = Static<typeof Task>;

function taskColumns(db: Db | Tx) {
  return db`
    id, title, subject_kind, subject_id, assignee_contact_id, assignee_user_id, assignee_staff_id, team_id,
    task_type_id, branch_id, priority, ymd(due_on) as due_on, status, created_by_user_id, dedupe_key, request_id,
    revision, iso(created_at) as created_at, iso(done_at) as done_at`;
}

/** Cancels an open or in-progress task; undefined when it is not in either state (or not in the workspace). */
export async function cancelOpenTask(tx: Tx, workspaceId: string, id: string): Promise<TaskRow | undefined> {
  const [row] = await tx<TaskRow[]>`
    update tasks set status = 'cancelled', revision = revision + 1
    where workspace_id = ${workspaceId} and id = ${id} and status in ('open', 'in_progress')
    returning ${taskColumns(tx)}`;
  return row;
}

/** The task as it is now, or undefined. */
export async function findTask(db: Db | Tx, workspaceId: string, id: string): Promise<TaskRow | undefined> {
  const [row] = await db<
    TaskRow[]
  >`select ${taskColumns(db)} from tasks where workspace_id = ${workspaceId} and id = ${id}`;
  return row;
}
