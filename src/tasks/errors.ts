/** Errors of the tasks group. */
import { Type } from "@sinclair/typebox";
import { TaggedError } from "../core/errors.ts";

/** 404: no such task in the caller's workspace. */
export class TaskNotFound extends TaggedError(
  "TaskNotFound",
  404,
  { taskId: Type.String() },
  "No task with this id in the key's workspace.",
) {}

/** 409: the task is done, so it cannot be cancelled. */
export class TaskNotCancellable extends TaggedError(
  "TaskNotCancellable",
  409,
  { taskId: Type.String(), status: Type.String() },
  "The task is `done`; a done task cannot be cancelled. Nothing was changed.",
) {}
