/** Schemas of repairs (maintenance-pro): the repair, its clocks, milestones and access attempts, and the bodies. */
import { Type, type Static, type TLiteral, type TUnion } from "@sinclair/typebox";
import { Cursor, Limit } from "../core/pagination.ts";
import { Id, Instant, Nullable, RequestId, Strict } from "../core/schema.ts";
import { clockKinds, clockRules, clockStatuses } from "./clocks.ts";
import { Regime } from "./schema.ts";

function oneOf<const T extends readonly string[]>(values: T, description: string) {
  return Type.Union(
    values.map((v) => Type.Literal(v)),
    { description },
  ) as unknown as TUnion<TLiteral<T[number]>[]>;
}
const listed = (values: readonly string[]) => values.map((v) => `\`${v}\``).join(", ");

/** The kinds of repair. */
export const categories = [
  "damp_mould",
  "leak",
  "heating_hot_water",
  "electrical",
  "gas",
  "fire_safety",
  "security",
  "structural",
  "pests",
  "sanitation",
  "other",
] as const;
/** What kind of repair it is. */
export const Category = oneOf(categories, `What needs repairing: ${listed(categories)}.`);

/** Who reports repairs. */
export const reporterKinds = ["tenant", "landlord", "staff", "contractor", "other"] as const;
/** How repairs reach the agency. */
export const channels = ["api", "phone", "email", "sms", "portal", "inspection", "other"] as const;
/** How the report reached the agency. */
export const Channel = oneOf(channels, `How the report reached the agency: ${listed(channels)}.`);

/** The statuses of a repair reported here (a legacy record has another). */
export const repairStatuses = ["reported", "triaged", "in_progress", "completed", "cancelled"] as const;
/** A status of a repair. */
export type RepairStatus = (typeof repairStatuses)[number];
/** The status filter of the list. */
export const RepairStatusFilter = oneOf(repairStatuses, `Only repairs in this status: ${listed(repairStatuses)}.`);

/** The hazard levels triage gives. */
export const hazardLevels = ["none", "significant", "emergency"] as const;
/** A hazard level. */
export const HazardLevel = oneOf(
  hazardLevels,
  "`none`: no hazard (no clocks). `significant`: a significant hazard (10 working days to investigate). " +
    "`emergency`: an emergency hazard (24 hours to investigate and to make safe).",
);

/** The 29 hazards of the Housing Health and Safety Rating System. */
export const hhsrsHazards = [
  "damp_and_mould_growth",
  "excess_cold",
  "excess_heat",
  "asbestos_and_mmf",
  "biocides",
  "carbon_monoxide_and_fuel_combustion_products",
  "lead",
  "radiation",
  "uncombusted_fuel_gas",
  "volatile_organic_compounds",
  "crowding_and_space",
  "entry_by_intruders",
  "lighting",
  "noise",
  "domestic_hygiene_pests_and_refuse",
  "food_safety",
  "personal_hygiene_sanitation_and_drainage",
  "water_supply",
  "falls_associated_with_baths",
  "falls_on_level_surfaces",
  "falls_on_stairs",
  "falls_between_levels",
  "electrical_hazards",
  "fire",
  "flames_hot_surfaces",
  "collision_and_entrapment",
  "explosions",
  "position_and_operability_of_amenities",
  "structural_collapse_and_falling_elements",
] as const;
/** An HHSRS hazard. */
export const HhsrsHazard = oneOf(hhsrsHazards, "One of the 29 hazards of the Housing Health and Safety Rating System.");

/** The milestones of a repair. */
export const milestoneKinds = [
  "investigated",
  "made_safe",
  "decanted",
  "completed",
  "summary_sent",
  "safety_work_started",
  "preventative_work_started",
] as const;
/** A kind of milestone. */
export type MilestoneKind = (typeof milestoneKinds)[number];
/** The outcomes of an investigation. */
export const investigationOutcomes = ["hazard_confirmed", "no_hazard"] as const;
/** How a written summary reaches the household. */
export const summaryMethods = ["email", "post", "hand", "left_at_home", "sms", "portal"] as const;
/** The outcomes of an attempt to get into the home. */
export const accessOutcomes = ["granted", "refused", "no_answer", "rescheduled"] as const;

const instant = (description: string) => ({ ...Instant, description });
const nullableText = (description: string) => Nullable(Type.String({ description }));

/** A clock of a repair (computed when read, never stored). */
export const RepairClock = Strict(
  {
    kind: oneOf(
      clockKinds,
      "`emergency_investigate`, `emergency_make_safe` (hazard emergency: 24 hours from awareAt), " +
        "`significant_investigate` (hazard significant: 10 working days from awareAt), `written_summary` (3 working " +
        "days from the investigation), `safety_work_start` (5 working days from an investigation that confirmed a " +
        "significant hazard), `preventative_work_start` (84 calendar days from an investigation that confirmed the " +
        "hazard).",
    ),
    basis: oneOf(
      ["statutory", "policy"],
      "`statutory` when the law binds this repair (regime `social`, awareAt from 27 Oct 2025 00:00 London, a hazard " +
        "in the rule set's scope; regime `private` only from `prsInForceFrom`), else `policy`: the same periods kept " +
        "as the agency's service level. Every clock of a repair has the same basis.",
    ),
    rule: Type.String({
      description:
        "`<policyVersion>/<kind>`: the rule applied. The rules: " +
        clockRules()
          .map((r) => `\`${r.rule}\` (${r.period.amount} ${r.period.unit.replace("_", " ")}, met by \`${r.metBy}\`)`)
          .join(", ") +
        ".",
    }),
    startsAt: instant("The clock's anchor: awareAt, or the investigation's `at`."),
    dueAt: instant(
      "When it is due: startsAt + 24 hours, or the end (23:59:59.999 Europe/London) of the Nth working or calendar " +
        "day after the London day of startsAt (day 0).",
    ),
    status: oneOf(
      clockStatuses,
      "First that holds: `met` (its milestone at or before dueAt), `met_late` (after), `ceased`, `breached` (not met " +
        "and now is after dueAt), `running`.",
    ),
    metAt: Nullable(instant("The `at` of the milestone that met it; null unless met or met_late.")),
    ceasedReason: Nullable(
      oneOf(
        ["no_hazard", "decanted", "completed", "cancelled"],
        "Why it ceased: an investigation found no hazard, the household was decanted, the repair was completed or " +
          "cancelled. Null unless ceased.",
      ),
    ),
    explanation: Type.String({
      description:
        "One English sentence with the period, the anchor and the non-working days skipped: `10 working days " +
        "after Wed 23 Dec 2026, skipping Fri 25 Dec, Mon 28 Dec and Fri 1 Jan (bank holidays): due by the end of " +
        "Mon 11 Jan 2027`.",
    }),
  },
  { title: "RepairClock" },
);
/** A clock as answered. */
export type RepairClock = Static<typeof RepairClock>;

/** A milestone recorded on a repair. */
export const RepairMilestone = Strict(
  {
    kind: oneOf(milestoneKinds, `The milestone: ${listed(milestoneKinds)}.`),
    at: instant("When it happened (may be earlier than when it was recorded)."),
    outcome: Nullable(oneOf(investigationOutcomes, "An investigation's finding; null for every other kind.")),
    method: Nullable(oneOf(summaryMethods, "How a written summary was sent; null for every other kind.")),
    note: nullableText("A note, as sent (trimmed)."),
    recordedAt: instant("When it was recorded here."),
    recordedByUserId: Type.String({
      description:
        "The user whose key recorded it; for a milestone a contractor recorded through a works order's link, the " +
        "user who raised the order (its `note` names the contractor and the order).",
    }),
  },
  { title: "RepairMilestone" },
);
/** A milestone as answered. */
export type RepairMilestone = Static<typeof RepairMilestone>;

/** An attempt to get into the home, kept as evidence. */
export const RepairAccessAttempt = Strict(
  {
    id: Id,
    at: instant("When the attempt was made."),
    outcome: oneOf(accessOutcomes, `What happened: ${listed(accessOutcomes)}.`),
    note: nullableText("A note, as sent (trimmed)."),
    recordedAt: instant("When it was recorded here."),
  },
  { title: "RepairAccessAttempt" },
);
/** An access attempt as answered. */
export type RepairAccessAttempt = Static<typeof RepairAccessAttempt>;

/** Who reported a repair. */
export const RepairReporter = Strict(
  {
    kind: oneOf(reporterKinds, `Who reported it: ${listed(reporterKinds)}.`),
    contactId: Nullable(Type.String({ ...Id, description: "The reporter's contact, when known." })),
    name: nullableText("The reporter's name as given."),
  },
  { title: "RepairReporter" },
);

/** A photo as the repair lists it: what it is and how large, its bytes read by its id. */
export const RepairPhotoListed = Strict(
  {
    id: Id,
    contentType: Type.Union([Type.Literal("image/jpeg"), Type.Literal("image/png")], {
      description: "What the bytes are (read from them, never from a name or a declared type).",
    }),
    bytes: Type.Integer({ minimum: 1, maximum: 5 * 1024 * 1024, description: "Its size in bytes." }),
    uploadedAt: Instant,
  },
  { title: "RepairPhotoListed" },
);

/** A repair, as every repair operation answers it. */
export const Repair = Strict(
  {
    id: Id,
    reference: Nullable(
      Type.String({
        description:
          "`R-<n>`, counting up per workspace from `R-1` without gaps; an imported repair keeps its reference.",
      }),
    ),
    propertyId: Nullable(Id),
    unitId: Nullable(Id),
    tenancyId: Nullable(Id),
    title: nullableText("1 to 200 characters (null only on a legacy record)."),
    description: nullableText("What is wrong, as reported."),
    location: nullableText("Where in the home."),
    category: Nullable(Category),
    reporter: Nullable(RepairReporter),
    channel: Nullable(Channel),
    awareAt: Nullable(
      instant("When the agency or landlord became aware: the clocks' anchor. Never changes after creation."),
    ),
    status: Nullable(
      Type.String({
        description:
          "`reported` → `triaged` → `in_progress` (a milestone other than `completed` recorded) → `completed`; " +
          "`cancelled` from any status but `completed`. `completed` and `cancelled` are final. Any other value is " +
          "an imported legacy record's own: it has no clocks.",
      }),
    ),
    hazard: Nullable(HazardLevel),
    hhsrsHazard: Nullable(HhsrsHazard),
    regime: Nullable(Regime),
    policyVersion: Nullable(
      Type.String({ description: "The rule set of the clocks, from the hazard settings at the last triage." }),
    ),
    triagedAt: Nullable(instant("When it was last triaged.")),
    triagedByUserId: nullableText("The user whose key last triaged it."),
    milestones: Type.Array(RepairMilestone, { description: "Ordered by `at`, then `recordedAt`." }),
    triageNote: nullableText("The last triage's note."),
    accessAttempts: Type.Array(RepairAccessAttempt, { description: "Ordered by `at`, then `recordedAt`." }),
    photos: Type.Array(RepairPhotoListed, {
      description:
        "The photos sent with it (by the tenant with a report, by a contractor with a visit), in the order they " +
        "came; each one's bytes through `GET /maintenance-pro/repairs/{id}/photos/{photoId}`.",
    }),
    clocks: Type.Array(RepairClock, {
      description:
        "The hazard clocks, computed at the time of the answer, in the order emergency_investigate, " +
        "emergency_make_safe, significant_investigate, written_summary, safety_work_start, preventative_work_start.",
    }),
    cancelReason: nullableText("Why it was cancelled."),
    cancelledAt: Nullable(instant("When it was cancelled.")),
    revision: Type.Integer({ minimum: 1, description: "1 at creation; up by one with every write." }),
    createdAt: Instant,
    updatedAt: instant("Moves with every write."),
  },
  { title: "Repair" },
);
/** A repair as answered. */
export type Repair = Static<typeof Repair>;

/** An instant a body sends: RFC 3339 with any offset, with or without fractions. */
const SentInstant = (description: string) =>
  Type.String({
    format: "date-time",
    description: `${description} RFC 3339 with any offset (\`2026-11-22T09:30:00+01:00\`); answers give it in UTC.`,
  });
/** Text of at most `max` characters with something other than spaces in it; stored trimmed. */
const SomeText = (max: number, description: string) =>
  Type.String({ minLength: 1, maxLength: max, pattern: "\\S", description });
const note = Type.Optional(SomeText(2000, "A note, up to 2000 characters."));

/** The body of a repair report. */
export const ReportRepairBody = Strict(
  {
    requestId: RequestId,
    propertyId: Id,
    unitId: Type.Optional(Id),
    tenancyId: Type.Optional(Id),
    title: SomeText(200, "1 to 200 characters."),
    description: Type.Optional(SomeText(5000, "What is wrong, up to 5000 characters.")),
    location: Type.Optional(SomeText(200, "Where in the home, up to 200 characters.")),
    category: Category,
    reporter: Strict(
      {
        kind: oneOf(reporterKinds, `Who reported it: ${listed(reporterKinds)}.`),
        contactId: Type.Optional(Type.String({ ...Id, description: "A contact of the workspace." })),
        name: Type.Optional(SomeText(200, "The reporter's name, up to 200 characters.")),
      },
      { title: "RepairReporterBody" },
    ),
    channel: Channel,
    awareAt: Type.Optional(
      SentInstant(
        "When the agency or landlord became aware; the creation instant when absent. May be earlier, never more " +
          "than 60 s ahead.",
      ),
    ),
    hazard: Type.Optional(HazardLevel),
    hhsrsHazard: Type.Optional(HhsrsHazard),
  },
  { title: "ReportRepairBody" },
);
/** A repair report as sent. */
export type ReportRepairBody = Static<typeof ReportRepairBody>;

/** The body of a triage. */
export const TriageRepairBody = Strict(
  {
    expectedRevision: Type.Integer({
      minimum: 1,
      description: "The revision the caller last read. Another revision → 409 `RevisionConflict`.",
    }),
    hazard: HazardLevel,
    hhsrsHazard: Type.Optional(HhsrsHazard),
    note,
  },
  { title: "TriageRepairBody" },
);

/** The body of a milestone. */
export const RecordMilestoneBody = Strict(
  {
    expectedRevision: Type.Integer({
      minimum: 1,
      description: "The revision the caller last read. Another revision → 409 `RevisionConflict`.",
    }),
    kind: oneOf(milestoneKinds, `The milestone: ${listed(milestoneKinds)}.`),
    at: SentInstant("When it happened: not before awareAt, not more than 60 s ahead."),
    outcome: Type.Optional(oneOf(investigationOutcomes, "Required for `investigated`, refused for other kinds.")),
    method: Type.Optional(oneOf(summaryMethods, "Required for `summary_sent`, refused for other kinds.")),
    note,
  },
  { title: "RecordMilestoneBody" },
);

/** The body of an access attempt. */
export const RecordAccessAttemptBody = Strict(
  {
    at: SentInstant("When the attempt was made: not before awareAt, not more than 60 s ahead."),
    outcome: oneOf(accessOutcomes, `What happened: ${listed(accessOutcomes)}.`),
    note,
  },
  { title: "RecordAccessAttemptBody" },
);

/** The body of a cancel. */
export const CancelRepairBody = Strict(
  {
    reason: Type.String({
      // 1 to 500 characters once leading and trailing whitespace is trimmed.
      pattern: "^\\s*\\S(?:[\\s\\S]{0,498}\\S)?\\s*$",
      description: "Why: 1 to 500 characters after trimming (stored trimmed).",
    }),
  },
  { title: "CancelRepairBody" },
);

/** The query of the repairs list. */
export const RepairsQuery = Strict({
  status: Type.Optional(RepairStatusFilter),
  propertyId: Type.Optional(Type.String({ ...Id, description: "Only repairs of this property." })),
  tenancyId: Type.Optional(Type.String({ ...Id, description: "Only repairs of this tenancy." })),
  clock: Type.Optional(
    oneOf(
      ["running", "breached", "open"],
      "Only repairs with at least one clock `running`, `breached`, or either (`open`).",
    ),
  ),
  dueBefore: Type.Optional(
    Type.String({
      format: "date-time",
      description: "Only repairs with a running or breached clock due strictly before this instant.",
    }),
  ),
  limit: Type.Optional(Limit(50, 200)),
  cursor: Type.Optional(Cursor),
});
