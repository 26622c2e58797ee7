/** The SQL of the calendar group. */
import type { Static } from "@sinclair/typebox";
import type { Db } from "../core/db.ts";
import { instantOfPgText } from "../core/pg_instant.ts";
import type { CalendarEvent } from "./schema.ts";

/** A calendar event in response shape. */
export type AgendaEvent = Static<typeof CalendarEvent>;

/** One agenda page's events, in order, with each one's position in the agenda's order. */
export interface AgendaPage {
  events: AgendaEvent[];
  /** Each event's starts_at as Postgres prints it (to the microsecond), for the cursor after it. */
  startsAt: string[];
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
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i] as unknown as Row;
    const k = row[0].split(",") as Packed;
    events[i] = eventOf(row, k);
    startsAt[i] = k[1];
  }
  return { events, startsAt };
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
