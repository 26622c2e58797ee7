/** The events of the maintenance-pro group: what happens to a landlord's portal access. */
import { eventType } from "../events/event_type.ts";
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

/** Every event type of the group. */
export const maintenanceProEvents = [
  portalAccessAccepted,
  portalAccessRevoked,
  hazardSettingsUpdated,
  portalAccessInvited,
];
