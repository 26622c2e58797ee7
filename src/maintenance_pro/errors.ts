/** Errors of the maintenance-pro group. */
import { Type } from "@sinclair/typebox";
import { TaggedError } from "../core/errors.ts";
import { InviteBlockedReason } from "./schema.ts";

/** 404: no such contact in the caller's workspace. */
export class ContactNotFound extends TaggedError(
  "ContactNotFound",
  404,
  { contactId: Type.String() },
  "No contact with this id in the workspace.",
) {}
/** 409: the contact cannot be invited (archived, not a landlord, no email). */
export class InviteBlocked extends TaggedError(
  "InviteBlocked",
  409,
  { contactId: Type.String(), reason: InviteBlockedReason },
  "The contact cannot be invited: `archived`, `not_a_landlord` or `no_email` (first that holds). Nothing was written.",
) {}
/** 409: the landlord already uses the portal. */
export class PortalAccessActive extends TaggedError(
  "PortalAccessActive",
  409,
  { contactId: Type.String() },
  "The landlord's portal access is already active; there is nothing to invite to. Nothing was written.",
) {}
/** 404: no invitation has this link (unknown and malformed tokens answer alike). */
export class InvitationNotFound extends TaggedError(
  "InvitationNotFound",
  404,
  {},
  "No invitation has this link. Nothing was written.",
) {}
/** 410: the link's 7 days are over. */
export class InvitationExpired extends TaggedError(
  "InvitationExpired",
  410,
  {},
  "The invitation link expired (7 days after its email was sent). Nothing was written.",
) {}
/** 410: a newer invitation replaced this one. */
export class InvitationSuperseded extends TaggedError(
  "InvitationSuperseded",
  410,
  {},
  "A newer invitation replaced this link; only the newest link works. Nothing was written.",
) {}
/** 409: the invitation was accepted already. */
export class InvitationAccepted extends TaggedError(
  "InvitationAccepted",
  409,
  {},
  "The invitation was accepted already; the access is active. Nothing was written.",
) {}
/** 410: the landlord's portal access was revoked. */
export class PortalAccessRevoked extends TaggedError(
  "PortalAccessRevoked",
  410,
  {},
  "The landlord's portal access was revoked; its links no longer work. Nothing was written.",
) {}
/** 403: a form post from another site. */
export class CrossSiteRequest extends TaggedError(
  "CrossSiteRequest",
  403,
  {},
  "The request came from another site (by its Origin or Sec-Fetch-Site header); accept from the invitation page. " +
    "Nothing was written.",
) {}
/** 404: the contact never had portal access. */
export class PortalAccessNotFound extends TaggedError(
  "PortalAccessNotFound",
  404,
  { contactId: Type.String() },
  "The contact has no portal access to revoke. Nothing was written.",
) {}

/** 404: no such property in the caller's workspace. */
export class PropertyNotFound extends TaggedError(
  "PropertyNotFound",
  404,
  { propertyId: Type.String() },
  "No property with this id in the workspace. Nothing was written.",
) {}
/** 404: no such repair in the caller's workspace. */
export class RepairNotFound extends TaggedError(
  "RepairNotFound",
  404,
  { repairId: Type.String() },
  "No repair with this id in the workspace. Nothing was written.",
) {}
/** Why a repair's value was refused. */
export const RepairRejectedReason = Type.Union(
  [
    Type.Literal("unit_not_in_property"),
    Type.Literal("tenancy_not_in_unit"),
    Type.Literal("contact_unknown"),
    Type.Literal("aware_in_future"),
    Type.Literal("at_in_future"),
    Type.Literal("before_aware"),
    Type.Literal("before_investigation"),
  ],
  {
    description:
      "`unit_not_in_property`: the unit is unknown or of another property. `tenancy_not_in_unit`: the tenancy is " +
      "unknown or of another unit. `contact_unknown`: no such contact. `aware_in_future`, `at_in_future`: more than " +
      "60 s ahead. `before_aware`: before the repair's awareAt. `before_investigation`: before the `investigated` " +
      "milestone's `at`.",
  },
);
/** 400: a value of the body breaks a rule of the repair (its schema is fine). */
export class RepairRejected extends TaggedError(
  "RepairRejected",
  400,
  { reason: RepairRejectedReason, field: Type.String() },
  "A value of the body breaks a rule of repairs; `field` names it (`unitId`, `tenancyId`, `reporter.contactId`, " +
    "`awareAt`, `at`). Nothing was written.",
) {}
/** 409: the repair is completed or cancelled. */
export class RepairClosed extends TaggedError(
  "RepairClosed",
  409,
  { repairId: Type.String(), status: Type.Union([Type.Literal("completed"), Type.Literal("cancelled")]) },
  "The repair is `completed` or `cancelled`: both are final. Nothing was written.",
) {}
/** 409: the repair cannot be triaged in its status. */
export class RepairNotTriageable extends TaggedError(
  "RepairNotTriageable",
  409,
  { repairId: Type.String(), status: Type.Union([Type.String(), Type.Null()]) },
  "Triage is allowed while the repair is `reported` or `triaged`: it is `in_progress`, or a legacy record (its " +
    "imported status is none of the five). Nothing was written.",
) {}
/** 409: milestones need a triaged repair. */
export class RepairNotTriaged extends TaggedError(
  "RepairNotTriaged",
  409,
  { repairId: Type.String() },
  "Milestones need a triaged repair: this one is `reported`, or a legacy record. Nothing was written.",
) {}
/** 409: a milestone of this kind is recorded already. */
export class MilestoneRecorded extends TaggedError(
  "MilestoneRecorded",
  409,
  { repairId: Type.String(), kind: Type.String() },
  "Each milestone kind is recorded at most once, and this one is recorded already. Nothing was written.",
) {}
/** 409: the milestone needs another first. */
export class MilestoneOutOfOrder extends TaggedError(
  "MilestoneOutOfOrder",
  409,
  {
    repairId: Type.String(),
    kind: Type.String(),
    requires: Type.Union([Type.Literal("investigated"), Type.Literal("hazard_confirmed")]),
  },
  "`summary_sent` needs `investigated` first; `safety_work_started` and `preventative_work_started` need " +
    "`investigated` with `hazard_confirmed`. `requires` is `investigated` when there is no investigation yet, " +
    "`hazard_confirmed` when it found no hazard. Nothing was written.",
) {}

/** 409: the contact is not a contractor. */
export class NotAContractor extends TaggedError(
  "NotAContractor",
  409,
  { contactId: Type.String() },
  "Works orders go to contacts with the role `contractor`; this contact has not got it. Nothing was written.",
) {}
/** 404: no such works order in the caller's workspace. */
export class WorksOrderNotFound extends TaggedError(
  "WorksOrderNotFound",
  404,
  { worksOrderId: Type.String() },
  "No works order with this id in the workspace. Nothing was written.",
) {}
/** 409: the works order is declined, completed or cancelled. */
export class WorksOrderClosed extends TaggedError(
  "WorksOrderClosed",
  409,
  { worksOrderId: Type.String(), status: Type.String() },
  "The works order is `declined`, `completed` or `cancelled`: all three are final. Nothing was written.",
) {}
/** 400: the key set is unknown or not of the repair's unit. */
export class KeySetNotOfUnit extends TaggedError(
  "KeySetNotOfUnit",
  400,
  { keySetId: Type.String() },
  "The key set is unknown, or not one of the repair's unit (a repair without a unit takes none). Nothing was " +
    "written.",
) {}
/** The holder types of key sets. */
const KeyHolderType = Type.String({ description: "office, tenant, contractor, landlord, staff or other." });
/** 409: the works order names no key set. */
export class WorksOrderHasNoKeySet extends TaggedError(
  "WorksOrderHasNoKeySet",
  409,
  { worksOrderId: Type.String() },
  "The works order names no key set (it was raised without `keySetId`): there is nothing to check out or return. " +
    "Nothing was written.",
) {}
/** 409: the key set is lost. */
export class KeySetLost extends TaggedError(
  "KeySetLost",
  409,
  { keySetId: Type.String() },
  "The works order's key set is recorded as lost: it cannot be checked out. Nothing was written.",
) {}
/** 409: the key set is checked out to someone other than the order's contractor. */
export class KeySetCheckedOut extends TaggedError(
  "KeySetCheckedOut",
  409,
  { keySetId: Type.String(), holderType: KeyHolderType, holderName: Type.String() },
  "The works order's key set is checked out to someone else: `holderType` and `holderName` (as recorded, empty " +
    "when none was) say who. It must come back to the office first. Nothing was written.",
) {}
/** 409: the key set is not out with the order's contractor. */
export class KeySetNotWithContractor extends TaggedError(
  "KeySetNotWithContractor",
  409,
  {
    keySetId: Type.String(),
    status: Type.Union([Type.Literal("checked_out"), Type.Literal("lost")]),
    holderType: KeyHolderType,
    holderName: Type.String(),
  },
  "The works order's key set is not checked out to the order's contractor: it is `lost`, or `checked_out` to the " +
    "holder named. Nothing was written.",
) {}
