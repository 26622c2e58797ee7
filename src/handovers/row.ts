/** Builds the tenancy handover row from its facts and the key's field-level access. */
import type { TenancyFacts, InspectionFacts } from "./queries.ts";
import type { FollowUp, HandoverRow, InspectionSummary, KeyEntry } from "./schema.ts";
import { outstandingItems } from "./outstanding.ts";

/** Which parts of the row the key may read besides handovers:read. */
export interface RowAccess {
  /** `inspections:read`: checkIn, checkOut and followUps. */
  inspections: boolean;
  /** `keys:read`: keys. */
  keys: boolean;
}

/** The unit's key sets sorted for a tenancy: held by it, checked out to one of its people without a tenancy, in the office. */
export function sortKeySets(keySets: readonly KeyEntry[], tenancyId: string, occupantContactIds: readonly string[]) {
  const occupants = new Set(occupantContactIds);
  const held: KeyEntry[] = [];
  const ambiguous: KeyEntry[] = [];
  const available: KeyEntry[] = [];
  for (const k of keySets) {
    if (k.status === "in_office") available.push(k);
    else if (k.status !== "checked_out") continue;
    else if (k.tenancyId === tenancyId) held.push(k);
    else if (k.tenancyId === null && (k.holderType === "tenant" || (k.holderContactId !== null && occupants.has(k.holderContactId)))) ambiguous.push(k);
  }
  return { held, ambiguous, available };
}

function summary(visit: InspectionFacts | null): InspectionSummary | null {
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
function followUpsOf(...visits: (InspectionFacts | null)[]): FollowUp[] {
  return visits
    .flatMap((v) => v?.followUps ?? [])
    .sort((a, b) => compareText(a.area, b.area) || compareText(a.item, b.item) || compareText(a.findingId, b.findingId));
}

/** The handover row: every field present; inspection and key fields null where the key may not read them. */
export function handoverRow(facts: TenancyFacts, access: RowAccess): HandoverRow {
  return restrictRow(fullRow(facts), access);
}

/** The row with every field readable: what is stored (sql/0008) and served to keys holding both read scopes. */
export function fullRow(facts: TenancyFacts): HandoverRow {
  const keys = sortKeySets(facts.keySets, facts.tenancyId, facts.occupants.map((o) => o.contactId));
  return {
    tenancyId: facts.tenancyId,
    tenancyStatus: facts.tenancyStatus,
    startsOn: facts.startsOn,
    endsOn: facts.endsOn,
    noticeGivenOn: facts.noticeGivenOn,
    unitId: facts.unitId,
    propertyId: facts.propertyId,
    occupants: facts.occupants,
    moveIn: facts.moveIn,
    moveOut: facts.moveOut,
    checkIn: summary(facts.checkIn),
    checkOut: summary(facts.checkOut),
    inspectionsReadable: true,
    followUps: followUpsOf(facts.checkIn, facts.checkOut),
    keys: { ...keys, otherActiveTenancyIds: facts.otherActiveTenancyIds },
    outstanding: outstandingItems({ ...facts, held: keys.held.length, ambiguous: keys.ambiguous.length }),
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
 * Until when a row computed from these facts stays right without any write: "today" only enters through
 * keys_not_handed_over (startsOn ≤ today), so a row computed before the start date expires on it.
 */
export function validBefore(facts: Pick<TenancyFacts, "startsOn" | "today">): string | null {
  return facts.startsOn !== null && facts.startsOn > facts.today ? facts.startsOn : null;
}
