/** TypeBox schemas of webhook subscriptions and their deliveries (settings: the CLI shows them, not the API). */
import { Type } from "@sinclair/typebox";
import { Id, Instant, Nullable, Strict } from "../core/schema.ts";

/** A webhook subscription as `webhook list` prints it (never with a secret). */
export const WebhookSubscription = Strict(
  {
    id: Id,
    workspaceId: Id,
    url: Type.String({
      description: "Where deliveries are POSTed: https:// (any scheme only with WEBHOOKS_ALLOW_PRIVATE).",
    }),
    events: Type.Array(Type.String(), { description: "Event types delivered; `*` is every type." }),
    description: Nullable(Type.String()),
    status: Type.Union([Type.Literal("active"), Type.Literal("disabled")]),
    disabledReason: Nullable(Type.String({ description: "`operator`, or `failing` (5 days of failed deliveries)." })),
    failingSince: Nullable(Instant),
    createdAt: Instant,
    updatedAt: Instant,
  },
  { title: "WebhookSubscription" },
);

/** A delivery as `webhook deliveries` prints it, with its last attempt. */
export const WebhookDelivery = Strict(
  {
    id: Id,
    eventId: Id,
    eventType: Type.String(),
    status: Type.Union([Type.Literal("pending"), Type.Literal("delivered"), Type.Literal("failed")]),
    attempts: Type.Integer({ minimum: 0 }),
    nextAttemptAt: Nullable(Instant),
    createdAt: Instant,
    finishedAt: Nullable(Instant),
    lastAttempt: Nullable(
      Strict({
        attempt: Type.Integer({ minimum: 1 }),
        startedAt: Instant,
        responseStatus: Nullable(Type.Integer()),
        durationMs: Type.Integer({ minimum: 0 }),
        error: Nullable(Type.String()),
        responseBody: Nullable(Type.String({ description: "At most the first 1 KiB of the receiver's answer." })),
      }),
    ),
  },
  { title: "WebhookDelivery" },
);
