/** The OpenAPI `webhooks` section: one entry per declared event type, the POST a subscription receives. */
import { jsonSchema } from "../core/openapi.ts";
import type { EventType } from "./event_type.ts";
import { eventEnvelope } from "./schema.ts";

const header = (name: string, description: string) => ({
  name,
  in: "header",
  required: true,
  description,
  schema: { type: "string" },
});

/** The `webhooks` map of the OpenAPI document for these event types. */
export function webhooksDocument(types: readonly EventType[]): Record<string, Record<string, unknown>> {
  return Object.fromEntries(
    types.map((type) => [
      type.name,
      {
        post: {
          operationId: `webhook.${type.name}`,
          summary: `The event \`${type.name}\`.`,
          description: [
            type.description,
            "",
            "Sent to each active subscription whose event list names this type (or `*`), as one POST per event and " +
              "subscription, signed per Standard Webhooks. A 2xx answer within 10 seconds delivers it; anything " +
              "else is retried with the same `webhook-id` after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h, then " +
              "the delivery is marked failed. At least once: a receiver may see an event twice (deduplicate on " +
              "`webhook-id`). Order is not promised: use `GET /events` for commit order.",
          ].join("\n"),
          tags: ["events"],
          security: [],
          parameters: [
            header("webhook-id", "The event's id: the same on every retry of this event to this subscription."),
            header("webhook-timestamp", "Seconds since 1970-01-01T00:00:00Z when this attempt was signed."),
            header(
              "webhook-signature",
              'Space-separated `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, one ' +
                "for each active secret of the subscription (two for 24 hours after a rotation).",
            ),
          ],
          requestBody: {
            required: true,
            content: { "application/json": { schema: jsonSchema(eventEnvelope(type.name, type.data)) } },
          },
          responses: {
            "2XX": { description: "Delivered." },
            default: { description: "Not delivered: retried on the schedule above." },
          },
        },
      },
    ]),
  );
}
