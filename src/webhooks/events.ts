/** The event types webhook deliveries record. */
import { eventType } from "../events/event_type.ts";
import { WebhookSubscription } from "./schema.ts";

/** A subscription was disabled after 5 days of failed deliveries. */
export const webhookDisabled = eventType({
  name: "webhook.disabled",
  subjectKind: "webhook_subscription",
  data: WebhookSubscription,
  description:
    "A webhook subscription was disabled because every delivery to it failed for 5 days (actor `worker`). `data` " +
    "is the subscription, without its secret. An operator enables it again with `bun run cli webhook enable`.",
});
