-- A circuit breaker a workspace and receiver (issue 35: one workspace's dead receivers delayed everyone's webhooks).
-- `receiver` is the origin of the subscriptions' URLs (scheme, host and port, as the URL standard writes it). Attempts
-- that get no answer (a timeout, a connection refused, reset or closed before the status line) count `failures`; any
-- answer, whatever its status, deletes the row. At 3 failures in a row the receiver is set aside until `open_until`:
-- its deliveries are not attempted but held, pending, due again then (their attempts and retry schedule unchanged).
-- Once `open_until` has passed, one worker takes the probe (it moves `open_until` on by an attempt's timeout and a
-- margin, so no other takes it meanwhile) and attempts one delivery: an answer closes the breaker, no answer opens it
-- again for twice as long as the last time (`opens` in a row; 30 s, 1 min, 2 min ... at most 1 hour).
-- Beside the deliveries' tables, per workspace, and like them without foreign keys (sql/0020): written only from
-- deliveries the dispatcher or a worker holds.
create table event_delivery_breakers (
  workspace_id  ident not null,
  receiver      text not null,
  failures      integer not null,
  opens         integer not null default 0,
  open_until    timestamptz,
  updated_at    timestamptz not null default now(),
  primary key (workspace_id, receiver)
);
