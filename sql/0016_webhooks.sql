-- Webhook subscriptions (workspace settings: the operator's CLI manages them, never an API key) and the deliveries
-- of events to them. See src/webhooks/.
create table webhook_subscriptions (
  id               ident primary key,
  workspace_id     ident not null references workspaces (id) on delete cascade,
  url              text not null,
  -- the event types delivered; '{*}' is every type
  event_types      text[] not null check (cardinality(event_types) > 0),
  description      text,
  status           text not null default 'active' check (status in ('active', 'disabled')),
  disabled_reason  text check (disabled_reason in ('operator', 'failing')),
  -- the first failed attempt since the last success; 5 days of failures disable the subscription
  failing_since    timestamptz,
  created_at       timestamptz not null default now(),
  updated_at       timestamptz not null default now()
);
create index webhook_subscriptions_active on webhook_subscriptions (workspace_id) where status = 'active';

-- Signing secrets: every one not expired signs each delivery. A rotation gives the old one 24 hours.
create table webhook_secrets (
  subscription_id  ident not null references webhook_subscriptions (id) on delete cascade,
  id               ident not null,
  secret           text not null check (secret like 'whsec_%'),
  created_at       timestamptz not null default now(),
  expires_at       timestamptz,
  primary key (subscription_id, id)
);

-- One delivery per (event, subscription); its attempts are jobs of the webhook-deliver queue.
create table event_deliveries (
  id               ident primary key,
  workspace_id     ident not null,
  event_id         ident not null,
  subscription_id  ident not null references webhook_subscriptions (id) on delete cascade,
  status           text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
  attempts         integer not null default 0,
  next_attempt_at  timestamptz not null default now(),
  -- a worker holds the delivery while it makes an attempt (the request's timeout and a margin)
  leased_until     timestamptz,
  created_at       timestamptz not null default now(),
  finished_at      timestamptz,
  unique (subscription_id, event_id),
  foreign key (workspace_id, event_id) references events (workspace_id, id) on delete cascade
);
create index event_deliveries_event on event_deliveries (workspace_id, event_id);

create table event_delivery_attempts (
  delivery_id      ident not null references event_deliveries (id) on delete cascade,
  attempt          integer not null,
  started_at       timestamptz not null,
  duration_ms      integer not null,
  response_status  integer,
  -- at most the first 1 KiB of the receiver's body
  response_body    text check (octet_length(response_body) <= 1024),
  error            text,
  primary key (delivery_id, attempt)
);

-- The dispatcher's position in the commit order of every workspace's events (one row).
create table event_dispatch (
  singleton  boolean primary key default true check (singleton),
  tx_id      xid8 not null default '0',
  event_id   text not null default ''
);
insert into event_dispatch default values;
create index events_commit_order on events (tx_id, id);
