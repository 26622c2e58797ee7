/** The SQL of the calendar group. */
import type { Static } from "@sinclair/typebox";
import type { Db } from "../core/db.ts";
import { workspaceScope, type WorkspaceScope } from "../core/key_check_read.ts";
import { instantOfPgText } from "../core/pg_instant.ts";
import type { CalendarEvent } from "./schema.ts";
import { agendaShape, type DayTexts, type StoredDays, wholeDays } from "./stored_days.ts";

/** How long a store of days waits for days a concurrent store holds. */
const storeLockTimeout = "200ms";
/**
 * What separates the days' texts sent as one parameter: JSON holds no raw control character, and one text costs
 * neither side the quoting and escaping of an array's elements (~80 KB of JSON, a quote every few characters).
 */
const unit = "\x1f";

/** Texts sent as one, split back into an array in Postgres (each one led by the separator: '' stays an element). */
const split = (db: Db, texts: string[]) =>
  db`(string_to_array(${texts.map((t) => unit + t).join("")}::text, ${unit}))[2:]`;

/** A calendar event in response shape. */
export type AgendaEvent = Static<typeof CalendarEvent>;

/** One agenda page's events, in order, with each one's position in the agenda's order. */
export interface AgendaPage {
  events: AgendaEvent[];
  /** Each event's starts_at as Postgres prints it (to the microsecond), for the cursor after it. */
  startsAt: string[];
  /** Each event's ends_at as Postgres prints it. */
  endsAt: string[];
}

/** What one agenda page asks for. */
export interface AgendaPageQuery {
  workspaceId: string;
  from: Date;
  to: Date;
  /** The position after which the page starts: the last event's starts_at (text, microseconds) and id. */
  after?: { at: string; id: string };
  staffId?: string;
  propertyId?: string;
  contactId?: string;
  kind?: string;
  includeCancelled: boolean;
  /** Rows to read: the page size plus one, to learn whether another page follows. */
  take: number;
}

/**
 * One page of the events overlapping [from, to) (`starts_at < to and ends_at > from`), ordered by
 * starts_at, then id, with the property, staff and contact names read in.
 */
export async function agendaPage(db: Db, q: AgendaPageQuery): Promise<AgendaPage> {
  // Why every value is a scalar subquery `(select $n)`: the planner cannot see through it, so the plans it makes
  // with the values (custom) cost exactly what the plan without them (generic) costs, and after its five custom
  // plans Postgres keeps the generic one. With the values in sight the custom plans looked cheaper and the
  // statement was planned afresh at every execution (~0.5 ms, more than running it). Index conditions take these
  // values like any parameter (one-row InitPlans, evaluated once).
  const text = (value: string) => db`(select ${value}::text)`;
  const instant = (value: Date) => db`(select ${value}::timestamptz)`;
  const workspace = text(q.workspaceId);
  const take = db`(select ${q.take}::int)`;
  const filters = () => db`
    ${q.staffId !== undefined ? db`and e.staff_user_id = ${text(q.staffId)}` : db``}
    ${q.propertyId !== undefined ? db`and e.property_id = ${text(q.propertyId)}` : db``}
    ${q.contactId !== undefined ? db`and e.contact_id = ${text(q.contactId)}` : db``}
    ${q.kind !== undefined ? db`and e.kind = ${text(q.kind)}` : db``}
    ${q.includeCancelled ? db`` : db`and e.status <> 'cancelled'`}
    ${q.after ? db`and (e.starts_at, e.id) > ((select ${q.after.at}::text::timestamptz), ${text(q.after.id)})` : db``}`;
  // Why two halves: events that start inside the window come in order from the (workspace_id, starts_at, id)
  // index; events already running at `from` come from the GiST index of time ranges. Their union is exactly
  // the overlap, both halves are bounded by the window, and neither scans the workspace's history.
  // Why `running` is materialized: with a filter such as staffId, a generic plan would otherwise take the
  // (workspace_id, staff_user_id, starts_at) index for the first half and read all of that person's past events.
  // Why the names come from objects: a page names few users, properties and contacts, each many times; each is
  // read once by primary key (a lateral join: never a scan of the table) instead of once for each event. (Sending
  // the objects once, on the first row, measured no cheaper: the service's map lookups cost what the columns did.)
  // Why most columns travel packed in `k`: each column of each row costs both sides (Postgres an output call,
  // the service a string made from the bytes). The values that can hold no comma (ids, enums, numbers and
  // timestamps) go as one text, split below; timestamps as Postgres prints them, a third of what `iso()` costs it
  // (core/pg_instant.ts makes the same bytes of them). Texts a client wrote keep their own columns: any character
  // may be in them, and escaping them in Postgres cost it more than the columns cost the service.
  const rows = await db`
    with running as materialized (
      select e.* from calendar_events e
      where e.workspace_id = ${workspace}
        and tstzrange(e.starts_at, e.ends_at) @> ${instant(q.from)} and e.starts_at < ${instant(q.from)}
    ), page as (
      (select e.* from running e
       where true
         ${filters()}
       order by e.starts_at, e.id limit ${take})
      union all
      (select e.* from calendar_events e
       where e.workspace_id = ${workspace}
         and e.starts_at >= ${instant(q.from)} and e.starts_at < ${instant(q.to)}
         ${filters()}
       order by e.starts_at, e.id limit ${take})
    ), staff as (
      select jsonb_object_agg(u.id, u.name) as names from users u
      where u.workspace_id = ${workspace} and u.id in (select staff_user_id from page)
    ), property_labels as (
      select jsonb_object_agg(p.id, p.label) as labels
      from (select distinct property_id from page) x
      cross join lateral (select p.id, p.label from properties p
                          where p.workspace_id = ${workspace} and p.id = x.property_id) p
    ), contact_names as (
      select jsonb_object_agg(c.id, c.name) as names
      from (select distinct contact_id from page) x
      cross join lateral (select c.id, c.name from contacts c
                          where c.workspace_id = ${workspace} and c.id = x.contact_id) c
    )
    select concat_ws(',', e.id, e.starts_at, e.ends_at, e.status, coalesce(e.created_by_user_id, ''),
             coalesce(e.property_id, ''), coalesce(e.staff_user_id, ''), coalesce(e.contact_id, ''), e.revision,
             coalesce(e.outcome, ''), coalesce(e.outcome_recorded_at::text, ''), coalesce(e.follow_up_task_id, ''),
             coalesce(e.cancelled_at::text, ''), e.created_at, e.updated_at) as k,
           e.title, e.kind, e.subject_kind, e.subject_id, e.location, property_labels.labels ->> e.property_id,
           staff.names ->> e.staff_user_id, contact_names.names ->> e.contact_id, e.notes, e.outcome_note,
           e.cancel_reason,
           case when e.feedback is null then null else json_build_object(
             'interest', e.feedback ->> 'interest',
             'themes', case when jsonb_typeof(e.feedback -> 'themes') = 'array' then e.feedback -> 'themes'
               else '[]'::jsonb end,
             'nextAction', e.feedback ->> 'nextAction',
             'note', e.feedback ->> 'note') end as feedback
    from page e
    cross join staff
    cross join property_labels
    cross join contact_names
    order by e.starts_at, e.id
    limit ${take}`.values();
  const events: AgendaEvent[] = new Array(rows.length);
  const startsAt: string[] = new Array(rows.length);
  const endsAt: string[] = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i] as unknown as Row;
    const k = row[0].split(",") as Packed;
    events[i] = eventOf(row, k);
    startsAt[i] = k[1];
    endsAt[i] = k[2];
  }
  return { events, startsAt, endsAt };
}

/** A row of the page's statement: `k`, then the texts a client wrote and the names, then the feedback. */
type Row = [
  k: string,
  title: string,
  kind: string,
  subjectKind: string | null,
  subjectId: string | null,
  location: string | null,
  propertyLabel: string | null,
  staffName: string | null,
  contactName: string | null,
  notes: string | null,
  outcomeNote: string | null,
  cancelReason: string | null,
  feedback: AgendaEvent["feedback"],
];

/** `k` split: id, starts_at, ends_at, status, then the nullable values ('' for null), revision among them. */
type Packed = [
  id: string,
  startsAt: string,
  endsAt: string,
  status: string,
  createdByUserId: string,
  propertyId: string,
  staffUserId: string,
  contactId: string,
  revision: string,
  outcome: string,
  outcomeRecordedAt: string,
  followUpTaskId: string,
  cancelledAt: string,
  createdAt: string,
  updatedAt: string,
];

/**
 * An event in response shape, its fields in the schema's order. Made as one object literal: JSON.stringify writes
 * such objects several times faster than ones given their fields one by one.
 */
function eventOf(r: Row, k: Packed): AgendaEvent {
  // An event never changed since its creation has both instants alike: read once.
  const createdAt = instantOfPgText(k[13])!;
  return {
    id: k[0],
    title: r[1],
    kind: r[2],
    subjectKind: r[3],
    subjectId: r[4],
    startsAt: instantOfPgText(k[1])!,
    endsAt: instantOfPgText(k[2])!,
    location: r[5],
    status: k[3] as AgendaEvent["status"],
    createdByUserId: k[4] || null,
    propertyId: k[5] || null,
    propertyLabel: r[6],
    staffId: k[6] || null,
    staffUserId: k[6] || null,
    staffName: r[7],
    contactId: k[7] || null,
    contactName: r[8],
    notes: r[9],
    revision: Number(k[8]),
    outcome: (k[9] || null) as AgendaEvent["outcome"],
    outcomeNote: r[10],
    outcomeRecordedAt: k[10] ? instantOfPgText(k[10]) : null,
    feedback: r[12],
    followUpTaskId: k[11] || null,
    cancelReason: r[11],
    cancelledAt: k[12] ? instantOfPgText(k[12]) : null,
    createdAt,
    updatedAt: k[14] === k[13] ? createdAt : instantOfPgText(k[14])!,
  };
}

/**
 * The stored days of a page (sql/0023) in a workspace scope, as one text (read by daysReadOf): for a window of whole
 * days, `<count>\n<page>` (the events' JSON, joined, in brackets: the answer's body) when every day is stored at the
 * workspace's current version and shape; for a cut window, the first day, the days between and the last day apart
 * (`C<count>\n<ids>\n<first>\x1e<between>\x1e<last>`, ids those running at `from`), for the service to cut; else
 * `V<version>`, the version to store the page's days with. The calendar.agenda key-check read, and readDays's.
 */
export function servableDays(db: Db, workspace: WorkspaceScope, sd: StoredDays) {
  const version = db`coalesce((select v.version from agenda_versions v where v.workspace_id = ${workspace}), 0)`;
  const first = db`${sd.days[0]!}::text::date`;
  const last = db`${sd.days[sd.days.length - 1]!}::text::date`;
  const found = wholeDays(sd)
    ? db`(sum(d.starting_count) + max(d.running_count) filter (where d.day = ${first}))::text || E'\n[' ||
        concat_ws(',', max(nullif(d.running, '')) filter (where d.day = ${first}),
                  string_agg(nullif(d.starting, ''), ',' order by d.day)) || ']'`
    : db`'C' || (sum(d.starting_count) + max(d.running_count) filter (where d.day = ${first}))::text || E'\n' ||
        ${sd.from === undefined ? db`''` : runningAt(db, workspace, sd.staff, sd.from)} || E'\n' ||
        concat_ws(',', max(nullif(d.running, '')) filter (where d.day = ${first}),
                  max(nullif(d.starting, '')) filter (where d.day = ${first})) || E'\x1e' ||
        coalesce(string_agg(nullif(d.starting, ''), ',' order by d.day)
                   filter (where d.day > ${first} and d.day < ${last}), '') || E'\x1e' ||
        coalesce(max(nullif(d.starting, '')) filter (where d.day = ${last} and d.day > ${first}), '')`;
  return db`
    select case when count(*) = ${sd.days.length}::int then ${found} else 'V' || ${version} end as days
    from agenda_days d
    where d.workspace_id = ${workspace} and d.staff = ${sd.staff}::text
      and d.day >= ${first} and d.day < ${sd.end}::text::date
      and d.version = ${version} and d.shape = ${agendaShape}::int`;
}

/**
 * The ids of the events a cut window keeps of those starting before its `from`: agendaPage's `running`, its rule
 * read exactly (`tstzrange(starts_at, ends_at) @> from and starts_at < from`, through the range index), with the
 * stored days' filter (the member of staff, cancelled events left out). Read in the days' own statement: the same
 * snapshot as the days it cuts.
 */
function runningAt(db: Db, workspace: WorkspaceScope, staff: string, from: number) {
  const at = db`${new Date(from).toISOString()}::text::timestamptz`;
  return db`coalesce((select string_agg(r.id, ',') from (
      select e.id, e.staff_user_id, e.status from calendar_events e
      where e.workspace_id = ${workspace} and tstzrange(e.starts_at, e.ends_at) @> ${at} and e.starts_at < ${at}
      offset 0) r
    where r.status <> 'cancelled' and (${staff}::text = '' or r.staff_user_id = ${staff}::text)), '')`;
}

/** The stored days of a page (see servableDays), read on their own. */
export async function readDays(db: Db, workspaceId: string, sd: StoredDays): Promise<string> {
  const [row] = await servableDays(db, workspaceScope(db, workspaceId), sd);
  return row!.days as string;
}

/** The days ahead and behind today (London) whose pages are stored: what a workspace stores stays bounded. */
export const storedDaysRange = { before: 92, after: 366 };

/**
 * Stores a whole page's days with the version read before its events were (a compare-and-set: days stored with an
 * older version are never served, and a newer version's days are not overwritten). Only for everyone or a member of
 * staff who exists, and only days within storedDaysRange of today: a workspace stores at most (users + 1) × 459 days.
 * Commits without waiting for its WAL to reach the disk, and gives up after storeLockTimeout on days a concurrent
 * store holds, as storeRow does for handover rows (a lost store costs the next read a computed page, nothing more).
 */
export async function storeDays(
  db: Db,
  input: { workspaceId: string; sd: StoredDays; version: number; texts: DayTexts },
): Promise<void> {
  const { workspaceId, sd, version, texts } = input;
  await db`
    insert into agenda_days as a (workspace_id, staff, day, version, shape, starting, starting_count, running,
                                  running_count)
    select ${workspaceId}, ${sd.staff}, d.day, ${version}, ${agendaShape}::int, d.starting, d.starting_count,
           d.running, d.running_count
    from unnest(${sd.days}::text[]::date[], ${split(db, texts.starting)}, ${texts.startingCounts}::int[],
                ${split(db, texts.running)}, ${texts.runningCounts}::int[])
           as d(day, starting, starting_count, running, running_count),
         (select set_config('lock_timeout', ${storeLockTimeout}, true),
                 set_config('synchronous_commit', 'off', true)) as this_statement_only
    where (${sd.staff} = ''
           or exists (select from users u where u.workspace_id = ${workspaceId} and u.id = ${sd.staff}))
      and d.day between london_today() - ${storedDaysRange.before}::int
                    and london_today() + ${storedDaysRange.after}::int
    order by d.day
    on conflict (workspace_id, staff, day) do update set
      version = excluded.version, shape = excluded.shape, starting = excluded.starting,
      starting_count = excluded.starting_count, running = excluded.running, running_count = excluded.running_count,
      stored_at = now()
    where a.version <= excluded.version`;
}

/** Forgets stored days out of storedDaysRange (the daily purge): the days' rows it deleted. */
export async function purgeAgendaDays(db: Db): Promise<number> {
  const rows = await db`
    delete from agenda_days
    where day < london_today() - ${storedDaysRange.before}::int or day > london_today() + ${storedDaysRange.after}::int
    returning 1`;
  return rows.length;
}
