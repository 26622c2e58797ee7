-- Events: every write records what changed, in the writing transaction (a transactional outbox), so an event
-- exists exactly when its change committed. The feed pages by (tx_id, id): a transaction's id is taken when it
-- first writes, so commit order differs from it, and the feed only shows events of transactions older than every
-- transaction still running (see src/events/queries.ts); a reader that keeps its cursor never misses one.
create table events (
  workspace_id  ident not null references workspaces (id) on delete cascade,
  id            ident not null,
  -- the writing transaction (pg_current_xact_id), for the feed's order
  tx_id         xid8 not null default pg_current_xact_id(),
  type          text not null,
  occurred_at   timestamptz not null default now(),
  subject_kind  text not null,
  subject_id    text not null,
  -- the resource as the API answers it after the change
  data          jsonb not null,
  request_id    text,
  actor_kind    text not null check (actor_kind in ('key', 'worker', 'cli', 'provider')),
  actor_id      text,
  primary key (workspace_id, id)
);
create index events_feed on events (workspace_id, tx_id, id);
create index events_subject on events (workspace_id, subject_id, tx_id, id);
create index events_age on events (occurred_at);
