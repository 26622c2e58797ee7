-- Outgoing SMS (telephony.sendSms and its worker), the per-workspace send bucket, the offline outbox,
-- and the indexes of the agenda and thread lists.

-- btree_gist lets one GiST index hold workspace_id next to an event's time range (trusted since PG 13).
create extension if not exists btree_gist;

-- Events running at an instant, per workspace: the agenda's "started before the window, still running" half.
create index calendar_events_span on calendar_events using gist (workspace_id, tstzrange(starts_at, ends_at));

-- The thread list filtered by contact, in the list's order.
create index sms_threads_contact on sms_threads (workspace_id, contact_id, last_message_at desc nulls last, id desc);
-- Stopped threads are few: `stopped=true` reads them alone.
create index sms_threads_stopped on sms_threads (workspace_id, last_message_at desc nulls last, id desc) where stopped;

-- One SMS of a thread. Outgoing ones go queued → sending → sent, or failed (the last error is kept).
create table sms_messages (
  workspace_id        ident not null,
  id                  ident not null,
  thread_id           ident not null,
  direction           text not null default 'outbound' check (direction in ('inbound', 'outbound')),
  body                text not null check (length(body) between 1 and 918),
  status              text not null check (status in ('queued', 'sending', 'sent', 'failed')),
  -- the provider's id of the message once it accepted it (the outbox's is `outbox:<id>`)
  provider_message_id text,
  -- provider attempts started, counting ones a crash interrupted
  attempts            integer not null default 0,
  -- the last failure, kept after a later success
  error               text,
  request_id          text,
  created_at          timestamptz not null default now(),
  updated_at          timestamptz not null default now(),
  sent_at             timestamptz,
  failed_at           timestamptz,
  primary key (workspace_id, id),
  foreign key (workspace_id, thread_id) references sms_threads (workspace_id, id) on delete cascade
);
create index sms_messages_thread on sms_messages (workspace_id, thread_id, created_at desc, id desc);

-- One token bucket per workspace for outgoing SMS: capacity = SMS_PER_MINUTE, refilled over 60 s.
create table sms_send_buckets (
  workspace_id ident primary key references workspaces on delete cascade,
  tokens       double precision not null,
  updated_at   timestamptz not null default clock_timestamp()
);

-- The offline provider: what would have been sent, written in the transaction that marks the message sent.
create table sms_outbox (
  workspace_id ident not null,
  message_id   ident not null,
  to_address   text not null,
  from_number  text not null,
  body         text not null,
  written_at   timestamptz not null default now(),
  primary key (workspace_id, message_id),
  foreign key (workspace_id, message_id) references sms_messages (workspace_id, id) on delete cascade
);
