/** The event types the workspace import records. */
import { Type } from "@sinclair/typebox";
import { eventType } from "../events/event_type.ts";

/** A workspace document was imported; data counts the records of each collection. */
export const workspaceImported = eventType({
  name: "workspace.imported",
  subjectKind: "workspace",
  data: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), {
    title: "ImportCounts",
    description: "The records of each collection the document held, as `bun run cli import` prints them.",
  }),
  description:
    "A workspace document was imported by an operator (`subject.id` is the workspace; actor `cli`). The imported " +
    "records record no events of their own.",
});
