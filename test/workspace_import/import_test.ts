/**
 * The workspace import (README, The import document): every collection, references, schema errors, idempotency,
 * the owner rule.
 */
import { describe, expect, test } from "bun:test";
import { contactNorms } from "../../src/contacts/normalise.ts";
import { harness } from "../support/harness.ts";
import { importWorkspace } from "../../src/workspace_import/import.ts";
import { ImportRejected } from "../../src/workspace_import/errors.ts";
import { TenantNotFound } from "../../src/core/errors.ts";
import { dumpDatabase } from "../support/dump.ts";
import { fullDocument, countRows } from "./fixtures.ts";

const h = await harness();
const db = h.database.db;

/** The error an import throws (fails the test when it succeeds). */
async function rejection(slug: string, doc: unknown): Promise<Record<string, unknown>> {
  try {
    await importWorkspace(db, slug, doc);
  } catch (error) {
    if (error instanceof ImportRejected || error instanceof TenantNotFound) return error.toBody();
    throw error;
  }
  throw new Error("the import was accepted");
}

/** The document with one change applied to a copy. */
function changed(edit: (doc: any) => void) {
  const doc = fullDocument();
  edit(doc);
  return doc;
}

describe("loading a document", () => {
  test("a document using every collection loads and reports its counts per collection", async () => {
    const ws = await h.workspace();
    const counts = await importWorkspace(db, ws.slug, fullDocument());
    expect(counts).toEqual({
      users: 2,
      entitlements: 2,
      hazardSettings: 1,
      contacts: 4,
      companyPeople: 1,
      properties: 1,
      blocks: 1,
      units: 2,
      tenancies: 2,
      handovers: 2,
      repairs: 1,
      tasks: 2,
      inspections: 1,
      keySets: 2,
      keyReports: 2,
      contractorInvoices: 2,
      calendarEvents: 2,
      smsThreads: 2,
      landlordPortalAccess: 1,
      onboardingCheckouts: 1,
    });
    const perTable = await db.unsafe<{ table: string; n: number }[]>(
      [
        "users",
        "workspace_modules",
        "hazard_settings",
        "contacts",
        "company_people",
        "properties",
        "property_landlords",
        "blocks",
        "block_fact_history",
        "units",
        "unit_meters",
        "tenancies",
        "tenancy_occupants",
        "handovers",
        "handover_meter_readings",
        "repairs",
        "tasks",
        "inspections",
        "inspection_findings",
        "key_sets",
        "key_reports",
        "contractor_authorisations",
        "contractor_invoices",
        "contractor_invoice_lines",
        "contractor_payments",
        "contractor_credit_notes",
        "contractor_recoveries",
        "contractor_limit_overrides",
        "calendar_events",
        "sms_threads",
        "landlord_portal_access",
        "onboarding_checkouts",
      ]
        .map((t) => `select '${t}' as table, count(*)::int as n from ${t} where workspace_id = $1`)
        .join(" union all "),
      [ws.id],
    );
    expect(Object.fromEntries(perTable.map((r) => [r.table, r.n]))).toEqual({
      users: 3,
      workspace_modules: 2,
      hazard_settings: 1,
      contacts: 4,
      company_people: 1,
      properties: 1,
      property_landlords: 1,
      blocks: 1,
      block_fact_history: 1,
      units: 2,
      unit_meters: 3,
      tenancies: 2,
      tenancy_occupants: 1,
      handovers: 2,
      handover_meter_readings: 2,
      repairs: 1,
      tasks: 2,
      inspections: 1,
      inspection_findings: 2,
      key_sets: 2,
      key_reports: 2,
      contractor_authorisations: 1,
      contractor_invoices: 2,
      contractor_invoice_lines: 3,
      contractor_payments: 2,
      contractor_credit_notes: 1,
      contractor_recoveries: 1,
      contractor_limit_overrides: 1,
      calendar_events: 2,
      sms_threads: 2,
      landlord_portal_access: 1,
      onboarding_checkouts: 1,
    });
  });

  test("rows read back with the document's values, normalised contact columns and computed invoice totals", async () => {
    const ws = await h.workspace();
    await importWorkspace(db, ws.slug, fullDocument());
    const [land] = await db`select * from contacts where workspace_id = ${ws.id} and id = 'c-land'`;
    expect(land).toMatchObject({
      kind: "person",
      name: "Linda Landlord",
      email: "Linda.Landlord@Example.TEST",
      mobile: "07700 900123",
      addressPostcode: "BS1 4DJ",
      roles: ["landlord"],
      overseas: false,
      emailNorm: "linda.landlord@example.test",
      mobileNorm: "+447700900123",
      postcodeNorm: "BS1 4DJ",
      nameNorm: "linda landlord",
      revision: 1,
    });
    const [gone] =
      await db`select name, name_norm, iso(archived_at) as archived_at from contacts where workspace_id = ${ws.id} and id = 'c-gone'`;
    expect(gone).toEqual({
      name: "Zoë Ångström-Archer – 🏠",
      nameNorm: contactNorms({ name: "Zoë Ångström-Archer – 🏠" }).nameNorm,
      archivedAt: "2025-03-01T12:00:00.000Z",
    });
    expect(gone?.nameNorm).toBe("zoe angstromarcher");
    const [ten] =
      await db`select email_canon, mobile_norm from contacts where workspace_id = ${ws.id} and id = 'c-ten'`;
    expect(ten).toEqual({ emailCanon: "tomtenant@gmail.com", mobileNorm: "+447700900456" });
    const [co] =
      await db`select registration_number, registration_norm, name_norm, legacy_contact_id, iso(created_at) as created_at from contacts where workspace_id = ${ws.id} and id = 'c-co'`;
    expect(co).toEqual({
      registrationNumber: "01234567",
      registrationNorm: "01234567",
      nameNorm: "fixit plumbing",
      legacyContactId: "OLD-77",
      createdAt: "2024-05-06T07:08:09.123Z",
    });

    const [invoice] = await db`
      select net_minor::int, vat_minor::int, gross_minor::int, credited_minor::int, payable_minor::int, paid_minor::int,
             outstanding_minor::int, recovered_minor::int, recoverable_minor::int, status, authorisation_id, revision
      from contractor_invoices where workspace_id = ${ws.id} and id = 'inv-1'`;
    expect(invoice).toEqual({
      netMinor: 10500,
      vatMinor: 2100,
      grossMinor: 12600,
      creditedMinor: 600,
      payableMinor: 12000,
      paidMinor: 5000,
      outstandingMinor: 7000,
      recoveredMinor: 3000,
      recoverableMinor: 9000,
      status: "part_paid",
      authorisationId: "auth-1",
      revision: 1,
    });
    const [voided] =
      await db`select status, authorisation_id from contractor_invoices where workspace_id = ${ws.id} and id = 'inv-2'`;
    expect(voided).toEqual({ status: "void", authorisationId: "auth-1" });
    const [override] =
      await db`select excess_minor::int, user_id, iso(created_at) as created_at from contractor_limit_overrides where workspace_id = ${ws.id}`;
    expect(override).toEqual({ excessMinor: 2000, userId: "u-owner", createdAt: "2026-01-11T09:00:00.000Z" });
    const [corrected] =
      await db`select correction_reason from contractor_payments where workspace_id = ${ws.id} and id = 'pay-2'`;
    expect(corrected).toEqual({ correctionReason: "Duplicate entry" });

    const [block] =
      await db`select facts, policy_version, revision::int, updated_by_user_id from blocks where workspace_id = ${ws.id}`;
    expect(block).toEqual({
      facts: { storeyOver11m: "yes" },
      policyVersion: "block-facts-2025-1",
      revision: 0,
      updatedByUserId: "u-owner",
    });
    const [property] = await db`select facts from properties where workspace_id = ${ws.id}`;
    expect(property!.facts).toEqual({ fireAlarm: "yes", communalWater: "no" });
    expect(
      (await db`select meter from unit_meters where workspace_id = ${ws.id} order by meter`).map((r) => r.meter),
    ).toEqual(["electricity", "gas", "water"]);
    expect<unknown>(
      await db`select meter, reading, ymd(read_on) as read_on from handover_meter_readings where workspace_id = ${ws.id} order by meter`,
    ).toEqual([
      { meter: "electricity", reading: "01234", readOn: "2025-01-01" },
      { meter: "gas", reading: "567.8", readOn: null },
    ]);
    expect<unknown>(
      await db`select contact_id, role, is_lead from tenancy_occupants where workspace_id = ${ws.id}`,
    ).toEqual([{ contactId: "c-ten", role: "tenant", isLead: true }]);
    expect<unknown>(
      await db`select id, repair_id, task_id from inspection_findings where workspace_id = ${ws.id} order by id`,
    ).toEqual([
      { id: "f-1", repairId: "r-1", taskId: null },
      { id: "f-2", repairId: null, taskId: "tk-1" },
    ]);
    expect<unknown>(
      await db`select id, cleared_by, iso(cleared_at) as cleared_at from key_reports where workspace_id = ${ws.id} order by id`,
    ).toEqual([
      { id: "kr-1", clearedBy: null, clearedAt: null },
      { id: "kr-2", clearedBy: "Sam Staff", clearedAt: "2026-01-03T09:00:00.000Z" },
    ]);
    const [event] =
      await db`select feedback, iso(ends_at) as ends_at, status from calendar_events where workspace_id = ${ws.id} and id = 'e-1'`;
    expect(event).toEqual({
      feedback: { interest: "keen", themes: ["light"], nextAction: null, note: null },
      endsAt: "2026-11-22T10:00:00.000Z",
      status: "scheduled",
    });
    expect<unknown>(await db`select regime, revision from hazard_settings where workspace_id = ${ws.id}`).toEqual([
      { regime: "social", revision: 1 },
    ]);
    expect(
      (await db`select module_id from workspace_modules where workspace_id = ${ws.id} order by 1`).map(
        (r) => r.moduleId,
      ),
    ).toEqual(["maintenance-pro", "telephony"]);
    expect<unknown>(
      await db`select status, iso(accepted_at) as accepted_at from landlord_portal_access where workspace_id = ${ws.id}`,
    ).toEqual([{ status: "active", acceptedAt: "2026-01-02T10:00:00.000Z" }]);
    expect<unknown>(await db`select id, stopped from sms_threads where workspace_id = ${ws.id} order by id`).toEqual([
      { id: "s-1", stopped: false },
      { id: "s-2", stopped: true },
    ]);
  });

  test("loading the same document twice changes nothing at all", async () => {
    const ws = await h.workspace();
    await importWorkspace(db, ws.slug, fullDocument());
    const before = await dumpDatabase(db);
    const counts = await importWorkspace(db, ws.slug, fullDocument());
    expect(counts.contacts).toBe(4);
    expect(await dumpDatabase(db)).toEqual(before);
  });

  test("a changed record is updated with its revision up by one; the others keep theirs", async () => {
    const ws = await h.workspace();
    await importWorkspace(db, ws.slug, fullDocument());
    await importWorkspace(
      db,
      ws.slug,
      changed((d) => {
        d.contacts[0].name = "Linda Lessor";
        d.tasks[0].status = "in_progress";
      }),
    );
    const contacts =
      await db`select id, name, name_norm, revision from contacts where workspace_id = ${ws.id} order by id`;
    expect(contacts.find((c) => c.id === "c-land")).toEqual({
      id: "c-land",
      name: "Linda Lessor",
      nameNorm: "linda lessor",
      revision: 2,
    });
    expect(contacts.filter((c) => c.id !== "c-land").map((c) => c.revision)).toEqual([1, 1, 1]);
    expect<unknown>(await db`select id, status, revision from tasks where workspace_id = ${ws.id} order by id`).toEqual(
      [
        { id: "tk-1", status: "in_progress", revision: 2 },
        { id: "tk-2", status: "done", revision: 1 },
      ],
    );
  });

  test("a record's nested lists are complete: entries left out are removed and the invoice is recomputed", async () => {
    const ws = await h.workspace();
    await importWorkspace(db, ws.slug, fullDocument());
    await importWorkspace(
      db,
      ws.slug,
      changed((d) => {
        d.units[0].meters = ["electricity"];
        d.tenancies[0].occupants = [];
        d.contractorInvoices[0].payments = [d.contractorInvoices[0].payments[1]];
        d.contractorInvoices[0].limitOverride = null;
        d.inspections[0].findings = [d.inspections[0].findings[0]];
        d.properties[0].landlordContactIds = null;
      }),
    );
    expect(
      (await db`select meter from unit_meters where workspace_id = ${ws.id} and unit_id = 'un-1'`).map((r) => r.meter),
    ).toEqual(["electricity"]);
    expect<unknown>(await db`select 1 from tenancy_occupants where workspace_id = ${ws.id}`).toHaveLength(0);
    expect<unknown>(await db`select 1 from property_landlords where workspace_id = ${ws.id}`).toHaveLength(0);
    expect<unknown>(await db`select 1 from contractor_limit_overrides where workspace_id = ${ws.id}`).toHaveLength(0);
    expect((await db`select id from inspection_findings where workspace_id = ${ws.id}`).map((r) => r.id)).toEqual([
      "f-1",
    ]);
    const [invoice] =
      await db`select paid_minor::int, outstanding_minor::int, status, revision from contractor_invoices where workspace_id = ${ws.id} and id = 'inv-1'`;
    expect(invoice).toEqual({ paidMinor: 0, outstandingMinor: 12000, status: "approved", revision: 2 });
  });

  test("a change to an invoice's entries alone raises its revision once", async () => {
    const ws = await h.workspace();
    await importWorkspace(db, ws.slug, fullDocument());
    await importWorkspace(
      db,
      ws.slug,
      changed((d) => {
        d.contractorInvoices[0].payments[0].reference = "BACS 1 (corrected reference)";
        d.contractorInvoices[0].lines[1].description = "Washer, 15 mm";
      }),
    );
    expect<unknown>(
      await db`select id, revision from contractor_invoices where workspace_id = ${ws.id} order by id`,
    ).toEqual([
      { id: "inv-1", revision: 2 },
      { id: "inv-2", revision: 1 },
    ]);
  });

  test("omitting createdAt keeps the stored creation time", async () => {
    const ws = await h.workspace();
    await importWorkspace(db, ws.slug, fullDocument());
    await importWorkspace(
      db,
      ws.slug,
      changed((d) => delete d.contacts[2].createdAt),
    );
    const [co] =
      await db`select iso(created_at) as created_at, revision from contacts where workspace_id = ${ws.id} and id = 'c-co'`;
    expect(co).toEqual({ createdAt: "2024-05-06T07:08:09.123Z", revision: 1 });
  });

  test("records may refer to records already in the workspace", async () => {
    const ws = await h.workspace();
    await importWorkspace(db, ws.slug, fullDocument());
    const counts = await importWorkspace(db, ws.slug, {
      tenancies: [
        {
          id: "t-3",
          unitId: "un-2",
          status: "ended",
          startsOn: "2020-01-01",
          endsOn: "2024-12-31",
          occupants: [{ contactId: "c-ten" }],
        },
      ],
      keySets: [
        {
          id: "k-3",
          reference: "K003",
          label: "Garage",
          unitId: "un-2",
          status: "lost",
          holderType: "other",
          tenancyId: "t-3",
        },
      ],
    });
    expect(counts.tenancies).toBe(1);
    expect<unknown>(
      await db`select role, is_lead from tenancy_occupants where workspace_id = ${ws.id} and tenancy_id = 't-3'`,
    ).toEqual([{ role: "tenant", isLead: false }]);
  });

  test("concurrent imports of one document into one workspace both succeed and leave one copy", async () => {
    const ws = await h.workspace();
    await Promise.all([importWorkspace(db, ws.slug, fullDocument()), importWorkspace(db, ws.slug, fullDocument())]);
    expect<unknown>(await db`select count(*)::int as n from contacts where workspace_id = ${ws.id}`).toEqual([
      { n: 4 },
    ]);
    expect<unknown>(
      await db`select count(*)::int as n from users where workspace_id = ${ws.id} and role = 'owner'`,
    ).toEqual([{ n: 1 }]);
  });

  test("an unknown workspace is TenantNotFound", async () => {
    expect(await rejection("no-such-workspace", fullDocument())).toEqual({
      _tag: "TenantNotFound",
      slug: "no-such-workspace",
    });
  });
});

describe("a refused document writes nothing", () => {
  const broken: [string, (d: any) => void, string, RegExp][] = [
    ["a tenancy's unit", (d) => (d.tenancies[1].unitId = "un-9"), "/tenancies/1/unitId", /"un-9" names no unit/],
    [
      "a finding's repair",
      (d) => (d.inspections[0].findings[0].repairId = "r-9"),
      "/inspections/0/findings/0/repairId",
      /no repair/,
    ],
    [
      "a landlord of a property",
      (d) => d.properties[0].landlordContactIds.push("c-9"),
      "/properties/0/landlordContactIds/1",
      /no contact/,
    ],
    [
      "an invoice's contractor",
      (d) => (d.contractorInvoices[1].contractorContactId = "c-9"),
      "/contractorInvoices/1/contractorContactId",
      /no contact/,
    ],
    [
      "an event's follow-up task",
      (d) => (d.calendarEvents[0].followUpTaskId = "tk-9"),
      "/calendarEvents/0/followUpTaskId",
      /no task/,
    ],
    ["a task's subject of a known kind", (d) => (d.tasks[0].subjectId = "un-9"), "/tasks/0/subjectId", /no unit/],
    ["a task's assignee user", (d) => (d.tasks[0].assigneeUserId = "u-9"), "/tasks/0/assigneeUserId", /no user/],
    ["a key report's key set", (d) => (d.keyReports[1].keySetId = "k-9"), "/keyReports/1/keySetId", /no key set/],
    [
      "a company person's company that is a person",
      (d) => (d.companyPeople[0].companyId = "c-land"),
      "/companyPeople/0/companyId",
      /kind company/,
    ],
    [
      "a unit's block of another property",
      (d) => {
        d.properties.push({ id: "p-2", label: "Elsewhere" });
        d.units[1].propertyId = "p-2";
        d.units[1].blockId = "b-1";
      },
      "/units/1/blockId",
      /block of property "p-2"/,
    ],
    [
      "a key set's tenancy of another unit",
      (d) => (d.keySets[0].tenancyId = "t-2"),
      "/keySets/0/tenancyId",
      /tenancy of unit "un-1"/,
    ],
    [
      "a portal access's contact",
      (d) => (d.landlordPortalAccess[0].contactId = "c-9"),
      "/landlordPortalAccess/0/contactId",
      /no contact/,
    ],
  ];
  test.each(broken)("a broken reference (%s) is refused naming its path", async (_name, edit, path, message) => {
    const ws = await h.workspace();
    await importWorkspace(db, ws.slug, { users: [{ id: "u-keep", name: "Kept", role: "staff" }] });
    const before = await countRows(db);
    const error = await rejection(ws.slug, changed(edit));
    expect(error).toMatchObject({ _tag: "ImportRejected", path });
    expect(error.message).toMatch(message);
    expect(await countRows(db)).toEqual(before);
  });

  test("a refused second load leaves the first one exactly as it was", async () => {
    const ws = await h.workspace();
    await importWorkspace(db, ws.slug, fullDocument());
    const before = await dumpDatabase(db);
    const error = await rejection(
      ws.slug,
      changed((d) => {
        d.contacts[0].name = "Changed";
        d.tasks[0].title = "Changed";
        d.smsThreads[0].contactId = "c-9";
      }),
    );
    expect(error.path).toBe("/smsThreads/0/contactId");
    expect(await dumpDatabase(db)).toEqual(before);
  });

  const invalid: [string, (d: any) => void, string, RegExp][] = [
    ["a bad email", (d) => (d.contacts[3].email = "not an email"), "/contacts/3/email", /email/],
    ["an unknown field", (d) => (d.contacts[0].grossMinor = 1), "/contacts/0/grossMinor", /Unknown field/],
    [
      "a derived invoice field",
      (d) => (d.contractorInvoices[0].status = "paid"),
      "/contractorInvoices/0/status",
      /Unknown field/,
    ],
    ["an unknown collection", (d) => (d.widgets = []), "/widgets", /Unknown field/],
    [
      "a date that does not exist",
      (d) => (d.tenancies[0].startsOn = "2026-02-30"),
      "/tenancies/0/startsOn",
      /YYYY-MM-DD/,
    ],
    [
      "a date of year 9999",
      (d) => (d.tenancies[0].startsOn = "9999-12-31"),
      "/tenancies/0/startsOn",
      /YYYY-MM-DD from 1900-01-01 to 2200-12-31/,
    ],
    [
      "an instant of 1899",
      (d) => (d.calendarEvents[1].startsAt = "1899-12-31T23:00:00Z"),
      "/calendarEvents/1/startsAt",
      /of a date from 1900-01-01 to 2200-12-31/,
    ],
    [
      "an instant without a zone",
      (d) => (d.calendarEvents[1].startsAt = "2026-11-23T09:30:00"),
      "/calendarEvents/1/startsAt",
      /RFC 3339/,
    ],
    [
      "a value outside its set",
      (d) => (d.tasks[1].status = "closed"),
      "/tasks/1/status",
      /"open", "in_progress", "done", "cancelled"/,
    ],
    [
      "a missing required field",
      (d) => delete d.inspections[0].reference,
      "/inspections/0/reference",
      /Expected required property/,
    ],
    [
      "a nested value of the wrong type",
      (d) => (d.contractorInvoices[0].lines[0].netMinor = "100"),
      "/contractorInvoices/0/lines/0/netMinor",
      /integer/,
    ],
    ["an id with a space", (d) => (d.repairs[0].id = "r 1"), "/repairs/0/id", /identifier/],
    ["an empty id", (d) => (d.repairs[0].id = ""), "/repairs/0/id", /identifier: 1 to 64 characters/],
    ["a 65-character id", (d) => (d.repairs[0].id = "r".repeat(65)), "/repairs/0/id", /identifier: 1 to 64 characters/],
    ["an unknown module", (d) => (d.entitlements = ["billing"]), "/entitlements/0", /"maintenance-pro", "telephony"/],
    [
      "a bad fact value",
      (d) => (d.blocks[0].facts.fireAlarm = "maybe"),
      "/blocks/0/facts/fireAlarm",
      /"yes", "no", "unknown"/,
    ],
    [
      "a duplicate id",
      (d) => d.contacts.push({ ...d.contacts[1] }),
      "/contacts/4",
      /Duplicate contact "c-ten": also at \/contacts\/1/,
    ],
    [
      "a duplicate nested id",
      (d) => (d.contractorInvoices[1].lines[0].id = "l-1"),
      "/contractorInvoices/1/lines/0",
      /Duplicate invoice line "l-1"/,
    ],
    ["two owners", (d) => (d.users[1].role = "owner"), "/users/1/role", /one owner/],
    [
      "an event ending before it starts",
      (d) => (d.calendarEvents[0].endsAt = "2026-11-22T09:00:00Z"),
      "/calendarEvents/0/endsAt",
      /after startsAt/,
    ],
    [
      "a limit override without an authorisation",
      (d) => (d.contractorInvoices[0].authorisation = null),
      "/contractorInvoices/0/limitOverride",
      /authorisation/,
    ],
    [
      "two versions of one authorisation",
      (d) => (d.contractorInvoices[1].authorisation.authorisedMinor = 1),
      "/contractorInvoices/1/authorisation",
      /differs/,
    ],
    [
      "a correction without a reason",
      (d) => delete d.contractorInvoices[0].payments[1].correctionReason,
      "/contractorInvoices/0/payments/1/correctionReason",
      /correctionReason/,
    ],
    [
      "two move-in handovers of one tenancy",
      (d) => (d.handovers[1].direction = "move_in"),
      "/handovers/1/direction",
      /Duplicate handover/,
    ],
    [
      "an occupant listed twice",
      (d) => d.tenancies[0].occupants.push({ contactId: "c-ten" }),
      "/tenancies/0/occupants/1",
      /Duplicate occupant/,
    ],
  ];
  test.each(invalid)(
    "a document breaking a rule (%s) is refused naming its path",
    async (_name, edit, path, message) => {
      const ws = await h.workspace();
      const before = await countRows(db);
      const error = await rejection(ws.slug, changed(edit));
      expect(error).toMatchObject({ _tag: "ImportRejected", path });
      expect(error.message).toMatch(message);
      expect(await countRows(db)).toEqual(before);
    },
  );

  test("a document that is not an object is refused as a whole", async () => {
    const ws = await h.workspace();
    expect(await rejection(ws.slug, [])).toEqual({
      _tag: "ImportRejected",
      path: "",
      message: "The document must be one JSON object",
    });
  });

  test("a nested record cannot move to another parent", async () => {
    const ws = await h.workspace();
    await importWorkspace(db, ws.slug, fullDocument());
    const error = await rejection(ws.slug, {
      contractorInvoices: [
        {
          id: "inv-3",
          number: "FX-102",
          borneBy: "agency",
          payments: [{ id: "pay-1", amountMinor: 1, paidOn: "2026-01-01" }],
        },
      ],
    });
    expect(error).toEqual({
      _tag: "ImportRejected",
      path: "/contractorInvoices/0/payments/0/id",
      message: '"pay-1" already belongs to invoice "inv-1" in the workspace',
    });
  });

  test("a second handover for a tenancy and direction already taken is refused", async () => {
    const ws = await h.workspace();
    await importWorkspace(db, ws.slug, fullDocument());
    const error = await rejection(ws.slug, {
      handovers: [{ id: "h-9", tenancyId: "t-1", direction: "move_out", status: "open" }],
    });
    expect(error).toEqual({
      _tag: "ImportRejected",
      path: "/handovers/0/direction",
      message: 'Tenancy "t-1" already has a move_out handover "h-2"',
    });
  });
});

describe("the owner", () => {
  test("a user imported as owner becomes the owner and the previous owner an admin", async () => {
    const ws = await h.workspace();
    const oldOwnerKey = await h.key(ws, ["maintenance-pro:write"]);
    const before = await h.request("PUT", "/maintenance-pro/hazard-settings", { key: oldOwnerKey, body: {} });
    expect(before.body._tag).not.toBe("WorkspaceOwnerRequired");
    await importWorkspace(db, ws.slug, fullDocument());
    expect<unknown>(await db`select id, role from users where workspace_id = ${ws.id} order by id`).toEqual([
      { id: ws.ownerUserId, role: "admin" },
      { id: "u-owner", role: "owner" },
      { id: "u-staff", role: "staff" },
    ]);
    const after = await h.request("PUT", "/maintenance-pro/hazard-settings", { key: oldOwnerKey, body: {} });
    expect(after.body).toEqual({ _tag: "WorkspaceOwnerRequired" });
    const newOwnerKey = await h.key(ws, ["maintenance-pro:write"], { createdBy: "u-owner" });
    const mine = await h.request("PUT", "/maintenance-pro/hazard-settings", { key: newOwnerKey, body: {} });
    expect(mine.body._tag).not.toBe("WorkspaceOwnerRequired");
  });

  test("handing over twice keeps exactly one owner", async () => {
    const ws = await h.workspace();
    await importWorkspace(db, ws.slug, fullDocument());
    await importWorkspace(db, ws.slug, { users: [{ id: "u-staff", name: "Sam Staff", role: "owner" }] });
    expect<unknown>(await db`select id, role from users where workspace_id = ${ws.id} and role = 'owner'`).toEqual([
      { id: "u-staff", role: "owner" },
    ]);
    expect<unknown>(await db`select role from users where workspace_id = ${ws.id} and id = 'u-owner'`).toEqual([
      { role: "admin" },
    ]);
  });

  test("the owner cannot be demoted without naming another owner", async () => {
    const ws = await h.workspace();
    await importWorkspace(db, ws.slug, fullDocument());
    const before = await dumpDatabase(db);
    const error = await rejection(ws.slug, { users: [{ id: "u-owner", name: "Olivia Owner", role: "admin" }] });
    expect(error).toMatchObject({ _tag: "ImportRejected", path: "/users/0/role" });
    expect(await dumpDatabase(db)).toEqual(before);
  });

  test("a document without users leaves the owner alone", async () => {
    const ws = await h.workspace();
    await importWorkspace(db, ws.slug, { contacts: [{ id: "c-1", kind: "person", name: "Ann" }] });
    expect<unknown>(await db`select id from users where workspace_id = ${ws.id} and role = 'owner'`).toEqual([
      { id: ws.ownerUserId },
    ]);
  });
});
