/** Webhook subscriptions: workspace settings the operator manages with the CLI (README, Events and webhooks). */
import { ulid } from "ulid";
import type { Db } from "../core/db.ts";
import { workspaceIdOf } from "../core/workspaces.ts";
import { eventTypes } from "../event_types.ts";
import { checkWebhookUrl, type Lookup } from "./address.ts";
import { WebhookEventsUnknown, WebhookNotFound } from "./errors.ts";
import {
  deliveriesOf,
  insertSubscription,
  rotateSecret,
  setSubscriptionStatus,
  subscriptionsOf,
  type SubscriptionView,
} from "./queries.ts";
import { newSecret } from "./signature.ts";

/** The event types a subscription names: a comma list of declared types, or `*` for every type. */
export function parseEventList(list: string): string[] {
  const names = [...new Set(list.split(",").map((t) => t.trim()))].filter(Boolean);
  const known = eventTypes.map((t) => t.name);
  if (names.length === 1 && names[0] === "*") return ["*"];
  const unknown = names.filter((n) => !known.includes(n));
  if (!names.length || unknown.length)
    throw new WebhookEventsUnknown({ unknown: names.length ? unknown : [list], known });
  return names;
}

/** Creates a subscription; the answer carries its signing secret, shown this once. */
export async function createSubscription(
  db: Db,
  input: { workspace: string; url: string; events: string; description?: string },
  options: { allowPrivate: boolean; lookup?: Lookup },
): Promise<SubscriptionView & { secret: string }> {
  const events = parseEventList(input.events);
  await checkWebhookUrl(input.url, options);
  const workspaceId = await workspaceIdOf(db, input.workspace);
  const secret = newSecret();
  const subscription = await db.begin((tx) =>
    insertSubscription(
      tx,
      { id: ulid(), workspaceId, url: input.url, events, description: input.description?.trim() || null },
      { id: ulid(), secret },
    ),
  );
  return { ...subscription, secret };
}

/** The workspace's subscriptions (never their secrets). */
export async function listSubscriptions(db: Db, workspace: string): Promise<{ subscriptions: SubscriptionView[] }> {
  return { subscriptions: await subscriptionsOf(db, await workspaceIdOf(db, workspace)) };
}

/** Disables (the operator's choice) or enables a subscription; enabling clears its failure clock. */
export async function setSubscriptionActive(db: Db, id: string, active: boolean): Promise<SubscriptionView> {
  const subscription = await setSubscriptionStatus(db, id, active ? "active" : "disabled", active ? null : "operator");
  if (!subscription) throw new WebhookNotFound({ id });
  return subscription;
}

/** A new signing secret; the previous ones keep signing for 24 hours. */
export async function rotateSubscriptionSecret(
  db: Db,
  id: string,
): Promise<{ id: string; secret: string; previousSecretsExpireAt: string }> {
  const secret = newSecret();
  const rotated = await db.begin((tx) => rotateSecret(tx, id, { id: ulid(), secret }));
  if (!rotated) throw new WebhookNotFound({ id });
  return { id, secret, ...rotated };
}

/** A subscription's recent deliveries, newest first, with their last attempt. */
export async function subscriptionDeliveries(db: Db, id: string, failed: boolean) {
  const [found] = await db<{ workspaceId: string }[]>`select workspace_id from webhook_subscriptions where id = ${id}`;
  if (!found) throw new WebhookNotFound({ id });
  return { deliveries: await deliveriesOf(db, { workspaceId: found.workspaceId, id }, failed) };
}
