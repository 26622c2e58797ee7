/** TypeBox schemas of the keys group: key set reports (their rules: operations.ts's descriptions). */
import { Type, type Static } from "@sinclair/typebox";
import { Id, Instant, Nullable, Strict } from "../core/schema.ts";

/** Where a report came from. */
export const ReportSource = Strict({
  kind: Type.String({ description: "contractor, tenant, staff, inspection or repair." }),
  id: Nullable(
    Type.String({
      description: "The id of the reporting contact, inspection or repair; `null` when none was recorded.",
    }),
  ),
  label: Nullable(Type.String({ description: "A readable name of the source; `null` when none was recorded." })),
});

/** How a report was cleared. */
export const ReportCleared = Strict(
  {
    note: Nullable(Type.String()),
    by: Nullable(Type.String()),
    at: Instant,
  },
  { description: "`null` until the report is cleared; `note` and `by` are `null` when not recorded." },
);

/** One report that a key set does not work. */
export const KeyReport = Strict({
  id: Id,
  keySetId: Id,
  note: Type.String(),
  source: ReportSource,
  reportedBy: Type.String(),
  reportedAt: Instant,
  cleared: Nullable(ReportCleared),
});

/** The response of keys.setReports. */
export const KeySetReports = Strict(
  {
    keySetId: Id,
    notWorking: Type.Boolean({ description: "True while any report is not cleared." }),
    reports: Type.Array(KeyReport, { description: "Newest first (by reportedAt, then id)." }),
  },
  { title: "KeySetReports" },
);

/** The key set reports resource. */
export type KeySetReports = Static<typeof KeySetReports>;
