-- Photos of a repair (issues 33 and 34): sent by the tenant with a report, by the contractor with a visit, kept in the
-- database with the repair they show (one transaction with the write they came with; no file to lose or orphan) and
-- served only to a caller who may read that repair: never from a guessable public address.
--
-- `content_type` and the dimensions are what the bytes are (src/maintenance_pro/photos.ts reads them), never what the
-- upload's name or header said. `works_order_id` names the order whose visit a contractor's photo evidences.
create table repair_photos (
  workspace_id   ident not null references workspaces on delete cascade,
  id             ident not null,
  repair_id      ident not null,
  works_order_id ident,
  source         text not null check (source in ('tenant', 'contractor', 'agency')),
  content_type   text not null check (content_type in ('image/jpeg', 'image/png')),
  width          integer not null check (width between 1 and 65535),
  height         integer not null check (height between 1 and 65535),
  size           integer not null check (size between 1 and 5242880),
  sha256         bytea not null check (length(sha256) = 32),
  bytes          bytea not null,
  created_at     timestamptz not null default now(),
  primary key (workspace_id, id),
  foreign key (workspace_id, repair_id) references repairs (workspace_id, id) on delete cascade,
  foreign key (workspace_id, works_order_id) references works_orders (workspace_id, id) on delete cascade,
  check (size = length(bytes))
);

-- JPEG and PNG are compressed already: stored as they are, out of line, without another compression attempt.
alter table repair_photos alter column bytes set storage external;

-- A repair's photos in the order they came.
create index repair_photos_by_repair on repair_photos (workspace_id, repair_id, created_at, id);
