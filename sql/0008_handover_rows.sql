-- The handover rows as served, kept in the database as a read-through cache of handovers.forTenancy.
--
-- How it stays right: the service stores a row after computing it, but only when `version` is still the one it
-- read the facts at (a compare-and-set). Every write to a table the row is computed from marks the rows of the
-- tenancies it touches in the same transaction: version + 1 and the row dropped. A marked row is recomputed by
-- the next read. So a stored row is never older than the last committed write, across processes, and a row
-- computed from facts read before a write can never be stored after it. The only input that changes without a
-- write is "today" (keys_not_handed_over: startsOn ≤ today): a row computed before its tenancy started is
-- stored with valid_before = startsOn and is not served from that day on.
create table handover_rows (
  workspace_id ident not null,
  tenancy_id   ident not null,
  version      bigint not null default 1,
  -- The row with every field readable (inspections:read and keys:read), as its JSON text; null when marked.
  row_json     text,
  -- Served only while today (Europe/London) is before this date; null: no date limit.
  valid_before date,
  primary key (workspace_id, tenancy_id),
  foreign key (workspace_id, tenancy_id) references tenancies (workspace_id, id) on delete cascade
);

-- A repair's or task's change marks the tenancies whose inspection findings follow up on it.
create index inspection_findings_repair on inspection_findings (workspace_id, repair_id) where repair_id is not null;
create index inspection_findings_task on inspection_findings (workspace_id, task_id) where task_id is not null;

-- Marks the handover rows of the tenancies a statement touched. %1$I is the transition table (new_rows or
-- old_rows); each query names the (workspace_id, tenancy_id) pairs whose row its rows feed.
create function handover_rows_touch() returns trigger language plpgsql as $fn$
declare
  affected constant text := case TG_TABLE_NAME
    -- a tenancy's own row, and its unit's other tenancies (otherActiveTenancyIds)
    when 'tenancies' then
      'select c.workspace_id, c.id from %1$I c
       union all select o.workspace_id, o.id from %1$I c join tenancies o on o.workspace_id = c.workspace_id and o.unit_id = c.unit_id'
    when 'units' then
      'select o.workspace_id, o.id from %1$I c join tenancies o on o.workspace_id = c.workspace_id and o.unit_id = c.id'
    when 'unit_meters' then
      'select o.workspace_id, o.id from %1$I c join tenancies o on o.workspace_id = c.workspace_id and o.unit_id = c.unit_id'
    when 'key_sets' then
      'select o.workspace_id, o.id from %1$I c join tenancies o on o.workspace_id = c.workspace_id and o.unit_id = c.unit_id'
    when 'tenancy_occupants' then 'select c.workspace_id, c.tenancy_id from %1$I c'
    when 'handovers' then 'select c.workspace_id, c.tenancy_id from %1$I c'
    when 'inspections' then 'select c.workspace_id, c.tenancy_id from %1$I c'
    when 'handover_meter_readings' then
      'select h.workspace_id, h.tenancy_id from %1$I c join handovers h on h.workspace_id = c.workspace_id and h.id = c.handover_id'
    when 'inspection_findings' then
      'select i.workspace_id, i.tenancy_id from %1$I c join inspections i on i.workspace_id = c.workspace_id and i.id = c.inspection_id'
    when 'repairs' then
      'select i.workspace_id, i.tenancy_id from %1$I c
       join inspection_findings f on f.workspace_id = c.workspace_id and f.repair_id = c.id
       join inspections i on i.workspace_id = f.workspace_id and i.id = f.inspection_id'
    when 'tasks' then
      'select i.workspace_id, i.tenancy_id from %1$I c
       join inspection_findings f on f.workspace_id = c.workspace_id and f.task_id = c.id
       join inspections i on i.workspace_id = f.workspace_id and i.id = f.inspection_id'
  end;
  pairs text := case TG_OP
    when 'INSERT' then format(affected, 'new_rows')
    when 'DELETE' then format(affected, 'old_rows')
    else format(affected, 'old_rows') || ' union all ' || format(affected, 'new_rows')
  end;
begin
  -- Only tenancies that still exist (a deleted one's row goes with it); in key order, so that concurrent
  -- writers lock the rows they share in the same order.
  execute format($q$
    insert into handover_rows as r (workspace_id, tenancy_id)
    select t.workspace_id, t.id from tenancies t
    where (t.workspace_id, t.id) in (%s)
    order by 1, 2
    on conflict (workspace_id, tenancy_id) do update set version = r.version + 1, row_json = null, valid_before = null
  $q$, pairs);
  return null;
end
$fn$;

do $$
declare
  t text;
begin
  foreach t in array array['tenancies', 'units', 'unit_meters', 'key_sets', 'tenancy_occupants', 'handovers',
                           'inspections', 'handover_meter_readings', 'inspection_findings'] loop
    execute format('create trigger %I after insert on %I referencing new table as new_rows
                    for each statement execute function handover_rows_touch()', t || '_handover_rows_insert', t);
    execute format('create trigger %I after delete on %I referencing old table as old_rows
                    for each statement execute function handover_rows_touch()', t || '_handover_rows_delete', t);
  end loop;
  -- Repairs and tasks feed a row only once a finding points at them, and cannot be deleted while one does.
  foreach t in array array['tenancies', 'units', 'unit_meters', 'key_sets', 'tenancy_occupants', 'handovers',
                           'inspections', 'handover_meter_readings', 'inspection_findings', 'repairs', 'tasks'] loop
    execute format('create trigger %I after update on %I referencing old table as old_rows new table as new_rows
                    for each statement execute function handover_rows_touch()', t || '_handover_rows_update', t);
  end loop;
end
$$;
