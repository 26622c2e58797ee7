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
    checkIn: access.inspections ? summary(facts.checkIn) : null,
    checkOut: access.inspections ? summary(facts.checkOut) : null,
    inspectionsReadable: access.inspections,
    followUps: access.inspections ? followUpsOf(facts.checkIn, facts.checkOut) : null,
    keys: access.keys ? { ...keys, otherActiveTenancyIds: facts.otherActiveTenancyIds } : null,
    outstanding: outstandingItems({ ...facts, held: keys.held.length, ambiguous: keys.ambiguous.length }),
  };
}
