/** The maintenance-pro group's events: a landlord's portal access, the hazard settings, repairs and their clocks. */
import { Type } from "@sinclair/typebox";
import { Id, Nullable, Strict } from "../core/schema.ts";
import { eventType } from "../events/event_type.ts";
import { Repair, RepairClock } from "./repair_schema.ts";
import { HazardSettings, LandlordPortalAccess, Regime } from "./schema.ts";
import { WorksOrder } from "./works_order_schema.ts";

/** The landlord accepted an invitation: the access is `active`. */
export const portalAccessAccepted = eventType({
  name: "portal_access.accepted",
  subjectKind: "portal_access",
  data: LandlordPortalAccess,
  description:
    "A landlord accepted a portal invitation from its link: the access is `active` with `acceptedAt`. The subject " +
    "id is the landlord's contact id.",
});

/** An operator revoked a landlord's access: the access is `revoked`. */
export const portalAccessRevoked = eventType({
  name: "portal_access.revoked",
  subjectKind: "portal_access",
  data: LandlordPortalAccess,
  description:
    "A landlord's portal access was revoked (`revoked` with `revokedAt`); its pending links stopped working. " +
    "Inviting the landlord again makes a new `pending` access. The subject id is the landlord's contact id.",
});

/** The hazard regime changed; data is the settings after the change. */
export const hazardSettingsUpdated = eventType({
  name: "hazard_settings.updated",
  subjectKind: "hazard_settings",
  data: HazardSettings,
  description:
    "The workspace's hazard regime changed (`subject.id` is the workspace; a write that changes nothing records " +
    "nothing). `data` is the settings as `PUT /maintenance-pro/hazard-settings` answered it.",
});

/** A landlord was invited to the portal; data is the portal access record. */
export const portalAccessInvited = eventType({
  name: "portal_access.invited",
  subjectKind: "portal_access",
  data: LandlordPortalAccess,
  description:
    "A landlord was invited to the portal, or invited again (`subject.id` is the landlord's contact id). `data` is " +
    "the portal access record as the invitation answered it.",
});

const repairData =
  "`subject.id` is the repair's id; `data` is the repair as the operation answered it, its clocks computed at that " +
  "moment.";

/** A repair was reported; data is the repair. */
export const repairReported = eventType({
  name: "repair.reported",
  subjectKind: "repair",
  data: Repair,
  description: `A repair was reported (\`POST /maintenance-pro/repairs\`; a replay records nothing). ${repairData}`,
});

/** A repair was triaged (at its report too, when the report gave its hazard); data is the repair. */
export const repairTriaged = eventType({
  name: "repair.triaged",
  subjectKind: "repair",
  data: Repair,
  description:
    "A repair was triaged or triaged again (its clocks replaced), or reported with its hazard: then " +
    `\`repair.reported\` comes first, in the same transaction. ${repairData}`,
});

/** A milestone was recorded on a repair; data is the repair. */
export const repairMilestoneRecorded = eventType({
  name: "repair.milestone_recorded",
  subjectKind: "repair",
  data: Repair,
  description:
    "A milestone was recorded on a repair: the newest entry of `milestones` by `recordedAt` (a `completed` one " +
    `made the repair \`completed\`). ${repairData}`,
});

/** An access attempt was recorded on a repair; data is the repair. */
export const repairAccessAttemptRecorded = eventType({
  name: "repair.access_attempt_recorded",
  subjectKind: "repair",
  data: Repair,
  description:
    "An access attempt was recorded on a repair: the newest entry of `accessAttempts` by `recordedAt`. " + repairData,
});

/** A repair was cancelled; data is the repair. */
export const repairCancelled = eventType({
  name: "repair.cancelled",
  subjectKind: "repair",
  data: Repair,
  description: `A repair was cancelled (cancelling one already cancelled records nothing). ${repairData}`,
});

/** The data of a hazard clock event: the repair's id and reference, its regime, and the clock. */
export const HazardClockEvent = Strict(
  {
    repairId: Id,
    reference: Nullable(Type.String({ description: "The repair's reference (`R-<n>`, or an imported one)." })),
    regime: Nullable(Regime),
    clock: RepairClock,
  },
  {
    title: "HazardClockEvent",
    description:
      "The clock as the repair answers it when the event is recorded, and the regime its clocks follow (from the " +
      "hazard settings at the repair's last triage).",
  },
);

const clockEventRules =
  "At most once per clock: a clock a re-triage brings back does not send it again. Recorded by the service's " +
  "workers, however many processes run them (none records one twice); a moment passed while none ran is sent as " +
  'soon as one runs. `subject` is `{kind: "hazard_clock", id: <the repair\'s id>}`, so `GET ' +
  "/events?subjectId=<repair id>` lists it with the repair's own events; `data` names the repair (`repairId`, " +
  "`reference`), its `regime`, and the `clock` as computed when the event is recorded.";

/** A hazard clock has a quarter of its span left (at most 24 hours), not met or ceased by then. */
export const hazardClockDueSoon = eventType({
  name: "hazard_clock.due_soon",
  subjectKind: "hazard_clock",
  data: HazardClockEvent,
  description:
    "A repair's hazard clock is due soon: sent within a minute of the moment a quarter of the clock's span (from " +
    "`startsAt` to `dueAt`) is left, and never more than 24 hours before `dueAt` (a 24-hour clock 18 hours in; " +
    "a 10-working-day one 24 hours before it is due). A clock created later than that moment (a repair triaged " +
    "late, an investigation recorded late) sends it within a minute of its creation; one created already past due " +
    "too, before `hazard_clock.breached`. Not sent for a clock met or ceased by its moment: its milestone, or what " +
    "ceased it (an investigation that found no hazard, a decant, completion, a cancel), with an `at` at or before " +
    "the moment. " +
    clockEventRules,
});

/** A hazard clock passed its dueAt without being met or ceased. */
export const hazardClockBreached = eventType({
  name: "hazard_clock.breached",
  subjectKind: "hazard_clock",
  data: HazardClockEvent,
  description:
    "A repair's hazard clock is breached: sent within a minute of its `dueAt`, or of its creation for a clock " +
    "created already past due, unless the clock was met or ceased by `dueAt` (its milestone, or what ceased it, " +
    "with an `at` at or before `dueAt`). A clock met late was breached, and sends it even when its milestone was " +
    "recorded before the event went out (`clock.status` then says `met_late`). " +
    clockEventRules,
});

const worksOrderData = "`subject.id` is the works order's id; `data` is the works order as the write answered it.";

/** A works order was raised for a contractor; data is the order. */
export const worksOrderRaised = eventType({
  name: "works_order.raised",
  subjectKind: "works_order",
  data: WorksOrder,
  description:
    "A works order was raised on a repair (`POST /maintenance-pro/repairs/{id}/works-orders`). " + worksOrderData,
});

/** The agency cancelled a works order; data is the order. */
export const worksOrderCancelled = eventType({
  name: "works_order.cancelled",
  subjectKind: "works_order",
  data: WorksOrder,
  description:
    "The agency cancelled a works order (cancelling one already cancelled records nothing). " + worksOrderData,
});

const byContractor =
  "Written by the contractor through the link of the order (actor `contractor`, its id the contact's). ";

/** The contractor accepted a works order; data is the order. */
export const worksOrderAccepted = eventType({
  name: "works_order.accepted",
  subjectKind: "works_order",
  data: WorksOrder,
  description: `The contractor accepted a works order (status \`accepted\`). ${byContractor}${worksOrderData}`,
});

/** The contractor declined a works order; data is the order. */
export const worksOrderDeclined = eventType({
  name: "works_order.declined",
  subjectKind: "works_order",
  data: WorksOrder,
  description:
    `The contractor declined a works order with a reason (status \`declined\`, final). ${byContractor}` +
    worksOrderData,
});

/** The contractor agreed an appointment for a works order; data is the order. */
export const worksOrderScheduled = eventType({
  name: "works_order.scheduled",
  subjectKind: "works_order",
  data: WorksOrder,
  description:
    `The contractor agreed an appointment (status \`scheduled\`; \`appointment\` its window), first or again. ` +
    byContractor +
    worksOrderData,
});

/** The contractor could not get in; data is the order. */
export const worksOrderNoAccess = eventType({
  name: "works_order.no_access",
  subjectKind: "works_order",
  data: WorksOrder,
  description:
    "The contractor's visit could not get in (status `no_access`; the repair has the access attempt). " +
    byContractor +
    worksOrderData,
});

/** The contractor completed a works order; data is the order. */
export const worksOrderCompleted = eventType({
  name: "works_order.completed",
  subjectKind: "works_order",
  data: WorksOrder,
  description: `The contractor completed the work (status \`completed\`, final). ${byContractor}${worksOrderData}`,
});

/** Every event type of the group. */
export const maintenanceProEvents = [
  portalAccessAccepted,
  portalAccessRevoked,
  hazardSettingsUpdated,
  portalAccessInvited,
  repairReported,
  repairTriaged,
  repairMilestoneRecorded,
  repairAccessAttemptRecorded,
  repairCancelled,
  hazardClockDueSoon,
  hazardClockBreached,
  worksOrderRaised,
  worksOrderCancelled,
  worksOrderAccepted,
  worksOrderDeclined,
  worksOrderScheduled,
  worksOrderNoAccess,
  worksOrderCompleted,
];
