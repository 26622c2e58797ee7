/** The SQL of webhook subscriptions, their secrets, the dispatcher and the deliveries. */
import type { Static } from "@sinclair/typebox";
import { unprepared, type Db, type Tx } from "../core/db.ts";
import { eventText } from "../events/event_text.ts";
import { eventParts, feedHorizon, type EventParts } from "../events/queries.ts";
import type { WebhookDelivery, WebhookSubscription } from "./schema.ts";

type Sql = Db | Tx;
/** A subscription as the CLI prints it. */
export type SubscriptionView = Static<typeof WebhookSubscription>;

function subscriptionJson(sql: Sql) {
  return sql`json_build_object(
    'id', s.id, 'workspaceId', s.workspace_id, 'url', s.url, 'events', to_json(s.event_types),
    'description', s.description, 'status', s.status, 'disabledReason', s.disabled_reason,
    'failingSince', iso(s.failing_since), 'createdAt', iso(s.created_at), 'updatedAt', iso(s.updated_at))`;
}

/** Inserts a subscription with its first secret; returns it. */
export async function insertSubscription(
  tx: Tx,
  s: { id: string; workspaceId: string; url: string; events: string[]; description: string | null },
  secret: { id: string; secret: string },
): Promise<SubscriptionView> {
  const [row] = await tx<{ subscription: SubscriptionView }[]>`
    with s as (
      insert into webhook_subscriptions (id, workspace_id, url, event_types, description)
      values (${s.id}, ${s.workspaceId}, ${s.url}, ${s.events}::text[], ${s.description})
      returning *
    ), k as (
      insert into webhook_secrets (workspace_id, subscription_id, id, secret)
      select s.workspace_id, s.id, ${secret.id}, ${secret.secret} from s
    )
    select ${subscriptionJson(tx)} as subscription from s`;
  return row!.subscription;
}

/** The workspace's subscriptions, oldest first. */
export async function subscriptionsOf(db: Sql, workspaceId: string): Promise<SubscriptionView[]> {
  const rows = await db<{ subscription: SubscriptionView }[]>`
    select ${subscriptionJson(db)} as subscription from webhook_subscriptions s
    where s.workspace_id = ${workspaceId} order by s.created_at, s.id`;
  return rows.map((r) => r.subscription);
}

/** Enables or disables a subscription (an operator's choice); undefined when there is none with that id. */
export async function setSubscriptionStatus(
  db: Sql,
  id: string,
  status: "active" | "disabled",
  reason: "operator" | "failing" | null,
): Promise<SubscriptionView | undefined> {
  const [row] = await db<{ subscription: SubscriptionView }[]>`
    update webhook_subscriptions s set status = ${status}, disabled_reason = ${reason}, updated_at = now(),
      failing_since = case when ${status} = 'active' then null else s.failing_since end
    where s.id = ${id}
    returning ${subscriptionJson(db)} as subscription`;
  return row?.subscription;
}

/**
 * Adds a new secret and gives every older secret without an expiry 24 hours; returns when they expire, or
 * undefined when the subscription does not exist. Older secrets already expired are deleted.
 */
export async function rotateSecret(
  tx: Tx,
  subscriptionId: string,
  secret: { id: string; secret: string },
): Promise<{ previousSecretsExpireAt: string } | undefined> {
  const [found] = await tx`select 1 from webhook_subscriptions where id = ${subscriptionId} for update`;
  if (!found) return undefined;
  await tx`delete from webhook_secrets where subscription_id = ${subscriptionId} and expires_at <= now()`;
  const [row] = await tx<{ expiresAt: string }[]>`
    with old as (
      update webhook_secrets set expires_at = now() + interval '24 hours'
      where subscription_id = ${subscriptionId} and expires_at is null
    )
    insert into webhook_secrets (workspace_id, subscription_id, id, secret)
    select s.workspace_id, s.id, ${secret.id}, ${secret.secret}
    from webhook_subscriptions s where s.id = ${subscriptionId}
    returning iso(now() + interval '24 hours') as expires_at`;
  return { previousSecretsExpireAt: row!.expiresAt };
}

/**
 * A subscription's recent deliveries, newest event first, with their last attempt; `failed` keeps the failing ones.
 * Read backwards along the (workspace, subscription, event) key; without `failed`, the first attempts that succeeded
 * and were recorded in runs (`event_delivery_runs`, the `limit` newest runs) are listed with them, each as a delivered
 * delivery of one attempt whose id is the run's id and the event's, joined by `-` (no row of its own exists).
 */
export async function deliveriesOf(
  db: Sql,
  subscription: { workspaceId: string; id: string },
  failed: boolean,
  limit = 50,
): Promise<Static<typeof WebhookDelivery>[]> {
  const rows = await db<{ delivery: Static<typeof WebhookDelivery> }[]>`
    with d as (
      select d.event_id, json_build_object(
        'id', d.id, 'eventId', d.event_id, 'eventType', e.type, 'status', d.status, 'attempts', d.attempts,
        'nextAttemptAt', case when d.status = 'pending' then iso(d.next_attempt_at) end,
        'createdAt', iso(d.created_at), 'finishedAt', iso(d.finished_at),
        'lastAttempt', (select json_build_object(
            'attempt', a.attempt, 'startedAt', iso(a.started_at), 'responseStatus', a.response_status,
            'durationMs', a.duration_ms, 'error', a.error, 'responseBody', a.response_body)
          from event_delivery_attempts a where a.workspace_id = d.workspace_id and a.delivery_id = d.id
          order by a.attempt desc limit 1)) as delivery
      from event_deliveries d
      join events e on e.workspace_id = d.workspace_id and e.id = d.event_id
      where d.workspace_id = ${subscription.workspaceId} and d.subscription_id = ${subscription.id}
        ${failed ? db`and (d.status = 'failed' or (d.status = 'pending' and d.attempts > 0))` : db``}
      order by d.event_id desc
      limit ${limit}
    ), r as (
      select x.event_id, json_build_object(
        'id', r.id || '-' || x.event_id, 'eventId', x.event_id, 'eventType', e.type, 'status', 'delivered',
        'attempts', 1, 'nextAttemptAt', null, 'createdAt', iso(r.started_at),
        'finishedAt', iso(r.started_at + make_interval(secs => x.duration_ms / 1000.0)),
        'lastAttempt', json_build_object(
          'attempt', 1, 'startedAt', iso(r.started_at), 'responseStatus', x.response_status,
          'durationMs', x.duration_ms, 'error', x.error, 'responseBody', x.response_body)) as delivery
      from (select * from event_delivery_runs r
            where r.workspace_id = ${subscription.workspaceId} and r.subscription_id = ${subscription.id}
              and ${!failed}
            order by r.id desc
            limit ${limit}) r
      cross join unnest(r.event_ids, r.response_statuses, r.durations_ms, r.response_bodies, r.errors)
        as x (event_id, response_status, duration_ms, response_body, error)
      join events e on e.workspace_id = r.workspace_id and e.id = x.event_id
    )
    select delivery from (select * from d union all select * from r) u
    order by u.event_id desc
    limit ${limit}`;
  return rows.map((r) => r.delivery);
}

/**
 * Takes the dispatcher's position for `leaseSeconds` under `leaseId` when it is free (no lease, or an expired one) and
 * an event waits after it below the feed horizon; answers the position, or undefined (nothing new, or another process
 * holds it). Writes nothing when there is nothing to do.
 */
export async function takeDispatchLease(
  db: Db,
  leaseId: string,
  leaseSeconds: number,
): Promise<{ tx: string; id: string } | undefined> {
  const [row] = await db<{ tx: string; id: string }[]>`
    update event_dispatch p set leased_until = now() + make_interval(secs => ${leaseSeconds}), lease_id = ${leaseId}
    where (p.leased_until is null or p.leased_until < now())
      and exists (select 1 from events e
                  where (e.tx_id, e.id) > (p.tx_id, p.event_id) and e.tx_id < ${feedHorizon(db)})
    returning p.tx_id::text as tx, p.event_id as id`;
  return row;
}

/** Gives the position's lease up, if it is still `leaseId`'s. */
export async function releaseDispatchLease(db: Db, leaseId: string): Promise<void> {
  await db`update event_dispatch set leased_until = null, lease_id = null where lease_id = ${leaseId}`;
}

/** Locks the position for this transaction if `leaseId` still holds its lease; false when another process took it. */
export async function lockDispatchLease(tx: Tx, leaseId: string): Promise<boolean> {
  const rows = await tx`select 1 from event_dispatch where lease_id = ${leaseId} for update`;
  return rows.length > 0;
}

/** Moves the dispatcher's position and releases the lease (the caller locked it: `lockDispatchLease`). */
export async function moveDispatchPosition(tx: Tx, position: { tx: string; id: string }): Promise<void> {
  await tx`update event_dispatch set tx_id = ${position.tx}::xid8, event_id = ${position.id},
    leased_until = null, lease_id = null`;
}

/** An event of a dispatch batch: its position, the active subscriptions it goes to, and its body when it has any. */
export interface DispatchedEvent {
  workspaceId: string;
  eventId: string;
  tx: string;
  subscriptionIds: string[];
  body: string | null;
}

/**
 * A batch of events after the position, in commit order, each with the active subscriptions it goes to (created
 * before the event) and, when it goes to one, its body (`eventText`, as a delivery sends it): at most `take` events,
 * and no event after the one that brings the batch to `maxDeliveries.posted` deliveries (the first is always taken
 * whole). The deliveries of `maxDeliveries.held` workspaces (those with no slot free: theirs are held back, a row each
 * and no POST) count only towards `maxDeliveries.all`, so that one workspace's backlog does not fill the batches
 * the others' events wait behind.
 */
export async function dispatchBatch(
  db: Db,
  after: { tx: string; id: string },
  take: number,
  maxDeliveries: { posted: number; all: number; held: string[] },
): Promise<DispatchedEvent[]> {
  const rows = await db<(EventParts & { workspaceId: string; tx: string; subscriptionIds: string[] })[]>`
    with batch as (
      select e.workspace_id, e.id, e.tx_id, e.type, e.occurred_at, e.subject_kind, e.subject_id, e.data,
        e.request_id, e.actor_kind, e.actor_id,
        array(select s.id from webhook_subscriptions s
              where s.workspace_id = e.workspace_id and s.status = 'active' and s.created_at <= e.occurred_at
                and (s.event_types @> '{*}' or e.type = any(s.event_types))
              order by s.id) as subscription_ids
      from events e
      where (e.tx_id, e.id) > (${after.tx}::xid8, ${after.id}) and e.tx_id < ${feedHorizon(db)}
      order by e.tx_id, e.id
      limit ${take}
    ), counted as (
      select b.*,
        coalesce(sum(case when b.workspace_id = any(${maxDeliveries.held}::text[]) then 0
                          else cardinality(b.subscription_ids) end) over w, 0) as before,
        coalesce(sum(cardinality(b.subscription_ids)) over w, 0) as before_all
      from batch b
      window w as (order by b.tx_id, b.id rows between unbounded preceding and 1 preceding)
    )
    select e.workspace_id, e.tx_id::text as tx, e.subscription_ids,
      ${eventParts(db, db`cardinality(e.subscription_ids) > 0`)}
    from counted e
    where e.before < ${maxDeliveries.posted} and e.before_all < ${maxDeliveries.all}
    order by e.tx_id, e.id`;
  return rows.map((r) => ({
    workspaceId: r.workspaceId,
    eventId: r.eventId,
    tx: r.tx,
    subscriptionIds: r.subscriptionIds,
    body: r.eventData === null ? null : eventText(r),
  }));
}

/**
 * The breakers of a workspace's receivers (`event_delivery_breakers`), by receiver (an origin): the seconds until an
 * open one closes to a probe (0 or less: half open, the next attempt probes), or null while it is closed (failures
 * counted, fewer than the threshold).
 */
export type Breakers = Map<string, number | null>;

function breakersOf(receivers: string[] | null, seconds: number[] | null): Breakers {
  const map: Breakers = new Map();
  for (const [i, receiver] of (receivers ?? []).entries()) {
    // A closed breaker's null comes back from the float8 array as NaN.
    const s = seconds?.[i];
    map.set(receiver, s !== undefined && Number.isFinite(s) ? s : null);
  }
  return map;
}

/** A lateral join as `b`, its `receivers` and `seconds`: the breakers of the workspace in `column`'s receivers. */
function breakersJoin(sql: Sql, column: "s.workspace_id" | "c.workspace_id") {
  return sql`left join lateral (
      select array_agg(b.receiver order by b.receiver) as receivers,
        array_agg(extract(epoch from b.open_until - now())::float8 order by b.receiver) as seconds
      from event_delivery_breakers b where b.workspace_id = ${sql(column)}) b on true`;
}

/**
 * What a first attempt needs of a subscription: its URL, live secrets, whether it is failing, and the breakers of its
 * workspace's receivers.
 */
export interface DispatchTarget {
  workspaceId: string;
  id: string;
  url: string;
  failing: boolean;
  secrets: string[];
  breakers: Breakers;
}

/** The given subscriptions' targets. */
export async function dispatchTargets(db: Db, keys: { workspaceId: string; id: string }[]): Promise<DispatchTarget[]> {
  if (!keys.length) return [];
  const rows = await db<
    (Omit<DispatchTarget, "breakers"> & { breakerReceivers: string[] | null; breakerSeconds: number[] | null })[]
  >`
    select s.workspace_id, s.id, s.url, s.failing_since is not null as failing,
      array(select k.secret from webhook_secrets k
            where k.workspace_id = s.workspace_id and k.subscription_id = s.id
              and (k.expires_at is null or k.expires_at > now())
            order by k.created_at, k.id) as secrets,
      b.receivers as breaker_receivers, b.seconds as breaker_seconds
    from webhook_subscriptions s
    join unnest(${keys.map((k) => k.workspaceId)}::text[], ${keys.map((k) => k.id)}::text[]) as u (workspace_id, id)
      on s.workspace_id = u.workspace_id and s.id = u.id
    ${breakersJoin(db, "s.workspace_id")}`;
  return rows.map(({ breakerReceivers, breakerSeconds, ...t }) => ({
    ...t,
    breakers: breakersOf(breakerReceivers, breakerSeconds),
  }));
}

/** The successful first attempts of one dispatch batch to one subscription (`event_delivery_runs`). */
export interface DeliveryRun {
  workspaceId: string;
  subscriptionId: string;
  id: string;
  startedAt: Date;
  eventIds: string[];
  responseStatuses: number[];
  durationsMs: number[];
  responseBodies: (string | null)[];
  errors: (string | null)[];
}

/** Inserts runs and clears their subscriptions' failure clocks, in one statement. */
export async function insertRuns(tx: Tx, runs: DeliveryRun[]): Promise<void> {
  if (!runs.length) return;
  const rows = runs.map((r) => ({
    workspace_id: r.workspaceId,
    subscription_id: r.subscriptionId,
    id: r.id,
    started_at: r.startedAt.toISOString(),
    event_ids: r.eventIds,
    response_statuses: r.responseStatuses,
    durations_ms: r.durationsMs,
    response_bodies: r.responseBodies,
    errors: r.errors,
  }));
  await tx`
    with r as (
      select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r (
        workspace_id text, subscription_id text, id text, started_at timestamptz, event_ids text[],
        response_statuses integer[], durations_ms integer[], response_bodies text[], errors text[])
    ), i as (
      insert into event_delivery_runs (
        workspace_id, subscription_id, id, started_at, event_ids, response_statuses, durations_ms, response_bodies,
        errors)
      select workspace_id, subscription_id, id, started_at, event_ids, response_statuses, durations_ms,
        response_bodies, errors
      from r
    )
    update webhook_subscriptions s set failing_since = null
    from r
    where s.workspace_id = r.workspace_id and s.id = r.subscription_id and s.failing_since is not null`;
}

/**
 * Inserts deliveries (ids given): pending and due now, or in `dueInSeconds` (held back: a receiver set aside or busy),
 * or, with `attempts` and `leasedSeconds`, with a first attempt made (attempts = 1) and held for that long (an attempt
 * still in flight, or a failure about to be settled).
 */
export async function insertDeliveries(
  tx: Tx,
  deliveries: {
    id: string;
    workspaceId: string;
    eventId: string;
    subscriptionId: string;
    attempts: number;
    leasedSeconds: number;
    dueInSeconds?: number;
  }[],
): Promise<void> {
  if (!deliveries.length) return;
  await tx`
    insert into event_deliveries (id, workspace_id, event_id, subscription_id, attempts, leased_until, next_attempt_at)
    select u.id, u.workspace_id, u.event_id, u.subscription_id, u.attempts,
      case when u.leased > 0 then now() + make_interval(secs => u.leased) end,
      now() + make_interval(secs => greatest(u.leased, u.due))
    from unnest(
      ${deliveries.map((d) => d.id)}::text[], ${deliveries.map((d) => d.workspaceId)}::text[],
      ${deliveries.map((d) => d.eventId)}::text[], ${deliveries.map((d) => d.subscriptionId)}::text[],
      ${deliveries.map((d) => d.attempts)}::int[], ${deliveries.map((d) => d.leasedSeconds)}::int[],
      ${deliveries.map((d) => d.dueInSeconds ?? 0)}::float8[])
      as u (id, workspace_id, event_id, subscription_id, attempts, leased, due)
    on conflict (workspace_id, subscription_id, event_id) do nothing`;
}

/** A delivery named by its key. */
export interface DeliveryKey {
  workspaceId: string;
  id: string;
}

/** What an attempt needs: the delivery claimed for `leaseSeconds`, its subscription, body and live secrets. */
export interface ClaimedDelivery extends DeliveryKey {
  attempt: number;
  eventId: string;
  subscriptionId: string;
  subscriptionStatus: "active" | "disabled";
  url: string;
  /** The event's JSON; null when the event is gone (purged past the retention). */
  body: string | null;
  secrets: string[];
  /** The breakers of its workspace's receivers (read when it was claimed; the dispatcher's deliveries have none). */
  breakers?: Breakers;
}

/** A claimed delivery whose event is there to send. */
export type Deliverable = ClaimedDelivery & { body: string };

/** A claimed delivery as `claimDeliveries` reads it: its event's parts (all null but the id when the event is gone). */
type ClaimedRow = Omit<ClaimedDelivery, "body" | "eventId" | "breakers"> &
  EventParts & { deliveryEventId: string; breakerReceivers: string[] | null; breakerSeconds: number[] | null };

/** Why a delivery was not claimed: delivered or failed already, held by another worker, or not due yet. */
export type Unclaimed = "done" | "held" | "not_due";

/**
 * Claims, in one statement, the given deliveries that are pending, due and not held by another worker (counting the
 * attempt); says for each of the others why not. A row another worker is claiming at this instant is skipped (held).
 */
export async function claimDeliveries(
  db: Db,
  keys: DeliveryKey[],
  leaseSeconds: number,
): Promise<{ claimed: ClaimedDelivery[]; unclaimed: Map<string, Unclaimed> }> {
  const workspaceIds = keys.map((k) => k.workspaceId);
  const ids = keys.map((k) => k.id);
  const rows = await unprepared(db<ClaimedRow[]>`
    with c as (
      select d.workspace_id, d.id, d.event_id from event_deliveries d
      join unnest(${workspaceIds}::text[], ${ids}::text[]) as u (workspace_id, id)
        on d.workspace_id = u.workspace_id and d.id = u.id
      where d.status = 'pending' and (d.leased_until is null or d.leased_until < now())
        and d.next_attempt_at <= now() + interval '1 second'
      for update of d skip locked
    )
    update event_deliveries d
    set leased_until = now() + make_interval(secs => ${leaseSeconds}), attempts = d.attempts + 1
    from c join webhook_subscriptions s on true
      left join events e on e.workspace_id = c.workspace_id and e.id = c.event_id
      ${breakersJoin(db, "c.workspace_id")}
    where d.workspace_id = c.workspace_id and d.id = c.id
      and s.workspace_id = d.workspace_id and s.id = d.subscription_id
    returning d.id, d.attempts as attempt, d.workspace_id, s.id as subscription_id,
      s.status as subscription_status, s.url, d.event_id as delivery_event_id, ${eventParts(db)},
      array(select k.secret from webhook_secrets k
            where k.workspace_id = s.workspace_id and k.subscription_id = s.id
              and (k.expires_at is null or k.expires_at > now())
            order by k.created_at, k.id) as secrets,
      b.receivers as breaker_receivers, b.seconds as breaker_seconds`);
  // A purged event (past the retention) leaves its delivery without a body: it is abandoned.
  const claimed: ClaimedDelivery[] = rows.map((r) => ({
    workspaceId: r.workspaceId,
    id: r.id,
    attempt: r.attempt,
    eventId: r.deliveryEventId,
    subscriptionId: r.subscriptionId,
    subscriptionStatus: r.subscriptionStatus,
    url: r.url,
    body: r.eventData === null ? null : eventText(r),
    secrets: r.secrets,
    breakers: breakersOf(r.breakerReceivers, r.breakerSeconds),
  }));
  const unclaimed = new Map<string, Unclaimed>();
  if (claimed.length === keys.length) return { claimed, unclaimed };
  const got = new Set(claimed.map((c) => c.id));
  const rest = keys.filter((k) => !got.has(k.id));
  const states = await db<{ id: string; status: string; held: boolean }[]>`
    select d.id, d.status,
      coalesce(d.leased_until >= now(), false) or d.next_attempt_at <= now() + interval '1 second' as held
    from event_deliveries d
    join unnest(${rest.map((k) => k.workspaceId)}::text[], ${rest.map((k) => k.id)}::text[]) as u (workspace_id, id)
      on d.workspace_id = u.workspace_id and d.id = u.id`;
  for (const k of rest) unclaimed.set(k.id, "done");
  for (const s of states) if (s.status === "pending") unclaimed.set(s.id, s.held ? "held" : "not_due");
  return { claimed, unclaimed };
}

/** One attempt's outcome, as recorded. */
export interface AttemptRecord {
  workspaceId: string;
  deliveryId: string;
  attempt: number;
  startedAt: Date;
  durationMs: number;
  responseStatus: number | null;
  responseBody: string | null;
  error: string | null;
}

/** Records an attempt and settles the delivery: delivered, failed for good, or due again after `retryInSeconds`. */
export async function recordAttempt(
  tx: Tx,
  a: AttemptRecord,
  outcome: { kind: "delivered" } | { kind: "failed" } | { kind: "retry"; inSeconds: number },
): Promise<void> {
  await tx`
    insert into event_delivery_attempts (
      workspace_id, delivery_id, attempt, started_at, duration_ms, response_status, response_body, error)
    values (${a.workspaceId}, ${a.deliveryId}, ${a.attempt}, ${a.startedAt}, ${a.durationMs}, ${a.responseStatus},
            ${a.responseBody}, ${a.error})
    on conflict do nothing`;
  await tx`
    update event_deliveries set leased_until = null,
      status = ${outcome.kind === "retry" ? "pending" : outcome.kind},
      finished_at = ${outcome.kind === "retry" ? null : tx`now()`},
      next_attempt_at = now() + make_interval(secs => ${outcome.kind === "retry" ? outcome.inSeconds : 0})
    where workspace_id = ${a.workspaceId} and id = ${a.deliveryId}`;
}

/**
 * Records delivered attempts, settles their deliveries and clears their subscriptions' failure clocks, in one
 * statement for the whole batch.
 */
export async function recordDelivered(
  db: Sql,
  attempts: (AttemptRecord & { subscriptionId: string })[],
): Promise<void> {
  if (!attempts.length) return;
  const rows = attempts.map((a) => ({
    workspace_id: a.workspaceId,
    delivery_id: a.deliveryId,
    subscription_id: a.subscriptionId,
    attempt: a.attempt,
    started_at: a.startedAt.toISOString(),
    duration_ms: a.durationMs,
    response_status: a.responseStatus,
    response_body: a.responseBody,
    error: a.error,
  }));
  await unprepared(db`
    with r as (
      select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r (
        workspace_id text, delivery_id text, subscription_id text, attempt integer, started_at timestamptz,
        duration_ms integer, response_status integer, response_body text, error text)
    ), a as (
      insert into event_delivery_attempts (
        workspace_id, delivery_id, attempt, started_at, duration_ms, response_status, response_body, error)
      select workspace_id, delivery_id, attempt, started_at, duration_ms, response_status, response_body, error from r
      on conflict do nothing
    ), d as (
      update event_deliveries d set status = 'delivered', finished_at = now(), leased_until = null
      from r where d.workspace_id = r.workspace_id and d.id = r.delivery_id
    )
    update webhook_subscriptions s set failing_since = null
    from (select distinct workspace_id, subscription_id from r) r
    where s.workspace_id = r.workspace_id and s.id = r.subscription_id and s.failing_since is not null`);
}

/**
 * Notes a subscription's failure (sets `failing_since` if unset); disables an active subscription failing for
 * `disableAfterDays` and returns it (to record `webhook.disabled`).
 */
export async function noteSubscriptionFailure(
  tx: Tx,
  workspaceId: string,
  subscriptionId: string,
  disableAfterDays: number,
): Promise<SubscriptionView | undefined> {
  const [row] = await tx<{ subscription: SubscriptionView; disabledNow: boolean }[]>`
    with o as (
      select status, coalesce(failing_since, now()) <= now() - make_interval(days => ${disableAfterDays}) as expired
      from webhook_subscriptions where workspace_id = ${workspaceId} and id = ${subscriptionId} for update
    )
    update webhook_subscriptions s set failing_since = coalesce(s.failing_since, now()),
      status = case when o.status = 'active' and o.expired then 'disabled' else s.status end,
      disabled_reason = case when o.status = 'active' and o.expired then 'failing' else s.disabled_reason end,
      updated_at = case when o.status = 'active' and o.expired then now() else s.updated_at end
    from o
    where s.workspace_id = ${workspaceId} and s.id = ${subscriptionId}
    returning ${subscriptionJson(tx)} as subscription, o.status = 'active' and o.expired as disabled_now`;
  return row?.disabledNow ? row.subscription : undefined;
}

/** Marks deliveries failed; `claimed`: by the worker that just claimed them, which made no attempt after all. */
export async function abandonDeliveries(db: Sql, keys: DeliveryKey[], claimed: boolean): Promise<void> {
  await db`
    update event_deliveries d set status = 'failed', finished_at = now(), leased_until = null,
      attempts = d.attempts - ${claimed ? 1 : 0}
    from unnest(${keys.map((k) => k.workspaceId)}::text[], ${keys.map((k) => k.id)}::text[]) as u (workspace_id, id)
    where d.workspace_id = u.workspace_id and d.id = u.id and d.status = 'pending'`;
}

/**
 * Gives claimed deliveries back without an attempt (a receiver set aside, or no slot free for it), each due again in
 * its `dueInSeconds`: the claim's count of attempts is taken back, so the retry schedule is the same.
 */
export async function deferDeliveries(sql: Sql, deliveries: (DeliveryKey & { dueInSeconds: number })[]): Promise<void> {
  if (!deliveries.length) return;
  await sql`
    update event_deliveries d set leased_until = null, attempts = d.attempts - 1,
      next_attempt_at = now() + make_interval(secs => u.due)
    from unnest(${deliveries.map((k) => k.workspaceId)}::text[], ${deliveries.map((k) => k.id)}::text[],
      ${deliveries.map((k) => k.dueInSeconds)}::float8[]) as u (workspace_id, id, due)
    where d.workspace_id = u.workspace_id and d.id = u.id and d.status = 'pending'`;
}

/** A breaker's rule: failures in a row that open it, and its cool-downs (the first, doubled each time, the longest). */
export interface BreakerRule {
  failuresToOpen: number;
  firstCoolDownSeconds: number;
  longestCoolDownSeconds: number;
}

/**
 * Counts an attempt to `receiver` that got no answer. The breaker opens when the count reaches the rule's failures (a
 * cool-down of `firstCoolDownSeconds` doubled for each opening in a row) or when the attempt was the half-open probe;
 * answers whether it opened now and until when.
 */
export async function noteReceiverUnreachable(
  tx: Tx,
  workspaceId: string,
  receiver: string,
  probe: boolean,
  rule: BreakerRule,
): Promise<{ failures: number; opened: boolean; openUntil: string | null }> {
  const [row] = await tx<{ failures: number; opened: boolean; openUntil: string | null }[]>`
    insert into event_delivery_breakers as b (workspace_id, receiver, failures, opens, open_until)
    values (${workspaceId}, ${receiver}, 1, case when 1 >= ${rule.failuresToOpen} then 1 else 0 end,
      case when 1 >= ${rule.failuresToOpen}
        then now() + make_interval(secs => ${rule.firstCoolDownSeconds}) end)
    on conflict (workspace_id, receiver) do update set failures = b.failures + 1, updated_at = now(),
      open_until = case when ${probe} or (b.open_until is null and b.failures + 1 >= ${rule.failuresToOpen})
        then now() + make_interval(secs => least(${rule.firstCoolDownSeconds} * 2 ^ b.opens,
          ${rule.longestCoolDownSeconds}))
        else b.open_until end,
      opens = case when ${probe} or (b.open_until is null and b.failures + 1 >= ${rule.failuresToOpen})
        then b.opens + 1 else b.opens end
    returning b.failures, iso(b.open_until) as open_until,
      b.open_until is not null and (${probe} or b.failures = ${rule.failuresToOpen}) as opened`;
  return row!;
}

/** Closes the breakers of receivers that answered (any status); answers those that were open (set aside). */
export async function closeBreakers(
  sql: Sql,
  receivers: { workspaceId: string; receiver: string }[],
): Promise<{ workspaceId: string; receiver: string; failures: number; wasOpen: boolean }[]> {
  if (!receivers.length) return [];
  return sql<{ workspaceId: string; receiver: string; failures: number; wasOpen: boolean }[]>`
    delete from event_delivery_breakers b
    using unnest(${receivers.map((r) => r.workspaceId)}::text[], ${receivers.map((r) => r.receiver)}::text[])
      as u (workspace_id, receiver)
    where b.workspace_id = u.workspace_id and b.receiver = u.receiver
    returning b.workspace_id, b.receiver, b.failures, b.open_until is not null as was_open`;
}

/**
 * Takes the half-open breaker's probe: when its cool-down is over, moves `open_until` on by `holdSeconds` (no other
 * process probes meanwhile) and answers true; false when it is still open or another process took the probe.
 */
export async function takeProbe(db: Db, workspaceId: string, receiver: string, holdSeconds: number): Promise<boolean> {
  const rows = await db`
    update event_delivery_breakers set open_until = now() + make_interval(secs => ${holdSeconds}), updated_at = now()
    where workspace_id = ${workspaceId} and receiver = ${receiver} and open_until <= now()
    returning 1`;
  return rows.length > 0;
}
