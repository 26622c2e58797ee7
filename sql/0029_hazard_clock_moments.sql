-- The hazard clocks' events (issue 31): `hazard_clock.due_soon` and `hazard_clock.breached`, each once per clock,
-- within a minute of its moment, recorded by the workers of whichever processes run (see
-- src/maintenance_pro/clock_events_worker.ts).
--
-- Clocks are computed from a repair's data, never stored; so are the moments they owe. Every write of a triaged
-- repair marks it in hazard_clock_changes, in the writing transaction: a trigger, so every writer is covered (the
-- API, the workspace import, any later one). A worker claims marks and keeps, in hazard_clock_moments, the moments
-- the repair's clocks owe, computed by the same rules as the answers. It then claims the moments that are due,
-- computes the clocks again, and records each event and marks its moment sent in one transaction: a claim (`for
-- update skip locked`) rolled back by a crash leaves the moment owed, one that commits leaves it sent, and a sent
-- moment is never owed again. Exactly once, whatever processes run and whenever they stop.
create table hazard_clock_changes (
  workspace_id ident not null,
  repair_id    ident not null,
  -- Counted up by each write: the upsert then locks the row, so a worker's claim skips a mark whose write has not
  -- committed, and a write that comes while a worker holds the mark waits and marks the repair again.
  writes       bigint not null default 1,
  primary key (workspace_id, repair_id),
  foreign key (workspace_id, repair_id) references repairs (workspace_id, id) on delete cascade
);

-- One row per clock and moment, kept once sent (so that a clock replaced by a re-triage never sends twice). `at` is
-- when it is owed: due_soon when a quarter of the clock's span is left, never more than 24 h before dueAt; breached
-- the first millisecond after dueAt. A moment already past when its clock appears is owed at once.
create table hazard_clock_moments (
  workspace_id ident not null,
  repair_id    ident not null,
  clock_kind   text not null check (clock_kind in ('emergency_investigate', 'emergency_make_safe',
                 'significant_investigate', 'written_summary', 'safety_work_start', 'preventative_work_start')),
  moment       text not null check (moment in ('due_soon', 'breached')),
  at           timestamptz not null,
  sent_at      timestamptz,
  event_id     ident,
  primary key (workspace_id, repair_id, clock_kind, moment),
  foreign key (workspace_id, repair_id) references repairs (workspace_id, id) on delete cascade,
  check ((sent_at is null) = (event_id is null))
);
create index hazard_clock_moments_owed on hazard_clock_moments (at) where sent_at is null;

-- Repairs never triaged have no clocks (a legacy record neither), so their writes mark nothing.
create function hazard_clock_repairs_written() returns trigger language plpgsql as $$
begin
  insert into hazard_clock_changes as c (workspace_id, repair_id)
  select n.workspace_id, n.id from new_rows n
  where n.policy_version is not null
  order by n.workspace_id, n.id
  on conflict (workspace_id, repair_id) do update set writes = c.writes + 1;
  return null;
end
$$;

create trigger repairs_hazard_clocks_insert after insert on repairs referencing new table as new_rows
  for each statement execute function hazard_clock_repairs_written();
create trigger repairs_hazard_clocks_update after update on repairs referencing new table as new_rows
  for each statement execute function hazard_clock_repairs_written();

-- A load of bank holidays moves due instants: the repairs with an open clock or a moment owed are marked again.
create function hazard_clock_calendar_loaded() returns trigger language plpgsql as $$
begin
  insert into hazard_clock_changes as c (workspace_id, repair_id)
  select workspace_id, id from repairs where open_due_at is not null
  union
  select workspace_id, repair_id from hazard_clock_moments where sent_at is null
  order by 1, 2
  on conflict (workspace_id, repair_id) do update set writes = c.writes + 1;
  return null;
end
$$;

create trigger bank_holiday_loads_hazard_clocks after insert on bank_holiday_loads
  for each statement execute function hazard_clock_calendar_loaded();

-- Repairs triaged before this migration.
insert into hazard_clock_changes (workspace_id, repair_id)
select workspace_id, id from repairs where policy_version is not null;
