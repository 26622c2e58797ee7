-- The whole workspace data model. Every table carries workspace_id; keys are (workspace_id, id).
-- Identifiers: ULIDs minted here, or 1 to 64 characters of A-Z a-z 0-9 _ - from an import.
create domain ident as text check (value ~ '^[A-Za-z0-9_-]{1,64}$');
create domain fact_value as text check (value in ('yes', 'no', 'unknown'));

-- Wire formats, so dates never drift through a JS Date: instants as RFC 3339 UTC with milliseconds,
-- dates as YYYY-MM-DD, and "today" as the calendar date in Europe/London.
-- Stable like to_char, so the planner inlines them (declared immutable they were called one by one: -30% on
-- the handover statement).
create function iso(t timestamptz) returns text language sql stable parallel safe
  as $$ select to_char(t at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;
create function ymd(d date) returns text language sql stable parallel safe
  as $$ select to_char(d, 'YYYY-MM-DD') $$;
create function london_today() returns date language sql stable parallel safe
  as $$ select (now() at time zone 'Europe/London')::date $$;

create table workspaces (
  id                ident primary key,
  slug              text not null unique check (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
  name              text not null check (length(name) between 1 and 200),
  suspended_at      timestamptz,
  suspension_reason text,
  created_at        timestamptz not null default now()
);

create table users (
  workspace_id ident not null references workspaces on delete cascade,
  id           ident not null,
  name         text not null,
  email        text,
  role         text not null check (role in ('owner', 'admin', 'staff')),
  created_at   timestamptz not null default now(),
  primary key (workspace_id, id)
);
-- exactly one owner per workspace is kept by the code; at most one by the database
create unique index users_one_owner on users (workspace_id) where role = 'owner';

create table workspace_modules (
  workspace_id ident not null references workspaces on delete cascade,
  module_id    text not null check (module_id ~ '^[a-z0-9-]{1,64}$'),
  created_at   timestamptz not null default now(),
  primary key (workspace_id, module_id)
);

create table api_keys (
  id                 ident primary key,
  workspace_id       ident not null references workspaces on delete cascade,
  name               text not null check (length(name) between 1 and 200),
  key_hash           bytea not null unique,
  scopes             text[] not null,
  created_by_user_id ident not null,
  budget_per_minute  integer not null default 600 check (budget_per_minute between 1 and 1000000),
  expires_at         timestamptz not null,
  revoked_at         timestamptz,
  created_at         timestamptz not null default now(),
  foreign key (workspace_id, created_by_user_id) references users (workspace_id, id)
);
create index api_keys_workspace on api_keys (workspace_id, created_at);

-- One token bucket per key; capacity = budget_per_minute, refilled at budget_per_minute / 60 a second.
-- A process takes tokens in leases of one or more (core/auth.ts); `granted` is what the last lease got.
create table rate_buckets (
  key_id     ident primary key references api_keys on delete cascade,
  tokens     double precision not null,
  granted    integer not null default 0,
  updated_at timestamptz not null default clock_timestamp()
);

-- The requestId ledger: a retry of the same operation with the same requestId replays this answer.
create table idempotency_ledger (
  workspace_id ident not null references workspaces on delete cascade,
  operation_id text not null,
  request_id   text not null check (length(request_id) between 1 and 128),
  fingerprint  text not null,
  status       integer not null,
  body         text not null,
  created_at   timestamptz not null default now(),
  primary key (workspace_id, operation_id, request_id)
);
create index idempotency_ledger_created on idempotency_ledger (created_at);

create table activity_log (
  workspace_id  ident not null references workspaces on delete cascade,
  id            ident not null,
  occurred_at   timestamptz not null default clock_timestamp(),
  actor_key_id  ident,
  actor_user_id ident,
  action        text not null,
  subject_kind  text not null,
  subject_id    text not null,
  detail        jsonb not null default '{}',
  primary key (workspace_id, id)
);
create index activity_log_subject on activity_log (workspace_id, subject_kind, subject_id, occurred_at);

create table contacts (
  workspace_id              ident not null references workspaces on delete cascade,
  id                        ident not null,
  kind                      text not null check (kind in ('person', 'company')),
  name                      text not null check (length(name) between 1 and 200),
  email                     text,
  mobile                    text,
  address_line1             text,
  address_line2             text,
  address_town              text,
  address_postcode          text,
  overseas                  boolean not null default false,
  roles                     text[] not null default '{}'
    check (roles <@ array['landlord','tenant','contractor','supplier','guarantor','agent','other']),
  registration_number       text,
  registration_jurisdiction text,
  website                   text,
  notes                     text,
  legacy_contact_id         text,
  -- normalised forms for matching, written with the contact (contacts/normalise.ts)
  name_norm                 text,
  email_norm                text,
  email_canon               text,
  mobile_norm               text,
  postcode_norm             text,
  registration_norm         text,
  revision                  integer not null default 1,
  archived_at               timestamptz,
  created_at                timestamptz not null default now(),
  updated_at                timestamptz not null default now(),
  primary key (workspace_id, id)
);
create index contacts_email_norm on contacts (workspace_id, email_norm) where email_norm is not null;
create index contacts_email_canon on contacts (workspace_id, email_canon) where email_canon is not null;
create index contacts_mobile_norm on contacts (workspace_id, mobile_norm) where mobile_norm is not null;
create index contacts_registration_norm on contacts (workspace_id, registration_norm) where registration_norm is not null;
create index contacts_name_norm on contacts (workspace_id, name_norm);

create table company_people (
  workspace_id ident not null,
  company_id   ident not null,
  contact_id   ident not null,
  role         text,
  archived_at  timestamptz,
  primary key (workspace_id, company_id, contact_id),
  foreign key (workspace_id, company_id) references contacts (workspace_id, id) on delete cascade,
  foreign key (workspace_id, contact_id) references contacts (workspace_id, id) on delete cascade
);

create table properties (
  workspace_id     ident not null references workspaces on delete cascade,
  id               ident not null,
  label            text not null,
  address_line1    text,
  address_town     text,
  address_postcode text,
  -- block compliance facts set at property level, inherited by its blocks: {factName: yes|no|unknown}
  facts            jsonb not null default '{}',
  created_at       timestamptz not null default now(),
  primary key (workspace_id, id)
);

create table property_landlords (
  workspace_id ident not null,
  property_id  ident not null,
  contact_id   ident not null,
  primary key (workspace_id, property_id, contact_id),
  foreign key (workspace_id, property_id) references properties (workspace_id, id) on delete cascade,
  foreign key (workspace_id, contact_id) references contacts (workspace_id, id)
);
create index property_landlords_contact on property_landlords (workspace_id, contact_id);

create table blocks (
  workspace_id       ident not null,
  id                 ident not null,
  property_id        ident not null,
  label              text not null,
  -- the block's own facts: {factName: yes|no|unknown}; absent names are not recorded
  facts              jsonb not null default '{}',
  revision           bigint not null default 0,
  policy_version     text not null default 'block-facts-2025-1',
  updated_at         timestamptz,
  updated_by_user_id ident,
  primary key (workspace_id, id),
  foreign key (workspace_id, property_id) references properties (workspace_id, id)
);
create index blocks_property on blocks (workspace_id, property_id);

create table block_fact_history (
  workspace_id   ident not null,
  id             ident not null,
  block_id       ident not null,
  kind           text not null,
  detail         text not null,
  actor_user_id  ident,
  policy_version text not null,
  created_at     timestamptz not null,
  primary key (workspace_id, id),
  foreign key (workspace_id, block_id) references blocks (workspace_id, id) on delete cascade
);
create index block_fact_history_block on block_fact_history (workspace_id, block_id, created_at desc);

create table units (
  workspace_id ident not null,
  id           ident not null,
  property_id  ident not null,
  block_id     ident,
  label        text not null,
  primary key (workspace_id, id),
  foreign key (workspace_id, property_id) references properties (workspace_id, id),
  foreign key (workspace_id, block_id) references blocks (workspace_id, id)
);
create index units_property on units (workspace_id, property_id);

create table unit_meters (
  workspace_id ident not null,
  unit_id      ident not null,
  meter        text not null check (meter in ('electricity', 'gas', 'water')),
  primary key (workspace_id, unit_id, meter),
  foreign key (workspace_id, unit_id) references units (workspace_id, id) on delete cascade
);

create table tenancies (
  workspace_id    ident not null,
  id              ident not null,
  unit_id         ident not null,
  status          text not null check (status in ('active', 'notice_given', 'ended')),
  starts_on       date,
  ends_on         date,
  notice_given_on date,
  primary key (workspace_id, id),
  foreign key (workspace_id, unit_id) references units (workspace_id, id)
);
create index tenancies_unit on tenancies (workspace_id, unit_id);

create table tenancy_occupants (
  workspace_id ident not null,
  tenancy_id   ident not null,
  contact_id   ident not null,
  role         text not null,
  is_lead      boolean not null default false,
  primary key (workspace_id, tenancy_id, contact_id),
  foreign key (workspace_id, tenancy_id) references tenancies (workspace_id, id) on delete cascade,
  foreign key (workspace_id, contact_id) references contacts (workspace_id, id)
);

create table handovers (
  workspace_id                 ident not null,
  id                           ident not null,
  tenancy_id                   ident not null,
  direction                    text not null check (direction in ('move_in', 'move_out')),
  status                       text not null check (status in ('open', 'completed')),
  due_on                       date,
  completed_at                 timestamptz,
  forwarding_address           text,
  notice_evidence_document_id  text,
  primary key (workspace_id, id),
  unique (workspace_id, tenancy_id, direction),
  foreign key (workspace_id, tenancy_id) references tenancies (workspace_id, id) on delete cascade
);

create table handover_meter_readings (
  workspace_id ident not null,
  handover_id  ident not null,
  meter        text not null check (meter in ('electricity', 'gas', 'water')),
  reading      text not null,
  read_on      date,
  primary key (workspace_id, handover_id, meter),
  foreign key (workspace_id, handover_id) references handovers (workspace_id, id) on delete cascade
);

create table repairs (
  workspace_id ident not null,
  id           ident not null,
  reference    text,
  status       text,
  property_id  ident,
  unit_id      ident,
  primary key (workspace_id, id),
  foreign key (workspace_id, property_id) references properties (workspace_id, id),
  foreign key (workspace_id, unit_id) references units (workspace_id, id)
);

create table tasks (
  workspace_id        ident not null references workspaces on delete cascade,
  id                  ident not null,
  title               text not null check (length(title) between 1 and 500),
  subject_kind        text,
  subject_id          text,
  assignee_contact_id ident,
  assignee_user_id    ident,
  assignee_staff_id   ident,
  team_id             ident,
  task_type_id        ident,
  branch_id           ident,
  priority            text not null default 'normal' check (priority in ('urgent', 'high', 'normal', 'low')),
  due_on              date,
  status              text not null default 'open' check (status in ('open', 'in_progress', 'done', 'cancelled')),
  created_by_user_id  ident,
  dedupe_key          text,
  request_id          text,
  revision            integer not null default 1,
  created_at          timestamptz not null default now(),
  done_at             timestamptz,
  primary key (workspace_id, id),
  foreign key (workspace_id, assignee_contact_id) references contacts (workspace_id, id),
  foreign key (workspace_id, assignee_user_id) references users (workspace_id, id)
);
create index tasks_subject on tasks (workspace_id, subject_kind, subject_id);

create table inspections (
  workspace_id ident not null,
  id           ident not null,
  tenancy_id   ident not null,
  kind         text not null check (kind in ('check_in', 'check_out')),
  reference    text not null,
  status       text not null check (status in ('due', 'booked', 'completed', 'cancelled')),
  outcome      text check (outcome in ('satisfactory', 'minor_actions', 'unsatisfactory')),
  due_on       date,
  booked_for   timestamptz,
  completed_at timestamptz,
  primary key (workspace_id, id),
  foreign key (workspace_id, tenancy_id) references tenancies (workspace_id, id) on delete cascade
);
create index inspections_tenancy on inspections (workspace_id, tenancy_id, kind, due_on desc, id desc);

create table inspection_findings (
  workspace_id  ident not null,
  id            ident not null,
  inspection_id ident not null,
  area          text not null,
  item          text,
  repair_id     ident,
  task_id       ident,
  primary key (workspace_id, id),
  foreign key (workspace_id, inspection_id) references inspections (workspace_id, id) on delete cascade,
  foreign key (workspace_id, repair_id) references repairs (workspace_id, id),
  foreign key (workspace_id, task_id) references tasks (workspace_id, id)
);
create index inspection_findings_inspection on inspection_findings (workspace_id, inspection_id);

create table key_sets (
  workspace_id      ident not null,
  id                ident not null,
  reference         text not null,
  label             text not null,
  unit_id           ident,
  status            text not null check (status in ('in_office', 'checked_out', 'lost')),
  sequence          integer not null default 0,
  holder_type       text not null check (holder_type in ('office', 'tenant', 'contractor', 'landlord', 'staff', 'other')),
  holder_contact_id ident,
  holder_name       text not null default '',
  tenancy_id        ident,
  primary key (workspace_id, id),
  foreign key (workspace_id, unit_id) references units (workspace_id, id),
  foreign key (workspace_id, holder_contact_id) references contacts (workspace_id, id),
  foreign key (workspace_id, tenancy_id) references tenancies (workspace_id, id)
);
create index key_sets_unit on key_sets (workspace_id, unit_id, sequence, reference);

create table key_reports (
  workspace_id ident not null,
  id           ident not null,
  key_set_id   ident not null,
  note         text not null,
  source_kind  text not null check (source_kind in ('contractor', 'tenant', 'staff', 'inspection', 'repair')),
  source_id    text,
  source_label text,
  reported_by  text not null,
  reported_at  timestamptz not null,
  cleared_note text,
  cleared_by   text,
  cleared_at   timestamptz,
  primary key (workspace_id, id),
  foreign key (workspace_id, key_set_id) references key_sets (workspace_id, id) on delete cascade
);
create index key_reports_set on key_reports (workspace_id, key_set_id, reported_at desc, id desc);

-- An authorisation (an approved quote, a works order limit) that one or more invoices charge against.
create table contractor_authorisations (
  workspace_id        ident not null references workspaces on delete cascade,
  id                  ident not null,
  basis               text not null,
  authorised_minor    bigint not null check (authorised_minor >= 0),
  authorised_currency text not null check (authorised_currency ~ '^[A-Z]{3}$'),
  primary key (workspace_id, id)
);

create table contractor_invoices (
  workspace_id          ident not null references workspaces on delete cascade,
  id                    ident not null,
  subject_kind          text,
  subject_id            text,
  subject_label         text,
  property_id           ident,
  tenancy_id            ident,
  contractor_contact_id ident,
  number                text not null,
  issued_on             date,
  due_on                date,
  currency              text not null default 'GBP' check (currency ~ '^[A-Z]{3}$'),
  borne_by              text not null check (borne_by in ('landlord', 'tenant', 'agency')),
  document_id           text,
  approved_at           timestamptz,
  disputed_at           timestamptz,
  dispute_reason        text,
  disputed_minor        bigint,
  voided_at             timestamptz,
  void_reason           text,
  legacy                boolean not null default false,
  legacy_status         text,
  legacy_settled        boolean,
  authorisation_id      ident,
  -- derived from the entries by contractor_invoices/derive.ts, stored for listing and reporting
  net_minor             bigint not null default 0,
  vat_minor             bigint not null default 0,
  gross_minor           bigint not null default 0,
  credited_minor        bigint not null default 0,
  payable_minor         bigint not null default 0,
  paid_minor            bigint not null default 0,
  outstanding_minor     bigint not null default 0,
  recovered_minor       bigint not null default 0,
  recoverable_minor     bigint not null default 0,
  status                text not null default 'received'
    check (status in ('received', 'approved', 'part_paid', 'paid', 'disputed', 'credited', 'void')),
  revision              integer not null default 1,
  created_at            timestamptz not null default now(),
  primary key (workspace_id, id),
  foreign key (workspace_id, property_id) references properties (workspace_id, id),
  foreign key (workspace_id, tenancy_id) references tenancies (workspace_id, id),
  foreign key (workspace_id, contractor_contact_id) references contacts (workspace_id, id),
  foreign key (workspace_id, authorisation_id) references contractor_authorisations (workspace_id, id)
);
create index contractor_invoices_authorisation on contractor_invoices (workspace_id, authorisation_id);

create table contractor_invoice_lines (
  workspace_id ident not null,
  id           ident not null,
  invoice_id   ident not null,
  ordinal      integer not null,
  kind         text not null,
  description  text not null,
  net_minor    bigint not null,
  vat_minor    bigint not null,
  primary key (workspace_id, id),
  foreign key (workspace_id, invoice_id) references contractor_invoices (workspace_id, id) on delete cascade
);
create index contractor_invoice_lines_invoice on contractor_invoice_lines (workspace_id, invoice_id, ordinal);

create table contractor_payments (
  workspace_id      ident not null,
  id                ident not null,
  invoice_id        ident not null,
  amount_minor      bigint not null check (amount_minor > 0),
  paid_on           date not null,
  reference         text,
  legacy            boolean not null default false,
  created_at        timestamptz not null default now(),
  corrected_at      timestamptz,
  correction_reason text,
  primary key (workspace_id, id),
  foreign key (workspace_id, invoice_id) references contractor_invoices (workspace_id, id) on delete cascade
);
create index contractor_payments_invoice on contractor_payments (workspace_id, invoice_id);

create table contractor_credit_notes (
  workspace_id      ident not null,
  id                ident not null,
  invoice_id        ident not null,
  number            text not null,
  issued_on         date not null,
  net_minor         bigint not null,
  vat_minor         bigint not null,
  reason            text,
  document_id       text,
  created_at        timestamptz not null default now(),
  corrected_at      timestamptz,
  correction_reason text,
  primary key (workspace_id, id),
  foreign key (workspace_id, invoice_id) references contractor_invoices (workspace_id, id) on delete cascade
);
create index contractor_credit_notes_invoice on contractor_credit_notes (workspace_id, invoice_id);

create table contractor_recoveries (
  workspace_id      ident not null,
  id                ident not null,
  invoice_id        ident not null,
  amount_minor      bigint not null check (amount_minor > 0),
  received_on       date not null,
  reference         text,
  created_at        timestamptz not null default now(),
  corrected_at      timestamptz,
  correction_reason text,
  primary key (workspace_id, id),
  foreign key (workspace_id, invoice_id) references contractor_invoices (workspace_id, id) on delete cascade
);
create index contractor_recoveries_invoice on contractor_recoveries (workspace_id, invoice_id);

-- A recorded decision to let an invoice exceed its authorisation.
create table contractor_limit_overrides (
  workspace_id        ident not null,
  id                  ident not null,
  invoice_id          ident not null,
  state               text not null,
  basis               text not null,
  authorised_minor    bigint not null,
  authorised_currency text not null,
  earlier_minor       bigint not null,
  charged_minor       bigint not null,
  excess_minor        bigint not null,
  reason              text not null,
  user_id             ident,
  created_at          timestamptz not null default now(),
  primary key (workspace_id, id),
  unique (workspace_id, invoice_id),
  foreign key (workspace_id, invoice_id) references contractor_invoices (workspace_id, id) on delete cascade
);

create table calendar_events (
  workspace_id        ident not null references workspaces on delete cascade,
  id                  ident not null,
  title               text not null,
  kind                text not null,
  subject_kind        text,
  subject_id          text,
  starts_at           timestamptz not null,
  ends_at             timestamptz not null,
  location            text,
  status              text not null default 'scheduled' check (status in ('scheduled', 'completed', 'cancelled')),
  created_by_user_id  ident,
  property_id         ident,
  staff_user_id       ident,
  contact_id          ident,
  notes               text,
  revision            integer not null default 1,
  outcome             text check (outcome in ('attended', 'no_show')),
  outcome_note        text,
  outcome_recorded_at timestamptz,
  feedback            jsonb,
  follow_up_task_id   ident,
  cancel_reason       text,
  cancelled_at        timestamptz,
  created_at          timestamptz not null default now(),
  updated_at          timestamptz not null default now(),
  primary key (workspace_id, id),
  check (ends_at > starts_at),
  foreign key (workspace_id, property_id) references properties (workspace_id, id),
  foreign key (workspace_id, staff_user_id) references users (workspace_id, id),
  foreign key (workspace_id, contact_id) references contacts (workspace_id, id)
);
create index calendar_events_window on calendar_events (workspace_id, starts_at, id);
create index calendar_events_staff on calendar_events (workspace_id, staff_user_id, starts_at, id);

create table sms_threads (
  workspace_id    ident not null references workspaces on delete cascade,
  id              ident not null,
  local_number    text not null,
  address         text not null,
  contact_id      ident,
  revision        integer not null default 1,
  last_message_at timestamptz,
  last_inbound_at timestamptz,
  preview         text,
  stopped         boolean not null default false,
  primary key (workspace_id, id),
  foreign key (workspace_id, contact_id) references contacts (workspace_id, id)
);
create index sms_threads_recent on sms_threads (workspace_id, last_message_at desc nulls last, id desc);

create table landlord_portal_access (
  workspace_id ident not null,
  contact_id   ident not null,
  status       text not null check (status in ('pending', 'active', 'revoked')),
  invited_at   timestamptz,
  accepted_at  timestamptz,
  revoked_at   timestamptz,
  primary key (workspace_id, contact_id),
  foreign key (workspace_id, contact_id) references contacts (workspace_id, id)
);

create table onboarding_checkouts (
  workspace_id ident not null references workspaces on delete cascade,
  id           ident not null,
  module_id    text not null,
  status       text not null check (status in ('started', 'paid', 'abandoned')),
  started_at   timestamptz not null default now(),
  abandoned_at timestamptz,
  primary key (workspace_id, id)
);

-- No row means the default: {regime: private, revision: 0}.
create table hazard_settings (
  workspace_id ident primary key references workspaces on delete cascade,
  regime       text not null check (regime in ('private', 'social')),
  revision     integer not null,
  updated_at   timestamptz not null default now()
);
