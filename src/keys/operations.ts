/** The keys group's operations. */
import { Type } from "@sinclair/typebox";
import { NotImplemented } from "../core/errors.ts";
import { operation, Id } from "../core/operation.ts";

/** Reports that a key set does not work. */
export const setReports = operation({
  id: "keys.setReports", group: "keys", method: "GET", path: "/keys/sets/:id/reports",
  summary: "Reports that a key set does not work.",
  description: "Declared; not built yet.",
  params: Type.Object({ id: Id }, { additionalProperties: false }),
  response: Type.Unknown(),
  errors: [NotImplemented],
  run: async () => {
    throw new NotImplemented({ operationId: "keys.setReports" });
  },
});

/** Every operation of the group. */
export const operations = [setReports];
