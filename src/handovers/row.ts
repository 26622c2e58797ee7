/** Builds the tenancy handover row from its inputs and the key's field-level access. */
import type { TenancyInputs, InspectionInputs } from "./queries.ts";
import type { FollowUp, HandoverRow, InspectionSummary, KeyEntry } from "./schema.ts";
import { outstandingItems } from "./outstanding.ts";

/** Which parts of the row the key may read besides handovers:read. */
export interface RowAccess {
  /** `inspections:read`: checkIn, checkOut and followUps. */
  inspections: boolean;
  /** `keys:read`: keys. */
  keys: boolean;
}

/**
 * The unit's key sets classified for a tenancy: held by it, ambiguous (checked out to one of its people without a
 * tenancy), available (in the office); lost ones and those checked out elsewhere are in none.
 */
export function classifyKeySets(
  keySets: readonly KeyEntry[],
  tenancyId: string,
  occupantContactIds: readonly string[],
) {
  const occupants = new Set(occupantContactIds);
  const held: KeyEntry[] = [];
  const ambiguous: KeyEntry[] = [];
  const available: KeyEntry[] = [];
  for (const k of keySets) {
    if (k.status === "in_office") available.push(k);
    else if (k.status !== "checked_out") continue;
    else if (k.tenancyId === tenancyId) held.push(k);
    else if (
      k.tenancyId === null &&
      (k.holderType === "tenant" || (k.holderContactId !== null && occupants.has(k.holderContactId)))
    )
      ambiguous.push(k);
  }
  return { held, ambiguous, available };
}

function summary(visit: InspectionInputs | null): InspectionSummary | null {
  if (!visit) return null;
  const { followUps, ...rest } = visit;
  return { ...rest, followUpCount: followUps.length };
}

function compareText(a: string | null, b: string | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  return a < b ? -1 : 1;
}

/** The follow-ups of the check-in and check-out together, by area, item (none first), findingId. */
function followUpsOf(...visits: (InspectionInputs | null)[]): FollowUp[] {
  return visits
    .flatMap((v) => v?.followUps ?? [])
    .sort(
      (a, b) => compareText(a.area, b.area) || compareText(a.item, b.item) || compareText(a.findingId, b.findingId),
    );
}

/**
 * The version of what fullRow computes, stored with each row (sql/0012): raise it whenever a change here, in
 * outstanding.ts or in schema.ts changes what a row holds for the same inputs (a field, a rule, a message, an order).
 * Stored rows of another shape are then computed again on their next read; no migration is needed. During a rolling
 * deploy, processes of two shapes each compute the other's rows again (correct, slower).
 * test/handovers/row_shape_test.ts fails until it is raised.
 */
export const rowShape = 1;

/** The handover row: every field present; inspection and key fields null where the key may not read them. */
export function handoverRow(inputs: TenancyInputs, access: RowAccess): HandoverRow {
  return restrictRow(fullRow(inputs), access);
}

/** The row with every field readable: what is stored (sql/0008) and served to keys holding both read scopes. */
export function fullRow(inputs: TenancyInputs): HandoverRow {
  const keys = classifyKeySets(
    inputs.keySets,
    inputs.tenancyId,
    inputs.occupants.map((o) => o.contactId),
  );
  return {
    tenancyId: inputs.tenancyId,
    tenancyStatus: inputs.tenancyStatus,
    startsOn: inputs.startsOn,
    endsOn: inputs.endsOn,
    noticeGivenOn: inputs.noticeGivenOn,
    unitId: inputs.unitId,
    propertyId: inputs.propertyId,
    occupants: inputs.occupants,
    moveIn: inputs.moveIn,
    moveOut: inputs.moveOut,
    checkIn: summary(inputs.checkIn),
    checkOut: summary(inputs.checkOut),
    inspectionsReadable: true,
    followUps: followUpsOf(inputs.checkIn, inputs.checkOut),
    keys: { ...keys, otherActiveTenancyIds: inputs.otherActiveTenancyIds },
    // The only input here that changes without a write is inputs.today: see validBefore before using it in a rule.
    outstanding: outstandingItems({ ...inputs, held: keys.held.length, ambiguous: keys.ambiguous.length }),
  };
}

/** Whether a key may read every field of the row. */
export const readsAll = (access: RowAccess) => access.inspections && access.keys;

/** A full row as a key with this access sees it: the fields it may not read are null; outstanding never changes. */
export function restrictRow(row: HandoverRow, access: RowAccess): HandoverRow {
  if (readsAll(access)) return row;
  return {
    ...row,
    checkIn: access.inspections ? row.checkIn : null,
    checkOut: access.inspections ? row.checkOut : null,
    inspectionsReadable: access.inspections,
    followUps: access.inspections ? row.followUps : null,
    keys: access.keys ? row.keys : null,
  };
}

/**
 * Until when a row computed from these inputs stays right without any write: "today" only enters through
 * keys_not_handed_over (startsOn ≤ today), so a row computed before the start date expires on it.
 * Any rule that depends on "today" (in outstanding.ts or here) must move this date as well: the first day its
 * answer could differ from today's. A stored row is served until then without being computed again (sql/0008).
 */
export function validBefore(inputs: Pick<TenancyInputs, "startsOn" | "today">): string | null {
  return inputs.startsOn !== null && inputs.startsOn > inputs.today ? inputs.startsOn : null;
}
