/** The tasks group's operations. */
import { Type } from "@sinclair/typebox";
import { recordActivity } from "../core/activity.ts";
import { operation } from "../core/operation.ts";
import { Id } from "../core/schema.ts";
import { recordEvent, keyActor } from "../events/record.ts";
import { TaskNotCancellable, TaskNotFound } from "./errors.ts";
import { taskCancelled } from "./events.ts";
import { cancelOpenTask, findTask, type TaskRow } from "./queries.ts";
import { Task } from "./schema.ts";

/** Cancels an open or in-progress task; a cancelled task is returned unchanged. */
export const cancelTask = operation({
  id: "tasks.cancel",
  group: "tasks",
  method: "POST",
  path: "/tasks/:id/cancel",
  summary: "Cancels a task.",
  description: [
    "Cancels a task and returns the task record.",
    "",
    "- `open` or `in_progress` → `cancelled`; `revision` goes up by one and the change is recorded in the " +
      "activity log and as the event `task.cancelled`.",
    "- Already `cancelled` → 200 with the task unchanged (same `revision`): repeating the call is safe, and of " +
      "concurrent calls exactly one changes the task.",
    "- `done` → 409 `TaskNotCancellable {taskId, status}`; nothing is changed.",
    "- No such task in the key's workspace → 404 `TaskNotFound {taskId}`.",
    "",
    "No request body.",
  ].join("\n"),
  params: Type.Object({ id: Id }, { additionalProperties: false }),
  response: Task,
  errors: [TaskNotFound, TaskNotCancellable],
  hints: { idempotent: true },
  run: ({ db, principal, params, requestId }) =>
    db.begin(async (tx) => {
      const cancelled = await cancelOpenTask(tx, principal.workspaceId, params.id);
      if (cancelled) {
        await recordActivity(tx, {
          workspaceId: principal.workspaceId,
          keyId: principal.keyId,
          action: "tasks.cancelled",
          subjectKind: "task",
          subjectId: params.id,
          detail: { revision: cancelled.revision },
        });
        await recordEvent(tx, taskCancelled, {
          workspaceId: principal.workspaceId,
          subjectId: params.id,
          data: cancelled,
          requestId,
          actor: keyActor(principal),
        });
        return cancelled;
      }
      const task = await findTask(tx, principal.workspaceId, params.id);
      if (!task) throw new TaskNotFound({ taskId: params.id });
      if (task.status === "done") throw new TaskNotCancellable({ taskId: task.id, status: task.status });
      return task;
    }) as Promise<TaskRow>,
});

/** Every operation of the group. */
export const operations = [cancelTask];
