/**
 * The SQL of works orders: storing them, reading one, locking one, the list, what raising one checks, and the key set
 * an order names (locked, checked out to the contractor, returned).
 */
import type { Db, Tx } from "../core/db.ts";
import type { WorksOrder, WorksOrderPurpose, WorksOrderStatus } from "./works_order_schema.ts";

/** A works order as stored, with the position it has in the list. */
export type WorksOrderRow = WorksOrder & { sortRequired: string | null };

/** A works order's columns in answer shape, of the table aliased `o`. */
export const worksOrderColumns = (db: Db | Tx) => db`
  o.id, o.reference, o.repair_id, o.contractor_contact_id, o.purpose, o.instructions,
  iso(o.required_by) as required_by, o.status, o.key_set_id,
  (select json_build_object('id', k.id, 'reference', k.reference, 'label', k.label, 'status', k.status,
      'holderType', k.holder_type, 'withContractor', k.status = 'checked_out' and k.holder_type = 'contractor'
        and k.holder_contact_id is not distinct from o.contractor_contact_id)
    from key_sets k where k.workspace_id = o.workspace_id and k.id = o.key_set_id) as key_set,
  case when o.appointment_starts_at is null then null
    else json_build_object('startsAt', iso(o.appointment_starts_at), 'endsAt', iso(o.appointment_ends_at))
  end as appointment,
  o.decline_reason, o.cancel_reason, iso(o.cancelled_at) as cancelled_at, o.revision,
  iso(o.created_at) as created_at, iso(o.updated_at) as updated_at, o.required_by::text as sort_required`;

/** A works order of the workspace, or undefined. */
export async function worksOrderRow(db: Db | Tx, workspaceId: string, id: string): Promise<WorksOrderRow | undefined> {
  const [row] = await db<WorksOrderRow[]>`
    select ${worksOrderColumns(db)} from works_orders o where o.workspace_id = ${workspaceId} and o.id = ${id}`;
  return row;
}

/** A works order of the workspace, locked until the transaction ends, or undefined. */
export async function lockWorksOrder(tx: Tx, workspaceId: string, id: string): Promise<WorksOrderRow | undefined> {
  const [row] = await tx<WorksOrderRow[]>`
    select ${worksOrderColumns(tx)} from works_orders o where o.workspace_id = ${workspaceId} and o.id = ${id}
    for no key update`;
  return row;
}

/** What raising an order reads besides the repair: the contact's roles and the key set's unit. */
export async function raiseTargets(
  tx: Tx,
  workspaceId: string,
  input: { contactId: string; keySetId: string | null },
): Promise<{ contactRoles: string[] | null; keySetUnitId: string | null | undefined }> {
  const [row] = await tx<{ contactRoles: string[] | null; keySetFound: boolean; keySetUnitId: string | null }[]>`
    select
      (select c.roles from contacts c where c.workspace_id = ${workspaceId} and c.id = ${input.contactId}
        and c.archived_at is null) as contact_roles,
      exists (select 1 from key_sets k where k.workspace_id = ${workspaceId} and k.id = ${input.keySetId})
        as key_set_found,
      (select k.unit_id from key_sets k where k.workspace_id = ${workspaceId} and k.id = ${input.keySetId})
        as key_set_unit_id`;
  return { contactRoles: row!.contactRoles, keySetUnitId: row!.keySetFound ? row!.keySetUnitId : undefined };
}

/** Stores a new works order taking the repair's next number (the caller holds the repair's lock). */
export async function insertWorksOrder(
  tx: Tx,
  order: {
    workspaceId: string;
    id: string;
    repairId: string;
    repairReference: string;
    contractorContactId: string;
    purpose: WorksOrderPurpose;
    instructions: string;
    requiredBy: string | null;
    keySetId: string | null;
    raisedByUserId: string;
    now: string;
  },
): Promise<WorksOrderRow> {
  const [row] = await tx<WorksOrderRow[]>`
    with next as (
      select coalesce(max(seq), 0) + 1 as seq from works_orders
      where workspace_id = ${order.workspaceId} and repair_id = ${order.repairId}
    ), o as (
      insert into works_orders (workspace_id, id, repair_id, seq, reference, contractor_contact_id, purpose,
        instructions, required_by, status, key_set_id, raised_by_user_id, created_at, updated_at)
      select ${order.workspaceId}, ${order.id}, ${order.repairId}, next.seq,
        ${order.repairReference} || '/' || next.seq,
        ${order.contractorContactId}, ${order.purpose}, ${order.instructions}, ${order.requiredBy}, 'raised',
        ${order.keySetId}, ${order.raisedByUserId}, ${order.now}, ${order.now}
      from next
      returning *
    )
    select ${worksOrderColumns(tx)} from o`;
  return row!;
}

/** Changes a works order's status and fields, moving its revision up by one; undefined if its revision moved. */
export async function updateWorksOrder(
  tx: Tx,
  workspaceId: string,
  id: string,
  revision: number,
  changes: {
    status: WorksOrderStatus;
    cancelReason?: string;
    cancelledAt?: string;
    declineReason?: string;
    appointment?: { startsAt: string; endsAt: string };
    now: string;
  },
): Promise<WorksOrderRow | undefined> {
  const [row] = await tx<WorksOrderRow[]>`
    with o as (
      update works_orders set status = ${changes.status},
        cancel_reason = coalesce(${changes.cancelReason ?? null}, cancel_reason),
        cancelled_at = coalesce(${changes.cancelledAt ?? null}::timestamptz, cancelled_at),
        decline_reason = coalesce(${changes.declineReason ?? null}, decline_reason),
        appointment_starts_at = coalesce(${changes.appointment?.startsAt ?? null}::timestamptz, appointment_starts_at),
        appointment_ends_at = coalesce(${changes.appointment?.endsAt ?? null}::timestamptz, appointment_ends_at),
        revision = revision + 1, updated_at = ${changes.now}
      where workspace_id = ${workspaceId} and id = ${id} and revision = ${revision}
      returning *
    )
    select ${worksOrderColumns(tx)} from o`;
  return row;
}

/** The list's filters and position. */
export interface WorksOrdersPageQuery {
  repairId?: string;
  contractorContactId?: string;
  status?: WorksOrderStatus;
  requiredBefore?: string;
  after?: { required: string | null; id: string };
  take: number;
}

/** A page of the workspace's works orders: by requiredBy (none last), then id. */
export async function worksOrdersPage(db: Db, workspaceId: string, q: WorksOrdersPageQuery): Promise<WorksOrderRow[]> {
  const key = db`coalesce(o.required_by, 'infinity')`;
  return db<WorksOrderRow[]>`
    select ${worksOrderColumns(db)} from works_orders o
    where o.workspace_id = ${workspaceId}
      ${q.repairId === undefined ? db`` : db`and o.repair_id = ${q.repairId}`}
      ${q.contractorContactId === undefined ? db`` : db`and o.contractor_contact_id = ${q.contractorContactId}`}
      ${q.status === undefined ? db`` : db`and o.status = ${q.status}`}
      ${q.requiredBefore === undefined ? db`` : db`and o.required_by < ${q.requiredBefore}`}
      ${
        q.after === undefined
          ? db``
          : db`and (${key}, o.id) > (coalesce(${q.after.required}::timestamptz, 'infinity'), ${q.after.id})`
      }
    order by ${key}, o.id
    limit ${q.take}`;
}

/** A works order's key set as check-out and return read it, locked (for update) until the transaction ends. */
export interface LockedKeySet {
  id: string;
  status: "in_office" | "checked_out" | "lost";
  holderType: string;
  holderContactId: string | null;
  holderName: string;
}

/**
 * The key set of the workspace, locked as its update locks it (for no key update: two check-outs or returns of it
 * wait for each other; a key report's insert, which only shares its key, does not), or undefined.
 */
export async function lockKeySet(tx: Tx, workspaceId: string, keySetId: string): Promise<LockedKeySet | undefined> {
  const [row] = await tx<LockedKeySet[]>`
    select id, status, holder_type, holder_contact_id, holder_name from key_sets
    where workspace_id = ${workspaceId} and id = ${keySetId}
    for no key update`;
  return row;
}

/**
 * Records who holds a key set: checked out to a contractor contact (by name), or back in the office. Either way it
 * is no tenancy's (a set a tenancy holds is checked out to it); the handover rows of its unit's tenancies are marked
 * by the table's triggers (sql/0008).
 */
export async function setKeySetHolder(
  tx: Tx,
  workspaceId: string,
  keySetId: string,
  holder: { kind: "contractor"; contactId: string; name: string } | { kind: "office" },
): Promise<void> {
  const out = holder.kind === "contractor";
  await tx`
    update key_sets set status = ${out ? "checked_out" : "in_office"}, holder_type = ${holder.kind},
      holder_contact_id = ${out ? holder.contactId : null}, holder_name = ${out ? holder.name : ""}, tenancy_id = null
    where workspace_id = ${workspaceId} and id = ${keySetId}`;
}

/** A contact's name (archived or not), or undefined. */
export async function contactName(tx: Tx, workspaceId: string, contactId: string): Promise<string | undefined> {
  const [row] = await tx<{ name: string }[]>`
    select name from contacts where workspace_id = ${workspaceId} and id = ${contactId}`;
  return row?.name;
}
