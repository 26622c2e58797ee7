-- The tenant's links and messages sent once (issue 33).
--
-- A link request is a job of the tenant-link queue: each link it sends is stored in the transaction that queues its
-- SMS and sends its email, under a key of the job and the occupant (tenancy, contact). A retry of the job finds the
-- key taken and sends nothing again for that occupant; a concurrent run waits for the first and then finds it.
--
-- A link is spent once: the first POST of its page (the "Continue" button, so that a mail scanner's GET spends
-- nothing) sets `spent_at` and starts a session, whose cookie's SHA-256 is `session_hash`, working until
-- `session_expires_at`. A later visit needs a new link.
alter table tenant_links
  add column job_id             uuid,
  add column spent_at           timestamptz,
  add column session_hash       bytea unique,
  add column session_expires_at timestamptz,
  add constraint tenant_links_session check ((session_hash is null) = (session_expires_at is null)),
  add constraint tenant_links_session_spent check (session_hash is null or spent_at is not null);
create unique index tenant_links_job_occupant on tenant_links (workspace_id, job_id, tenancy_id, contact_id);

-- The reference of a repair a tenant reported, sent to the tenant once: the row is written with the repair, and the
-- job that sends it (tenant-link queue) locks it while it queues the SMS and sends the email, and sets `sent_at` in
-- the same transaction. A retry finds `sent_at` set and sends nothing.
create table tenant_repair_notices (
  workspace_id ident not null,
  repair_id    ident not null,
  contact_id   ident not null,
  sent_at      timestamptz,
  created_at   timestamptz not null default now(),
  primary key (workspace_id, repair_id),
  foreign key (workspace_id, repair_id) references repairs (workspace_id, id) on delete cascade,
  foreign key (workspace_id, contact_id) references contacts (workspace_id, id) on delete cascade
);
