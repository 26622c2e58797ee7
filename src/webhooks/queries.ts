/** The SQL of webhook subscriptions, their secrets, the dispatcher and the deliveries. */
import type { Static } from "@sinclair/typebox";
import type { Db, Tx } from "../core/db.ts";
import { eventJson, feedHorizon } from "../events/queries.ts";
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

/** A subscription's recent deliveries (newest first) with their last attempt; `failed` keeps the failing ones. */
export async function deliveriesOf(
  db: Sql,
  subscriptionId: string,
  failed: boolean,
  limit = 50,
): Promise<Static<typeof WebhookDelivery>[]> {
  const rows = await db<{ delivery: Static<typeof WebhookDelivery> }[]>`
    select json_build_object(
      'id', d.id, 'eventId', d.event_id, 'eventType', e.type, 'status', d.status, 'attempts', d.attempts,
      'nextAttemptAt', case when d.status = 'pending' then iso(d.next_attempt_at) end,
      'createdAt', iso(d.created_at), 'finishedAt', iso(d.finished_at),
      'lastAttempt', (select json_build_object(
          'attempt', a.attempt, 'startedAt', iso(a.started_at), 'responseStatus', a.response_status,
          'durationMs', a.duration_ms, 'error', a.error, 'responseBody', a.response_body)
        from event_delivery_attempts a where a.delivery_id = d.id order by a.attempt desc limit 1)) as delivery
    from event_deliveries d
    join events e on e.workspace_id = d.workspace_id and e.id = d.event_id
    where d.subscription_id = ${subscriptionId}
      ${failed ? db`and (d.status = 'failed' or (d.status = 'pending' and d.attempts > 0))` : db``}
    order by d.created_at desc, d.id desc
    limit ${limit}`;
  return rows.map((r) => r.delivery);
}

/** The dispatcher's position, locked for this transaction; undefined while another process holds it. */
export async function lockDispatchPosition(tx: Tx): Promise<{ tx: string; id: string } | undefined> {
  const [row] = await tx<{ tx: string; id: string }[]>`
    select tx_id::text as tx, event_id as id from event_dispatch for update skip locked`;
  return row;
}

/** A batch of events after the position, in commit order, each with the active subscriptions it goes to. */
export async function dispatchBatch(tx: Tx, after: { tx: string; id: string }, take: number) {
  return tx<{ workspaceId: string; eventId: string; tx: string; subscriptionIds: string[] }[]>`
    with batch as (
      select e.workspace_id, e.id, e.tx_id, e.type, e.occurred_at from events e
      where (e.tx_id, e.id) > (${after.tx}::xid8, ${after.id}) and e.tx_id < ${feedHorizon(tx)}
      order by e.tx_id, e.id
      limit ${take}
    )
    select b.workspace_id, b.id as event_id, b.tx_id::text as tx,
           array(select s.id from webhook_subscriptions s
                 where s.workspace_id = b.workspace_id and s.status = 'active' and s.created_at <= b.occurred_at
                   and (s.event_types @> '{*}' or b.type = any(s.event_types))
                 order by s.id) as subscription_ids
    from batch b
    order by b.tx_id, b.id`;
}

/** Inserts pending deliveries (ids given) and moves the dispatcher's position. */
export async function insertDeliveries(
  tx: Tx,
  deliveries: { id: string; workspaceId: string; eventId: string; subscriptionId: string }[],
  position: { tx: string; id: string },
): Promise<void> {
  if (deliveries.length) {
    await tx`
      insert into event_deliveries (id, workspace_id, event_id, subscription_id)
      select * from unnest(
        ${deliveries.map((d) => d.id)}::text[], ${deliveries.map((d) => d.workspaceId)}::text[],
        ${deliveries.map((d) => d.eventId)}::text[], ${deliveries.map((d) => d.subscriptionId)}::text[])
      on conflict (workspace_id, subscription_id, event_id) do nothing`;
  }
  await tx`update event_dispatch set tx_id = ${position.tx}::xid8, event_id = ${position.id}`;
}

/** What an attempt needs: the delivery claimed for `leaseSeconds`, its subscription, body and live secrets. */
export interface ClaimedDelivery {
  attempt: number;
  workspaceId: string;
  eventId: string;
  subscriptionId: string;
  subscriptionStatus: "active" | "disabled";
  url: string;
  body: string;
  secrets: string[];
}

/**
 * Claims a pending delivery that is due and not held by another worker (counting the attempt); undefined with the
 * reason when it cannot: `done` (delivered or failed already), `held` (another worker is at it), `not_due`.
 */
export async function claimDelivery(
  db: Db,
  id: string,
  leaseSeconds: number,
): Promise<ClaimedDelivery | "done" | "held" | "not_due"> {
  const [row] = await db<ClaimedDelivery[]>`
    update event_deliveries d
    set leased_until = now() + make_interval(secs => ${leaseSeconds}), attempts = d.attempts + 1
    from webhook_subscriptions s
    where d.id = ${id} and s.workspace_id = d.workspace_id and s.id = d.subscription_id and d.status = 'pending'
      and (d.leased_until is null or d.leased_until < now()) and d.next_attempt_at <= now() + interval '1 second'
    returning d.attempts as attempt, d.workspace_id, d.event_id, s.id as subscription_id,
      s.status as subscription_status, s.url,
      (select ${eventJson(db)}::text from events e where e.workspace_id = d.workspace_id and e.id = d.event_id) as body,
      array(select k.secret from webhook_secrets k
            where k.workspace_id = s.workspace_id and k.subscription_id = s.id
              and (k.expires_at is null or k.expires_at > now())
            order by k.created_at, k.id) as secrets`;
  if (row) return row;
  const [state] = await db<{ status: string; held: boolean }[]>`
    select status, coalesce(leased_until >= now(), false) as held from event_deliveries where id = ${id}`;
  if (!state || state.status !== "pending") return "done";
  return state.held ? "held" : "not_due";
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

/** Records a delivered attempt, settles its delivery and clears the subscription's failure clock, in one statement. */
export async function recordDelivered(db: Sql, a: AttemptRecord, subscriptionId: string): Promise<void> {
  await db`
    with a as (
      insert into event_delivery_attempts (
        workspace_id, delivery_id, attempt, started_at, duration_ms, response_status, response_body)
      values (${a.workspaceId}, ${a.deliveryId}, ${a.attempt}, ${a.startedAt}, ${a.durationMs}, ${a.responseStatus},
              ${a.responseBody})
      on conflict do nothing
    ), d as (
      update event_deliveries set status = 'delivered', finished_at = now(), leased_until = null
      where workspace_id = ${a.workspaceId} and id = ${a.deliveryId}
    )
    update webhook_subscriptions set failing_since = null
    where workspace_id = ${a.workspaceId} and id = ${subscriptionId} and failing_since is not null`;
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

/** Marks a delivery failed; `claimed`: by the worker that just claimed it, which made no attempt after all. */
export async function abandonDelivery(db: Sql, id: string, claimed: boolean): Promise<void> {
  await db`
    update event_deliveries set status = 'failed', finished_at = now(), leased_until = null,
      attempts = attempts - ${claimed ? 1 : 0}
    where id = ${id} and status = 'pending'`;
}
