/** The maintenance-pro group's operations. */
import { Type } from "@sinclair/typebox";
import { NotImplemented } from "../core/errors.ts";
import { operation, Id } from "../core/operation.ts";

/** Chooses social landlord or private agency rules for the hazard clocks. */
export const updateHazardSettings = operation({
  id: "maintenancePro.updateHazardSettings", group: "maintenance-pro", method: "PUT", path: "/maintenance-pro/hazard-settings", ownerOnly: true,
  summary: "Chooses social landlord or private agency rules for the hazard clocks.",
  description: "Declared; not built yet.",
  
  response: Type.Unknown(),
  errors: [NotImplemented],
  run: async () => {
    throw new NotImplemented({ operationId: "maintenancePro.updateHazardSettings" });
  },
});

/** The workspace's hazard settings. */
export const hazardSettings = operation({
  id: "maintenancePro.hazardSettings", group: "maintenance-pro", method: "GET", path: "/maintenance-pro/hazard-settings",
  summary: "The workspace's hazard settings.",
  description: "Declared; not built yet.",
  response: Type.Unknown(),
  errors: [NotImplemented],
  run: async () => {
    throw new NotImplemented({ operationId: "maintenancePro.hazardSettings" });
  },
});

/** Invites a landlord to the portal. */
export const inviteLandlord = operation({
  id: "maintenancePro.inviteLandlord", group: "maintenance-pro", method: "POST",
  path: "/maintenance-pro/landlords/:contactId/portal-access/invite",
  summary: "Emails a landlord an invitation to the portal.",
  description: "Declared; not built yet.",
  params: Type.Object({ contactId: Id }, { additionalProperties: false }),
  response: Type.Unknown(),
  errors: [NotImplemented],
  run: async () => {
    throw new NotImplemented({ operationId: "maintenancePro.inviteLandlord" });
  },
});

/** Every operation of the group. */
export const operations = [hazardSettings, updateHazardSettings, inviteLandlord];
