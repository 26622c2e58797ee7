/**
 * An event's JSON text (the feed's item; a webhook delivery's body, signed as is) put together from its row's parts
 * (`eventParts` in queries.ts): the envelope of `eventEnvelope` (schema.ts), its keys in that order, around the stored
 * `data` as Postgres prints it. Built here rather than by `json_build_object` in Postgres: there the envelope cost
 * Postgres 7–10 µs an event (three calls, each looking up its arguments' output functions, and `iso()`; the
 * dispatcher's read of a batch ~17 µs an event against 7–10 now), here ~0.7 µs of concatenation, and the database is
 * the one part replicas do not scale (bench/README.md, "Sixth pass"). `test/events/event_text_test.ts` holds it to the
 * SQL it replaced.
 */
import { instantOfPgText } from "../core/pg_instant.ts";
import type { EventParts } from "./queries.ts";

const text = (value: string | null) => (value === null ? "null" : JSON.stringify(value));

/** The event's JSON; `eventData` must be present (its JSON text). */
export function eventText(p: EventParts): string {
  if (p.eventData === null) throw new Error(`event ${p.eventId}: its data was not read`);
  return (
    `{"id":${text(p.eventId)},"type":${text(p.eventType)},"occurredAt":${text(instantOfPgText(p.eventOccurredAt))},` +
    `"workspaceId":${text(p.eventWorkspaceId)},"subject":{"kind":${text(p.eventSubjectKind)},` +
    `"id":${text(p.eventSubjectId)}},"data":${p.eventData},"requestId":${text(p.eventRequestId)},` +
    `"actor":{"kind":${text(p.eventActorKind)},"id":${text(p.eventActorId)}}}`
  );
}
