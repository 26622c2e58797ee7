-- The webhook tables of 0016 keyed by workspace, as every per-workspace table is (the schema stays distributable
-- by workspace_id: test/core/distributable_schema_test.ts). Secrets and attempts gain the column, from their parent.
alter table webhook_secrets add column workspace_id ident;
update webhook_secrets k set workspace_id = s.workspace_id from webhook_subscriptions s where s.id = k.subscription_id;
alter table webhook_secrets alter column workspace_id set not null;

alter table event_delivery_attempts add column workspace_id ident;
update event_delivery_attempts a set workspace_id = d.workspace_id from event_deliveries d where d.id = a.delivery_id;
alter table event_delivery_attempts alter column workspace_id set not null;

-- Every key that leaves out workspace_id goes, children first, then comes back with it.
alter table webhook_secrets drop constraint webhook_secrets_subscription_id_fkey;
alter table webhook_secrets drop constraint webhook_secrets_pkey;
alter table event_delivery_attempts drop constraint event_delivery_attempts_delivery_id_fkey;
alter table event_delivery_attempts drop constraint event_delivery_attempts_pkey;
alter table event_deliveries drop constraint event_deliveries_subscription_id_fkey;
alter table event_deliveries drop constraint event_deliveries_subscription_id_event_id_key;
alter table event_deliveries drop constraint event_deliveries_pkey;
alter table webhook_subscriptions drop constraint webhook_subscriptions_pkey;

alter table webhook_subscriptions add primary key (workspace_id, id);
alter table event_deliveries add primary key (workspace_id, id);
alter table event_deliveries add unique (workspace_id, subscription_id, event_id);
alter table event_deliveries add foreign key (workspace_id, subscription_id)
  references webhook_subscriptions (workspace_id, id) on delete cascade;
alter table webhook_secrets add primary key (workspace_id, subscription_id, id);
alter table webhook_secrets add foreign key (workspace_id, subscription_id)
  references webhook_subscriptions (workspace_id, id) on delete cascade;
alter table event_delivery_attempts add primary key (workspace_id, delivery_id, attempt);
alter table event_delivery_attempts add foreign key (workspace_id, delivery_id)
  references event_deliveries (workspace_id, id) on delete cascade;

-- The operator's CLI and the delivery worker name a subscription or a delivery by its id alone (ULIDs): plain
-- indexes serve those lookups.
create index webhook_subscriptions_id on webhook_subscriptions (id);
create index event_deliveries_id on event_deliveries (id);
create index event_deliveries_subscription on event_deliveries (subscription_id, event_id);
