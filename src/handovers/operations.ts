/** The handovers group's operations. */
import { Type } from "@sinclair/typebox";
import { HandoverNotFound, apiErrorTable } from "../core/errors.ts";
import { operation, RawJson, Reply } from "../core/operation.ts";
import { Id } from "../core/schema.ts";
import { servableRow, storedRow, storeRow, tenancyInputs } from "./queries.ts";
import { fullRow, readsAll, restrictRow, validBefore, type RowAccess } from "./row.ts";
import { HandoverRow } from "./schema.ts";

const description = `
Returns one tenancy's handover row: its move-in and move-out handover records, the check-in and check-out
visits with their follow-ups, the key sets of its unit, and what is still outstanding.

**Field-level access.** \`checkIn\`, \`checkOut\` and \`followUps\` need \`inspections:read\` as well
(\`inspectionsReadable\` says whether the key holds it; without it they are \`null\`). \`keys\` needs
\`keys:read\` as well (else \`null\`). \`outstanding\` is always complete: it never depends on those scopes.

**Visits.** \`checkIn\` / \`checkOut\` is the latest non-cancelled inspection of kind check_in / check_out
(latest by dueOn, an undated one counting as the oldest, then by id); when only cancelled ones exist, the
latest cancelled one. \`followUps\` are the findings of those two visits that have a repair or a task.

**Keys.** Over the key sets of the tenancy's unit, lost ones never listed, each list by sequence, then
reference: \`held\` (checked out with this tenancyId), \`ambiguous\` (checked out with no tenancyId to a
holder of type tenant or to an occupant of this tenancy), \`available\` (in the office);
\`otherActiveTenancyIds\` are the unit's other active or notice_given tenancies.

**Outstanding items** ("today" is the date in Europe/London), move-in items first, then in the order of
the code enumeration; \`count\` is set for the codes that count things, else \`null\`:

| code | direction | when |
|---|---|---|
| check_in_missing | move_in | no non-cancelled check-in |
| check_in_open | move_in | the check-in is due or booked |
| follow_ups_open | move_in | the check-in shown has open follow-ups (count) |
| keys_not_handed_over | move_in | status is not ended, startsOn ≤ today (a tenancy without startsOn has not \
started), nothing held |
| keys_unattributed | move_in while active, else move_out | ambiguous key sets exist (count) |
| meter_readings_missing | move_in | meters of the unit without a reading in the move-in handover (count) |
| handover_open | move_in | no move-in handover, or it is open |
| check_out_missing | move_out | notice_given or ended, no non-cancelled check-out |
| check_out_open | move_out | notice_given or ended, the check-out is due or booked |
| follow_ups_open | move_out | the check-out shown has open follow-ups (count) |
| keys_held | move_out | ended and key sets still held (count) |
| meter_readings_missing | move_out | notice_given or ended: meters without a move-out reading (count) |
| forwarding_missing | move_out | notice_given or ended, no forwarding address (a blank one counts as none) |
| notice_evidence_missing | move_out | noticeGivenOn set, no notice evidence document |
| handover_open | move_out | notice_given or ended, and no move-out handover or it is open |

A follow-up is open while its repair's status is not completed/cancelled or its task's status is not
done/cancelled. The key items are computed from the key sets even when \`keys\` is \`null\`.

The row always reflects every write committed before the request: the service keeps it computed, and every
write that changes what it is computed from discards it in its own transaction.

An unknown tenancy and another workspace's tenancy both answer 404 \`HandoverNotFound\`.`.trim();

/** A tenancy's move-in and move-out handovers with visits, keys and outstanding items. */
export const forTenancy = operation({
  id: "handovers.forTenancy",
  group: "handovers",
  method: "GET",
  path: "/handovers/tenancies/:tenancyId",
  summary: "A tenancy's move-in and move-out handovers with visits, keys and outstanding items.",
  description,
  params: Type.Object({ tenancyId: Id }, { additionalProperties: false }),
  response: HandoverRow,
  conditional: true,
  errors: [HandoverNotFound],
  listedErrors: apiErrorTable,
  // The stored row is the key-check read: a request for a stored row costs one statement.
  keyCheckRead: (db, workspace, params) => servableRow(db, workspace, params.tenancyId ?? ""),
  run: async ({ app, db, principal, params, keyCheckRead }) => {
    const access: RowAccess = {
      inspections: principal.scopes.has("inspections:read"),
      keys: principal.scopes.has("keys:read"),
    };
    // The stored row when there is one (sql/0008): one indexed read, served as it is to keys that read everything.
    const stored = keyCheckRead
      ? ((keyCheckRead.value as string | null) ?? undefined)
      : await storedRow(db, principal.workspaceId, params.tenancyId);
    if (stored !== undefined)
      return readsAll(access) ? new Reply<HandoverRow>(new RawJson(stored)) : restrictRow(JSON.parse(stored), access);
    const inputs = await tenancyInputs(db, principal.workspaceId, params.tenancyId);
    if (!inputs) throw new HandoverNotFound({ tenancyId: params.tenancyId });
    const row = fullRow(inputs);
    const rowJson = JSON.stringify(row);
    try {
      await storeRow(db, {
        workspaceId: principal.workspaceId,
        tenancyId: inputs.tenancyId,
        version: inputs.rowVersion,
        rowJson,
        validBefore: validBefore(inputs),
      });
    } catch (error) {
      // The answer is right without it (a write holding the row, a tenancy deleted meanwhile): the next read
      // computes the row again. A held row is expected under writes; anything else is worth a warning.
      const held = (error as { code?: string }).code === "55P03";
      app.log[held ? "debug" : "warn"]("handover row not stored", {
        tenancyId: inputs.tenancyId,
        error: String((error as Error).message ?? error),
      });
    }
    return readsAll(access) ? new Reply<HandoverRow>(new RawJson(rowJson)) : restrictRow(row, access);
  },
});

/** Every operation of the group. */
export const operations = [forTenancy];
