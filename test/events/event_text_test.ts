/**
 * `eventText` (the feed's item, a webhook delivery's body) against the SQL it replaced: Postgres's `json_build_object`
 * over the same row, an independent JSON encoder. Same keys in the same order, same values, for rows with every kind
 * of text (quotes, backslashes, control characters, non-ASCII, U+2028), absent request and actor ids, and instants
 * with and without fractions of a second.
 */
import { describe, expect, test } from "bun:test";
import { eventText } from "../../src/events/event_text.ts";
import { eventParts, type EventParts } from "../../src/events/queries.ts";
import { harness } from "../support/harness.ts";

const h = await harness();
const ws = await h.workspace();
const db = h.database.db;

const texts = [
  "plain",
  'a "quoted" word',
  "back\\slash and /slash",
  "tab\tnewline\ncarriage\rbell\u0007 unit\u001f",
  "£ café 東京 🏠",
  "line\u2028separator\u2029paragraph",
  "",
];

async function insert(id: string, row: Record<string, unknown>) {
  await db`
    insert into events (workspace_id, id, type, occurred_at, subject_kind, subject_id, data, request_id, actor_kind,
      actor_id)
    values (${ws.id}, ${id}, ${row.type as string}, ${row.occurredAt as string}::timestamptz,
      ${row.subjectKind as string}, ${row.subjectId as string}, ${db.json(row.data as never)},
      ${row.requestId as string | null}, ${row.actorKind as string}, ${row.actorId as string | null})`;
}

describe("an event's JSON text", () => {
  test("matches json_build_object's over the same rows, key for key, in order", async () => {
    const instants = [
      "2026-11-28 09:30:00+00",
      "2026-11-28 09:30:00.1+00",
      "2026-11-28 09:30:00.123456+00",
      "2026-03-29 00:59:59.999999+00",
    ];
    const ids: string[] = [];
    for (const [i, text] of texts.entries()) {
      const id = `01KBTEXT${String(i).padStart(18, "0")}`;
      ids.push(id);
      await insert(id, {
        type: i % 2 ? "company.created" : "task.cancelled",
        occurredAt: instants[i % instants.length],
        subjectKind: text || "company",
        subjectId: `${text}-${i}`,
        data: {
          name: text,
          nested: { list: [1, 2.5, -0.125, 1e21, true, null, text], empty: {}, none: [] },
          amount: "1.50",
        },
        requestId: i % 3 ? text : null,
        actorKind: ["key", "worker", "cli", "provider"][i % 4],
        actorId: i % 4 === 2 ? null : text,
      });
    }
    const rows = await db<(EventParts & { oracle: string })[]>`
      select ${eventParts(db)},
        json_build_object(
          'id', e.id, 'type', e.type, 'occurredAt', iso(e.occurred_at), 'workspaceId', e.workspace_id,
          'subject', json_build_object('kind', e.subject_kind, 'id', e.subject_id), 'data', e.data,
          'requestId', e.request_id, 'actor', json_build_object('kind', e.actor_kind, 'id', e.actor_id))::text
          as oracle
      from events e where e.workspace_id = ${ws.id} and e.id = any(${ids}::text[])
      order by e.id`;
    expect(rows.length).toBe(texts.length);
    for (const row of rows) {
      const ours = eventText(row);
      // The same JSON, and the same key order (stringify keeps the order of parsing).
      expect(JSON.stringify(JSON.parse(ours))).toBe(JSON.stringify(JSON.parse(row.oracle)));
    }
  });

  test("parts left unread (eventParts told not to read them) are an error, never a body without data", async () => {
    const [row] = await db<EventParts[]>`
      select ${eventParts(db, db`false`)} from events e where e.workspace_id = ${ws.id} limit 1`;
    expect(row!.eventData).toBeNull();
    expect(() => eventText(row!)).toThrow(/its data was not read/);
  });
});
