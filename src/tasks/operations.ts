/** The tasks group's operations. */
import { Type } from "@sinclair/typebox";
import { NotImplemented } from "../core/errors.ts";
import { operation, Id } from "../core/operation.ts";

/** Cancels an open task. */
export const cancelTask = operation({
  id: "tasks.cancel", group: "tasks", method: "POST", path: "/tasks/:id/cancel",
  summary: "Cancels an open task.",
  description: "Declared; not built yet.",
  params: Type.Object({ id: Id }, { additionalProperties: false }),
  response: Type.Unknown(),
  errors: [NotImplemented],
  run: async () => {
    throw new NotImplemented({ operationId: "tasks.cancel" });
  },
});

/** Every operation of the group. */
export const operations = [cancelTask];
