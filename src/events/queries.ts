/** The SQL of the events group: the commit-order feed and the purge. */
import type { Static } from "@sinclair/typebox";
import type { Db, Tx } from "../core/db.ts";
import { eventText } from "./event_text.ts";
import type { Event } from "./schema.ts";

/** An event in response shape, with its position in the feed's order (its transaction's id, as text). */
export interface EventRow {
  event: Static<typeof Event>;
  cursorTx: string;
}

/** What `eventParts` selects of an events row: what its JSON is made of (`eventText`). */
export interface EventParts {
  eventId: string;
  eventType: string;
  /** `occurred_at` as Postgres prints it (pg_instant.ts). */
  eventOccurredAt: string;
  eventWorkspaceId: string;
  eventSubjectKind: string;
  eventSubjectId: string;
  /** `data` as JSON text; null (as every part but the id) when `eventParts` was told not to read them. */
  eventData: string | null;
  eventRequestId: string | null;
  eventActorKind: string;
  eventActorId: string | null;
}

/** What one feed page asks for. */
export interface EventsPageQuery {
  workspaceId: string;
  /** The position after which the page starts: the last event's transaction id (text) and id. */
  after?: { tx: string; id: string };
  types?: string[];
  subjectId?: string;
  /** Rows to read: the page size plus one, to learn whether another page follows. */
  take: number;
}

/**
 * The feed's horizon, in SQL: every transaction of this database with an id below it had ended when the statement's
 * snapshot was taken, so its events are all visible now or never will be. It is the oldest transaction still running
 * in the snapshot (`pg_snapshot_xip`), leaving out those a server statistics row shows running in another database
 * (a cluster's transaction ids are shared by its databases; they never write this one's events). A running
 * transaction that statistics do not place elsewhere (it ended since, or is prepared) counts: that may only delay.
 */
export function feedHorizon(db: Db | Tx) {
  // The statistics function the view pg_stat_activity is made of, without the view's joins (its database's and role's
  // names): a statement with the view took Postgres ~50 µs more to plan and more to run, each time it was planned.
  return db`coalesce((
    select min(x) from pg_snapshot_xip(pg_current_snapshot()) x
    where not exists (
      select 1 from pg_stat_get_activity(null) a
      where a.backend_xid = xid(x)
        and a.datid is distinct from (select d.oid from pg_database d where d.datname = current_database()))
  ), pg_snapshot_xmax(pg_current_snapshot()))`;
}

/**
 * One page of the workspace's events in commit order: by (tx_id, id), and only events of transactions below the
 * horizon (`feedHorizon`). A transaction that is still running, or commits later, has an id at or above it, so its
 * events come after every position a page has handed out: a cursor never skips them. The cost: a long-running
 * transaction in this database holds the feed back (its events and every later one wait) until it ends.
 */
export async function eventsPage(db: Db, q: EventsPageQuery): Promise<EventRow[]> {
  const rows = await db<(EventParts & { cursorTx: string })[]>`
    select ${eventParts(db)}, e.tx_id::text as cursor_tx
    from events e
    where e.workspace_id = ${q.workspaceId}
      and e.tx_id < ${feedHorizon(db)}
      ${q.after ? db`and (e.tx_id, e.id) > (${q.after.tx}::xid8, ${q.after.id})` : db``}
      ${q.types ? db`and e.type = any(${q.types}::text[])` : db``}
      ${q.subjectId !== undefined ? db`and e.subject_id = ${q.subjectId}` : db``}
    order by e.tx_id, e.id
    limit ${q.take}`;
  return rows.map((r) => ({ event: JSON.parse(eventText(r)), cursorTx: r.cursorTx }));
}

/**
 * The columns an event's JSON is made of (`EventParts`, put together by `eventText`), of an events row (or a row with
 * its columns) aliased `e`. `read`: SQL for when to read them; else every part but the id is null (the dispatcher reads
 * events no subscription wants: their text would cost Postgres ~2 µs an event and the service as much again).
 */
export function eventParts(db: Db | Tx, read = db`true`) {
  return db`e.id as event_id, case when ${read} then e.type end as event_type,
    case when ${read} then e.occurred_at::text end as event_occurred_at,
    case when ${read} then e.workspace_id end as event_workspace_id,
    case when ${read} then e.subject_kind end as event_subject_kind,
    case when ${read} then e.subject_id end as event_subject_id,
    case when ${read} then e.data::text end as event_data,
    case when ${read} then e.request_id end as event_request_id,
    case when ${read} then e.actor_kind end as event_actor_kind,
    case when ${read} then e.actor_id end as event_actor_id`;
}

/** Deletes events older than `days`; returns how many went (their webhook deliveries go with them). */
export async function purgeEvents(db: Db | Tx, days: number): Promise<number> {
  // Webhook deliveries are created after their event and kept as long: those older than the retention go, with their
  // attempts, in the same statement (no foreign key cascades to them: sql/0020), and so do the runs that recorded
  // successful first attempts (sql/0022), and the breakers of receivers that have not been tried for as long (a
  // receiver that never answers again keeps its row once its subscription is disabled).
  const [row] = await db<{ purged: number }[]>`
    with e as (
      delete from events where occurred_at < now() - make_interval(days => ${days}) returning 1
    ), d as (
      delete from event_deliveries where created_at < now() - make_interval(days => ${days})
      returning workspace_id, id
    ), a as (
      delete from event_delivery_attempts a using d where a.workspace_id = d.workspace_id and a.delivery_id = d.id
    ), r as (
      delete from event_delivery_runs where started_at < now() - make_interval(days => ${days})
    ), b as (
      delete from event_delivery_breakers where updated_at < now() - make_interval(days => ${days})
    )
    select count(*)::int as purged from e`;
  return row!.purged;
}
