/** Task rows for the tasks tests, written straight to the test database. */
import { ulid } from "ulid";
import type { Db } from "../../src/core/db.ts";

/** Inserts a task and returns its id. */
export async function insertTask(
  db: Db,
  workspaceId: string,
  fields: { status?: string; title?: string; dueOn?: string | null } = {},
): Promise<string> {
  const id = ulid();
  await db`
    insert into tasks (workspace_id, id, title, status, due_on, priority, subject_kind, subject_id)
    values (${workspaceId}, ${id}, ${fields.title ?? "Chase the gas certificate"}, ${fields.status ?? "open"},
            ${fields.dueOn ?? null}, 'high', 'property', 'prop-1')`;
  return id;
}
