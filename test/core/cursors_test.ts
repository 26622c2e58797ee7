/**
 * Cursors (src/core/pagination.ts): a cursor that is not one the service makes, such as a position naming a date that
 * does not exist or a transaction beyond bigint, is 400 `RequestInvalid` at `/query/cursor` on every paged list, over
 * REST and MCP, never a 500 or an empty page; the service's own cursors still lead through every page.
 */
import { describe, expect, test } from "bun:test";
import { ulid } from "ulid";
import { buildApp } from "../../src/app.ts";
import { agenda } from "../../src/calendar/operations.ts";
import { companyCreated } from "../../src/contacts/events.ts";
import type { Operation } from "../../src/core/operation.ts";
import { listEvents as listEventsOf } from "../../src/events/operations.ts";
import { eventTypes } from "../../src/event_types.ts";
import { recordEvent } from "../../src/events/record.ts";
import { smsMessages, smsThreads } from "../../src/telephony/operations.ts";
import { insertEvent } from "../calendar/fixtures.ts";
import { connectHttp, expectSameAsRest, rest, type Handler, type Input } from "../mcp/support.ts";
import { harness, type TestResponse } from "../support/harness.ts";
import { recordingLog } from "../support/recording_log.ts";
import { insertThread } from "../telephony/fixtures.ts";

const listEvents = listEventsOf(eventTypes);
const h = await harness();
const db = h.database.db;
const ws = await h.workspace();
const thread = await insertThread(db, ws.id, { lastMessageAt: "2026-05-01T10:00:00Z" });

const { log, lines } = recordingLog();
const app = buildApp({ ...h.ctx, log }) as unknown as Handler;

/** A cursor as the service spells one: the position's JSON in base64url. */
const cursorOf = (position: unknown) => Buffer.from(JSON.stringify(position), "utf8").toString("base64url");

const lists: [string, Operation, Record<string, string>, Record<string, string>][] = [
  ["the agenda", agenda, {}, { from: "2026-05-01", to: "2026-05-08" }],
  ["the SMS threads", smsThreads, {}, {}],
  ["a thread's SMS messages", smsMessages, { id: thread }, {}],
];

/** Positions the three lists by instant never make: each is refused by all three. */
const badInstants: [string, unknown[]][] = [
  ["a date that does not exist", ["2026-02-30 00:00:00+00", "x"]],
  ["hour 25", ["2026-05-01 25:00:00+00", "x"]],
  ["hour 24", ["2026-05-01 24:00:00+00", "x"]],
  ["second 60", ["2026-05-01 10:00:60+00", "x"]],
  ["year 0", ["0000-01-01 00:00:00+00", "x"]],
  ["a year BC", ["0044-03-15 12:00:00+00 BC", "x"]],
  ["a zone other than UTC", ["2026-05-01 10:00:00+01", "x"]],
  ["seven fractional digits", ["2026-05-01 10:00:00.1234567+00", "x"]],
  ["an id that is not one", ["2026-05-01 10:00:00+00", "no spaces allowed"]],
  ["an id of the wrong type", ["2026-05-01 10:00:00+00", 7]],
  ["a third field", ["2026-05-01 10:00:00+00", "x", "y"]],
];

/** Events feed positions the service never makes. */
const badEventPositions: [string, unknown[]][] = [
  ["a 20-digit position", ["99999999999999999999", "x"]],
  ["a position past bigint", ["9223372036854775808", "x"]],
  ["a position with a leading zero", ["0123", "x"]],
  ["a negative position", ["-1", "x"]],
  ["a position as a number", [123, "x"]],
  ["a null position", [null, "x"]],
];

/** Asks with `cursor` over REST and MCP; expects 400 RequestInvalid at /query/cursor both ways and no fault logged. */
async function expectRefused(op: Operation, params: Record<string, string>, query: Record<string, string>) {
  lines.length = 0;
  const input: Input = { params, query };
  const res = await rest(app, op, input, { key: ws.key });
  expect(res.status).toBe(400);
  expect(res.body._tag).toBe("RequestInvalid");
  expect(res.body.issues.map((i: { path: string }) => i.path)).toEqual(["/query/cursor"]);
  const s = await connectHttp(app, { key: ws.key });
  try {
    await expectSameAsRest(s.client, op, input, res, "legacy");
  } finally {
    await s.close();
  }
  expect(lines.filter((l) => l.level === "error")).toEqual([]);
}

describe("a cursor the service did not make is 400 RequestInvalid", () => {
  for (const [list, op, params, query] of lists) {
    test.each(badInstants)(`on ${list}: %s`, async (_name, position) => {
      await expectRefused(op, params, { ...query, cursor: cursorOf(position) });
    });
  }

  test("on the SMS threads: a null position is one (a thread without messages), a null id is not", async () => {
    const nullPosition = await rest(app, smsThreads, { params: {}, query: { cursor: cursorOf([null, "x"]) } }, ws);
    expect(nullPosition.status).toBe(200);
    await expectRefused(smsThreads, {}, { cursor: cursorOf(["2026-05-01 10:00:00+00", null]) });
  });

  test.each(badEventPositions)("on the events feed: %s", async (_name, position) => {
    await expectRefused(listEvents, {}, { cursor: cursorOf(position) });
  });

  test.each(lists.map(([list, op, params, query]) => [list, op, params, query] as const))(
    "on %s: the JSON of a valid position spelt otherwise than the service spells it",
    async (_list, op, params, query) => {
      const spaced = Buffer.from('[ "2026-05-01 10:00:00+00", "x" ]', "utf8").toString("base64url");
      await expectRefused(op, params, { ...query, cursor: spaced });
    },
  );
});

/** Follows the Link headers from a first page with a key (up to an empty page, for the feed): the ids listed. */
async function follow(key: string, path: string): Promise<string[]> {
  const seen: string[] = [];
  let next: string | null = path;
  while (next) {
    const res: TestResponse = await h.request("GET", next, { key });
    expect(res.status).toBe(200);
    if (res.body.length === 0) break;
    seen.push(...res.body.map((x: { id: string }) => x.id));
    next = /^<http:\/\/localhost([^>]+)>; rel="next"$/.exec(res.headers.get("link") ?? "")?.[1] ?? null;
  }
  return seen;
}

describe("the service's own cursors", () => {
  test("lead through every page of the agenda, at microsecond positions", async () => {
    const own = await h.workspace();
    const ids = [];
    for (const startsAt of ["2026-06-01T09:00:00.123456Z", "2026-06-01T09:00:00.5Z", "2026-06-01T10:00:00Z"]) {
      ids.push(await insertEvent(db, own.id, { startsAt }));
    }
    expect(await follow(own.key, "/calendar/agenda?from=2026-06-01&to=2026-06-02&limit=1")).toEqual(ids);
  });

  test("lead through every page of the threads (with and without messages) and of a thread's messages", async () => {
    const own = await h.workspace();
    const t1 = await insertThread(db, own.id, { id: "t1", lastMessageAt: "2026-05-01T10:00:00.654321Z" });
    const t2 = await insertThread(db, own.id, { id: "t2" });
    const t3 = await insertThread(db, own.id, { id: "t3" });
    expect(await follow(own.key, "/telephony/sms/threads?limit=1")).toEqual([t1, t3, t2]);
    const messages = [];
    for (const createdAt of ["2026-05-01T10:00:00.654321Z", "2026-05-01T09:00:00.1Z", "2026-05-01T08:00:00Z"]) {
      const id = ulid();
      await db`insert into sms_messages (workspace_id, id, thread_id, direction, body, status, created_at)
               values (${own.id}, ${id}, ${t1}, 'inbound', 'Hello', 'received', ${createdAt}::text::timestamptz)`;
      messages.push(id);
    }
    expect(await follow(own.key, `/telephony/sms/threads/${t1}/messages?limit=1`)).toEqual(messages);
  });

  test("lead through every page of the events feed", async () => {
    const own = await h.workspace();
    const ids = [];
    for (const subjectId of ["c1", "c2", "c3"]) {
      const event = {
        workspaceId: own.id,
        subjectId,
        data: { name: subjectId } as never,
        requestId: null,
        actor: { kind: "worker" as const, id: "test" },
      };
      ids.push(await db.begin((tx) => recordEvent(tx, companyCreated, event)));
    }
    expect(await follow(own.key, "/events?limit=1")).toEqual(ids);
  });
});
