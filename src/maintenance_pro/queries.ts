/**
 * The maintenance-pro group's SQL: hazard settings, repairs, landlord portal access, invitations and their email
 * ledger.
 */
import type postgres from "postgres";
import type { Db, Tx } from "../core/db.ts";
import { rowInsert, type NewRow } from "../core/table_queries.ts";
import type { Repair, RepairAccessAttempt, RepairMilestone } from "./repair_schema.ts";
import { invitationLifetimeDays } from "./invitation_token.ts";
import { repairsTable } from "./repair_table.ts";

/** The stored hazard settings of a workspace. */
export interface HazardRow {
  regime: "private" | "social";
  revision: number;
}

/** The workspace's hazard settings; a workspace without a row has the default `{private, 0}`. */
export async function hazardSettingsRow(db: Db | Tx, workspaceId: string): Promise<HazardRow> {
  const [row] = await db<HazardRow[]>`
    select coalesce(h.regime, 'private') as regime, coalesce(h.revision, 0) as revision
    from (select 1) as one left join hazard_settings h on h.workspace_id = ${workspaceId}`;
  return row!;
}

/**
 * Locks the workspace's hazard settings row until the transaction ends, making it from the default first if missing.
 */
export async function lockHazardSettings(tx: Tx, workspaceId: string): Promise<HazardRow> {
  // The default row makes a lock to wait on, so that of two first writers exactly one wins.
  await tx`
    insert into hazard_settings (workspace_id, regime, revision) values (${workspaceId}, 'private', 0)
    on conflict (workspace_id) do nothing`;
  const [row] = await tx<HazardRow[]>`
    select regime, revision from hazard_settings where workspace_id = ${workspaceId} for update`;
  return row!;
}

/** Sets the regime and moves the revision up by one. */
export async function setHazardRegime(tx: Tx, workspaceId: string, regime: HazardRow["regime"]): Promise<HazardRow> {
  const [row] = await tx<HazardRow[]>`
    update hazard_settings set regime = ${regime}, revision = revision + 1, updated_at = now()
    where workspace_id = ${workspaceId}
    returning regime, revision`;
  return row!;
}

/** A repair row in the answer's shape, without its clocks (computed by clocks.ts when answering). */
export type RepairRow = Omit<Repair, "clocks">;

/** A repair's columns in the answer's shape (`r` is the repairs row). */
function repairColumns(db: Db | Tx) {
  return db`
    r.id, r.reference, r.property_id, r.unit_id, r.tenancy_id, r.title, r.description, r.location, r.category,
    case when r.reporter_kind is null then null
         else json_build_object('kind', r.reporter_kind, 'contactId', r.reporter_contact_id, 'name', r.reporter_name)
    end as reporter,
    r.channel, iso(r.aware_at) as aware_at, r.status, r.hazard, r.hhsrs_hazard, r.regime, r.policy_version,
    iso(r.triaged_at) as triaged_at, r.triaged_by_user_id, r.milestones, r.triage_note, r.access_attempts, r.photos,
    r.cancel_reason, iso(r.cancelled_at) as cancelled_at, r.revision, iso(r.created_at) as created_at,
    iso(r.updated_at) as updated_at`;
}

/** A repair of the workspace, or undefined. */
export async function repairRow(db: Db | Tx, workspaceId: string, id: string): Promise<RepairRow | undefined> {
  const [row] = await db<RepairRow[]>`
    select ${repairColumns(db)} from repairs r where r.workspace_id = ${workspaceId} and r.id = ${id}`;
  return row;
}

/** The workspace's repairs of these ids, in no order (an id the workspace has no repair of is left out). */
export async function repairRowsById(db: Db | Tx, workspaceId: string, ids: string[]): Promise<RepairRow[]> {
  return db<RepairRow[]>`
    select ${repairColumns(db)} from repairs r where r.workspace_id = ${workspaceId} and r.id = any(${ids}::text[])`;
}

/** The repairs of a tenancy, newest first (at most `limit`): the tenant's page, in one statement. */
export async function tenancyRepairRows(
  db: Db | Tx,
  workspaceId: string,
  tenancyId: string,
  limit: number,
): Promise<RepairRow[]> {
  return db<RepairRow[]>`
    select ${repairColumns(db)} from repairs r
    where r.workspace_id = ${workspaceId} and r.tenancy_id = ${tenancyId}
    order by r.created_at desc, r.id desc limit ${limit}`;
}

/** A repair of the workspace, locked until the transaction ends (its writes run one at a time), or undefined. */
export async function lockRepair(tx: Tx, workspaceId: string, id: string): Promise<RepairRow | undefined> {
  const [row] = await tx<RepairRow[]>`
    select ${repairColumns(tx)} from repairs r where r.workspace_id = ${workspaceId} and r.id = ${id}
    for no key update`;
  return row;
}

/** What a report names, as found in the workspace, with the hazard settings a triage at once would take. */
export interface ReportTargets {
  property: boolean;
  /** The unit's property, or null when the unit is unknown (or none was named). */
  unitPropertyId: string | null;
  /** The tenancy's unit, or null when the tenancy is unknown (or none was named). */
  tenancyUnitId: string | null;
  /** The property of the tenancy's unit. */
  tenancyPropertyId: string | null;
  contact: boolean;
  regime: "private" | "social";
}

/**
 * Looks up a report's property, unit, tenancy and reporter contact, and the workspace's regime, in one statement. It
 * takes the workspace row's key-share lock, as the report's later inserts would: an import (which locks the row for
 * update, then moves the reference count) is waited for here, before the report takes the count's row, not after.
 */
export async function reportTargets(
  db: Db | Tx,
  workspaceId: string,
  ids: { propertyId: string; unitId: string | null; tenancyId: string | null; contactId: string | null },
): Promise<ReportTargets> {
  const [row] = await db<ReportTargets[]>`
    select
      exists (select 1 from properties where workspace_id = ${workspaceId} and id = ${ids.propertyId}) as property,
      (select property_id from units where workspace_id = ${workspaceId} and id = ${ids.unitId}) as unit_property_id,
      t.unit_id as tenancy_unit_id, u.property_id as tenancy_property_id,
      exists (select 1 from contacts where workspace_id = ${workspaceId} and id = ${ids.contactId}) as contact,
      coalesce((select regime from hazard_settings where workspace_id = ${workspaceId}), 'private') as regime
    from workspaces w
    left join tenancies t on t.workspace_id = w.id and t.id = ${ids.tenancyId}
    left join units u on u.workspace_id = t.workspace_id and u.id = t.unit_id
    where w.id = ${workspaceId}
    for key share of w`;
  return row!;
}

/** A new repair's stored fields (its id, reference, revision and timestamps are made by insertRepair). */
export interface NewRepair {
  workspaceId: string;
  id: string;
  propertyId: string;
  unitId: string | null;
  tenancyId: string | null;
  title: string;
  description: string | null;
  location: string | null;
  category: string;
  reporter: { kind: string; contactId: string | null; name: string | null };
  channel: string;
  awareAt: string;
  status: "reported" | "triaged";
  hazard: string | null;
  hhsrsHazard: string | null;
  regime: string | null;
  policyVersion: string | null;
  triagedAt: string | null;
  triagedByUserId: string | null;
  openDueAt: string | null;
  openDueLastAt: string | null;
  createdAt: string;
}

/** A new repair's row; its reference, `R-<n>`, is the number insertRepair's statement counts. */
function newRepairRow(tx: Tx, r: NewRepair): NewRow<typeof repairsTable> {
  return {
    id: r.id,
    reference: tx`'R-' || (select last from counted)`,
    status: r.status,
    property_id: r.propertyId,
    unit_id: r.unitId,
    tenancy_id: r.tenancyId,
    title: r.title,
    description: r.description,
    location: r.location,
    category: r.category,
    reporter_kind: r.reporter.kind,
    reporter_contact_id: r.reporter.contactId,
    reporter_name: r.reporter.name,
    channel: r.channel,
    aware_at: r.awareAt,
    hazard: r.hazard,
    hhsrs_hazard: r.hhsrsHazard,
    regime: r.regime,
    policy_version: r.policyVersion,
    triaged_at: r.triagedAt,
    triaged_by_user_id: r.triagedByUserId,
    triage_note: null,
    milestones: [],
    access_attempts: [],
    cancel_reason: null,
    cancelled_at: null,
    open_due_at: r.openDueAt,
    open_due_last_at: r.openDueLastAt,
    created_at: r.createdAt,
  };
}

/**
 * Inserts a repair with the workspace's next reference, `R-<n>`. The number is taken by an update of the workspace's
 * counter row in the caller's transaction: it is taken only if the transaction commits, and concurrent creations
 * wait for each other there, so references never skip or repeat. Call it last before committing (the row stays
 * locked until then).
 */
export async function insertRepair(tx: Tx, r: NewRepair): Promise<RepairRow> {
  const [row] = await tx<RepairRow[]>`
    with counted as (
      insert into repair_references as c (workspace_id, last) values (${r.workspaceId}, 1)
      on conflict (workspace_id) do update set last = c.last + 1
      returning last
    ), r as (
      insert into repairs ${rowInsert(tx, repairsTable, r.workspaceId, newRepairRow(tx, r), {
        revision: 1,
        updated_at: r.createdAt,
      })}
      returning *
    )
    select ${repairColumns(tx)} from r`;
  return row!;
}

/** The stored fields a write of a repair changes (every write sets updatedAt and the open dues). */
export interface RepairChanges {
  status?: string;
  hazard?: string;
  hhsrsHazard?: string | null;
  regime?: string;
  policyVersion?: string;
  triagedAt?: string;
  triagedByUserId?: string;
  triageNote?: string | null;
  milestones?: RepairMilestone[];
  accessAttempts?: RepairAccessAttempt[];
  cancelReason?: string;
  cancelledAt?: string;
  openDueAt: string | null;
  openDueLastAt: string | null;
  updatedAt: string;
}

/**
 * Writes changes to a repair at `revision` and moves its revision up by one; undefined when the repair is not at
 * that revision any more (another write came first).
 */
export async function updateRepair(
  tx: Tx,
  workspaceId: string,
  id: string,
  revision: number,
  changes: RepairChanges,
): Promise<RepairRow | undefined> {
  const values: Record<string, postgres.ParameterOrJSON<never>> = {};
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    values[name] = name === "milestones" || name === "accessAttempts" ? tx.json(value as never) : value;
  }
  const [row] = await tx<RepairRow[]>`
    update repairs r set ${tx(values, Object.keys(values))}, revision = r.revision + 1
    where r.workspace_id = ${workspaceId} and r.id = ${id} and r.revision = ${revision}
    returning ${repairColumns(tx)}`;
  return row;
}

/** The list's filters and position (the sort key of the last repair of the previous page). */
export interface RepairsPageQuery {
  status?: string;
  propertyId?: string;
  tenancyId?: string;
  clock?: "running" | "breached" | "open";
  dueBefore?: string;
  now: string;
  after?: { due: string | null; createdAt: string; id: string };
  take: number;
}

/**
 * A page of the list: each repair's id and revision (its answer is read by id, or kept: repair_answers.ts), its sort
 * keys as Postgres prints them (`sortDue` null: no open clock), and the stored calendar's version
 * (calendarVersionSql) as of the statement.
 */
export interface RepairsPageRow {
  id: string;
  revision: number;
  sortDue: string | null;
  sortCreatedAt: string;
  calendarVersion: number;
}

/** The version of the stored working calendar: the id of its last load, 0 for none. Loads only ever add a row. */
function calendarVersionSql(db: Db | Tx) {
  return db`(select coalesce(max(id), 0)::int from bank_holiday_loads)`;
}

/** The stored working calendar's version (see calendarVersionSql). */
export async function calendarVersion(db: Db | Tx): Promise<number> {
  const [row] = await db<{ version: number }[]>`select ${calendarVersionSql(db)} as version`;
  return row!.version;
}

/**
 * Repairs in the list's order: the earliest due instant among their open clocks (none last), then createdAt, then
 * id; each filter bounds one index's range or is checked inside it (sql/0027), so a page reads about `take` rows.
 * Each row carries the calendar's version, read once (an uncorrelated subquery), so the page needs no other read
 * than that of the answers its process does not keep (repairRowsById).
 */
export async function repairsPage(db: Db, workspaceId: string, q: RepairsPageQuery): Promise<RepairsPageRow[]> {
  // The sort key, spelled exactly as the indexes have it; its parts go back in cursors as Postgres prints them.
  const due = db`coalesce(r.open_due_at, 'infinity')`;
  const after = q.after;
  return db<RepairsPageRow[]>`
    select r.id, r.revision, r.open_due_at::text as sort_due, r.created_at::text as sort_created_at,
           ${calendarVersionSql(db)} as calendar_version
    from repairs r
    where r.workspace_id = ${workspaceId}
      ${q.status !== undefined ? db`and r.status = ${q.status}` : db``}
      ${q.propertyId !== undefined ? db`and r.property_id = ${q.propertyId}` : db``}
      ${q.tenancyId !== undefined ? db`and r.tenancy_id = ${q.tenancyId}` : db``}
      ${q.clock === "open" || q.clock === "running" ? db`and ${due} < 'infinity'` : db``}
      ${q.clock === "breached" ? db`and ${due} < ${q.now}::timestamptz` : db``}
      ${q.clock === "running" ? db`and r.open_due_last_at >= ${q.now}::timestamptz` : db``}
      ${q.dueBefore !== undefined ? db`and ${due} < ${q.dueBefore}::timestamptz` : db``}
      ${
        after
          ? db`and (${due}, r.created_at, r.id) >
                   (coalesce(${after.due}::timestamptz, 'infinity'), ${after.createdAt}::timestamptz, ${after.id})`
          : db``
      }
    order by ${due}, r.created_at, r.id
    limit ${pageSize(db, q.take)}`;
}

/**
 * A page's size written into its statement, not bound. Bound, the generic plan cannot count on it and costs the
 * whole range: Postgres then planned every page afresh (~80 µs of its CPU a page; bench/README.md, "The due list's
 * page planned once"). A size is an integer of 1 to 201, so a connection prepares at most that many statements.
 */
function pageSize(db: Db, take: number) {
  if (!Number.isSafeInteger(take) || take < 1 || take > 201) throw new Error(`not a page size: ${take}`);
  return db.unsafe(String(take));
}

/** A contact as the invitation rules see it, with its access and the properties it owns. */
export interface InviteTargetRow {
  contactId: string;
  name: string;
  email: string | null;
  archived: boolean;
  landlord: boolean;
  accessStatus: "pending" | "active" | "revoked" | null;
  properties: number;
}

/** The contact and its portal access, locking the contact so that invitations of one landlord run one at a time. */
export async function lockInviteTarget(
  tx: Tx,
  workspaceId: string,
  contactId: string,
): Promise<InviteTargetRow | undefined> {
  const [row] = await tx<InviteTargetRow[]>`
    select c.id as contact_id, c.name, nullif(btrim(c.email), '') as email, c.archived_at is not null as archived,
           'landlord' = any(c.roles) as landlord, a.status as access_status,
           (select count(*)::int from property_landlords pl
            where pl.workspace_id = c.workspace_id and pl.contact_id = c.id) as properties
    from contacts c
    left join landlord_portal_access a on a.workspace_id = c.workspace_id and a.contact_id = c.id
    where c.workspace_id = ${workspaceId} and c.id = ${contactId}
    for no key update of c`;
  return row;
}

/** A new invitation to record. */
export interface NewInvitation {
  workspaceId: string;
  contactId: string;
  invitationId: string;
  email: string;
  /** The id of the email job, queued in the same transaction. */
  jobId: string;
  keyId: string;
}

/**
 * Makes the access pending with a new invitation: earlier invitations of the contact are superseded (their
 * links stop working), the invitation and its ledger entry are written. Returns the new `invitedAt`, or
 * undefined when the access turned active meanwhile (nothing is written then).
 */
export async function recordInvitation(tx: Tx, input: NewInvitation): Promise<{ invitedAt: string } | undefined> {
  const { workspaceId, contactId, invitationId } = input;
  await tx`
    update portal_invitations set superseded_at = now()
    where workspace_id = ${workspaceId} and contact_id = ${contactId} and superseded_at is null`;
  const [row] = await tx<{ invitedAt: string }[]>`
    with access as (
      insert into landlord_portal_access as a (workspace_id, contact_id, status, invited_at)
      values (${workspaceId}, ${contactId}, 'pending', now())
      on conflict (workspace_id, contact_id) do update
        set status = 'pending', invited_at = now(), accepted_at = null, revoked_at = null, revoke_reason = null
        where a.status <> 'active'
      returning invited_at
    ), invitation as (
      insert into portal_invitations (workspace_id, id, contact_id, email, created_by_key_id)
      select ${workspaceId}, ${invitationId}, ${contactId}, ${input.email}, ${input.keyId} from access
      returning id
    ), ledger as (
      insert into email_deliveries (workspace_id, invitation_id, job_id, status)
      select ${workspaceId}, id, ${input.jobId}, 'queued' from invitation
    )
    select iso(invited_at) as invited_at from access`;
  return row;
}

/** An invitation's email as its worker finds it, with the ledger row locked. */
export interface DeliveryRow {
  status: "queued" | "sent" | "skipped" | "failed";
  attempts: number;
  email: string;
  superseded: boolean;
  accessStatus: "pending" | "active" | "revoked" | null;
  landlordName: string;
  workspaceName: string;
  /** When the link will expire if the email is sent in this transaction. */
  expiresAt: string;
}

/**
 * Locks the ledger row of an invitation until the transaction ends, so that a second run of the same job
 * (a retry, a job that expired while its worker was slow) waits for the first and then sees what it did.
 */
export async function lockDelivery(
  tx: Tx,
  workspaceId: string,
  invitationId: string,
): Promise<DeliveryRow | undefined> {
  const [row] = await tx<DeliveryRow[]>`
    select d.status, d.attempts, i.email, i.superseded_at is not null as superseded, a.status as access_status,
           c.name as landlord_name, w.name as workspace_name,
           iso(now() + make_interval(days => ${invitationLifetimeDays})) as expires_at
    from email_deliveries d
    join portal_invitations i on i.workspace_id = d.workspace_id and i.id = d.invitation_id
    join contacts c on c.workspace_id = i.workspace_id and c.id = i.contact_id
    join workspaces w on w.id = d.workspace_id
    left join landlord_portal_access a on a.workspace_id = i.workspace_id and a.contact_id = i.contact_id
    where d.workspace_id = ${workspaceId} and d.invitation_id = ${invitationId}
    for update of d`;
  return row;
}

/** Where a sent email went. */
export interface SentRecord {
  tokenHash: Buffer;
  transport: "smtp" | "outbox";
  messageId: string;
  destination: string;
}

/**
 * Records a sent email: the ledger says sent, the invitation gets its token's hash and expiry (as lockDelivery said).
 */
export async function markSent(tx: Tx, workspaceId: string, invitationId: string, sent: SentRecord): Promise<void> {
  await tx`
    with ledger as (
      update email_deliveries
      set status = 'sent', attempts = attempts + 1, last_error = null, transport = ${sent.transport},
          message_id = ${sent.messageId}, destination = ${sent.destination}, sent_at = now(), updated_at = now()
      where workspace_id = ${workspaceId} and invitation_id = ${invitationId}
    )
    update portal_invitations
    set token_hash = ${sent.tokenHash}, expires_at = now() + make_interval(days => ${invitationLifetimeDays})
    where workspace_id = ${workspaceId} and id = ${invitationId}`;
}

/** Records a failed attempt; `final` marks the last one, after which the job goes to the dead-letter queue. */
export async function markFailed(
  tx: Tx | Db,
  workspaceId: string,
  invitationId: string,
  error: string,
  final: boolean,
): Promise<void> {
  await tx`
    update email_deliveries
    set status = 'failed', attempts = attempts + 1, last_error = ${error},
        dead_lettered_at = case when ${final}::boolean then now() end, updated_at = now()
    where workspace_id = ${workspaceId} and invitation_id = ${invitationId} and status <> 'sent'`;
}

/** Records an email not sent because it would be useless (a newer invitation, or access no longer pending). */
export async function markSkipped(tx: Tx, workspaceId: string, invitationId: string, reason: string): Promise<void> {
  await tx`
    update email_deliveries set status = 'skipped', last_error = ${reason}, updated_at = now()
    where workspace_id = ${workspaceId} and invitation_id = ${invitationId}`;
}

/** A live invitation found by its link's token. */
export interface LiveInvitation {
  workspaceId: string;
  invitationId: string;
  contactId: string;
  expiresAt: string;
}

/**
 * The invitation a link's token opens, if the link still works: the newest invitation of its contact, sent,
 * not expired, not accepted, with the access still pending. The token names the workspace, so this lookup
 * (the portal's, made before anyone is signed in) is by token alone.
 */
export async function findLiveInvitation(db: Db | Tx, tokenHash: Buffer): Promise<LiveInvitation | undefined> {
  const [row] = await db<LiveInvitation[]>`
    select i.workspace_id, i.id as invitation_id, i.contact_id, iso(i.expires_at) as expires_at
    from portal_invitations i
    join landlord_portal_access a on a.workspace_id = i.workspace_id and a.contact_id = i.contact_id
    where i.token_hash = ${tokenHash} and i.superseded_at is null and i.accepted_at is null
      and i.expires_at > now() and a.status = 'pending'`;
  return row;
}

/** An invitation as its link shows it: its state's ingredients and what the page may say. */
export interface InvitationView {
  workspaceId: string;
  invitationId: string;
  contactId: string;
  superseded: boolean;
  accepted: boolean;
  expired: boolean;
  expiresAt: string;
  accessStatus: "pending" | "active" | "revoked" | null;
  landlordName: string;
  workspaceName: string;
  properties: number;
}

/** The sent invitation whose link's token has this hash, whatever its state (expiry by the database's clock). */
export async function invitationByToken(db: Db | Tx, tokenHash: Buffer): Promise<InvitationView | undefined> {
  const [row] = await db<InvitationView[]>`
    select i.workspace_id, i.id as invitation_id, i.contact_id, i.superseded_at is not null as superseded,
           i.accepted_at is not null as accepted, i.expires_at <= now() as expired, iso(i.expires_at) as expires_at,
           a.status as access_status, c.name as landlord_name, w.name as workspace_name,
           (select count(*)::int from property_landlords pl
            where pl.workspace_id = i.workspace_id and pl.contact_id = i.contact_id) as properties
    from portal_invitations i
    join contacts c on c.workspace_id = i.workspace_id and c.id = i.contact_id
    join workspaces w on w.id = i.workspace_id
    left join landlord_portal_access a on a.workspace_id = i.workspace_id and a.contact_id = i.contact_id
    where i.token_hash = ${tokenHash} and i.expires_at is not null`;
  return row;
}

/** Locks a contact as an invitation does (see lockInviteTarget), so invite, accept and revoke run one at a time. */
export async function lockContact(tx: Tx, workspaceId: string, contactId: string): Promise<void> {
  await tx`select 1 from contacts where workspace_id = ${workspaceId} and id = ${contactId} for no key update`;
}

/** Spends the invitation and makes the access active; false when either was no longer pending. */
export async function acceptInvitation(
  tx: Tx,
  workspaceId: string,
  invitationId: string,
  contactId: string,
): Promise<boolean> {
  const rows = await tx`
    with spent as (
      update portal_invitations set accepted_at = now()
      where workspace_id = ${workspaceId} and id = ${invitationId} and accepted_at is null
      returning contact_id
    )
    update landlord_portal_access a set status = 'active', accepted_at = now()
    from spent
    where a.workspace_id = ${workspaceId} and a.contact_id = ${contactId} and a.contact_id = spent.contact_id
      and a.status = 'pending'`;
  return rows.count === 1;
}

/** Revokes the access with the operator's reason; false when there was nothing left to revoke. */
export async function revokeAccess(
  tx: Tx,
  workspaceId: string,
  contactId: string,
  reason: string | null,
): Promise<boolean> {
  const rows = await tx`
    update landlord_portal_access set status = 'revoked', revoked_at = now(), revoke_reason = ${reason}
    where workspace_id = ${workspaceId} and contact_id = ${contactId} and status <> 'revoked'`;
  return rows.count === 1;
}

/** A contact's portal access with what the record needs; undefined when it never had access. */
export interface AccessRow {
  contactId: string;
  name: string;
  email: string | null;
  archived: boolean;
  landlord: boolean;
  status: "pending" | "active" | "revoked";
  invitedAt: string | null;
  acceptedAt: string | null;
  revokedAt: string | null;
  revokeReason: string | null;
  properties: number;
}

/** The portal access of a contact, as the record shows it. */
export async function accessRow(db: Db | Tx, workspaceId: string, contactId: string): Promise<AccessRow | undefined> {
  const [row] = await db<AccessRow[]>`
    select c.id as contact_id, c.name, nullif(btrim(c.email), '') as email, c.archived_at is not null as archived,
           'landlord' = any(c.roles) as landlord, a.status, iso(a.invited_at) as invited_at,
           iso(a.accepted_at) as accepted_at, iso(a.revoked_at) as revoked_at, a.revoke_reason,
           (select count(*)::int from property_landlords pl
            where pl.workspace_id = c.workspace_id and pl.contact_id = c.id) as properties
    from landlord_portal_access a
    join contacts c on c.workspace_id = a.workspace_id and c.id = a.contact_id
    where a.workspace_id = ${workspaceId} and a.contact_id = ${contactId}`;
  return row;
}

/**
 * A division's stored bank holidays (`date` as `YYYY-MM-DD`, in order), the years its loads covered, and the stored
 * calendar's version (calendarVersionSql), read together.
 */
export async function bankHolidayRows(
  db: Db | Tx,
  division: string,
): Promise<{ holidays: { date: string; title: string }[]; years: number[]; version: number }> {
  const [row] = await db<{ holidays: { date: string; title: string }[]; years: number[]; version: number }[]>`
    select ${calendarVersionSql(db)} as version,
      coalesce((select json_agg(json_build_object('date', to_char(h.date, 'YYYY-MM-DD'), 'title', h.title)
                                order by h.date)
                from bank_holidays h where h.division = ${division}), '[]') as holidays,
      coalesce((select array_agg(distinct y order by y)
                from bank_holiday_loads l, generate_series(l.first_year, l.last_year) as y
                where l.division = ${division}), '{}') as years`;
  return row!;
}

/** A bank holiday as GOV.UK lists it. */
export interface BankHolidayRow {
  date: string;
  title: string;
  notes: string;
  bunting: boolean;
}

/**
 * Replaces a division's bank holidays of the years `firstYear` to `lastYear` with `events` and records the load, in
 * the caller's transaction; returns the load's id and the rows it replaced.
 */
export async function replaceBankHolidays(
  tx: Tx,
  load: { source: string; division: string; firstYear: number; lastYear: number },
  events: BankHolidayRow[],
): Promise<{ loadId: number; replaced: BankHolidayRow[] }> {
  // Loads one at a time; readers of the calendar are not blocked.
  await tx`lock table bank_holidays in exclusive mode`;
  const replaced = await tx<BankHolidayRow[]>`
    delete from bank_holidays
    where division = ${load.division}
      and date between make_date(${load.firstYear}, 1, 1) and make_date(${load.lastYear}, 12, 31)
    returning to_char(date, 'YYYY-MM-DD') as date, title, notes, bunting`;
  const [loaded] = await tx<{ id: number }[]>`
    insert into bank_holiday_loads (source, division, first_year, last_year, events)
    values (${load.source}, ${load.division}, ${load.firstYear}, ${load.lastYear}, ${events.length})
    returning id::int`;
  const id = loaded!.id;
  await tx`
    insert into bank_holidays (division, date, title, notes, bunting, load_id)
    select ${load.division}, e.date, e.title, e.notes, e.bunting, ${id}
    from jsonb_to_recordset(${JSON.stringify(events)}::jsonb)
      as e (date date, title text, notes text, bunting boolean)`;
  return { loadId: id, replaced: [...replaced] };
}

/** A repair by its key. */
export interface RepairKey {
  workspaceId: string;
  repairId: string;
}

/** A moment of a repair's hazard clock (clock_moments.ts). */
export type RepairClockMoment = RepairKey & { clockKind: string; moment: string; at: string };

const keyArrays = (keys: readonly RepairKey[]) => [keys.map((k) => k.workspaceId), keys.map((k) => k.repairId)];

/**
 * Claims up to `limit` repairs marked as written since their clocks' moments were last kept, deleting the marks. A
 * mark another transaction holds is skipped: an uncommitted write's (its commit leaves it), another worker's.
 */
export async function claimClockChanges(tx: Tx, limit: number): Promise<RepairKey[]> {
  return tx<RepairKey[]>`
    delete from hazard_clock_changes c
    using (select workspace_id, repair_id from hazard_clock_changes limit ${limit} for update skip locked) k
    where c.workspace_id = k.workspace_id and c.repair_id = k.repair_id
    returning c.workspace_id, c.repair_id`;
}

/** The repairs of these keys (those that still exist), each with its workspace. */
export async function repairRowsOf(db: Db | Tx, keys: readonly RepairKey[]): Promise<(RepairRow & RepairKey)[]> {
  const [workspaceIds, ids] = keyArrays(keys);
  return db<(RepairRow & RepairKey)[]>`
    select r.workspace_id, r.id as repair_id, ${repairColumns(db)}
    from unnest(${workspaceIds!}::text[], ${ids!}::text[]) as k (workspace_id, id)
    join repairs r on r.workspace_id = k.workspace_id and r.id = k.id`;
}

/**
 * Keeps the moments these repairs' clocks owe: `owed` inserted, or moved to their `at`; the repairs' other moments not
 * sent yet deleted. A moment sent is never changed, nor owed again.
 */
export async function keepOwedMoments(
  tx: Tx,
  repairs: readonly RepairKey[],
  owed: readonly RepairClockMoment[],
): Promise<void> {
  const [workspaceIds, ids] = keyArrays(repairs);
  const [owedWorkspaceIds, owedIds] = keyArrays(owed);
  await tx`
    with owed as (
      select * from unnest(${owedWorkspaceIds!}::text[], ${owedIds!}::text[], ${owed.map((m) => m.clockKind)}::text[],
                           ${owed.map((m) => m.moment)}::text[], ${owed.map((m) => m.at)}::timestamptz[])
        as o (workspace_id, repair_id, clock_kind, moment, at)
    ), dropped as (
      delete from hazard_clock_moments m
      using unnest(${workspaceIds!}::text[], ${ids!}::text[]) as k (workspace_id, repair_id)
      where m.workspace_id = k.workspace_id and m.repair_id = k.repair_id and m.sent_at is null
        and not exists (select 1 from owed o
                        where (o.workspace_id, o.repair_id, o.clock_kind, o.moment)
                            = (m.workspace_id, m.repair_id, m.clock_kind, m.moment))
    )
    insert into hazard_clock_moments as m (workspace_id, repair_id, clock_kind, moment, at)
    select workspace_id, repair_id, clock_kind, moment, at from owed
    order by workspace_id, repair_id, clock_kind, moment
    on conflict (workspace_id, repair_id, clock_kind, moment) do update set at = excluded.at
    where m.sent_at is null and m.at <> excluded.at`;
}

/** The open dues a repair's clocks have (`first` and `last`, null when none is open), computed at `revision`. */
export interface RepairDues extends RepairKey {
  revision: number;
  first: string | null;
  last: string | null;
}

/**
 * Stores these open dues (`open_due_at`, `open_due_last_at`: the due list's order and filters) on the repairs that
 * still have the revision they were computed at and store others: what a calendar load moved. `revision` and
 * `updated_at` stay (no field of the repair changed). A row another transaction holds is not waited for (its writer
 * may be waiting for this transaction's claim of its mark): it is marked again, for a later run. Answers how many
 * rows were written.
 */
export async function refreshOpenDues(tx: Tx, dues: readonly RepairDues[]): Promise<number> {
  if (!dues.length) return 0;
  const [workspaceIds, ids] = keyArrays(dues);
  const [written] = await tx<{ written: number }[]>`
    with due as (
      select * from unnest(${workspaceIds!}::text[], ${ids!}::text[], ${dues.map((d) => d.revision)}::int[],
                           ${dues.map((d) => d.first)}::timestamptz[], ${dues.map((d) => d.last)}::timestamptz[])
        as d (workspace_id, id, revision, first_due, last_due)
    ), stale as (
      select d.* from due d
      join repairs r on r.workspace_id = d.workspace_id and r.id = d.id and r.revision = d.revision
      where r.open_due_at is distinct from d.first_due or r.open_due_last_at is distinct from d.last_due
    ), held as (
      select r.workspace_id, r.id from repairs r
      join stale s on r.workspace_id = s.workspace_id and r.id = s.id
      order by r.workspace_id, r.id
      for no key update of r skip locked
    ), updated as (
      update repairs r set open_due_at = s.first_due, open_due_last_at = s.last_due
      from stale s join held h on h.workspace_id = s.workspace_id and h.id = s.id
      where r.workspace_id = s.workspace_id and r.id = s.id
      returning 1
    ), marked as (
      insert into hazard_clock_changes as c (workspace_id, repair_id)
      select s.workspace_id, s.id from stale s
      where not exists (select 1 from held h where h.workspace_id = s.workspace_id and h.id = s.id)
      order by 1, 2
      on conflict (workspace_id, repair_id) do update set writes = c.writes + 1
    )
    select count(*)::int as written from updated`;
  return written!.written;
}

/**
 * Claims up to `limit` moments owed at `now`, earliest first, skipping those another worker holds. A clock's breach
 * waits while its due_soon is still owed (even one being sent), so that the feed lists them in that order.
 */
export async function claimDueMoments(tx: Tx, now: string, limit: number): Promise<RepairClockMoment[]> {
  return tx<RepairClockMoment[]>`
    select m.workspace_id, m.repair_id, m.clock_kind, m.moment, iso(m.at) as at
    from hazard_clock_moments m
    where m.sent_at is null and m.at <= ${now}
      and not (m.moment = 'breached' and exists (
        select 1 from hazard_clock_moments d
        where d.workspace_id = m.workspace_id and d.repair_id = m.repair_id and d.clock_kind = m.clock_kind
          and d.moment = 'due_soon' and d.sent_at is null))
    order by m.at, m.workspace_id, m.repair_id, m.clock_kind
    limit ${limit}
    for update of m skip locked`;
}

/** What became of claimed moments: sent (with their event), dropped (no longer owed), or moved to a later `at`. */
export interface SettledMoments {
  sent: (RepairClockMoment & { eventId: string })[];
  dropped: RepairClockMoment[];
  moved: RepairClockMoment[];
}

/** The key columns of moments, as arrays to `unnest`: workspace, repair, clock kind, moment. */
const momentArrays = (list: readonly RepairClockMoment[]) => [
  ...keyArrays(list),
  list.map((m) => m.clockKind),
  list.map((m) => m.moment),
];

/**
 * Records what became of claimed moments, in the claiming transaction (with the events of those sent): a statement for
 * each outcome that has any.
 */
export async function settleMoments(tx: Tx, settled: SettledMoments): Promise<void> {
  if (settled.sent.length) {
    const [w, r, k, m] = momentArrays(settled.sent);
    await tx`
      update hazard_clock_moments h set sent_at = now(), event_id = u.event_id
      from unnest(${w!}::text[], ${r!}::text[], ${k!}::text[], ${m!}::text[],
                  ${settled.sent.map((s) => s.eventId)}::text[])
        as u (workspace_id, repair_id, clock_kind, moment, event_id)
      where h.workspace_id = u.workspace_id and h.repair_id = u.repair_id and h.clock_kind = u.clock_kind
        and h.moment = u.moment`;
  }
  if (settled.moved.length) {
    const [w, r, k, m] = momentArrays(settled.moved);
    await tx`
      update hazard_clock_moments h set at = u.at
      from unnest(${w!}::text[], ${r!}::text[], ${k!}::text[], ${m!}::text[],
                  ${settled.moved.map((s) => s.at)}::timestamptz[])
        as u (workspace_id, repair_id, clock_kind, moment, at)
      where h.workspace_id = u.workspace_id and h.repair_id = u.repair_id and h.clock_kind = u.clock_kind
        and h.moment = u.moment`;
  }
  if (settled.dropped.length) {
    const [w, r, k, m] = momentArrays(settled.dropped);
    await tx`
      delete from hazard_clock_moments h
      using unnest(${w!}::text[], ${r!}::text[], ${k!}::text[], ${m!}::text[])
        as u (workspace_id, repair_id, clock_kind, moment)
      where h.workspace_id = u.workspace_id and h.repair_id = u.repair_id and h.clock_kind = u.clock_kind
        and h.moment = u.moment`;
  }
}
