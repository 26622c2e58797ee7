/** Documents and database dumps for the import tests. */
import type { Db } from "../../src/core/db.ts";

/** A small document that uses every collection and every nested list. */
export function fullDocument() {
  return {
    users: [
      { id: "u-owner", name: "Olivia Owner", email: "olivia@example.test", role: "owner" },
      { id: "u-staff", name: "Sam Staff", email: null, role: "staff", createdAt: "2025-01-02T09:00:00Z" },
    ],
    entitlements: ["maintenance-pro", "telephony"],
    hazardSettings: { regime: "social" },
    contacts: [
      { id: "c-land", kind: "person", name: "Linda Landlord", email: " Linda.Landlord@Example.TEST ", mobile: "07700 900123", addressPostcode: "bs14dj", roles: ["landlord"] },
      { id: "c-ten", kind: "person", name: "Tom Tenant", email: "tom.tenant+flat@googlemail.com", mobile: "+44 (0)7700 900456", roles: ["tenant"] },
      { id: "c-co", kind: "company", name: "Fixit Plumbing Ltd.", registrationNumber: "1234567", roles: ["contractor"], addressTown: "Leeds", addressPostcode: "LS6 3BE", overseas: false, website: "https://fixit.example", notes: "Gas Safe registered", registrationJurisdiction: "England and Wales", legacyContactId: "OLD-77", createdAt: "2024-05-06T07:08:09.123Z" },
      { id: "c-gone", kind: "person", name: "Zoë Ångström-Archer – 🏠", archivedAt: "2025-03-01T12:00:00Z" },
    ],
    companyPeople: [{ companyId: "c-co", contactId: "c-gone", role: "director" }],
    properties: [
      { id: "p-1", label: "Harbour View", addressLine1: "1 Quay Street", addressTown: "Bristol", addressPostcode: "BS1 4DJ", landlordContactIds: ["c-land"], facts: { fireAlarm: "yes", communalWater: "no" } },
    ],
    blocks: [
      {
        id: "b-1", propertyId: "p-1", label: "Block A", facts: { storeyOver11m: "yes" }, updatedAt: "2025-06-01T10:00:00Z", updatedByUserId: "u-owner",
        history: [{ id: "bh-1", kind: "fact_changed", detail: "storeyOver11m: unknown → yes", actorUserId: "u-owner", createdAt: "2025-06-01T10:00:00Z" }],
      },
    ],
    units: [
      { id: "un-1", propertyId: "p-1", blockId: "b-1", label: "Flat 1", meters: ["electricity", "gas", "water"] },
      { id: "un-2", propertyId: "p-1", label: "Flat 2", meters: [] },
    ],
    tenancies: [
      { id: "t-1", unitId: "un-1", status: "notice_given", startsOn: "2025-01-01", endsOn: "2026-12-31", noticeGivenOn: "2026-10-01", occupants: [{ contactId: "c-ten", role: "tenant", isLead: true }] },
      { id: "t-2", unitId: "un-2", status: "active", startsOn: "2025-02-01" },
    ],
    handovers: [
      { id: "h-1", tenancyId: "t-1", direction: "move_in", status: "completed", dueOn: "2025-01-01", completedAt: "2025-01-01T15:00:00Z", meterReadings: [{ meter: "electricity", reading: "01234", readOn: "2025-01-01" }, { meter: "gas", reading: 567.8 }] },
      { id: "h-2", tenancyId: "t-1", direction: "move_out", status: "open", dueOn: "2026-12-31", forwardingAddress: null, noticeEvidenceDocumentId: "doc-9" },
    ],
    repairs: [{ id: "r-1", reference: "REP-1", status: "in_progress", propertyId: "p-1", unitId: "un-1" }],
    tasks: [
      { id: "tk-1", title: "Replace smoke alarm", subjectKind: "unit", subjectId: "un-1", assigneeUserId: "u-staff", priority: "high", dueOn: "2026-12-01", status: "open" },
      { id: "tk-2", title: "Chase landlord", assigneeContactId: "c-land", status: "done", doneAt: "2026-01-01T10:00:00Z" },
    ],
    inspections: [
      { id: "i-1", tenancyId: "t-1", kind: "check_in", reference: "CI-1", status: "completed", outcome: "minor_actions", dueOn: "2025-01-01", completedAt: "2025-01-01T12:00:00Z", findings: [{ id: "f-1", area: "Kitchen", item: "Tap", repairId: "r-1" }, { id: "f-2", area: "Hall", item: null, taskId: "tk-1" }] },
    ],
    keySets: [
      { id: "k-1", reference: "K001", label: "Front door", unitId: "un-1", status: "checked_out", sequence: 1, holderType: "tenant", holderContactId: "c-ten", holderName: "Tom Tenant", tenancyId: "t-1" },
      { id: "k-2", reference: "K002", label: "Bin store", unitId: "un-1", status: "in_office", holderType: "office" },
    ],
    keyReports: [
      { id: "kr-1", keySetId: "k-1", note: "Sticks in lock", source: { kind: "tenant", id: "c-ten", label: "Tom Tenant" }, reportedBy: "Tom Tenant", reportedAt: "2026-02-01T09:00:00Z", cleared: null },
      { id: "kr-2", keySetId: "k-2", note: "Worn", source: { kind: "staff" }, reportedBy: "Sam Staff", reportedAt: "2026-01-01T09:00:00Z", cleared: { note: "Recut", by: "Sam Staff", at: "2026-01-03T09:00:00Z" } },
    ],
    contractorInvoices: [
      {
        id: "inv-1", subjectKind: "repair", subjectId: "r-1", subjectLabel: "REP-1", propertyId: "p-1", tenancyId: "t-1", contractorContactId: "c-co",
        number: "FX-100", issuedOn: "2026-01-10", dueOn: "2026-02-10", borneBy: "tenant", approvedAt: "2026-01-11T10:00:00Z",
        lines: [{ id: "l-1", kind: "labour", description: "Two hours", netMinor: 10000, vatMinor: 2000 }, { id: "l-2", kind: "materials", description: "Washer", netMinor: 500, vatMinor: 100 }],
        payments: [{ id: "pay-1", amountMinor: 5000, paidOn: "2026-01-20", reference: "BACS 1" }, { id: "pay-2", amountMinor: 999, paidOn: "2026-01-21", correctedAt: "2026-01-22T10:00:00Z", correctionReason: "Duplicate entry" }],
        creditNotes: [{ id: "cn-1", number: "CN-1", issuedOn: "2026-01-15", netMinor: 500, vatMinor: 100, reason: "Washer not fitted" }],
        recoveries: [{ id: "rec-1", amountMinor: 3000, receivedOn: "2026-01-25", reference: "Deposit" }],
        authorisation: { id: "auth-1", basis: "approved_quote", authorisedMinor: 10000, authorisedCurrency: "GBP" },
        limitOverride: { id: "lo-1", state: "exceeded", basis: "approved_quote", authorisedMinor: 10000, authorisedCurrency: "GBP", earlierMinor: 0, chargedMinor: 12000, excessMinor: 2000, reason: "Extra hour agreed by phone", userId: "u-owner", createdAt: "2026-01-11T09:00:00Z" },
      },
      { id: "inv-2", number: "FX-101", borneBy: "landlord", contractorContactId: "c-co", authorisation: { id: "auth-1", basis: "approved_quote", authorisedMinor: 10000, authorisedCurrency: "GBP" }, voidedAt: "2026-01-05T00:00:00Z", voidReason: "Sent twice", lines: [{ id: "l-3", kind: "labour", description: "Call-out", netMinor: 6000, vatMinor: 1200 }] },
    ],
    calendarEvents: [
      { id: "e-1", title: "Viewing", kind: "viewing", subjectKind: "unit", subjectId: "un-2", startsAt: "2026-11-22T09:30:00Z", endsAt: "2026-11-22T10:00:00+00:00", propertyId: "p-1", staffUserId: "u-staff", contactId: "c-ten", feedback: { interest: "keen", themes: ["light"] }, followUpTaskId: "tk-1" },
      { id: "e-2", title: "Inspection", kind: "inspection", startsAt: "2026-11-23T09:30:00Z", endsAt: "2026-11-23T10:30:00Z", status: "cancelled", cancelReason: "Tenant away", cancelledAt: "2026-11-20T10:00:00Z" },
    ],
    smsThreads: [
      { id: "s-1", localNumber: "+441170000000", address: "+447700900456", contactId: "c-ten", lastMessageAt: "2026-11-01T10:00:00Z", lastInboundAt: "2026-11-01T10:00:00Z", preview: "Thanks!", stopped: false },
      { id: "s-2", localNumber: "+441170000000", address: "+447700900999", stopped: true },
    ],
    landlordPortalAccess: [{ contactId: "c-land", status: "active", invitedAt: "2026-01-01T10:00:00Z", acceptedAt: "2026-01-02T10:00:00Z" }],
    onboardingCheckouts: [{ id: "oc-1", moduleId: "telephony", status: "started", startedAt: "2026-11-01T10:00:00Z" }],
  };
}

/** Every table of the database, each as a sorted JSON array of its rows. */
export async function dumpDatabase(db: Db): Promise<Record<string, string>> {
  const names = await db<{ tableName: string }[]>`
    select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`;
  const out: Record<string, string> = {};
  for (const { tableName } of names) {
    const [row] = await db.unsafe<{ rows: string }[]>(`select coalesce(json_agg(x order by x::text), '[]')::text as rows from "${tableName}" x`);
    out[tableName] = row!.rows;
  }
  return out;
}

/** Row counts of every table. */
export async function countRows(db: Db): Promise<Record<string, number>> {
  const dump = await dumpDatabase(db);
  return Object.fromEntries(Object.entries(dump).map(([k, v]) => [k, JSON.parse(v).length]));
}
