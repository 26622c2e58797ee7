/** The maintenance-pro group's operations. */
import { randomUUID } from "node:crypto";
import { Type } from "@sinclair/typebox";
import { ulid } from "ulid";
import { RevisionConflict } from "../core/errors.ts";
import { operation } from "../core/operation.ts";
import { Id } from "../core/schema.ts";
import { recordActivity } from "../core/activity.ts";
import { queues } from "../core/jobs.ts";
import { recordEvent, keyActor } from "../events/record.ts";
import { ContactNotFound, InviteBlocked, PortalAccessActive } from "./errors.ts";
import { hazardSettingsUpdated, portalAccessInvited } from "./events.ts";
import { decideInvite } from "./invite_rules.ts";
import { repairOperations } from "./repair_operations.ts";
import { worksOrderOperations } from "./works_order_operations.ts";
import { photoOperations } from "./photo_operations.ts";
import { ensureInviteEmailQueue, type InviteEmailJob } from "./invite_email_worker.ts";
import {
  hazardSettingsRow,
  lockHazardSettings,
  lockInviteTarget,
  recordInvitation,
  setHazardRegime,
  type HazardRow,
} from "./queries.ts";
import { HazardSettings, HazardSettingsUpdate, LandlordPortalAccess, hazardPolicyVersion } from "./schema.ts";

/** Errors the common interface lists for operations 2 to 12 that these operations never raise. */

const hazardRules =
  `The hazard clocks follow Awaab's Law (policyVersion \`${hazardPolicyVersion}\`). For social ` +
  `landlords it applies from 27 October 2025: emergency hazards are made safe within 24 hours, and significant ` +
  `hazards are investigated within 10 working days. For the private rented sector no commencement date is set ` +
  "in law yet: `prsInForceFrom` is the date the service's operator sets for it (`PRS_IN_FORCE_FROM`, the same in " +
  "every workspace), `null` while none is set. A private agency's clocks are statutory for hazards it became " +
  "aware of from 00:00 London on that date, and the agency's policy (the same periods) before it or while it is " +
  "`null`.";

function settingsOf(row: HazardRow, config: { prsInForceFrom: string | null }) {
  return {
    regime: row.regime,
    revision: row.revision,
    policyVersion: hazardPolicyVersion,
    prsInForceFrom: config.prsInForceFrom,
  };
}

/** Chooses social landlord or private agency rules for the hazard clocks. */
export const updateHazardSettings = operation({
  id: "maintenancePro.updateHazardSettings",
  group: "maintenance-pro",
  method: "PUT",
  path: "/maintenance-pro/hazard-settings",
  ownerOnly: true,
  summary: "Chooses social landlord or private agency rules for the hazard clocks.",
  description: [
    "Sets `regime` to `social` (a social landlord) or `private` (a private letting agency). Workspace owner " +
      "only: the key must have been created by the user who owns the workspace at the time of the request.",
    "Optimistic concurrency: `expectedRevision` must equal the current `revision` (0 for a workspace that never " +
      "changed its settings), else 409 `RevisionConflict {expectedRevision, currentRevision}` and nothing " +
      "changes. This is checked first, so a stale revision is refused even when the regime sent is the current " +
      "one. Of concurrent writers with the same revision exactly one succeeds.",
    "A write that changes nothing answers 200 with the settings and keeps the revision; a change moves the " +
      "revision up by one and is recorded in the activity log with the key id and as the event " +
      "`hazard_settings.updated`.",
    hazardRules,
  ].join("\n\n"),
  body: HazardSettingsUpdate,
  response: HazardSettings,
  errors: [RevisionConflict],
  run: ({ app, db, principal, body, requestId }) =>
    db.begin(async (tx) => {
      const current = await lockHazardSettings(tx, principal.workspaceId);
      if (current.revision !== body.expectedRevision) {
        throw new RevisionConflict({ expectedRevision: body.expectedRevision, currentRevision: current.revision });
      }
      if (current.regime === body.regime) return settingsOf(current, app.config);
      const updated = await setHazardRegime(tx, principal.workspaceId, body.regime);
      await recordActivity(tx, {
        workspaceId: principal.workspaceId,
        keyId: principal.keyId,
        action: "maintenance-pro.hazard_settings_changed",
        subjectKind: "hazard_settings",
        subjectId: principal.workspaceId,
        detail: { from: current.regime, to: updated.regime, revision: updated.revision },
      });
      const settings = settingsOf(updated, app.config);
      await recordEvent(tx, hazardSettingsUpdated, {
        workspaceId: principal.workspaceId,
        subjectId: principal.workspaceId,
        data: settings,
        requestId,
        actor: keyActor(principal),
      });
      return settings;
    }),
});

/** The workspace's hazard settings. */
export const hazardSettings = operation({
  id: "maintenancePro.hazardSettings",
  group: "maintenance-pro",
  method: "GET",
  path: "/maintenance-pro/hazard-settings",
  summary: "The workspace's hazard settings.",
  description:
    `The regime of the hazard clocks and its revision. A workspace starts at \`{regime: "private", ` +
    `revision: 0}\`.\n\n${hazardRules}`,
  response: HazardSettings,
  conditional: true,
  run: async ({ app, db, principal }) => settingsOf(await hazardSettingsRow(db, principal.workspaceId), app.config),
});

/** Invites a landlord to the portal. */
export const inviteLandlord = operation({
  id: "maintenancePro.inviteLandlord",
  group: "maintenance-pro",
  method: "POST",
  path: "/maintenance-pro/landlords/:contactId/portal-access/invite",
  summary: "Emails a landlord an invitation to the portal.",
  description: [
    "Invites a landlord contact to the landlord portal and returns its portal access record.",
    "Refusals, in this order: an unknown contact → 404 `ContactNotFound`; a contact that cannot be invited → 409 " +
      "`InviteBlocked {contactId, reason}` with reason `archived`, `not_a_landlord` (no `landlord` role) or " +
      "`no_email` (first that holds; the record's `inviteBlocked` carries the same reasons); an access that is " +
      "already `active` → 409 `PortalAccessActive`. A refusal writes nothing and sends nothing.",
    "Transitions: no access yet, or `revoked` → `pending` with a new invitation (`acceptedAt` and `revokedAt` " +
      "are cleared); `pending` → still `pending` with a new invitation whose link replaces the previous one: " +
      "the previous link stops working at once, and its email is not sent if it had not gone yet. `invitedAt` " +
      "is the time of the newest invitation. `properties` counts the workspace's properties this contact is a " +
      "landlord of. In a successful answer `inviteBlocked` is `null`.",
    "The email is queued in the same transaction as the record, so it exists exactly when the record does, and " +
      "is sent by a worker of the service: at least once, and never twice for one invitation: a delivery " +
      "ledger keyed by the invitation is locked while sending and marked sent in the same transaction, so " +
      "retries, restarts and concurrent workers find it sent. (The one window left is a crash in the instant " +
      "between the SMTP server accepting the message and that commit; the repeat then carries the same " +
      "Message-ID, `<invitation-<id>@…>`, and only its link works.) Failed sends are retried 8 times with " +
      "exponential backoff (from 30 s, doubling with jitter, at most an hour apart: one to two hours in all); " +
      "after the last retry the job is dead-lettered with its error kept. The message has a plain-text and an " +
      "HTML part, names the workspace, and links to `<PORTAL_BASE_URL>/invitations/<token>`: the token is " +
      "random (256 bits), minted when the email is sent, stored only as its SHA-256, and the link expires 7 " +
      "days after the email is sent. With no SMTP server configured the service writes each message as an .eml " +
      "file to its outbox folder instead.",
    "By default `PORTAL_BASE_URL` is the service's own `/portal`: the link opens a page of the service " +
      "(`GET /portal/invitations/{token}`, no key) whose button accepts the invitation (`POST " +
      "/portal/invitations/{token}/accept`): the access becomes `active` with `acceptedAt`, and the link is " +
      "spent. An operator revokes an access with `bun run cli portal revoke`: it becomes `revoked` with " +
      "`revokedAt` and its links stop working at once; inviting again then makes a new `pending` access.",
    "Each invitation is recorded in the activity log with the key id and as the event `portal_access.invited`.",
  ].join("\n\n"),
  params: Type.Object({ contactId: Id }, { additionalProperties: false }),
  response: LandlordPortalAccess,
  errors: [ContactNotFound, InviteBlocked, PortalAccessActive],
  run: async ({ app, principal, params, requestId }) => {
    const { workspaceId } = principal;
    const { contactId } = params;
    await ensureInviteEmailQueue(app.jobs);
    return app.db.begin(async (tx) => {
      const target = await lockInviteTarget(tx, workspaceId, contactId);
      if (!target) throw new ContactNotFound({ contactId });
      const decision = decideInvite(target);
      if (decision.kind === "blocked") throw new InviteBlocked({ contactId, reason: decision.reason });
      if (decision.kind === "active") throw new PortalAccessActive({ contactId });
      const invitationId = ulid();
      const jobId = randomUUID();
      const recorded = await recordInvitation(tx, {
        workspaceId,
        contactId,
        invitationId,
        email: target.email!,
        jobId,
        keyId: principal.keyId,
      });
      if (!recorded) throw new PortalAccessActive({ contactId });
      const job: InviteEmailJob = { workspaceId, invitationId };
      await app.jobs.send(tx, queues.inviteEmail, job, { id: jobId });
      await recordActivity(tx, {
        workspaceId,
        keyId: principal.keyId,
        action: "maintenance-pro.landlord_invited",
        subjectKind: "contact",
        subjectId: contactId,
        detail: { invitationId, replaces: decision.replaces },
      });
      const access = {
        contactId,
        name: target.name,
        email: target.email,
        status: "pending" as const,
        invitedAt: recorded.invitedAt,
        acceptedAt: null,
        revokedAt: null,
        properties: target.properties,
        inviteBlocked: null,
      };
      await recordEvent(tx, portalAccessInvited, {
        workspaceId,
        subjectId: contactId,
        data: access,
        requestId,
        actor: keyActor(principal),
      });
      return access;
    });
  },
});

/** Every operation of the group. */
export const operations = [
  hazardSettings,
  updateHazardSettings,
  inviteLandlord,
  ...repairOperations,
  ...photoOperations,
  ...worksOrderOperations,
];
