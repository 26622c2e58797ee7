/** The events group's operations: the commit-order feed. */
import { Type } from "@sinclair/typebox";
import { RequestInvalid } from "../core/errors.ts";
import { operation, Reply } from "../core/operation.ts";
import { cursorFields, decodeCursor, encodeCursor } from "../core/pagination.ts";
import { eventsPage } from "./queries.ts";
import type { EventType } from "./event_type.ts";
import { Event, EventsQuery } from "./schema.ts";

/** The `type` filter as a list: repeated parameters and comma lists, each name one of `known`. */
function typesOf(known: ReadonlySet<string>, type: string | string[] | undefined): string[] | undefined {
  if (type === undefined) return undefined;
  const names = [type]
    .flat()
    .flatMap((t) => t.split(","))
    .map((t) => t.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !known.has(n));
  if (!names.length || unknown.length) {
    throw new RequestInvalid({
      message: names.length ? `Unknown event type: ${unknown.join(", ")}.` : "Name at least one event type.",
      issues: [{ path: "/query/type", message: `Event types are: ${[...known].join(", ")}` }],
    });
  }
  return [...new Set(names)];
}

/** The workspace's events in commit order, of the declared `eventTypes` (src/event_types.ts). */
export const listEvents = (eventTypes: readonly EventType[]) => {
  const known = new Set(eventTypes.map((t) => t.name));
  return operation({
    id: "events.list",
    group: "events",
    method: "GET",
    path: "/events",
    summary: "The workspace's events, in commit order.",
    description: [
      "Lists what changed in the workspace, oldest first: every write records an event in the same transaction as",
      "the change, so an event exists exactly when its change committed. `data` is the resource as the API answered",
      "after the change (its schema per type is in this document's `webhooks` section); an idempotent replay, or a",
      "write that changed nothing, records nothing.",
      "",
      "- Order: commit order (transactions in the order their changes became final, events of one transaction",
      "  together in the order written), not the order of the ids: an id is minted before its transaction commits.",
      "- Filters: `type` (repeat it, or separate types with commas; an unknown type is 400 `RequestInvalid`),",
      "  `subjectId`. Unknown query parameters are refused (400).",
      '- Pages: `limit` (default 100, at most 500). Every answer carries `Link: <…>; rel="next"`: the URL to ask',
      "  for the events after this page. An empty page means you are up to date; keep its link and ask again later.",
      "  A consumer that stores the last link it processed and follows it gets every later event exactly once, in",
      "  commit order, even while writers commit concurrently and out of id order: an event is listed only once",
      "  every transaction that started before its own has ended, so no event can later appear behind a position",
      "  already handed out. A long-running transaction delays the feed (never loses an event) until it ends.",
      "- Events are kept 30 days (`EVENTS_RETENTION_DAYS`), then deleted by a daily job.",
      "- For pushes instead of polling, an operator subscribes a URL to event types (`bun run cli webhook create`);",
      "  deliveries are signed per Standard Webhooks (see the README).",
    ].join("\n"),
    query: EventsQuery,
    response: Type.Array(Event, { title: "Events" }),
    responseHeaders: {
      Link: {
        description:
          'Always present: `<absolute URL>; rel="next"`, the request\'s query with a `cursor` after the last event ' +
          "listed (or the same cursor when the page is empty), on `PUBLIC_BASE_URL` when the operator set it (else " +
          "on the address the request was sent to). Follow it as it is.",
      },
    },
    run: async ({ db, principal, query, url }) => {
      const types = typesOf(known, query.type);
      // The last event listed: its transaction id and its id.
      const after =
        query.cursor === undefined ? undefined : decodeCursor(query.cursor, [cursorFields.txId, cursorFields.id]);
      const limit = query.limit ?? 100;
      const rows = await eventsPage(db, {
        workspaceId: principal.workspaceId,
        after: after ? { tx: after[0]!, id: after[1]! } : undefined,
        types,
        subjectId: query.subjectId,
        take: limit,
      });
      const events = rows.map((r) => r.event);
      const last = rows[rows.length - 1];
      const next = new URL(url.toString());
      if (last) next.searchParams.set("cursor", encodeCursor([last.cursorTx, last.event.id]));
      return new Reply(events, undefined, { link: `<${next.toString()}>; rel="next"` });
    },
  });
};

/** Every operation of the group, for the declared `eventTypes`. */
export const operations = (eventTypes: readonly EventType[]) => [listEvents(eventTypes)];
