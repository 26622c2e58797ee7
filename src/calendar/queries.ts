/** The SQL of the calendar group. */
import type { Static } from "@sinclair/typebox";
import type { Db } from "../core/db.ts";
import type { CalendarEvent } from "./schema.ts";

/** A calendar event in response shape, with its position in the agenda's order. */
export type AgendaRow = Static<typeof CalendarEvent> & { cursorAt: string };

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
 * starts_at, then id, with the property, staff and contact names joined in.
 */
export async function agendaPage(db: Db, q: AgendaPageQuery): Promise<AgendaRow[]> {
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
  return db<AgendaRow[]>`
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
      -- Why staff names come from one object: users are few and their table small, so the planner joined them by
      -- scanning every user for each event (a third of the statement's time); this reads the page's staff once.
      select jsonb_object_agg(u.id, u.name) as names from users u
      where u.workspace_id = ${workspace} and u.id in (select staff_user_id from page)
    )
    select e.id, e.title, e.kind, e.subject_kind, e.subject_id,
           iso(e.starts_at) as starts_at, iso(e.ends_at) as ends_at,
           e.location, e.status, e.created_by_user_id, e.property_id, p.label as property_label,
           e.staff_user_id as staff_id, e.staff_user_id, staff.names ->> e.staff_user_id as staff_name,
           e.contact_id, c.name as contact_name,
           e.notes, e.revision, e.outcome, e.outcome_note, iso(e.outcome_recorded_at) as outcome_recorded_at,
           case when e.feedback is null then null else json_build_object(
             'interest', e.feedback ->> 'interest',
             'themes', case when jsonb_typeof(e.feedback -> 'themes') = 'array' then e.feedback -> 'themes'
               else '[]'::jsonb end,
             'nextAction', e.feedback ->> 'nextAction',
             'note', e.feedback ->> 'note') end as feedback,
           e.follow_up_task_id, e.cancel_reason, iso(e.cancelled_at) as cancelled_at,
           iso(e.created_at) as created_at, iso(e.updated_at) as updated_at,
           e.starts_at::text as cursor_at
    from page e
    cross join staff
    left join properties p on p.workspace_id = e.workspace_id and p.id = e.property_id
    left join contacts c on c.workspace_id = e.workspace_id and c.id = e.contact_id
    order by e.starts_at, e.id
    limit ${take}`;
}
