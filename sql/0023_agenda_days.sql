-- Stored agenda days (issue 19): a read-through cache of calendar.agenda by London day, as handover_rows is of
-- handovers.forTenancy (sql/0008). An agenda page over whole London days, for one member of staff or for everyone, with
-- no other filter, is the texts of its days joined: one indexed read of a few rows instead of a page's events with
-- their names, their values formatted and serialised again at every read.
--
-- What a day holds, for one member of staff (`staff` = the user's id) or for everyone (`staff` = ''): `starting`, the
-- JSON of the events that start on that London day (cancelled ones left out), in the agenda's order, joined by ','
-- ('' for none); and `running`, the same of the events running at its 00:00 that started before it. The texts are what
-- the service sent for those events (src/calendar).
--
-- How it stays right: the compare-and-set of handover_rows, by workspace. Every write to calendar_events, and every
-- change of a name the agenda shows (users.name, properties.label, contacts.name), moves the workspace's version on and
-- deletes its stored days, in the writer's own transaction. A page reads the version before it reads the events and
-- stores its days with that version; days are served only while their version is the workspace's: days computed from
-- rows read before a write are never served once it committed. Calendar events are written by imports only: one mark
-- a workspace costs nothing there; an operation writing events often would want a mark by day and member of staff.
create table agenda_versions (
  workspace_id ident primary key,
  version      bigint not null
);

create table agenda_days (
  workspace_id   ident not null,
  staff          text not null,
  day            date not null,
  version        bigint not null,
  starting       text not null,
  starting_count integer not null,
  running        text not null,
  running_count  integer not null,
  -- The version of what the service makes of an event (agendaShape, src/calendar/stored_days.ts): days of another
  -- shape are computed again, as handover rows of another rowShape are (sql/0012).
  shape          integer not null,
  stored_at      timestamptz not null default now(),
  primary key (workspace_id, staff, day)
);

-- Marks the agenda of the given workspaces: their version + 1 and their stored days dropped. In key order, so that
-- concurrent writers take the version rows they share in the same order.
create function agenda_mark(workspace_ids text[]) returns void language sql as $fn$
  insert into agenda_versions as v (workspace_id, version)
  select distinct w, 1 from unnest(workspace_ids) w order by 1
  on conflict (workspace_id) do update set version = v.version + 1;
  delete from agenda_days where workspace_id = any(workspace_ids);
$fn$;

-- A statement on calendar_events: `changed` is its transition table (the new rows, or the old ones of a delete; an
-- update never moves an event to another workspace: ids are never updated).
create function agenda_events_mark() returns trigger language plpgsql as $fn$
begin
  perform agenda_mark(array(select distinct workspace_id from changed));
  return null;
end
$fn$;

-- A truncate leaves no row to name a workspace: every workspace's agenda is marked.
create function agenda_events_truncated() returns trigger language plpgsql as $fn$
begin
  perform agenda_mark(array(select workspace_id from agenda_versions union select workspace_id from agenda_days));
  return null;
end
$fn$;

-- A name the agenda shows changed (the triggers' WHEN clauses say which).
create function agenda_names_mark() returns trigger language plpgsql as $fn$
begin
  perform agenda_mark(array[new.workspace_id::text]);
  return null;
end
$fn$;

create trigger calendar_events_agenda_insert after insert on calendar_events referencing new table as changed
  for each statement execute function agenda_events_mark();
create trigger calendar_events_agenda_update after update on calendar_events referencing new table as changed
  for each statement execute function agenda_events_mark();
create trigger calendar_events_agenda_delete after delete on calendar_events referencing old table as changed
  for each statement execute function agenda_events_mark();
create trigger calendar_events_agenda_truncate after truncate on calendar_events
  for each statement execute function agenda_events_truncated();

-- Inserting a user, property or contact changes no page (an event names only rows that exist: foreign keys), nor does
-- deleting one (no event may name it then).
create trigger users_agenda_name after update of name on users
  for each row when (old.name is distinct from new.name) execute function agenda_names_mark();
create trigger properties_agenda_label after update of label on properties
  for each row when (old.label is distinct from new.label) execute function agenda_names_mark();
create trigger contacts_agenda_name after update of name on contacts
  for each row when (old.name is distinct from new.name) execute function agenda_names_mark();
