-- Works orders (issue 34): a repair's job given to a contractor contact. References are the repair's own, `R-7/1`,
-- `R-7/2`, …: `seq` counts the repair's orders, taken under the repair's row lock so none is skipped or taken twice.
-- `required_by` is null when the order was raised without one and no clock of the repair served its purpose.
create table works_orders (
  workspace_id          ident not null references workspaces on delete cascade,
  id                    ident not null,
  repair_id             ident not null,
  seq                   integer not null check (seq >= 1),
  reference             text not null,
  contractor_contact_id ident not null,
  purpose               text not null check (purpose in ('investigation', 'make_safe', 'safety_work',
                          'preventative_work', 'repair')),
  instructions          text not null check (length(instructions) between 1 and 4000),
  required_by           timestamptz,
  status                text not null check (status in ('raised', 'accepted', 'declined', 'scheduled', 'attended',
                          'completed', 'no_access', 'cancelled')),
  key_set_id            ident,
  appointment_starts_at timestamptz,
  appointment_ends_at   timestamptz,
  decline_reason        text,
  cancel_reason         text,
  cancelled_at          timestamptz,
  revision              integer not null default 1 check (revision >= 1),
  created_at            timestamptz not null default now(),
  updated_at            timestamptz not null default now(),
  primary key (workspace_id, id),
  unique (workspace_id, repair_id, seq),
  foreign key (workspace_id, repair_id) references repairs (workspace_id, id),
  foreign key (workspace_id, contractor_contact_id) references contacts (workspace_id, id),
  foreign key (workspace_id, key_set_id) references key_sets (workspace_id, id),
  constraint works_orders_appointment check ((appointment_starts_at is null) = (appointment_ends_at is null)
    and (appointment_starts_at is null or appointment_ends_at > appointment_starts_at))
);

-- The list's order is requiredBy (none last), then id; each filter is a prefix of one of these.
create index works_orders_by_required on works_orders (workspace_id, coalesce(required_by, 'infinity'), id);
create index works_orders_by_repair on works_orders (workspace_id, repair_id, coalesce(required_by, 'infinity'), id);
create index works_orders_by_contractor
  on works_orders (workspace_id, contractor_contact_id, coalesce(required_by, 'infinity'), id);
create index works_orders_by_status on works_orders (workspace_id, status, coalesce(required_by, 'infinity'), id);
