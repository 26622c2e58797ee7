-- Token buckets of the public routes (no API key: provider webhooks, the landlord portal), one row a route's
-- budget and client address. Global, not per workspace: a public request is counted before anything says
-- which workspace it concerns. Capacity is the route's setting, so it is not stored; rows of addresses not
-- seen for a day are purged with the idempotency ledger.
create table address_buckets (
  scope       text not null,
  address     text not null,
  tokens      float8 not null,
  updated_at  timestamptz not null,
  primary key (scope, address)
);
create index address_buckets_age on address_buckets (updated_at);
