-- The contractor's link to a works order (issue 34): one row per order, both the email's delivery ledger (locked
-- while the message goes out, so a retried job never sends twice) and the link itself. The token is minted when the
-- email is sent and only its SHA-256 is stored. The link works while the order is open and for 14 days after it
-- closed (completed, declined, cancelled: its last write), read-only then.
create table contractor_links (
  workspace_id     ident not null,
  works_order_id   ident not null,
  job_id           uuid not null,
  status           text not null check (status in ('queued', 'sent', 'skipped', 'failed')),
  token_hash       bytea unique,
  attempts         integer not null default 0,
  last_error       text,
  transport        text check (transport in ('smtp', 'outbox')),
  message_id       text,
  destination      text,
  sent_at          timestamptz,
  dead_lettered_at timestamptz,
  created_at       timestamptz not null default now(),
  updated_at       timestamptz not null default now(),
  primary key (workspace_id, works_order_id),
  foreign key (workspace_id, works_order_id) references works_orders (workspace_id, id) on delete cascade
);

-- Who raised an order: the person the contractor's page names to contact (null on orders raised before this).
alter table works_orders add column raised_by_user_id ident;

-- A contractor's writes through their link are recorded with the actor `contractor` and the contact's id.
alter table events drop constraint events_actor_kind_check;
alter table events add constraint events_actor_kind_check
  check (actor_kind in ('key', 'worker', 'cli', 'provider', 'contractor'));
