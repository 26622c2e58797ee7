/** Schemas of works orders (maintenance-pro): a repair's job given to a contractor, and the bodies of its writes. */
import { Type, type Static, type TLiteral, type TUnion } from "@sinclair/typebox";
import { Cursor, Limit } from "../core/pagination.ts";
import { Id, Instant, Nullable, RequestId, Strict } from "../core/schema.ts";

function oneOf<const T extends readonly string[]>(values: T, description: string) {
  return Type.Union(
    values.map((v) => Type.Literal(v)),
    { description },
  ) as unknown as TUnion<TLiteral<T[number]>[]>;
}
const listed = (values: readonly string[]) => values.map((v) => `\`${v}\``).join(", ");

/** What a works order is for. */
export const worksOrderPurposes = ["investigation", "make_safe", "safety_work", "preventative_work", "repair"] as const;
/** A works order's purpose. */
export type WorksOrderPurpose = (typeof worksOrderPurposes)[number];

/** The statuses of a works order. */
export const worksOrderStatuses = [
  "raised",
  "accepted",
  "declined",
  "scheduled",
  "attended",
  "completed",
  "no_access",
  "cancelled",
] as const;
/** A works order's status. */
export type WorksOrderStatus = (typeof worksOrderStatuses)[number];
/** The statuses from which the agency may still cancel. */
export const openWorksOrderStatuses: readonly WorksOrderStatus[] = [
  "raised",
  "accepted",
  "scheduled",
  "attended",
  "no_access",
];

const Purpose = oneOf(
  worksOrderPurposes,
  "What the order is for: `investigation`, `make_safe`, `safety_work`, `preventative_work` or `repair`. The first " +
    "four serve a hazard clock of the repair (the investigate clock, `emergency_make_safe`, `safety_work_start`, " +
    "`preventative_work_start`).",
);
const Status = oneOf(
  worksOrderStatuses,
  "`raised` (sent to the contractor), `accepted` or `declined` (final), `scheduled` (an appointment is agreed), " +
    "`attended`, `no_access` (the visit could not get in; a new appointment makes it `scheduled` again), " +
    "`completed` (final), `cancelled` (by the agency, final).",
);

/** An agreed visit. */
export const WorksOrderAppointment = Strict(
  {
    startsAt: { ...Instant, description: "When the visit starts." },
    endsAt: { ...Instant, description: "When the visit ends (after startsAt)." },
  },
  { title: "WorksOrderAppointment" },
);

/** The key set a works order names, as it is now. */
export const WorksOrderKeySet = Strict(
  {
    id: Id,
    reference: Type.String({ description: "The key set's reference." }),
    label: Type.String({ description: "What the set opens, as labelled." }),
    status: Type.Union([Type.Literal("in_office"), Type.Literal("checked_out"), Type.Literal("lost")], {
      description: "`in_office`, `checked_out` or `lost`.",
    }),
    holderType: Type.String({
      description: "Who holds it: `office`, `tenant`, `contractor`, `landlord`, `staff` or `other`.",
    }),
    withContractor: Type.Boolean({
      description: "True while it is checked out to the order's contractor (holderType `contractor`).",
    }),
  },
  {
    title: "WorksOrderKeySet",
    description:
      "The key set named by `keySetId` as it is now: checking it out or back in changes it without a write of the " +
      "order (its `revision` and `updatedAt` stay). Null when the order names none.",
  },
);

/** A works order. */
export const WorksOrder = Strict(
  {
    id: Id,
    reference: Type.String({ description: "The repair's reference and the order's number on it: `R-7/1`." }),
    repairId: Id,
    contractorContactId: { ...Id, description: "The contractor: a contact with the role `contractor`." },
    purpose: Purpose,
    instructions: Type.String({ description: "What the contractor is asked to do (stored trimmed)." }),
    requiredBy: Nullable({
      ...Instant,
      description:
        "When the work is needed by: as raised, else the dueAt of the repair's clock the purpose serves at the " +
        "moment of raising; null when neither.",
    }),
    status: Status,
    keySetId: Nullable({ ...Id, description: "A key set of the repair's unit the contractor needs, or null." }),
    keySet: Nullable(WorksOrderKeySet),
    appointment: Nullable(WorksOrderAppointment),
    declineReason: Nullable(Type.String({ description: "Why the contractor declined; null unless `declined`." })),
    cancelReason: Nullable(Type.String({ description: "Why the agency cancelled; null unless `cancelled`." })),
    cancelledAt: Nullable({ ...Instant, description: "When it was cancelled." }),
    revision: Type.Integer({ minimum: 1, description: "Moves up by one with every write." }),
    createdAt: Instant,
    updatedAt: Instant,
  },
  { title: "WorksOrder" },
);
/** A works order as answered. */
export type WorksOrder = Static<typeof WorksOrder>;

const trimmedText = (max: number, description: string) =>
  Type.String({ pattern: `^\\s*\\S(?:[\\s\\S]{0,${max - 2}}\\S)?\\s*$`, description });

/** The body of raising a works order. */
export const RaiseWorksOrderBody = Strict(
  {
    requestId: RequestId,
    contractorContactId: {
      ...Id,
      description: "The contractor: a contact of the workspace with the role `contractor`.",
    },
    purpose: Purpose,
    instructions: trimmedText(4000, "What to do: 1 to 4000 characters after trimming."),
    requiredBy: Type.Optional(
      Type.String({
        format: "date-time",
        description: "When the work is needed by; defaults to the dueAt of the clock the purpose serves.",
      }),
    ),
    keySetId: Type.Optional({ ...Id, description: "A key set of the repair's unit the contractor needs." }),
  },
  { title: "RaiseWorksOrderBody" },
);

/** The body of cancelling a works order. */
export const CancelWorksOrderBody = Strict(
  {
    expectedRevision: Type.Integer({ minimum: 1, description: "The order's `revision` as last read." }),
    reason: trimmedText(500, "Why: 1 to 500 characters after trimming (stored trimmed)."),
  },
  { title: "CancelWorksOrderBody" },
);

/** The query of the works orders list. */
export const WorksOrdersQuery = Strict({
  repairId: Type.Optional({ ...Id, description: "Only orders of this repair." }),
  contractorContactId: Type.Optional({ ...Id, description: "Only orders given to this contractor." }),
  status: Type.Optional(oneOf(worksOrderStatuses, `Only orders in this status: ${listed(worksOrderStatuses)}.`)),
  requiredBefore: Type.Optional(
    Type.String({ format: "date-time", description: "Only orders whose requiredBy is strictly before this instant." }),
  ),
  limit: Type.Optional(Limit(50, 200)),
  cursor: Type.Optional(Cursor),
});
