/** A landlord's portal access changing: accepted from an invitation link, revoked by an operator. */
import { recordActivity } from "../core/activity.ts";
import type { Db } from "../core/db.ts";
import { type Actor, recordEvent } from "../events/record.ts";
import { ContactNotFound, PortalAccessNotFound } from "./errors.ts";
import { portalAccessAccepted, portalAccessRevoked } from "./events.ts";
import { hashInvitationToken } from "./invitation_token.ts";
import { linkTokenShape } from "./public_pages.ts";
import { type InvitationState, invitationState } from "./invitation_state.ts";
import { inviteBlockedReason } from "./invite_rules.ts";
import {
  type AccessRow,
  acceptInvitation,
  accessRow,
  invitationByToken,
  type InvitationView,
  lockContact,
  lockInviteTarget,
  revokeAccess,
} from "./queries.ts";
import type { LandlordPortalAccess } from "./schema.ts";

/** The actor of an acceptance: the landlord, through the portal's public pages. */
export const portalActor: Actor = { kind: "provider", id: "portal" };

/** The portal access record (LandlordPortalAccess in schema.ts) of a stored access. */
export function accessRecord(row: AccessRow): LandlordPortalAccess {
  return {
    contactId: row.contactId,
    name: row.name,
    email: row.email,
    status: row.status,
    invitedAt: row.invitedAt,
    acceptedAt: row.acceptedAt,
    revokedAt: row.revokedAt,
    properties: row.properties,
    inviteBlocked: inviteBlockedReason(row),
  };
}

/** A link looked up: its state and, when an invitation has it, what the page may say. */
export interface LinkLookup {
  state: InvitationState;
  view: InvitationView | undefined;
}

/** The invitation of a link's token (a malformed token is an unknown link, without asking the database). */
export async function lookUpLink(db: Db, token: string): Promise<LinkLookup> {
  if (!linkTokenShape.test(token)) return { state: "unknown", view: undefined };
  const view = await invitationByToken(db, hashInvitationToken(token));
  return { state: invitationState(view), view };
}

/** What an accept did: the access it made active, or the state that refused it (nothing written then). */
export type AcceptOutcome =
  | { kind: "accepted"; access: LandlordPortalAccess; view: InvitationView }
  | { kind: "refused"; state: Exclude<InvitationState, "pending">; view: InvitationView | undefined };

/**
 * Accepts the invitation of a link: the token is spent and the access becomes `active`, with its event and activity
 * entry, in one transaction. The contact is locked first (as an invitation and a revocation lock it), and the state
 * read again under the lock, so of concurrent accepts exactly one succeeds and the others see `accepted`.
 */
export async function acceptByToken(db: Db, token: string, requestId: string): Promise<AcceptOutcome> {
  const first = await lookUpLink(db, token);
  if (first.state === "unknown" || !first.view) return { kind: "refused", state: "unknown", view: undefined };
  const { workspaceId, contactId } = first.view;
  return db.begin(async (tx): Promise<AcceptOutcome> => {
    await lockContact(tx, workspaceId, contactId);
    const view = await invitationByToken(tx, hashInvitationToken(token));
    const state = invitationState(view);
    if (state !== "pending" || !view) return { kind: "refused", state: state === "pending" ? "unknown" : state, view };
    if (!(await acceptInvitation(tx, workspaceId, view.invitationId, contactId))) {
      return { kind: "refused", state: "accepted", view };
    }
    const access = accessRecord((await accessRow(tx, workspaceId, contactId))!);
    await recordEvent(tx, portalAccessAccepted, {
      workspaceId,
      subjectId: contactId,
      data: access,
      requestId,
      actor: portalActor,
    });
    await recordActivity(tx, {
      workspaceId,
      keyId: null,
      action: "maintenance-pro.portal_access_accepted",
      subjectKind: "contact",
      subjectId: contactId,
      detail: { invitationId: view.invitationId },
    });
    return { kind: "accepted", access, view };
  });
}

/** What a revocation answers: the record, the reason kept, and whether this call changed anything. */
export type Revocation = LandlordPortalAccess & { revokeReason: string | null; changed: boolean };

/**
 * Revokes a landlord's portal access (pending or active → `revoked` with `revokedAt`): its links stop working at
 * once and an email not sent yet is skipped. Revoking a revoked access changes nothing (`changed: false`). Unknown
 * contact → ContactNotFound; a contact that never had access → PortalAccessNotFound; nothing is written then.
 */
export async function revokePortalAccess(
  db: Db,
  input: { workspaceId: string; contactId: string; reason: string | null },
): Promise<Revocation> {
  const { workspaceId, contactId, reason } = input;
  return db.begin(async (tx) => {
    const target = await lockInviteTarget(tx, workspaceId, contactId);
    if (!target) throw new ContactNotFound({ contactId });
    if (target.accessStatus === null) throw new PortalAccessNotFound({ contactId });
    const changed = await revokeAccess(tx, workspaceId, contactId, reason);
    const row = (await accessRow(tx, workspaceId, contactId))!;
    const access = accessRecord(row);
    if (changed) {
      await recordEvent(tx, portalAccessRevoked, {
        workspaceId,
        subjectId: contactId,
        data: access,
        requestId: null,
        actor: { kind: "cli", id: null },
      });
      await recordActivity(tx, {
        workspaceId,
        keyId: null,
        action: "maintenance-pro.portal_access_revoked",
        subjectKind: "contact",
        subjectId: contactId,
        detail: { was: target.accessStatus, reason },
      });
    }
    return { ...access, revokeReason: row.revokeReason, changed };
  });
}
