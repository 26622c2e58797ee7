/** The calendar group's operations. */
import { Type } from "@sinclair/typebox";
import { NotImplemented } from "../core/errors.ts";
import { operation, Id } from "../core/operation.ts";

/** Calendar events overlapping a window. */
export const agenda = operation({
  id: "calendar.agenda", group: "calendar", method: "GET", path: "/calendar/agenda",
  summary: "Calendar events overlapping a window.",
  description: "Declared; not built yet.",
  
  response: Type.Unknown(),
  errors: [NotImplemented],
  run: async () => {
    throw new NotImplemented({ operationId: "calendar.agenda" });
  },
});

/** Every operation of the group. */
export const operations = [agenda];
