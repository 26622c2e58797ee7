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
