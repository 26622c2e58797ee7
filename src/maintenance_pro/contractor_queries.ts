/** The SQL of the contractor's link: its delivery ledger, its token's hash, and the order as its page reads it. */
import type { Db, Tx } from "../core/db.ts";
import { worksOrderColumns, type WorksOrderRow } from "./works_order_queries.ts";
import type { WorksOrder } from "./works_order_schema.ts";

/** Days a closed order's link still opens (read-only), counted from the order's last write. */
export const contractorLinkGraceDays = 14;

/** Records that an order's link email is queued (in the raise's transaction). */
export async function insertContractorLink(
  tx: Tx,
  link: { workspaceId: string; worksOrderId: string; jobId: string },
): Promise<void> {
  await tx`
    insert into contractor_links (workspace_id, works_order_id, job_id, status)
    values (${link.workspaceId}, ${link.worksOrderId}, ${link.jobId}, 'queued')`;
}

/** An order's link email as its worker finds it, with the ledger row locked. */
export interface ContractorDeliveryRow {
  status: "queued" | "sent" | "skipped" | "failed";
  email: string | null;
  contractorName: string;
  workspaceName: string;
  reference: string;
  orderStatus: string;
  requiredBy: string | null;
  address: string;
}

/** The address of a repair's property and unit, as one line (the SQL of the alias `p` and `u`). */
const addressLine = (db: Db | Tx) => db`
  concat_ws(', ', nullif(u.label, ''), nullif(p.label, ''), nullif(p.address_line1, ''), nullif(p.address_town, ''),
    nullif(p.address_postcode, ''))`;

/** The ledger row of an order's link email, locked until the transaction ends, or undefined. */
export async function lockContractorDelivery(
  tx: Tx,
  workspaceId: string,
  worksOrderId: string,
): Promise<ContractorDeliveryRow | undefined> {
  const [row] = await tx<ContractorDeliveryRow[]>`
    select l.status, c.email, c.name as contractor_name, w.name as workspace_name, o.reference,
           o.status as order_status, iso(o.required_by) as required_by, ${addressLine(tx)} as address
    from contractor_links l
    join works_orders o on o.workspace_id = l.workspace_id and o.id = l.works_order_id
    join contacts c on c.workspace_id = o.workspace_id and c.id = o.contractor_contact_id
    join workspaces w on w.id = l.workspace_id
    join repairs r on r.workspace_id = o.workspace_id and r.id = o.repair_id
    left join properties p on p.workspace_id = r.workspace_id and p.id = r.property_id
    left join units u on u.workspace_id = r.workspace_id and u.id = r.unit_id
    where l.workspace_id = ${workspaceId} and l.works_order_id = ${worksOrderId}
    for update of l`;
  return row;
}

/** Records a sent link email and its token's hash. */
export async function markContractorLinkSent(
  tx: Tx,
  workspaceId: string,
  worksOrderId: string,
  sent: { tokenHash: Buffer; transport: "smtp" | "outbox"; messageId: string; destination: string },
): Promise<void> {
  await tx`
    update contractor_links
    set status = 'sent', token_hash = ${sent.tokenHash}, attempts = attempts + 1, last_error = null,
        transport = ${sent.transport}, message_id = ${sent.messageId}, destination = ${sent.destination},
        sent_at = now(), updated_at = now()
    where workspace_id = ${workspaceId} and works_order_id = ${worksOrderId}`;
}

/** Records a failed attempt; `final` marks the last one (the job then goes to the dead-letter queue). */
export async function markContractorLinkFailed(
  tx: Tx | Db,
  workspaceId: string,
  worksOrderId: string,
  error: string,
  final: boolean,
): Promise<void> {
  await tx`
    update contractor_links
    set status = 'failed', attempts = attempts + 1, last_error = ${error},
        dead_lettered_at = case when ${final}::boolean then now() end, updated_at = now()
    where workspace_id = ${workspaceId} and works_order_id = ${worksOrderId} and status <> 'sent'`;
}

/** Records a link email not sent (the contractor has no email address, or the order closed first). */
export async function markContractorLinkSkipped(
  tx: Tx,
  workspaceId: string,
  worksOrderId: string,
  reason: string,
): Promise<void> {
  await tx`
    update contractor_links set status = 'skipped', last_error = ${reason}, updated_at = now()
    where workspace_id = ${workspaceId} and works_order_id = ${worksOrderId}`;
}

/** A link's works order as its page needs it. */
export interface ContractorView {
  workspaceId: string;
  workspaceName: string;
  order: WorksOrder;
  contractorName: string;
  address: string;
  /** The repair's property (the agenda's visit is at it). */
  propertyId: string | null;
  repairTitle: string | null;
  repairLocation: string | null;
  /** The repair's reference (its id for a legacy repair without one). */
  repairReference: string;
  /** The order's key set as it is now (the order's own `keySet`). */
  keySet: WorksOrder["keySet"];
  /** A report that the key set does not work, made from the repair, is not cleared yet. */
  keyReported: boolean;
  /** The person who raised the order (the workspace's owner for orders raised before that was kept). */
  contact: { userId: string | null; name: string | null; email: string | null };
  /** The order is completed, declined or cancelled. */
  closed: boolean;
  /** Closed more than the grace period ago: the link no longer opens. */
  expired: boolean;
}

/**
 * The works order a token's hash opens, or undefined. The token names the workspace and the order, so this lookup
 * is by the hash alone; a suspended workspace's links are not found (as its tenant links are not).
 */
export async function contractorViewByHash(db: Db | Tx, tokenHash: Buffer): Promise<ContractorView | undefined> {
  const [row] = await db<(Omit<ContractorView, "order" | "keySet"> & { order: never } & WorksOrderRow)[]>`
    select ${worksOrderColumns(db)}, o.workspace_id, w.name as workspace_name, c.name as contractor_name,
           ${addressLine(db)} as address, r.property_id, r.title as repair_title, r.location as repair_location,
           coalesce(r.reference, r.id) as repair_reference,
           exists (select 1 from key_reports kr where kr.workspace_id = o.workspace_id and kr.key_set_id = o.key_set_id
             and kr.source_kind = 'repair' and kr.source_id = o.repair_id and kr.cleared_at is null) as key_reported,
           json_build_object('userId', ru.id, 'name', ru.name, 'email', ru.email) as contact,
           o.status in ('completed', 'declined', 'cancelled') as closed,
           o.status in ('completed', 'declined', 'cancelled')
             and o.updated_at + make_interval(days => ${contractorLinkGraceDays}) <= now() as expired
    from contractor_links l
    join works_orders o on o.workspace_id = l.workspace_id and o.id = l.works_order_id
    join workspaces w on w.id = l.workspace_id
    join contacts c on c.workspace_id = o.workspace_id and c.id = o.contractor_contact_id
    join repairs r on r.workspace_id = o.workspace_id and r.id = o.repair_id
    left join properties p on p.workspace_id = r.workspace_id and p.id = r.property_id
    left join units u on u.workspace_id = r.workspace_id and u.id = r.unit_id
    left join users ru on ru.workspace_id = o.workspace_id
      and ru.id = coalesce(o.raised_by_user_id,
        (select x.id from users x where x.workspace_id = o.workspace_id and x.role = 'owner'))
    where l.token_hash = ${tokenHash} and w.suspended_at is null`;
  if (!row) return undefined;
  const {
    workspaceId,
    workspaceName,
    contractorName,
    address,
    propertyId,
    repairTitle,
    repairLocation,
    repairReference,
    keyReported,
    contact,
    closed,
    expired,
    sortRequired: _,
    ...order
  } = row;
  return {
    workspaceId,
    workspaceName,
    order: order as WorksOrder,
    contractorName,
    address,
    propertyId,
    repairTitle,
    repairLocation,
    repairReference,
    keySet: order.keySet,
    keyReported,
    contact,
    closed,
    expired,
  };
}

/**
 * The agenda's visit of an order's appointment (a calendar event of kind `repair_visit`, subject the works order, at
 * the repair's property, with the contractor): the order's scheduled visit moved to the new window, or a new one.
 * The agenda's stored days are discarded by the calendar's own triggers (sql/0023).
 */
export async function scheduleRepairVisit(
  tx: Tx,
  visit: {
    workspaceId: string;
    id: string;
    worksOrderId: string;
    title: string;
    startsAt: string;
    endsAt: string;
    location: string | null;
    propertyId: string | null;
    contactId: string;
  },
): Promise<void> {
  await tx`
    with moved as (
      update calendar_events set starts_at = ${visit.startsAt}, ends_at = ${visit.endsAt}, title = ${visit.title},
        location = ${visit.location}, revision = revision + 1, updated_at = now()
      where workspace_id = ${visit.workspaceId} and subject_kind = 'works_order'
        and subject_id = ${visit.worksOrderId} and status = 'scheduled'
      returning id
    )
    insert into calendar_events (workspace_id, id, title, kind, subject_kind, subject_id, starts_at, ends_at, location,
      status, property_id, contact_id)
    select ${visit.workspaceId}, ${visit.id}, ${visit.title}, 'repair_visit', 'works_order', ${visit.worksOrderId},
      ${visit.startsAt}, ${visit.endsAt}, ${visit.location}, 'scheduled', ${visit.propertyId}, ${visit.contactId}
    where not exists (select 1 from moved)`;
}

/** Closes an order's scheduled visit on the agenda: done (attended, or no_show when no access) or cancelled. */
export async function closeRepairVisit(
  tx: Tx,
  workspaceId: string,
  worksOrderId: string,
  close:
    | { status: "completed"; outcome: "attended" | "no_show"; note: string | null }
    | { status: "cancelled"; reason: string },
): Promise<void> {
  const done = close.status === "completed";
  await tx`
    update calendar_events set status = ${close.status},
      outcome = ${done ? close.outcome : null}, outcome_note = ${done ? close.note : null},
      outcome_recorded_at = ${done ? tx`now()` : null},
      cancel_reason = ${done ? null : close.reason}, cancelled_at = ${done ? null : tx`now()`},
      revision = revision + 1, updated_at = now()
    where workspace_id = ${workspaceId} and subject_kind = 'works_order' and subject_id = ${worksOrderId}
      and status = 'scheduled'`;
}

/**
 * Stores a report that a key set does not work, made from a repair by its contractor (source kind `repair`), unless
 * the same report (same set, repair, reporter and note) is stored and not cleared: a form sent twice stores one.
 * Returns the new report's id, or undefined when it was stored already. The caller holds the order's row lock, so
 * two sends of the same form run one after the other.
 */
export async function insertRepairKeyReport(
  tx: Tx,
  report: {
    workspaceId: string;
    id: string;
    keySetId: string;
    note: string;
    repairId: string;
    repairReference: string;
    reportedBy: string;
  },
): Promise<string | undefined> {
  const [row] = await tx<{ id: string }[]>`
    insert into key_reports (workspace_id, id, key_set_id, note, source_kind, source_id, source_label, reported_by,
      reported_at)
    select ${report.workspaceId}, ${report.id}, ${report.keySetId}, ${report.note}, 'repair', ${report.repairId},
      ${report.repairReference}, ${report.reportedBy}, now()
    where not exists (
      select 1 from key_reports r
      where r.workspace_id = ${report.workspaceId} and r.key_set_id = ${report.keySetId} and r.source_kind = 'repair'
        and r.source_id = ${report.repairId} and r.reported_by = ${report.reportedBy} and r.note = ${report.note}
        and r.cleared_at is null)
    returning id`;
  return row?.id;
}
