/** Schemas of the maintenance-pro group: hazard settings and landlord portal access. */
import { Type, type Static } from "@sinclair/typebox";
import { DateOn, Instant, Nullable, Strict } from "../core/schema.ts";

/** The two regimes of the hazard clocks. */
export const Regime = Type.Union([Type.Literal("private"), Type.Literal("social")], {
  description:
    "`social`: a social landlord, bound by Awaab's Law now. `private`: a private letting agency; the same clocks " +
    "apply once the private rented sector rules are in force (`prsInForceFrom`).",
});

/** The rule set of the hazard clocks this service applies. */
export const hazardPolicyVersion = "awaabs-law-2025-10-27";

/** The hazard settings resource. */
export const HazardSettings = Strict(
  {
    regime: Regime,
    revision: Type.Integer({ minimum: 0, description: "Goes up by one with each change; 0 until the first change." }),
    policyVersion: Type.String({
      description:
        "The rule set of the hazard clocks: `awaabs-law-2025-10-27` (Awaab's Law as in force for social " +
        "landlords from 27 October 2025).",
    }),
    prsInForceFrom: Nullable({
      ...DateOn,
      description:
        "The date Awaab's Law starts to apply to the private rented sector, as the service's operator sets it " +
        "(`PRS_IN_FORCE_FROM`, the same for every workspace); `null` while none is set (no commencement date is set " +
        "in law yet).",
    }),
  },
  { title: "HazardSettings" },
);
/** A hazard settings value. */
export type HazardSettings = Static<typeof HazardSettings>;

/** The body of the hazard settings update. */
export const HazardSettingsUpdate = Strict(
  {
    expectedRevision: Type.Integer({
      minimum: 0,
      description: "The revision the caller last read. Another revision → 409 `RevisionConflict`.",
    }),
    regime: Regime,
  },
  { title: "HazardSettingsUpdate" },
);

/** Why a contact cannot be invited to the portal. */
export const InviteBlockedReason = Type.Union(
  [Type.Literal("archived"), Type.Literal("not_a_landlord"), Type.Literal("no_email")],
  {
    description:
      "`archived`: the contact is archived. `not_a_landlord`: the contact does not have the landlord role. " +
      "`no_email`: the contact has no email address. When several hold, the first in this order is given.",
  },
);
/** A reason an invitation is blocked. */
export type InviteBlockedReason = Static<typeof InviteBlockedReason>;

/** Landlord portal access of a contact. */
export const LandlordPortalAccess = Strict(
  {
    contactId: Type.String(),
    name: Type.String(),
    email: Nullable(Type.String()),
    status: Type.Union([Type.Literal("pending"), Type.Literal("active"), Type.Literal("revoked")], {
      description:
        "`pending`: invited, not yet accepted. `active`: the landlord accepted and uses the portal. `revoked`: " +
        "access was withdrawn; inviting again makes it `pending`.",
    }),
    invitedAt: Nullable({ ...Instant, description: "When the latest invitation was made." }),
    acceptedAt: Nullable({
      ...Instant,
      description: "When the landlord accepted; `null` while pending (a new invitation clears it).",
    }),
    revokedAt: Nullable({
      ...Instant,
      description: "When access was revoked; `null` unless revoked (a new invitation clears it).",
    }),
    properties: Type.Integer({ minimum: 0, description: "The properties of the workspace this landlord owns." }),
    inviteBlocked: Nullable(InviteBlockedReason),
  },
  { title: "LandlordPortalAccess" },
);
/** A landlord portal access record. */
export type LandlordPortalAccess = Static<typeof LandlordPortalAccess>;
