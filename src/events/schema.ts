/** TypeBox schemas of the events group: an event as the feed and the webhook deliveries send it. */
import { Type, type TSchema } from "@sinclair/typebox";
import { Cursor, Limit } from "../core/pagination.ts";
import { Id, Instant, Nullable, Strict } from "../core/schema.ts";

const eventName = Type.String({ minLength: 1, maxLength: 100, pattern: "^[a-z_]+\\.[a-z_]+$" });

/** The envelope of every event; `data` is the resource after the change (see each type in OpenAPI `webhooks`). */
export function eventEnvelope<T extends TSchema>(type: string | null, data: T) {
  return Strict(
    {
      id: Type.String({ description: "The event's id (a ULID); a webhook delivery's `webhook-id`." }),
      type: type === null ? eventName : Type.Literal(type),
      occurredAt: Instant,
      workspaceId: Id,
      subject: Strict({
        kind: Type.String({ description: "What the event is about, e.g. `company`." }),
        id: Type.String({ description: "Its id." }),
      }),
      data,
      requestId: Nullable(Type.String({ description: "The X-Request-Id of the request that made the change." })),
      actor: Strict({
        kind: Type.Union([
          Type.Literal("key"),
          Type.Literal("worker"),
          Type.Literal("cli"),
          Type.Literal("provider"),
          Type.Literal("contractor"),
        ]),
        id: Nullable(
          Type.String({
            description:
              "The API key's id, the worker's or provider's name, the contractor's contact id (a write through the " +
              "link of their works order); null for cli.",
          }),
        ),
      }),
    },
    {
      title:
        type === null ? "Event" : `${type.replace(/(^|[._])([a-z])/g, (_, __, c: string) => c.toUpperCase())}Event`,
    },
  );
}

/** An event as `GET /events` lists it. */
export const Event = eventEnvelope(
  null,
  Type.Object(
    {},
    {
      additionalProperties: true,
      description: "The resource as the API answers it after the change; its schema per type is in OpenAPI `webhooks`.",
    },
  ),
);

const typeNames = Type.String({
  minLength: 1,
  maxLength: 2000,
  description: "Only events of these types: repeat the parameter, or separate types with commas.",
});

/** The query of `GET /events`. */
export const EventsQuery = Strict({
  type: Type.Optional(Type.Union([typeNames, Type.Array(typeNames, { maxItems: 50 })])),
  subjectId: Type.Optional(Type.String({ ...Id, description: "Only events about this subject (`subject.id`)." })),
  limit: Type.Optional(Limit(100, 500)),
  cursor: Type.Optional(Cursor),
});
