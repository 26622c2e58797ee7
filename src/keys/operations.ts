/** The keys group's operations. */
import { Type } from "@sinclair/typebox";
import { operation } from "../core/operation.ts";
import { Id } from "../core/schema.ts";
import { KeySetNotFound } from "./errors.ts";
import { keySetReports } from "./queries.ts";
import { KeySetReports } from "./schema.ts";

/** Reports that a key set does not work. */
export const setReports = operation({
  id: "keys.setReports",
  group: "keys",
  method: "GET",
  path: "/keys/sets/:id/reports",
  summary: "Reports that a key set does not work.",
  description: [
    "Every report made about the key set (by a contractor, a tenant, staff, or from an inspection or a repair), " +
      "newest first",
    "(by reportedAt, then id). `cleared` is `null` until the report is cleared. `notWorking` is true while any " +
      "report is not",
    "cleared. Lost key sets keep their reports. A contractor reporting from the page of a works order naming the " +
      "set makes a report of source kind `repair`, its id and label the repair's id and reference, `reportedBy` " +
      "the contractor's name.",
    "An unknown key set, and another workspace's, answer 404 `KeySetNotFound`.",
  ].join(" "),
  params: Type.Object({ id: Id }, { additionalProperties: false }),
  response: KeySetReports,
  conditional: true,
  errors: [KeySetNotFound],
  run: async ({ db, principal, params }) => {
    const reports = await keySetReports(db, principal.workspaceId, params.id);
    if (!reports) throw new KeySetNotFound({ keySetId: params.id });
    return reports;
  },
});

/** Every operation of the group. */
export const operations = [setReports];
