-- Landlord portal invitations and the delivery ledger of their emails; block revisions kept JSON-safe.

-- One row per invitation. The newest one of a contact that is not superseded is the live link.
create table portal_invitations (
  workspace_id      ident not null,
  id                ident not null,
  contact_id        ident not null,
  -- the address the invitation goes to, as the contact had it when invited
  email             text not null,
  -- SHA-256 of the link's token, set when the email is sent: the token itself exists only in the email
  token_hash        bytea unique,
  expires_at        timestamptz,
  created_at        timestamptz not null default now(),
  created_by_key_id ident,
  superseded_at     timestamptz,
  accepted_at       timestamptz,
  primary key (workspace_id, id),
  foreign key (workspace_id, contact_id) references contacts (workspace_id, id) on delete cascade
);
create unique index portal_invitations_live on portal_invitations (workspace_id, contact_id) where superseded_at is null;

-- The email ledger: one row per invitation, locked while its email is being sent, so that an invitation
-- is emailed at most once however often its job runs.
create table email_deliveries (
  workspace_id     ident not null,
  invitation_id    ident not null,
  job_id           uuid not null,
  status           text not null check (status in ('queued', 'sent', 'skipped', 'failed')),
  attempts         integer not null default 0,
  last_error       text,
  transport        text check (transport in ('smtp', 'outbox')),
  message_id       text,
  -- where the message went: the SMTP server's answer, or the .eml file written
  destination      text,
  sent_at          timestamptz,
  dead_lettered_at timestamptz,
  created_at       timestamptz not null default now(),
  updated_at       timestamptz not null default now(),
  primary key (workspace_id, invitation_id),
  foreign key (workspace_id, invitation_id) references portal_invitations (workspace_id, id) on delete cascade
);

-- Block profile revisions are sent as JSON numbers: keep them within the integers a double holds exactly.
alter table blocks add constraint blocks_revision_json_safe
  check (revision between -9007199254740991 and 9007199254740991);
