-- A tenant's links to the repair page of one tenancy: minted by the link worker when a request's postcode and
-- email or mobile match an occupant of an active or notice_given tenancy, sent by email, working 24 hours.
-- Only the token's SHA-256 is stored.
create table tenant_links (
  workspace_id ident not null,
  id           ident not null,
  tenancy_id   ident not null,
  contact_id   ident not null,
  token_hash   bytea not null unique,
  expires_at   timestamptz not null,
  created_at   timestamptz not null default now(),
  primary key (workspace_id, id),
  foreign key (workspace_id, tenancy_id) references tenancies (workspace_id, id) on delete cascade,
  foreign key (workspace_id, contact_id) references contacts (workspace_id, id) on delete cascade
);
