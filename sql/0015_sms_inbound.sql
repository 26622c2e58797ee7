-- Inbound SMS (issue 15): the provider's webhooks bring replies, STOP/START and delivery receipts.

-- A workspace's SMS numbers (E.164): the webhook routes an inbound message by its `To`. A number belongs to one
-- workspace at most. Filled by `bun run cli sms-number add` and by the import (a thread's localNumber, through
-- the trigger below: the first workspace to use a number keeps it).
create table sms_numbers (
  number       text primary key check (number ~ '^\+[1-9][0-9]{6,14}$'),
  workspace_id ident not null references workspaces on delete cascade,
  source       text not null check (source in ('import', 'cli')),
  created_at   timestamptz not null default now()
);
create index sms_numbers_workspace on sms_numbers (workspace_id, number);

insert into sms_numbers (number, workspace_id, source)
select distinct on (local_number) local_number, workspace_id, 'import'
from sms_threads where local_number ~ '^\+[1-9][0-9]{6,14}$'
order by local_number, workspace_id
on conflict do nothing;

-- A thread written with a new localNumber registers it for its workspace unless another workspace has it.
create function sms_threads_register_number() returns trigger language plpgsql as $$
begin
  if new.local_number ~ '^\+[1-9][0-9]{6,14}$' then
    insert into sms_numbers (number, workspace_id, source) values (new.local_number, new.workspace_id, 'import')
    on conflict do nothing;
  end if;
  return null;
end $$;
create trigger sms_threads_register_number after insert on sms_threads
  for each row execute function sms_threads_register_number();

-- Every webhook delivery accepted, once: a second delivery of the same provider message (or receipt) conflicts
-- here and changes nothing. Concurrent duplicates wait on the first one's row, then conflict.
create table webhook_deliveries (
  integration  text not null,
  external_id  text not null,
  workspace_id ident references workspaces on delete cascade,
  received_at  timestamptz not null default now(),
  primary key (integration, external_id)
);
create index webhook_deliveries_age on webhook_deliveries (received_at);

-- Messages both ways: inbound ones are `received`; outgoing ones move on with the provider's receipts to
-- `delivered` or `undelivered` (never backwards), with the provider's ErrorCode (or `stopped`).
alter table sms_messages drop constraint sms_messages_status_check;
alter table sms_messages add constraint sms_messages_status_check
  check (status in ('queued', 'sending', 'sent', 'delivered', 'undelivered', 'failed', 'received'));
alter table sms_messages drop constraint sms_messages_body_check;
-- Inbound texts may be longer (the provider joins up to 1600 characters) or empty (a picture only).
alter table sms_messages add constraint sms_messages_body_check
  check (case when direction = 'inbound' then length(body) <= 1600 else length(body) between 1 and 918 end);
alter table sms_messages add column error_code text;
alter table sms_messages add column delivered_at timestamptz;
create index sms_messages_provider on sms_messages (provider_message_id) where provider_message_id is not null;

-- Inbound messages find their thread by the workspace's number and the sender.
create index sms_threads_pair on sms_threads (workspace_id, local_number, address);
