/** TypeBox schemas of the tenancy handover row (its rules: src/handovers/operations.ts's description). */
import { Type, type Static } from "@sinclair/typebox";
import { DateOn, Id, Instant, Nullable, Strict } from "../core/schema.ts";

/** A number field of the handover row: a number, or one of the strings Infinity, -Infinity, NaN. */
export const RowNumber = Type.Union(
  [Type.Number(), Type.Literal("Infinity"), Type.Literal("-Infinity"), Type.Literal("NaN")],
  {
    description:
      "A number. The interface also allows the strings `Infinity`, `-Infinity` and `NaN` here; this service " +
      "always sends a finite number.",
  },
);

/** The states of a tenancy. */
export const TenancyStatus = Type.Union([Type.Literal("active"), Type.Literal("notice_given"), Type.Literal("ended")]);
/** The directions of a handover. */
export const Direction = Type.Union([Type.Literal("move_in"), Type.Literal("move_out")]);
/** The meters a unit can have. */
export const Meter = Type.Union([Type.Literal("electricity"), Type.Literal("gas"), Type.Literal("water")]);

/** One person living in the tenancy. */
export const Occupant = Strict(
  {
    contactId: Type.String(),
    role: Type.String(),
    isLead: Type.Boolean(),
  },
  { description: "An occupant of the tenancy. Occupants are listed lead first, then by contactId." },
);

/** A meter reading taken at a handover. */
export const MeterReading = Strict(
  {
    meter: Meter,
    reading: Type.String({ description: "The reading as written on the meter." }),
    readOn: Nullable(DateOn),
  },
  { description: "A meter reading taken at the handover; listed by meter name." },
);

/** The move-in or move-out handover record. */
export const Handover = Strict(
  {
    id: Id,
    direction: Direction,
    status: Type.Union([Type.Literal("open"), Type.Literal("completed")]),
    dueOn: Nullable(DateOn),
    completedAt: Nullable(Instant),
    meterReadings: Type.Array(MeterReading),
    forwardingAddress: Nullable(Type.String({ description: "Where the outgoing tenants can be reached (move-out)." })),
    noticeEvidenceDocumentId: Nullable(
      Type.String({ description: "The document that evidences the notice (move-out)." }),
    ),
  },
  { description: "The tenancy's handover of one direction. `null` when none was started." },
);

/** The check-in or check-out visit shown on the row. */
export const InspectionSummary = Strict(
  {
    id: Id,
    reference: Type.String(),
    status: Type.Union([
      Type.Literal("due"),
      Type.Literal("booked"),
      Type.Literal("completed"),
      Type.Literal("cancelled"),
    ]),
    outcome: Nullable(
      Type.Union([Type.Literal("satisfactory"), Type.Literal("minor_actions"), Type.Literal("unsatisfactory")]),
    ),
    dueOn: Nullable(DateOn),
    bookedFor: Nullable(Instant),
    completedAt: Nullable(Instant),
    findingCount: RowNumber,
    followUpCount: RowNumber,
  },
  {
    description:
      "The latest non-cancelled inspection of the kind (latest by dueOn, an inspection with no dueOn counting as " +
      "the oldest, " +
      "then by id); when only cancelled ones exist, the latest cancelled one; `null` when there is none, or when " +
      "the key lacks " +
      "`inspections:read`. `findingCount` counts its findings, `followUpCount` those with a repair or a task.",
  },
);

/** A finding of the check-in or check-out that led to a repair or a task. */
export const FollowUp = Strict(
  {
    findingId: Id,
    area: Type.String(),
    item: Nullable(Type.String()),
    repair: Nullable(Strict({ id: Id, reference: Nullable(Type.String()), status: Nullable(Type.String()) })),
    task: Nullable(Strict({ id: Id, title: Type.String(), status: Type.String(), dueOn: Nullable(DateOn) })),
  },
  {
    description:
      "A finding with a repair or a task. It is open while its repair is not `completed`/`cancelled` or its task " +
      "is not `done`/`cancelled`.",
  },
);

/** A key set as the handover row lists it. */
export const KeyEntry = Strict({
  id: Id,
  reference: Type.String(),
  label: Type.String(),
  unitId: Nullable(Type.String()),
  status: Type.Union([Type.Literal("in_office"), Type.Literal("checked_out"), Type.Literal("lost")]),
  sequence: RowNumber,
  holderType: Type.String({ description: "office, tenant, contractor, landlord, staff or other." }),
  holderContactId: Nullable(Type.String()),
  holderName: Type.String({ description: "The holder's name as recorded; empty when none was recorded." }),
  tenancyId: Nullable(Type.String()),
});

/** The key sets of the tenancy's unit, sorted into what the handover needs to know. */
export const Keys = Strict(
  {
    held: Type.Array(KeyEntry, { description: "Checked out with tenancyId = this tenancy." }),
    ambiguous: Type.Array(KeyEntry, {
      description: "Checked out with no tenancyId, to a holder of type `tenant` or to an occupant of this tenancy.",
    }),
    available: Type.Array(KeyEntry, { description: "In the office." }),
    otherActiveTenancyIds: Type.Array(Type.String(), {
      description: "The unit's other tenancies whose status is active or notice_given, by id.",
    }),
  },
  {
    description:
      "`null` unless the key also holds `keys:read`. Covers the key sets of the tenancy's unit; lost key sets " +
      "are never " +
      "listed, and a set checked out to anyone else (another tenancy, a contractor) is in no list. " +
      "Each list is ordered by sequence, then reference, then id.",
  },
);

/** The outstanding item codes, in the common interface's order (the order items are listed within a direction). */
export const outstandingCodes = [
  "check_in_missing",
  "check_in_open",
  "check_out_missing",
  "check_out_open",
  "follow_ups_open",
  "keys_not_handed_over",
  "keys_held",
  "keys_unattributed",
  "meter_readings_missing",
  "forwarding_missing",
  "notice_evidence_missing",
  "handover_open",
] as const;

/** Something left to do before a handover is complete. */
export const OutstandingItem = Strict(
  {
    code: Type.Union(outstandingCodes.map((c) => Type.Literal(c))),
    direction: Direction,
    message: Type.String({ description: "What to do, in English, for a person." }),
    count: Nullable(RowNumber),
  },
  {
    description:
      "An outstanding item. `count` is the number of things concerned for follow_ups_open, keys_held, " +
      "keys_unattributed and meter_readings_missing; `null` for the other codes.",
  },
);

/** The response of handovers.forTenancy. */
export const HandoverRow = Strict(
  {
    tenancyId: Id,
    tenancyStatus: TenancyStatus,
    startsOn: Nullable(DateOn),
    endsOn: Nullable(DateOn),
    noticeGivenOn: Nullable(DateOn),
    unitId: Type.String(),
    propertyId: Nullable(Type.String()),
    occupants: Type.Array(Occupant),
    moveIn: Nullable(Handover),
    moveOut: Nullable(Handover),
    checkIn: Nullable(InspectionSummary),
    checkOut: Nullable(InspectionSummary),
    inspectionsReadable: Type.Boolean({
      description:
        "Whether the key holds `inspections:read`. When false, checkIn, checkOut and followUps are `null` (the " +
        "outstanding items are still complete).",
    }),
    followUps: Nullable(
      Type.Array(FollowUp, {
        description:
          "The follow-ups of checkIn and checkOut, ordered by area, then item (a finding with no item first), " +
          "then findingId, comparing text character by character. `null` when the key lacks " +
          "`inspections:read`.",
      }),
    ),
    keys: Nullable(Keys),
    outstanding: Type.Array(OutstandingItem, {
      description:
        "What is left to do, move-in items first, then in the order of the code enumeration. Computed whatever " +
        "the key's other scopes.",
    }),
  },
  { title: "HandoverRow" },
);

/** A handover record. */
export type Handover = Static<typeof Handover>;
/** An inspection summary. */
export type InspectionSummary = Static<typeof InspectionSummary>;
/** A follow-up. */
export type FollowUp = Static<typeof FollowUp>;
/** A key entry. */
export type KeyEntry = Static<typeof KeyEntry>;
/** The keys object. */
export type Keys = Static<typeof Keys>;
/** An outstanding item. */
export type OutstandingItem = Static<typeof OutstandingItem>;
/** An outstanding item's code. */
export type OutstandingCode = (typeof outstandingCodes)[number];
/** A handover direction. */
export type Direction = Static<typeof Direction>;
/** A tenancy status. */
export type TenancyStatus = Static<typeof TenancyStatus>;
/** The handover row. */
export type HandoverRow = Static<typeof HandoverRow>;
