/** Errors of the maintenance-pro group. */
import { Type } from "@sinclair/typebox";
import { TaggedError } from "../core/errors.ts";
import { InviteBlockedReason } from "./schema.ts";

/** 404: no such contact in the caller's workspace. */
export class ContactNotFound extends TaggedError("ContactNotFound", 404, { contactId: Type.String() }, "No contact with this id in the workspace.") {}
/** 409: the contact cannot be invited (archived, not a landlord, no email). */
export class InviteBlocked extends TaggedError(
  "InviteBlocked", 409, { contactId: Type.String(), reason: InviteBlockedReason },
  "The contact cannot be invited: `archived`, `not_a_landlord` or `no_email` (first that holds). Nothing was written.",
) {}
/** 409: the landlord already uses the portal. */
export class PortalAccessActive extends TaggedError(
  "PortalAccessActive", 409, { contactId: Type.String() },
  "The landlord's portal access is already active; there is nothing to invite to. Nothing was written.",
) {}
