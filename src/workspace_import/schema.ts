/**
 * The workspace document (the import) as a TypeBox schema: the single
 * source of its validation and of its rules as users read them.
 */
import { Type, type Static, type TSchema, type TProperties } from "@sinclair/typebox";
import { dateRangeText } from "../core/dates.ts";
import "../core/formats.ts";
import { Identifier, Nullable } from "../core/schema.ts";
import { groups, moduleFor } from "../core/groups.ts";
import { knownPolicyVersions } from "../maintenance_pro/clocks.ts";
import {
  accessOutcomes,
  categories,
  channels,
  hazardLevels,
  hhsrsHazards,
  investigationOutcomes,
  milestoneKinds,
  reporterKinds,
  summaryMethods,
} from "../maintenance_pro/repair_schema.ts";

/** The modules a workspace can be entitled to: those the API groups need. */
export const moduleIds: readonly string[] = [...new Set(groups.map(moduleFor).filter((m): m is string => !!m))].sort();

const Opt = <T extends TSchema>(schema: T) => Type.Optional(Nullable(schema));
const Str = (description: string, max = 2000) => Type.String({ maxLength: max, description });
const Name = (description: string, max = 200) => Type.String({ minLength: 1, maxLength: max, description });
const Rec = <T extends TProperties>(properties: T, description: string) =>
  Type.Object(properties, { additionalProperties: false, description });
const Enum = <T extends string[]>(values: [...T], description: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    { description: `${description} One of: ${values.join(", ")}.` },
  );

/** A record id: kept as given. */
export const Id = Identifier("Identifier: 1 to 64 characters of A-Z a-z 0-9 _ -, kept as given.");
/** A calendar date of dateRange (src/core/dates.ts). */
export const DateOn = Type.String({
  format: "import-date",
  description: `Calendar date, YYYY-MM-DD, ${dateRangeText}.`,
});
/** An instant of a date of dateRange (src/core/dates.ts). */
export const Instant = Type.String({
  format: "import-instant",
  description:
    "Instant, RFC 3339 with a zone: 2026-11-22T09:30:00.000Z or 2026-11-22T09:30:00+01:00, of a date " +
    `${dateRangeText}.`,
});
const Email = Type.String({
  maxLength: 320,
  pattern: "^\\s*[^\\s@]+@[^\\s@]+\\.[^\\s@]+\\s*$",
  description: "An email address (stored trimmed).",
});
const Minor = (description: string) =>
  Type.Integer({ minimum: -1e15, maximum: 1e15, description: `${description} Integer, in minor units (pence).` });
const Currency = Type.String({ pattern: "^[A-Z]{3}$", description: "ISO 4217 currency code." });
const Created = Opt(Instant);
const createdNote = "When omitted, a new record gets the time of the import and an existing one keeps its own.";
const Module = Enum([...moduleIds], "A module id.");
const Meter = Enum(["electricity", "gas", "water"], "A meter.");
const FactValue = Enum(["yes", "no", "unknown"], "A block fact value.");
const Facts = Rec(
  {
    storeyOver11m: Type.Optional(FactValue),
    builtBefore2000: Type.Optional(FactValue),
    fireAlarm: Type.Optional(FactValue),
    emergencyLighting: Type.Optional(FactValue),
    communalWater: Type.Optional(FactValue),
  },
  "Block compliance facts; a name left out is not recorded (a block then inherits its property's value, else unknown).",
);

/** A user of the workspace. */
export const User = Rec(
  {
    id: Id,
    name: Name("Full name."),
    email: Opt(Email),
    role: Enum(
      ["owner", "admin", "staff"],
      "Role; a user imported as owner becomes the workspace's owner and the previous owner becomes an admin.",
    ),
    createdAt: Created,
  },
  "A user of the workspace.",
);

/** A contact: a person or a company. */
export const Contact = Rec(
  {
    id: Id,
    kind: Enum(["person", "company"], "Kind of contact."),
    name: Name("Name, 1 to 200 characters."),
    email: Opt(Email),
    mobile: Opt(Str("Mobile number as written; stored as given, matched in E.164.", 40)),
    addressLine1: Opt(Str("Address line 1.", 200)),
    addressLine2: Opt(Str("Address line 2.", 200)),
    addressTown: Opt(Str("Town.", 100)),
    addressPostcode: Opt(
      Str("Postcode; a UK postcode is stored upper case with one space before the last three characters.", 16),
    ),
    overseas: Opt(Type.Boolean({ description: "Whether the address is outside the UK (default false)." })),
    roles: Opt(
      Type.Array(Enum(["landlord", "tenant", "contractor", "supplier", "guarantor", "agent", "other"], "A role."), {
        uniqueItems: true,
        description: "Roles (default none).",
      }),
    ),
    registrationNumber: Opt(
      Str("Company registration number; an all-digit one is stored left-padded with zeros to 8.", 40),
    ),
    registrationJurisdiction: Opt(Str("Where the company is registered.", 100)),
    website: Opt(Str("Website.", 500)),
    notes: Opt(Str("Free notes.", 10000)),
    legacyContactId: Opt(Str("The contact's id in a previous system.", 200)),
    archivedAt: Opt(Instant),
    createdAt: Created,
  },
  "A contact. Its revision goes up by one whenever an import changes it. " + createdNote,
);

/** A person's place in a company. */
export const CompanyPerson = Rec(
  {
    companyId: Id,
    contactId: Id,
    role: Opt(Str("Role in the company (director, accounts, …).", 200)),
    archivedAt: Opt(Instant),
  },
  "A person of a company; `companyId` must be a contact of kind company. Keyed by (companyId, contactId).",
);

/** A property. */
export const Property = Rec(
  {
    id: Id,
    label: Name("Label."),
    addressLine1: Opt(Str("Address line 1.", 200)),
    addressTown: Opt(Str("Town.", 100)),
    addressPostcode: Opt(
      Str("Postcode; a UK postcode is stored upper case with one space before the last three characters.", 16),
    ),
    landlordContactIds: Opt(
      Type.Array(Id, {
        uniqueItems: true,
        description: "The landlords (contacts) owning the property: the whole list (omitted or null: none).",
      }),
    ),
    facts: Opt(Facts),
    createdAt: Created,
  },
  "A property. Its facts are inherited by its blocks.",
);

/** A block's fact history entry. */
export const BlockHistoryEntry = Rec(
  {
    id: Id,
    kind: Name("What happened (fact_changed, …)."),
    detail: Str("What changed, for people.", 2000),
    actorUserId: Opt(Id),
    policyVersion: Opt(Str("Rule set in force (default: the block's).", 100)),
    createdAt: Instant,
  },
  "An entry of a block's fact history.",
);

/** A block of a property. */
export const Block = Rec(
  {
    id: Id,
    propertyId: Id,
    label: Name("Label."),
    facts: Opt(Facts),
    history: Opt(Type.Array(BlockHistoryEntry, { description: "The whole history (omitted or null: none)." })),
    policyVersion: Opt(Str("Rule set of the facts (default block-facts-2025-1).", 100)),
    updatedAt: Opt(Instant),
    updatedByUserId: Opt(Id),
  },
  "A block. Its revision goes up by one whenever an import changes it.",
);

/** A unit (flat, house) of a property. */
export const Unit = Rec(
  {
    id: Id,
    propertyId: Id,
    blockId: Opt(Id),
    label: Name("Label."),
    meters: Opt(Type.Array(Meter, { uniqueItems: true, description: "The unit's meters (omitted or null: none)." })),
  },
  "A unit; its block, when given, must belong to the same property.",
);

/** An occupant of a tenancy. */
export const Occupant = Rec(
  {
    contactId: Id,
    role: Opt(Name("Role (default tenant).", 100)),
    isLead: Opt(Type.Boolean({ description: "Lead tenant (default false)." })),
  },
  "An occupant; a contact appears once per tenancy.",
);

/** A tenancy of a unit. */
export const Tenancy = Rec(
  {
    id: Id,
    unitId: Id,
    status: Enum(
      ["active", "notice_given", "ended"],
      "Status; an active tenancy whose startsOn is after today has not started yet.",
    ),
    startsOn: Opt(DateOn),
    endsOn: Opt(DateOn),
    noticeGivenOn: Opt(DateOn),
    occupants: Opt(Type.Array(Occupant, { description: "The whole list of occupants (omitted or null: none)." })),
  },
  "A tenancy.",
);

/** A meter reading taken at a handover. */
export const MeterReading = Rec(
  {
    meter: Meter,
    reading: Type.Union([Type.String({ minLength: 1, maxLength: 40 }), Type.Number()], {
      description: "The reading as written (a number is stored as its text).",
    }),
    readOn: Opt(DateOn),
  },
  "A meter reading; one per meter and handover.",
);

/** A move-in or move-out handover of a tenancy. */
export const Handover = Rec(
  {
    id: Id,
    tenancyId: Id,
    direction: Enum(["move_in", "move_out"], "Direction; one handover per tenancy and direction."),
    status: Enum(["open", "completed"], "Status."),
    dueOn: Opt(DateOn),
    completedAt: Opt(Instant),
    meterReadings: Opt(
      Type.Array(MeterReading, { description: "The whole list of readings (omitted or null: none)." }),
    ),
    forwardingAddress: Opt(Str("Where the tenant can be reached after moving out.", 1000)),
    noticeEvidenceDocumentId: Opt(Str("Document id of the notice evidence.", 200)),
  },
  "A handover.",
);

const RepairText = (description: string, max: number) =>
  Type.String({ minLength: 1, maxLength: max, pattern: "\\S", description: `${description} Stored trimmed.` });

/** Who reported a repair. */
export const RepairReporter = Rec(
  {
    kind: Enum([...reporterKinds], "Who reported it."),
    contactId: Opt(Id),
    name: Opt(RepairText("The reporter's name as given, up to 200 characters.", 200)),
  },
  "Who reported the repair; contactId, when given, must name a contact.",
);

/** A milestone of a repair. */
export const RepairMilestone = Rec(
  {
    kind: Enum([...milestoneKinds], "The milestone."),
    at: Instant,
    outcome: Opt(
      Enum([...investigationOutcomes], "The investigation's finding: required for investigated, refused otherwise."),
    ),
    method: Opt(Enum([...summaryMethods], "How the summary was sent: required for summary_sent, refused otherwise.")),
    note: Opt(RepairText("A note, up to 2000 characters.", 2000)),
    recordedAt: Opt({
      ...Instant,
      description: `When it was recorded; its \`at\` when omitted. ${Instant.description}`,
    }),
    recordedByUserId: Id,
  },
  "A milestone: what happened and when (`at`), and the user who recorded it.",
);

/** An attempt to get into the home for a repair. */
export const RepairAccessAttempt = Rec(
  {
    id: Id,
    at: Instant,
    outcome: Enum([...accessOutcomes], "What happened."),
    note: Opt(RepairText("A note, up to 2000 characters.", 2000)),
    recordedAt: Opt({
      ...Instant,
      description: `When it was recorded; its \`at\` when omitted. ${Instant.description}`,
    }),
  },
  "An access attempt, kept as evidence; not before the repair's awareAt.",
);

/** A repair. */
export const Repair = Rec(
  {
    id: Id,
    reference: Opt(
      Str("Reference: `R-<n>` for the repairs desk's count, which goes on above the highest imported number.", 100),
    ),
    status: Opt(
      Str(
        "reported, triaged, in_progress, completed or cancelled; any other value makes a legacy record (no clocks). " +
          "completed and cancelled close its follow-ups.",
        50,
      ),
    ),
    propertyId: Opt(Id),
    unitId: Opt(Id),
    tenancyId: Opt(Id),
    title: Opt(RepairText("1 to 200 characters.", 200)),
    description: Opt(RepairText("What is wrong, up to 5000 characters.", 5000)),
    location: Opt(RepairText("Where in the home, up to 200 characters.", 200)),
    category: Opt(Enum([...categories], "What needs repairing.")),
    reporter: Opt(RepairReporter),
    channel: Opt(Enum([...channels], "How the report reached the agency.")),
    awareAt: Opt({
      ...Instant,
      description: `When the agency became aware: the clocks' anchor. ${Instant.description}`,
    }),
    hazard: Opt(Enum([...hazardLevels], "The triage's hazard; set means triaged.")),
    hhsrsHazard: Opt(
      Enum([...hhsrsHazards], "The HHSRS hazard: required with hazard significant or emergency, refused otherwise."),
    ),
    regime: Opt(Enum(["private", "social"], "The hazard settings' regime at the last triage.")),
    policyVersion: Opt(
      Str(
        `The rule set of the clocks at the last triage: one the service knows (${knownPolicyVersions.join(", ")}).`,
        100,
      ),
    ),
    triagedAt: Opt(Instant),
    triagedByUserId: Opt(Id),
    triageNote: Opt(RepairText("The last triage's note, up to 2000 characters.", 2000)),
    milestones: Opt(Type.Array(RepairMilestone, { description: "The whole list (omitted or null: none)." })),
    accessAttempts: Opt(Type.Array(RepairAccessAttempt, { description: "The whole list (omitted or null: none)." })),
    cancelReason: Opt(RepairText("Why it was cancelled, up to 500 characters.", 500)),
    cancelledAt: Opt(Instant),
    createdAt: Created,
  },
  [
    "A repair, with the fields the repairs API answers; its hazard clocks are computed from them, never imported.",
    "References: the unit must be one of the property, the tenancy one of the unit, the reporter's contact and the",
    "users must exist. A repair whose status is none of reported, triaged, in_progress, completed, cancelled is a",
    "legacy record: it keeps its fields, has no clocks and no milestones. The other rules are the API's: hazard set",
    "means triaged and needs awareAt, regime, policyVersion and triagedAt, and hhsrsHazard goes with significant and",
    "emergency only; reported has no hazard; a triaged repair with status triaged has no milestones, in_progress has",
    "some but not completed, completed has completed, cancelled has cancelledAt and cancelReason (which only a",
    "cancelled repair has). Milestones need a hazard and keep the API's order: each kind once, summary_sent after",
    "investigated, safety_work_started and preventative_work_started after an investigation that found",
    "hazard_confirmed, none before awareAt or (those three) the investigation. Instants are not compared with the",
    "time of the import. Its revision goes up by one whenever an import changes it.",
  ].join(" "),
);

const subjectNote =
  "subjectKind is free text; for the kinds property, block, unit, tenancy, contact, repair, task, inspection, " +
  "key_set, contractor_invoice and user the subjectId must name such a record.";

/** A task. */
export const Task = Rec(
  {
    id: Id,
    title: Name("Title, 1 to 500 characters.", 500),
    subjectKind: Opt(Str("What the task is about.", 50)),
    subjectId: Opt(Id),
    assigneeContactId: Opt(Id),
    assigneeUserId: Opt(Id),
    assigneeStaffId: Opt(Id),
    teamId: Opt(Id),
    taskTypeId: Opt(Id),
    branchId: Opt(Id),
    priority: Opt(Enum(["urgent", "high", "normal", "low"], "Priority (default normal).")),
    dueOn: Opt(DateOn),
    status: Opt(Enum(["open", "in_progress", "done", "cancelled"], "Status (default open).")),
    createdByUserId: Opt(Id),
    dedupeKey: Opt(Str("Dedupe key.", 200)),
    requestId: Opt(Str("The requestId it was created with.", 128)),
    doneAt: Opt(Instant),
    createdAt: Created,
  },
  `A task. ${subjectNote} Its revision goes up by one whenever an import changes it.`,
);

/** A finding of an inspection. */
export const Finding = Rec(
  { id: Id, area: Name("Area (Kitchen, …)."), item: Opt(Str("Item.", 200)), repairId: Opt(Id), taskId: Opt(Id) },
  "A finding; with a repair or a task it is a follow-up.",
);

/** A check-in or check-out inspection of a tenancy. */
export const Inspection = Rec(
  {
    id: Id,
    tenancyId: Id,
    kind: Enum(["check_in", "check_out"], "Kind."),
    reference: Name("Reference.", 100),
    status: Enum(["due", "booked", "completed", "cancelled"], "Status."),
    outcome: Opt(Enum(["satisfactory", "minor_actions", "unsatisfactory"], "Outcome.")),
    dueOn: Opt(DateOn),
    bookedFor: Opt(Instant),
    completedAt: Opt(Instant),
    findings: Opt(Type.Array(Finding, { description: "The whole list of findings (omitted or null: none)." })),
  },
  "An inspection.",
);

/** A physical key set. */
export const KeySet = Rec(
  {
    id: Id,
    reference: Name("Reference (tag number).", 100),
    label: Name("Label."),
    unitId: Opt(Id),
    status: Enum(["in_office", "checked_out", "lost"], "Status."),
    sequence: Opt(
      Type.Integer({ minimum: -2147483648, maximum: 2147483647, description: "Order within the unit (default 0)." }),
    ),
    holderType: Enum(["office", "tenant", "contractor", "landlord", "staff", "other"], "Who holds it."),
    holderContactId: Opt(Id),
    holderName: Opt(Str("Holder's name (default empty).", 200)),
    tenancyId: Opt(Id),
  },
  "A key set; its tenancy, when given with a unit, must be a tenancy of that unit.",
);

/** A report that a key does not work. */
export const KeyReport = Rec(
  {
    id: Id,
    keySetId: Id,
    note: Str("What is wrong.", 2000),
    source: Rec(
      {
        kind: Enum(["contractor", "tenant", "staff", "inspection", "repair"], "Who or what reported it."),
        id: Opt(Str("Id of the source.", 64)),
        label: Opt(Str("Label of the source.", 200)),
      },
      "The source of the report.",
    ),
    reportedBy: Name("Who reported it."),
    reportedAt: Instant,
    cleared: Opt(
      Rec(
        { note: Opt(Str("How it was resolved.", 2000)), by: Name("Who cleared it."), at: Instant },
        "Set when cleared; null while open.",
      ),
    ),
  },
  "A key report.",
);

/** An invoice line. */
export const InvoiceLine = Rec(
  {
    id: Id,
    ordinal: Opt(
      Type.Integer({ minimum: 0, maximum: 100000, description: "Position (default: place in the list, from 1)." }),
    ),
    kind: Name("Kind (labour, materials, …).", 50),
    description: Str("Description.", 1000),
    netMinor: Minor("Net."),
    vatMinor: Minor("VAT."),
  },
  "A line; its grossMinor is computed.",
);

const correction = {
  correctedAt: Opt(Instant),
  correctionReason: Opt(Str("Why it was recorded in error; required with correctedAt.", 500)),
};

/** A payment of an invoice. */
export const Payment = Rec(
  {
    id: Id,
    amountMinor: Type.Integer({ minimum: 1, maximum: 1e15, description: "Amount, in minor units." }),
    paidOn: DateOn,
    reference: Opt(Str("Reference.", 200)),
    legacy: Opt(Type.Boolean({ description: "From a previous system (default false)." })),
    createdAt: Created,
    ...correction,
  },
  "A payment; a corrected one (correctedAt set) no longer counts.",
);

/** A credit note against an invoice. */
export const CreditNote = Rec(
  {
    id: Id,
    number: Name("Number.", 100),
    issuedOn: DateOn,
    netMinor: Minor("Net."),
    vatMinor: Minor("VAT."),
    reason: Opt(Str("Reason.", 1000)),
    documentId: Opt(Str("Document id.", 200)),
    createdAt: Created,
    ...correction,
  },
  "A credit note; its grossMinor is computed.",
);

/** Money recovered from the tenant for a tenant-borne invoice. */
export const Recovery = Rec(
  {
    id: Id,
    amountMinor: Type.Integer({ minimum: 1, maximum: 1e15, description: "Amount, in minor units." }),
    receivedOn: DateOn,
    reference: Opt(Str("Reference.", 200)),
    createdAt: Created,
    ...correction,
  },
  "A recovery.",
);

/** The authorisation (approved quote, works order limit) an invoice charges against. */
export const Authorisation = Rec(
  {
    id: Id,
    basis: Name("Basis (approved_quote, works_order_limit, …).", 50),
    authorisedMinor: Type.Integer({ minimum: 0, maximum: 1e15, description: "Amount authorised, in minor units." }),
    authorisedCurrency: Currency,
  },
  "An authorisation, shared by every invoice naming the same id (they must agree on its values). Its state, " +
    "earlier, charged, remaining and excess amounts are computed.",
);

/** A recorded decision to let an invoice exceed its authorisation. */
export const LimitOverride = Rec(
  {
    id: Id,
    state: Name("State (exceeded, …).", 50),
    basis: Name("Basis of the authorisation it overrides.", 50),
    authorisedMinor: Minor("Authorised amount at the time."),
    authorisedCurrency: Currency,
    earlierMinor: Minor("Charged by earlier invoices at the time."),
    chargedMinor: Minor("Charged by this invoice."),
    excessMinor: Minor("Amount over the authorisation."),
    reason: Name("Why the excess was accepted.", 1000),
    userId: Opt(Id),
    createdAt: Created,
  },
  "A limit override, as recorded when it was made; the invoice must have an authorisation.",
);

/** A contractor invoice with its entries. */
export const ContractorInvoice = Rec(
  {
    id: Id,
    subjectKind: Opt(Str("What the invoice is for (repair, …).", 50)),
    subjectId: Opt(Id),
    subjectLabel: Opt(Str("Label of the subject.", 200)),
    propertyId: Opt(Id),
    tenancyId: Opt(Id),
    contractorContactId: Opt(Id),
    number: Name("The contractor's invoice number.", 100),
    issuedOn: Opt(DateOn),
    dueOn: Opt(DateOn),
    currency: Opt(Type.String({ pattern: "^[A-Z]{3}$", description: "ISO 4217 currency code (default GBP)." })),
    borneBy: Enum(["landlord", "tenant", "agency"], "Who bears the cost."),
    documentId: Opt(Str("Document id.", 200)),
    approvedAt: Opt(Instant),
    disputedAt: Opt(Instant),
    disputeReason: Opt(Str("Reason of the dispute.", 1000)),
    disputedMinor: Opt(Minor("Amount disputed.")),
    voidedAt: Opt(Instant),
    voidReason: Opt(Str("Reason it was voided.", 1000)),
    legacy: Opt(Type.Boolean({ description: "From a previous system (default false)." })),
    legacyStatus: Opt(Str("Status in the previous system.", 50)),
    legacySettled: Opt(Type.Boolean({ description: "Settled in the previous system." })),
    createdAt: Created,
    lines: Opt(Type.Array(InvoiceLine, { description: "The whole list of lines (omitted or null: none)." })),
    payments: Opt(Type.Array(Payment, { description: "The whole list of payments (omitted or null: none)." })),
    creditNotes: Opt(
      Type.Array(CreditNote, { description: "The whole list of credit notes (omitted or null: none)." }),
    ),
    recoveries: Opt(Type.Array(Recovery, { description: "The whole list of recoveries (omitted or null: none)." })),
    authorisation: Opt(Authorisation),
    limitOverride: Opt(LimitOverride),
  },
  `A contractor invoice. Totals (net, VAT, gross, credited, payable, paid, outstanding, recovered, recoverable) ` +
    `and status are computed from the entries, never imported. ${subjectNote} Its revision goes up by one ` +
    `whenever an import changes it or its entries.`,
);

/** Feedback recorded after a viewing or visit. */
export const Feedback = Rec(
  {
    interest: Opt(Str("Interest (keen, …).", 50)),
    themes: Opt(Type.Array(Str("A theme.", 100), { description: "Themes (default none)." })),
    nextAction: Opt(Str("Next action (send_offer, …).", 50)),
    note: Opt(Str("Note.", 2000)),
  },
  "Feedback; stored with all four fields (null or [] when omitted).",
);

/** A calendar event. */
export const CalendarEvent = Rec(
  {
    id: Id,
    title: Name("Title.", 500),
    kind: Name("Kind (free text: viewing, inspection, …).", 50),
    subjectKind: Opt(Str("What the event is about.", 50)),
    subjectId: Opt(Id),
    startsAt: Instant,
    endsAt: Instant,
    location: Opt(Str("Where.", 500)),
    status: Opt(Enum(["scheduled", "completed", "cancelled"], "Status (default scheduled).")),
    propertyId: Opt(Id),
    staffUserId: Opt(Id),
    contactId: Opt(Id),
    notes: Opt(Str("Notes.", 10000)),
    outcome: Opt(Enum(["attended", "no_show"], "Outcome.")),
    outcomeNote: Opt(Str("Outcome note.", 2000)),
    outcomeRecordedAt: Opt(Instant),
    feedback: Opt(Feedback),
    followUpTaskId: Opt(Id),
    cancelReason: Opt(Str("Why it was cancelled.", 1000)),
    cancelledAt: Opt(Instant),
    createdByUserId: Opt(Id),
    createdAt: Created,
  },
  `A calendar event; endsAt must be after startsAt. ${subjectNote} Its revision goes up by one whenever an ` +
    `import changes it.`,
);

/** An SMS conversation. */
export const SmsThread = Rec(
  {
    id: Id,
    localNumber: Name("The workspace's number, E.164.", 20),
    address: Name("The other party's number, E.164.", 20),
    contactId: Opt(Id),
    lastMessageAt: Opt(Instant),
    lastInboundAt: Opt(Instant),
    preview: Opt(Str("Start of the last message.", 500)),
    stopped: Opt(Type.Boolean({ description: "The other party sent STOP (default false)." })),
  },
  "An SMS thread. Its revision goes up by one whenever an import changes it.",
);

/** A landlord's access to the portal. */
export const LandlordPortalAccess = Rec(
  {
    contactId: Id,
    status: Enum(["pending", "active", "revoked"], "Status."),
    invitedAt: Opt(Instant),
    acceptedAt: Opt(Instant),
    revokedAt: Opt(Instant),
  },
  "A landlord's portal access, keyed by contactId (one per contact). Invitation links are never imported.",
);

/** An onboarding checkout for a module. */
export const OnboardingCheckout = Rec(
  {
    id: Id,
    moduleId: Module,
    status: Enum(["started", "paid", "abandoned"], "Status."),
    startedAt: Created,
    abandonedAt: Opt(Instant),
  },
  "An onboarding checkout. startedAt: " + createdNote,
);

/** The whole workspace document. */
export const WorkspaceDocument = Rec(
  {
    users: Type.Optional(Type.Array(User)),
    entitlements: Type.Optional(
      Type.Array(Module, { uniqueItems: true, description: "Modules to grant; an import never withdraws one." }),
    ),
    hazardSettings: Type.Optional(
      Rec(
        { regime: Enum(["private", "social"], "The hazard regime.") },
        "Hazard settings; a change of regime raises their revision by one.",
      ),
    ),
    contacts: Type.Optional(Type.Array(Contact)),
    companyPeople: Type.Optional(Type.Array(CompanyPerson)),
    properties: Type.Optional(Type.Array(Property)),
    blocks: Type.Optional(Type.Array(Block)),
    units: Type.Optional(Type.Array(Unit)),
    tenancies: Type.Optional(Type.Array(Tenancy)),
    handovers: Type.Optional(Type.Array(Handover)),
    repairs: Type.Optional(Type.Array(Repair)),
    tasks: Type.Optional(Type.Array(Task)),
    inspections: Type.Optional(Type.Array(Inspection)),
    keySets: Type.Optional(Type.Array(KeySet)),
    keyReports: Type.Optional(Type.Array(KeyReport)),
    contractorInvoices: Type.Optional(Type.Array(ContractorInvoice)),
    calendarEvents: Type.Optional(Type.Array(CalendarEvent)),
    smsThreads: Type.Optional(Type.Array(SmsThread)),
    landlordPortalAccess: Type.Optional(Type.Array(LandlordPortalAccess)),
    onboardingCheckouts: Type.Optional(Type.Array(OnboardingCheckout)),
  },
  [
    "A workspace document, loaded with `bun run cli import --workspace SLUG FILE`. Every collection is optional; " +
      "unknown fields are",
    "refused. Records are upserted by id (keys noted per collection): a record in the document replaces the " +
      "stored one as a whole (an",
    "omitted or null optional field becomes null or its default; `createdAt`, when omitted, keeps a stored " +
      "record's own and is the",
    "time of the import for a new one). Nested lists (meters, occupants, meter readings, landlordContactIds, " +
      "block history, findings,",
    "invoice lines, payments, credit notes, recoveries, the limit override) are the record's complete list: " +
      "entries left out are",
    "removed, and a nested entry cannot move to another parent. Records the document does not mention are left " +
      "alone: an import never",
    "deletes a top-level record and never withdraws a module. Loading the same document twice changes nothing; a " +
      "record that changes",
    "gets revision + 1 where it has a revision (a change to an invoice's entries counts as a change to the " +
      "invoice). The workspace has",
    "exactly one owner afterwards: at most one user in the document has the role owner, and that user takes over " +
      "from the previous",
    "owner, who becomes an admin. Computed, never imported: invoice totals and status, a line's and a credit " +
      "note's grossMinor, an",
    "authorisation's state and amounts, contacts' match keys for the duplicate check. No string, field names " +
      "included, may contain",
    "the NUL character (U+0000) or an unpaired UTF-16 surrogate. All or nothing: the schema, then the rules " +
      "within the document, then",
    "the references (into the document or the workspace), then one transaction; a refusal is `ImportRejected " +
      "{path, message}` with a",
    "JSON pointer (`/contacts/3/email`) and writes nothing.",
  ].join(" "),
);

/** A parsed workspace document. */
export type WorkspaceDoc = Static<typeof WorkspaceDocument>;

/** The top-level collections, in the order they are written. */
export const collections = [
  "users",
  "entitlements",
  "hazardSettings",
  "contacts",
  "companyPeople",
  "properties",
  "blocks",
  "units",
  "tenancies",
  "handovers",
  "repairs",
  "tasks",
  "inspections",
  "keySets",
  "keyReports",
  "contractorInvoices",
  "calendarEvents",
  "smsThreads",
  "landlordPortalAccess",
  "onboardingCheckouts",
] as const;
