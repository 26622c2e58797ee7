/** TypeBox schemas of the tasks group. */
import { Type } from "@sinclair/typebox";
import { DateOn, Id, Instant, Nullable, Strict } from "../core/schema.ts";

const S = Type.String();

/** A task. */
export const Task = Strict(
  {
    id: Id,
    title: S,
    subjectKind: Nullable(S),
    subjectId: Nullable(S),
    assigneeContactId: Nullable(Id),
    assigneeUserId: Nullable(Id),
    assigneeStaffId: Nullable(
      Type.String({ description: "The assigned member of staff; staff are users of the workspace." }),
    ),
    teamId: Nullable(S),
    taskTypeId: Nullable(S),
    branchId: Nullable(S),
    priority: Type.Union([Type.Literal("urgent"), Type.Literal("high"), Type.Literal("normal"), Type.Literal("low")]),
    dueOn: Nullable(DateOn),
    status: Type.Union(
      [Type.Literal("open"), Type.Literal("in_progress"), Type.Literal("done"), Type.Literal("cancelled")],
      {
        description: "`open` and `in_progress` can be cancelled; `done` and `cancelled` are final.",
      },
    ),
    createdByUserId: Nullable(S),
    dedupeKey: Nullable(S),
    requestId: Nullable(S),
    revision: Type.Integer({ minimum: 1, description: "Goes up by one with every change." }),
    createdAt: Instant,
    doneAt: Nullable(Instant),
  },
  { title: "Task", description: "A task. Every field is present; a field with no value is null." },
);
