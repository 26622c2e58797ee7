/** The event types the tasks group's writes record. */
import { eventType } from "../events/event_type.ts";
import { Task } from "./schema.ts";

/** A task was cancelled; data is the task after the change. */
export const taskCancelled = eventType({
  name: "task.cancelled",
  subjectKind: "task",
  data: Task,
  description:
    "An open or in-progress task was cancelled (cancelling one already cancelled records nothing). `data` is the " +
    "task as `POST /tasks/{id}/cancel` answered it.",
});
