-- First attempts made by the dispatcher, successes recorded a batch at a time (issue 16: one active subscription may
-- cost the writes at most 10%). See ARCHITECTURE.md, "Events and webhook deliveries".
--
-- The dispatcher no longer holds the position's row lock while it works: it POSTs a batch's deliveries between two
-- short transactions (an open transaction would hold back the feed horizon), so the position carries a lease. A
-- process takes it when it is free or expired, and moves the position (releasing it) only while lease_id is still its
-- own; a process that lost it rolls back, and the new holder dispatches the batch again (at least once).
alter table event_dispatch add column leased_until timestamptz;
alter table event_dispatch add column lease_id text;

-- The successful first attempts of one dispatch batch to one subscription: one row for the batch, the attempts in
-- parallel arrays (the event, the status answered, the milliseconds the exchange took, the first 1 KiB of the answer
-- and a reading error, as event_delivery_attempts keeps them). Failed and unfinished first attempts, and every retry,
-- stay event_deliveries and event_delivery_attempts rows. `webhook deliveries` lists both (src/webhooks/queries.ts).
-- Append-only: no update, so the pages are filled. No foreign keys (sql/0020, ARCHITECTURE.md "Integrity by
-- construction"): written only from events and subscriptions the dispatcher read; the events purge deletes runs of
-- the same age.
create table event_delivery_runs (
  workspace_id       ident not null,
  subscription_id    ident not null,
  id                 ident not null,
  started_at         timestamptz not null,
  event_ids          text[] not null,
  response_statuses  integer[] not null,
  durations_ms       integer[] not null,
  response_bodies    text[] not null,
  errors             text[] not null,
  primary key (workspace_id, subscription_id, id),
  check (cardinality(event_ids) > 0 and cardinality(response_statuses) = cardinality(event_ids)
    and cardinality(durations_ms) = cardinality(event_ids) and cardinality(response_bodies) = cardinality(event_ids)
    and cardinality(errors) = cardinality(event_ids))
);
-- The purge deletes by age.
create index event_delivery_runs_started on event_delivery_runs (started_at);
