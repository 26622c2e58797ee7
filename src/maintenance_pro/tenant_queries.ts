/** The SQL of the tenant's repair page: matching a link request, storing links, reading a link's tenancy. */
import type postgres from "postgres";
import type { Db, Tx } from "../core/db.ts";

/** An occupant a link request matched: where the link goes. */
export interface TenantMatch {
  workspaceId: string;
  workspaceName: string;
  tenancyId: string;
  contactId: string;
  email: string | null;
  mobileNorm: string | null;
  /** The workspace has the telephony module: the link may go by SMS too. */
  telephony: boolean;
}

/**
 * The occupants of `active` or `notice_given` tenancies of the workspace `slug` whose property is at the postcode
 * (compared without spaces, upper-cased) and whose email or mobile (normalised) is the one given.
 */
export async function matchTenants(
  db: Db | Tx,
  input: { slug: string; postcode: string; emailNorm: string | null; mobileNorm: string | null },
): Promise<TenantMatch[]> {
  const compact = input.postcode.replace(/\s+/g, "").toUpperCase();
  return db<TenantMatch[]>`
    select w.id as "workspaceId", w.name as "workspaceName", t.id as "tenancyId", c.id as "contactId", c.email,
           c.mobile_norm as "mobileNorm", 'telephony' = any(w.module_ids) as telephony
    from workspaces w
    join tenancies t on t.workspace_id = w.id and t.status in ('active', 'notice_given')
    join units u on u.workspace_id = t.workspace_id and u.id = t.unit_id
    join properties p on p.workspace_id = u.workspace_id and p.id = u.property_id
    join tenancy_occupants o on o.workspace_id = t.workspace_id and o.tenancy_id = t.id
    join contacts c on c.workspace_id = o.workspace_id and c.id = o.contact_id and c.archived_at is null
    where w.slug = ${input.slug} and w.suspended_at is null
      and upper(regexp_replace(coalesce(p.address_postcode, ''), '\\s', '', 'g')) = ${compact}
      and (c.email_norm = ${input.emailNorm} or c.mobile_norm = ${input.mobileNorm})
    order by t.id, c.id`;
}

/**
 * Stores the link of a request's job for one occupant (its token's hash) working until `expiresAt`, and returns the
 * expiry as an instant; undefined when the job already stored that occupant's link (a retry), after waiting for a
 * concurrent run's transaction.
 */
export async function claimTenantLink(
  db: Db | Tx,
  link: {
    workspaceId: string;
    id: string;
    jobId: string;
    tenancyId: string;
    contactId: string;
    tokenHash: Buffer;
    hours: number;
  },
): Promise<string | undefined> {
  const [row] = await db<{ expiresAt: string }[]>`
    insert into tenant_links (workspace_id, id, job_id, tenancy_id, contact_id, token_hash, expires_at)
    values (${link.workspaceId}, ${link.id}, ${link.jobId}, ${link.tenancyId}, ${link.contactId}, ${link.tokenHash},
            now() + make_interval(hours => ${link.hours}))
    on conflict (workspace_id, job_id, tenancy_id, contact_id) do nothing
    returning iso(expires_at) as "expiresAt"`;
  return row?.expiresAt;
}

/** A link's tenancy as its page needs it. */
export interface TenantLinkView {
  workspaceId: string;
  workspaceName: string;
  workspaceSlug: string;
  linkId: string;
  tenancyId: string;
  contactId: string;
  tenantName: string;
  propertyId: string;
  unitId: string;
  unitLabel: string;
  propertyLabel: string;
  tenancyStatus: "active" | "notice_given" | "ended";
  /** The link's 24 hours are over. */
  expired: boolean;
  /** The link was used (its page was opened with Continue). */
  spent: boolean;
  /** The session started with the link is over (false while it lasts or when none started). */
  sessionOver: boolean;
}

/** The link the `where` fragment finds (of `tenant_links l`), unless its workspace is suspended. */
async function linkView(
  db: Db | Tx,
  where: postgres.PendingQuery<postgres.Row[]>,
): Promise<TenantLinkView | undefined> {
  const [row] = await db<TenantLinkView[]>`
    select l.workspace_id as "workspaceId", w.name as "workspaceName", w.slug as "workspaceSlug",
           l.id as "linkId", l.tenancy_id as "tenancyId", l.contact_id as "contactId", c.name as "tenantName",
           p.id as "propertyId", u.id as "unitId",
           u.label as "unitLabel", p.label as "propertyLabel", t.status as "tenancyStatus",
           l.expires_at <= now() as expired, l.spent_at is not null as spent,
           coalesce(l.session_expires_at <= now(), false) as "sessionOver"
    from tenant_links l
    join workspaces w on w.id = l.workspace_id
    join tenancies t on t.workspace_id = l.workspace_id and t.id = l.tenancy_id
    join units u on u.workspace_id = t.workspace_id and u.id = t.unit_id
    join properties p on p.workspace_id = u.workspace_id and p.id = u.property_id
    join contacts c on c.workspace_id = l.workspace_id and c.id = l.contact_id
    where ${where} and w.suspended_at is null`;
  return row;
}

/** The link of a token's hash, or undefined (a suspended workspace's links, like its report page, are not found). */
export function tenantLinkByHash(db: Db | Tx, tokenHash: Buffer): Promise<TenantLinkView | undefined> {
  return linkView(db, db`l.token_hash = ${tokenHash}`);
}

/** The link whose session a cookie's hash names, or undefined (as tenantLinkByHash). */
export function tenantLinkBySession(db: Db | Tx, sessionHash: Buffer): Promise<TenantLinkView | undefined> {
  return linkView(db, db`l.session_hash = ${sessionHash}`);
}

/**
 * Spends a link: marks it used and starts its session (the cookie's hash), lasting `minutes`; or, when the link's
 * row holds this very session already and it lasts still, answers it again (the same browser's second POST, see
 * tenant_session.ts), changing nothing. One statement: a POST that waits for a concurrent spend's row lock checks the
 * row as that spend left it, so the same browser's second POST gets the session and any other is refused. Returns
 * the session's end as an instant; undefined when the link was spent with another session, that session is over,
 * or the link has expired unspent.
 */
export async function spendTenantLink(
  db: Db | Tx,
  link: { workspaceId: string; linkId: string; sessionHash: Buffer; minutes: number },
): Promise<string | undefined> {
  const [row] = await db<{ sessionExpiresAt: string }[]>`
    update tenant_links set spent_at = coalesce(spent_at, now()), session_hash = ${link.sessionHash},
           session_expires_at = coalesce(session_expires_at, now() + make_interval(mins => ${link.minutes}))
    where workspace_id = ${link.workspaceId} and id = ${link.linkId}
      and ((spent_at is null and expires_at > now())
           or (session_hash = ${link.sessionHash} and session_expires_at > now()))
    returning iso(session_expires_at) as "sessionExpiresAt"`;
  return row?.sessionExpiresAt;
}

/** A photo the tenant's page shows, without its bytes. */
export interface TenantPhoto {
  id: string;
  repairId: string;
  width: number;
  height: number;
}

/** The photos the tenants sent with the repairs of a tenancy, each repair's in the order they came. */
export async function tenancyPhotos(db: Db | Tx, workspaceId: string, tenancyId: string): Promise<TenantPhoto[]> {
  return db<TenantPhoto[]>`
    select p.id, p.repair_id as "repairId", p.width, p.height
    from repairs r
    join repair_photos p on p.workspace_id = r.workspace_id and p.repair_id = r.id and p.source = 'tenant'
    where r.workspace_id = ${workspaceId} and r.tenancy_id = ${tenancyId}
    order by p.repair_id, p.created_at, p.id`;
}

/** One photo a tenant sent with a repair of the tenancy, as bytes with its type; undefined for any other. */
export async function tenancyPhotoBytes(
  db: Db | Tx,
  workspaceId: string,
  tenancyId: string,
  photoId: string,
): Promise<{ contentType: string; bytes: Buffer } | undefined> {
  const [row] = await db<{ contentType: string; bytes: Buffer }[]>`
    select p.content_type, p.bytes
    from repair_photos p
    join repairs r on r.workspace_id = p.workspace_id and r.id = p.repair_id
    where p.workspace_id = ${workspaceId} and p.id = ${photoId} and p.source = 'tenant'
      and r.tenancy_id = ${tenancyId}`;
  return row;
}

/** Whether a workspace of the slug exists and is not suspended. */
export async function reportWorkspace(db: Db | Tx, slug: string): Promise<{ id: string; name: string } | undefined> {
  const [row] = await db<{ id: string; name: string }[]>`
    select id, name from workspaces where slug = ${slug} and suspended_at is null`;
  return row;
}

/** Records that the reference of a repair the tenant `contactId` reported is to be sent to them (once). */
export async function insertRepairNotice(
  tx: Tx,
  notice: { workspaceId: string; repairId: string; contactId: string },
): Promise<void> {
  await tx`
    insert into tenant_repair_notices (workspace_id, repair_id, contact_id)
    values (${notice.workspaceId}, ${notice.repairId}, ${notice.contactId})
    on conflict do nothing`;
}

/** What sending a repair's reference to its tenant needs. */
export interface RepairNotice {
  sent: boolean;
  contactId: string;
  email: string | null;
  mobileNorm: string | null;
  reference: string;
  title: string;
  reportedAt: string;
  workspaceName: string;
  workspaceSlug: string;
  /** The workspace has the telephony module: the reference may go by SMS too. */
  telephony: boolean;
}

/**
 * A repair's notice, locked until the transaction ends (so runs of its job send one after the other, and a later run
 * finds it sent), with the tenant's contact details as they are now; undefined when there is none.
 */
export async function lockRepairNotice(tx: Tx, workspaceId: string, repairId: string) {
  const [row] = await tx<RepairNotice[]>`
    select n.sent_at is not null as sent, n.contact_id as "contactId", c.email, c.mobile_norm as "mobileNorm",
           r.reference, coalesce(r.title, '') as title, iso(r.created_at) as "reportedAt",
           w.name as "workspaceName", w.slug as "workspaceSlug", 'telephony' = any(w.module_ids) as telephony
    from tenant_repair_notices n
    join repairs r on r.workspace_id = n.workspace_id and r.id = n.repair_id
    join contacts c on c.workspace_id = n.workspace_id and c.id = n.contact_id
    join workspaces w on w.id = n.workspace_id
    where n.workspace_id = ${workspaceId} and n.repair_id = ${repairId}
    for update of n`;
  return row;
}

/** Marks a repair's notice sent. */
export async function markRepairNoticeSent(tx: Tx, workspaceId: string, repairId: string): Promise<void> {
  await tx`
    update tenant_repair_notices set sent_at = now() where workspace_id = ${workspaceId} and repair_id = ${repairId}`;
}

/**
 * The workspace's SMS threads with `address`, most recent first, locked until the transaction ends (so a STOP
 * arriving now waits for the message queued on them, which it then fails as it fails every queued one).
 */
export async function addressThreads(tx: Tx, workspaceId: string, address: string) {
  return tx<{ id: string; stopped: boolean }[]>`
    select id, stopped from sms_threads
    where workspace_id = ${workspaceId} and address = ${address}
    order by last_message_at desc nulls last, id desc
    for update`;
}

/** The workspace's first SMS number (to open a thread from), or undefined when it has none. */
export async function workspaceSmsNumber(tx: Tx, workspaceId: string): Promise<string | undefined> {
  const [row] = await tx<{ number: string }[]>`
    select number from sms_numbers where workspace_id = ${workspaceId} order by number limit 1`;
  return row?.number;
}
