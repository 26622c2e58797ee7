/** The events of the maintenance-pro group: a landlord's portal access, the hazard settings, and repairs. */
import { eventType } from "../events/event_type.ts";
import { Repair } from "./repair_schema.ts";
import { HazardSettings, LandlordPortalAccess } from "./schema.ts";

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
];
