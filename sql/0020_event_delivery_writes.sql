-- Cheaper delivery rows (issue 16: the outbox may cost a write at most 10%). A delivery is inserted by the dispatcher,
-- claimed (leased_until, attempts) and settled (status, finished_at); each attempt is a row of its own.
--
-- Neither update touches an indexed column, so with room on the page both are HOT updates (no index entry written);
-- at the default fillfactor of 100 a new row's page is full and each update wrote every index again.
alter table event_deliveries set (fillfactor = 70);

-- The foreign keys checked every insert with a query that locked the parent row (FOR KEY SHARE: a write to the
-- event's and the delivery's tuple header). The service writes these rows only from rows it read in the same
-- statement (the dispatcher from the event and its subscriptions, the worker from the delivery it claimed), and never
-- deletes an event, a subscription or a workspace except by the daily purge, which now deletes a delivery and its
-- attempts with the events of its age (src/events/queries.ts purgeEvents). A delivery whose event is gone is
-- abandoned at its next attempt.
alter table event_deliveries drop constraint event_deliveries_workspace_id_event_id_fkey;
alter table event_deliveries drop constraint event_deliveries_workspace_id_subscription_id_fkey;
alter table event_delivery_attempts drop constraint event_delivery_attempts_workspace_id_delivery_id_fkey;

-- Indexes that served lookups now made with the workspace (the worker's jobs carry [workspace_id, id]; the CLI reads
-- a subscription's deliveries along the unique (workspace_id, subscription_id, event_id) key) or the cascades above.
drop index event_deliveries_id;
drop index event_deliveries_subscription;
drop index event_deliveries_event;
