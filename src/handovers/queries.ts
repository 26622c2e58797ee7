/**
 * The handovers group's SQL: the inputs of one tenancy's handover row in one statement, and the stored rows
 * (sql/0008, 0012).
 */
import type { Db } from "../core/db.ts";
import { workspaceScope, type WorkspaceScope } from "../core/key_check_read.ts";
import { rowShape } from "./row.ts";
import type { Direction, FollowUp, Handover, InspectionSummary, KeyEntry, TenancyStatus } from "./schema.ts";

/** An inspection as the inputs carry it: the summary without followUpCount, and its follow-ups. */
export type InspectionInputs = Omit<InspectionSummary, "followUpCount" | "findingCount"> & {
  findingCount: number;
  followUps: FollowUp[];
};

/** Everything the handover row and its outstanding items are computed from. */
export interface TenancyInputs {
  tenancyId: string;
  tenancyStatus: TenancyStatus;
  startsOn: string | null;
  endsOn: string | null;
  noticeGivenOn: string | null;
  unitId: string;
  propertyId: string | null;
  /** Today in Europe/London, YYYY-MM-DD, as the database sees it. */
  today: string;
  occupants: { contactId: string; role: string; isLead: boolean }[];
  /** The unit's meters, by name. */
  meters: string[];
  moveIn: Handover | null;
  moveOut: Handover | null;
  checkIn: InspectionInputs | null;
  checkOut: InspectionInputs | null;
  /** The key sets of the tenancy's unit (lost ones left out), by sequence, reference, id. */
  keySets: KeyEntry[];
  otherActiveTenancyIds: string[];
  /** The version of the tenancy's stored row when the inputs were read (0: none stored); see storeRow. */
  rowVersion: number;
}

/**
 * The inputs of a tenancy's handover row, or undefined when the tenancy is not in this workspace.
 * One statement whatever the number of inspections, findings and key sets.
 */
export async function tenancyInputs(
  db: Db,
  workspaceId: string,
  tenancyId: string,
): Promise<TenancyInputs | undefined> {
  const [row] = await db<{ inputs: RawInputs; rowVersion: number }[]>`
    select json_build_object(
      'tenancyId', t.id, 'tenancyStatus', t.status,
      'startsOn', ymd(t.starts_on), 'endsOn', ymd(t.ends_on), 'noticeGivenOn', ymd(t.notice_given_on),
      'unitId', t.unit_id, 'propertyId', u.property_id,
      'today', ymd(london_today()),
      'occupants', coalesce((
        select json_agg(json_build_object('contactId', o.contact_id, 'role', o.role, 'isLead', o.is_lead)
                        order by o.is_lead desc, o.contact_id collate "C")
        from tenancy_occupants o
        where o.workspace_id = t.workspace_id and o.tenancy_id = t.id), '[]'),
      'meters', coalesce((
        select json_agg(m.meter order by m.meter)
        from unit_meters m
        where m.workspace_id = t.workspace_id and m.unit_id = t.unit_id), '[]'),
      -- both handover records in one scan, keyed by direction
      'handovers', coalesce((
        select json_object_agg(h.direction, json_build_object(
          'id', h.id, 'direction', h.direction, 'status', h.status, 'dueOn', ymd(h.due_on),
          'completedAt', iso(h.completed_at),
          'meterReadings', coalesce((
            select json_agg(json_build_object('meter', r.meter, 'reading', r.reading, 'readOn', ymd(r.read_on))
              order by r.meter)
            from handover_meter_readings r
            where r.workspace_id = h.workspace_id and r.handover_id = h.id), '[]'),
          'forwardingAddress', h.forwarding_address,
          'noticeEvidenceDocumentId', h.notice_evidence_document_id))
        from handovers h
        where h.workspace_id = t.workspace_id and h.tenancy_id = t.id), '{}'),
      -- Why this order: per kind, the latest non-cancelled inspection wins, else the latest cancelled one;
      -- "latest" is by dueOn (an undated inspection counts as the oldest), then by id. Both kinds in one scan;
      -- findings are read once for each of the (at most two) visits shown.
      'visits', coalesce((
        select json_object_agg(i.kind, json_build_object(
          'id', i.id, 'reference', i.reference, 'status', i.status, 'outcome', i.outcome,
          'dueOn', ymd(i.due_on), 'bookedFor', iso(i.booked_for), 'completedAt', iso(i.completed_at),
          'findingCount', f.finding_count, 'followUps', f.follow_ups))
        from (
          select distinct on (i.kind) i.*
          from inspections i
          where i.workspace_id = t.workspace_id and i.tenancy_id = t.id
          order by i.kind, i.status = 'cancelled', i.due_on desc nulls last, i.id collate "C" desc
        ) i
        cross join lateral (
          select count(*) as finding_count, coalesce(json_agg(json_build_object(
              'findingId', f.id, 'area', f.area, 'item', f.item,
              'repair', case when r.id is null then null
                             else json_build_object('id', r.id, 'reference', r.reference, 'status', r.status) end,
              'task', case when k.id is null then null
                           else json_build_object('id', k.id, 'title', k.title, 'status', k.status,
                                'dueOn', ymd(k.due_on)) end)
              order by f.area collate "C", f.item collate "C" nulls first, f.id collate "C")
            filter (where f.repair_id is not null or f.task_id is not null), '[]') as follow_ups
          from inspection_findings f
          left join repairs r on r.workspace_id = f.workspace_id and r.id = f.repair_id
          left join tasks k on k.workspace_id = f.workspace_id and k.id = f.task_id
          where f.workspace_id = i.workspace_id and f.inspection_id = i.id) f), '{}'),
      'keySets', coalesce((
        select json_agg(json_build_object(
          'id', k.id, 'reference', k.reference, 'label', k.label, 'unitId', k.unit_id, 'status', k.status,
          'sequence', k.sequence, 'holderType', k.holder_type, 'holderContactId', k.holder_contact_id,
          'holderName', k.holder_name, 'tenancyId', k.tenancy_id)
          order by k.sequence, k.reference collate "C", k.id collate "C")
        from key_sets k
        where k.workspace_id = t.workspace_id and k.unit_id = t.unit_id and k.status <> 'lost'), '[]'),
      'otherActiveTenancyIds', coalesce((
        select json_agg(o.id order by o.id collate "C")
        from tenancies o
        where o.workspace_id = t.workspace_id and o.unit_id = t.unit_id and o.id <> t.id
          and o.status in ('active', 'notice_given')), '[]')
    ) as inputs,
    coalesce((select r.version from handover_rows r
      where r.workspace_id = t.workspace_id and r.tenancy_id = t.id), 0)::float8 as row_version
    from tenancies t
    join units u on u.workspace_id = t.workspace_id and u.id = t.unit_id
    where t.workspace_id = ${workspaceId} and t.id = ${tenancyId}`;
  if (!row) return undefined;
  const { handovers, visits, ...inputs } = row.inputs;
  return {
    ...inputs,
    rowVersion: row.rowVersion,
    moveIn: handovers.move_in ?? null,
    moveOut: handovers.move_out ?? null,
    checkIn: visits.check_in ?? null,
    checkOut: visits.check_out ?? null,
  };
}

/**
 * A stored row (alias `r`) that may be served today: stored, not marked since, computed by this version's rules
 * (rowShape), not expired (Europe/London).
 */
function servable(db: Db) {
  return db`
    r.row_json is not null and r.shape = ${rowShape}
    and (r.valid_before is null or london_today() < r.valid_before)`;
}

/**
 * The stored row of a tenancy in a workspace scope, with every field readable, as its JSON text, when one is
 * servable: the handovers.forTenancy key-check read, and storedRow's statement. The tenancy id is bound as text.
 */
export function servableRow(db: Db, workspace: WorkspaceScope, tenancyId: string) {
  return db`
    select r.row_json from handover_rows r
    where r.workspace_id = ${workspace} and r.tenancy_id = ${tenancyId}::text and ${servable(db)}`;
}

/** The servable stored row of a tenancy (see servableRow), read on its own; else undefined. */
export async function storedRow(db: Db, workspaceId: string, tenancyId: string): Promise<string | undefined> {
  const [row] = await servableRow(db, workspaceScope(db, workspaceId), tenancyId);
  return row?.rowJson as string | undefined;
}

/** How long a store waits for a row a writing transaction holds (an import can hold many for a while). */
const storeLockTimeout = "200ms";

/**
 * Stores a row computed from inputs read at `version`, with this version's rowShape, unless a write has marked the
 * tenancy since (its version moved on): then the next read computes it again. False when it was not stored. A
 * write still holding the row makes it fail with 55P03 (lock_not_available) after storeLockTimeout, rather than
 * making the read wait for that write's commit. The store commits without waiting for its WAL to reach the disk
 * (synchronous_commit off, this statement's transaction only): a crash may lose the last stored rows, never make one
 * wrong (a lost store leaves the row as it was, absent or marked, and the next read computes it again; a later
 * write's commit flushes the WAL before it, so a write is never kept while a store before it is lost).
 */
export async function storeRow(
  db: Db,
  input: { workspaceId: string; tenancyId: string; version: number; rowJson: string; validBefore: string | null },
): Promise<boolean> {
  const rows = await db`
    insert into handover_rows as r (workspace_id, tenancy_id, version, row_json, valid_before, shape)
    select ${input.workspaceId}, ${input.tenancyId}, ${input.version}, ${input.rowJson}, ${input.validBefore}::date,
           ${rowShape}::int
    from (select set_config('lock_timeout', ${storeLockTimeout}, true),
                 set_config('synchronous_commit', 'off', true)) as this_statement_only
    on conflict (workspace_id, tenancy_id) do update
      set row_json = excluded.row_json, valid_before = excluded.valid_before, shape = excluded.shape
    where r.version = excluded.version
    returning 1`;
  return rows.length === 1;
}

/** The inputs as the statement returns them: handovers by direction, visits by kind. */
type RawInputs = Omit<TenancyInputs, "moveIn" | "moveOut" | "checkIn" | "checkOut" | "rowVersion"> & {
  handovers: Partial<Record<Direction, Handover>>;
  visits: Partial<Record<"check_in" | "check_out", InspectionInputs>>;
};
