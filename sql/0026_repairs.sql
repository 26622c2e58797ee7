-- Repairs with hazard clocks (issue 31). The stub table `repairs` gains the repair's fields. Imported rows keep what
-- they had: a row whose status is none of reported, triaged, in_progress, completed, cancelled is a legacy record,
-- so the new columns are nullable (a repair reported through the API fills them all).
--
-- Milestones and access attempts are jsonb arrays on the repair's row, already in the answer's shape and kept in
-- order (`at`, then `recordedAt`) by the writer: a repair is read in one statement, and every write is one update of
-- one row under its lock, so a rule that reads them ("each milestone kind at most once") cannot race another write.
--
-- Clocks are computed at request time and never stored. What the repairs list orders and filters by is kept here:
-- `open_due_at` and `open_due_last_at`, the earliest and latest due instant among the repair's open clocks (running
-- or breached: not met, not ceased), computed by every write from the same clock rules; null when none is open.
alter table repairs
  add column tenancy_id          ident,
  add column title               text check (length(title) between 1 and 200),
  add column description         text,
  add column location            text,
  add column category            text check (category in ('damp_mould', 'leak', 'heating_hot_water', 'electrical',
                                   'gas', 'fire_safety', 'security', 'structural', 'pests', 'sanitation', 'other')),
  add column reporter_kind       text check (reporter_kind in ('tenant', 'landlord', 'staff', 'contractor', 'other')),
  add column reporter_contact_id ident,
  add column reporter_name       text,
  add column channel             text check (channel in ('api', 'phone', 'email', 'sms', 'portal', 'inspection',
                                   'other')),
  add column aware_at            timestamptz,
  add column hazard              text check (hazard in ('none', 'significant', 'emergency')),
  add column hhsrs_hazard        text,
  add column regime              text check (regime in ('private', 'social')),
  add column policy_version      text,
  add column triaged_at          timestamptz,
  add column triaged_by_user_id  ident,
  add column triage_note         text,
  add column milestones          jsonb not null default '[]' check (jsonb_typeof(milestones) = 'array'),
  add column access_attempts     jsonb not null default '[]' check (jsonb_typeof(access_attempts) = 'array'),
  add column cancel_reason       text,
  add column cancelled_at        timestamptz,
  add column revision            integer not null default 1 check (revision >= 1),
  add column created_at          timestamptz not null default now(),
  add column updated_at          timestamptz not null default now(),
  add column open_due_at         timestamptz,
  add column open_due_last_at    timestamptz,
  add constraint repairs_hhsrs_needs_hazard check (hhsrs_hazard is null or hazard in ('significant', 'emergency')),
  add constraint repairs_open_dues check ((open_due_at is null) = (open_due_last_at is null)),
  add foreign key (workspace_id, tenancy_id) references tenancies (workspace_id, id),
  add foreign key (workspace_id, reporter_contact_id) references contacts (workspace_id, id);

-- The list's order: the earliest open due instant (repairs with none last), then createdAt, then id; the same key
-- behind each filter that names a column, so every page is a range scan of one index. Queries must spell the key
-- exactly so: coalesce(open_due_at, 'infinity').
create index repairs_due on repairs (workspace_id, coalesce(open_due_at, 'infinity'), created_at, id);
create index repairs_due_by_status on repairs (workspace_id, status, coalesce(open_due_at, 'infinity'), created_at, id);
create index repairs_due_by_property
  on repairs (workspace_id, property_id, coalesce(open_due_at, 'infinity'), created_at, id);
create index repairs_due_by_tenancy
  on repairs (workspace_id, tenancy_id, coalesce(open_due_at, 'infinity'), created_at, id)
  where tenancy_id is not null;

-- References R-1, R-2, … per workspace: `last` is the highest number taken. A new repair takes last + 1 with an
-- update of this row in its own transaction, so a refused or rolled-back request takes no number and concurrent
-- creations queue on the row: no number is skipped or taken twice.
create table repair_references (
  workspace_id ident primary key references workspaces on delete cascade,
  last         bigint not null check (last >= 0)
);

-- Any other writer of references (the workspace import) moves the count above the highest `R-<n>` it wrote, so the
-- count goes on after it. Numbers of more than 18 digits are not counted (they could never be reached).
create function repair_references_inserted() returns trigger language plpgsql as $$
begin
  insert into repair_references as c (workspace_id, last)
  select n.workspace_id, max(substr(n.reference, 3)::bigint) from new_rows n
  where n.reference ~ '^R-[0-9]{1,18}$'
  group by n.workspace_id
  order by n.workspace_id
  on conflict (workspace_id) do update set last = excluded.last where excluded.last > c.last;
  return null;
end
$$;

-- An update counts only the rows whose reference changed (the repairs' own writes never change it).
create function repair_references_updated() returns trigger language plpgsql as $$
begin
  insert into repair_references as c (workspace_id, last)
  select n.workspace_id, max(substr(n.reference, 3)::bigint)
  from new_rows n join old_rows o on o.workspace_id = n.workspace_id and o.id = n.id
  where n.reference ~ '^R-[0-9]{1,18}$' and o.reference is distinct from n.reference
  group by n.workspace_id
  order by n.workspace_id
  on conflict (workspace_id) do update set last = excluded.last where excluded.last > c.last;
  return null;
end
$$;

create trigger repairs_references_insert after insert on repairs referencing new table as new_rows
  for each statement execute function repair_references_inserted();
create trigger repairs_references_update after update on repairs referencing old table as old_rows new table as new_rows
  for each statement execute function repair_references_updated();

insert into repair_references (workspace_id, last)
select workspace_id, max(substr(reference, 3)::bigint) from repairs
where reference ~ '^R-[0-9]{1,18}$'
group by workspace_id;
