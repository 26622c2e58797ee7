/**
 * Stored agenda days (sql/0023): pages over whole London days are served from them, and every answer equals the page
 * computed from the events (agendaPage, the path every other page takes) after any write, however the writes and the
 * reads interleave.
 */
import { describe, expect, test } from "bun:test";
import { ulid } from "ulid";
import { harness } from "../support/harness.ts";
import { throughPgBouncer } from "../support/database.ts";
import { countingClient } from "../support/statements.ts";
import { buildApp } from "../../src/app.ts";
import { authenticate } from "../../src/core/execute.ts";
import { addLondonDays, londonMidnight, londonToday } from "../../src/core/dates.ts";
import { execute } from "../../src/core/execute.ts";
import { agenda } from "../../src/calendar/operations.ts";
import { agendaPage, purgeAgendaDays, readDays, storeDays, storedDaysRange } from "../../src/calendar/queries.ts";
import { agendaShape, dayTextsOf, storedDaysOf } from "../../src/calendar/stored_days.ts";
import { createHash } from "node:crypto";
import { insertEvent } from "./fixtures.ts";

const h = await harness();
const db = h.database.db;

const dayMs = 86_400_000;
const today = londonToday(Date.now());
/** The London date `n` days after today. */
const date = (n: number) => londonToday(addLondonDays(londonMidnight(today), n));
const iso = (t: number) => new Date(t).toISOString();

interface Page {
  status: number;
  text: string;
}

const get = async (key: string, query: string): Promise<Page> => {
  const res = await h.request("GET", `/calendar/agenda${query}`, { key });
  return { status: res.status, text: res.text };
};

/** The page computed from the events, as every page not served from stored days is (the oracle). */
async function computed(workspaceId: string, from: string, to: string, staffId?: string): Promise<string> {
  const page = await agendaPage(db, {
    workspaceId,
    from: new Date(londonMidnight(from)),
    to: new Date(londonMidnight(to)),
    staffId,
    includeCancelled: false,
    take: 501,
  });
  return JSON.stringify(page.events);
}

const storedCount = async (workspaceId: string) =>
  Number((await db`select count(*) from agenda_days where workspace_id = ${workspaceId}`)[0]!.count);

/** A workspace with three members of staff, properties and contacts, and events around today. */
async function seeded(seed: number) {
  const ws = await h.workspace();
  const rows = h.rows(ws);
  const staff = [await rows.user({ name: "Ada Staff" }), await rows.user({ name: "Ben Staff" }), await rows.user()];
  const properties = [await rows.property({ label: "1 Quay Street" }), await rows.property({ label: "2 Mill Lane" })];
  const contacts = [await rows.contact({ name: "Cat Tenant" }), await rows.contact({ name: "Dan Landlord" })];
  let x = seed;
  const random = () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
  const pick = <T>(xs: T[]) => xs[Math.floor(random() * xs.length)]!;
  const base = londonMidnight(date(-3));
  for (let i = 0; i < 120; i++) {
    const start = base + Math.floor(random() * 40 * 96) * 900_000; // on a quarter hour in 40 days
    const long = random() < 0.1; // overnight or longer: running at a later day's 00:00
    await insertEvent(db, ws.id, {
      startsAt: iso(start),
      endsAt: iso(start + (long ? Math.floor(random() * 3 * dayMs) + 3600_000 : 1800_000)),
      status: random() < 0.15 ? "cancelled" : "scheduled",
      staffUserId: random() < 0.9 ? pick(staff) : null,
      propertyId: random() < 0.7 ? pick(properties) : null,
      contactId: random() < 0.5 ? pick(contacts) : null,
      title: `Visit ${i}`,
    });
  }
  return { ws, staff, properties, contacts, random, pick };
}

/** Asks for the page twice (the first stores its days, the second is served from them): both equal the oracle. */
async function expectPage(
  ws: { id: string; key: string },
  from: string,
  to: string,
  staffId?: string,
): Promise<string> {
  const query = `?from=${from}&to=${to}${staffId ? `&staffId=${staffId}` : ""}`;
  const expected = await computed(ws.id, from, to, staffId);
  for (let i = 0; i < 2; i++) {
    const page = await get(ws.key, query);
    expect(page.status).toBe(200);
    expect(page.text).toBe(expected);
  }
  return expected;
}

describe("pages over stored days", () => {
  test("every date window, for everyone and for each member of staff, equals the computed page, first and again", async () => {
    const { ws, staff, random } = await seeded(7);
    for (let i = 0; i < 40; i++) {
      const start = Math.floor(random() * 30) - 5;
      const from = date(start);
      const to = date(start + 1 + Math.floor(random() * 10));
      await expectPage(ws, from, to, i % 4 === 3 ? undefined : staff[i % 3]);
    }
    expect(await storedCount(ws.id)).toBeGreaterThan(0);
  });

  test("the second page is served from the stored days (a stored text changed by hand is what it answers)", async () => {
    const { ws, staff } = await seeded(11);
    const [from, to] = [date(0), date(7)];
    const query = `?from=${from}&to=${to}&staffId=${staff[0]}`;
    const first = await get(ws.key, query);
    expect(first.text).toContain('"title":"Visit ');
    await db`update agenda_days set starting = replace(starting, '"title":"Visit ', '"title":"Stored ')
             where workspace_id = ${ws.id}`;
    const second = await get(ws.key, query);
    expect(second.text).toBe(first.text.replaceAll('"title":"Visit ', '"title":"Stored '));
    // Any write to an event of the workspace (here one out of the window): computed again.
    await db`update calendar_events set notes = 'moved' where workspace_id = ${ws.id}
             and id = (select id from calendar_events where workspace_id = ${ws.id} order by starts_at desc limit 1)`;
    expect((await get(ws.key, query)).text).toBe(await computed(ws.id, from, to, staff[0]));
  });

  test("a page starting on a later day is served from days another page stored (its running events included)", async () => {
    const { ws } = await seeded(13);
    await expectPage(ws, date(0), date(7)); // stores days 0-6, each with the events running at its 00:00
    const stored = await storedCount(ws.id);
    // Marked by hand (no version moves): what the page answers is what the days hold.
    await db`update agenda_days set starting = replace(starting, '"title":"Visit ', '"title":"Stored '),
             running = replace(running, '"title":"Visit ', '"title":"Stored ') where workspace_id = ${ws.id}`;
    const served = (await get(ws.key, `?from=${date(2)}&to=${date(5)}`)).text;
    const expected = await computed(ws.id, date(2), date(5));
    expect(served).toBe(expected.replaceAll('"title":"Visit ', '"title":"Stored '));
    expect(expected).toContain('"title":"Visit ');
    await db`update agenda_days set starting = replace(starting, '"title":"Stored ', '"title":"Visit '),
             running = replace(running, '"title":"Stored ', '"title":"Visit ') where workspace_id = ${ws.id}`;
    await expectPage(ws, date(3), date(9)); // days 7 and 8 missing: computed, stored
    expect(await storedCount(ws.id)).toBe(stored + 2);
  });

  test("a page of more events than its limit is computed, with its Link, never cut short", async () => {
    const { ws } = await seeded(17);
    const [from, to] = [date(0), date(7)];
    const whole = JSON.parse(await expectPage(ws, from, to)) as { id: string }[];
    expect(whole.length).toBeGreaterThan(3);
    const res = await h.request("GET", `/calendar/agenda?from=${from}&to=${to}&limit=3`, { key: ws.key });
    expect(res.body.map((e: { id: string }) => e.id)).toEqual(whole.slice(0, 3).map((e) => e.id));
    expect(res.headers.get("link")).toContain("cursor=");
  });

  test("the default window is served from stored days too", async () => {
    const { ws } = await seeded(19);
    const expected = await computed(ws.id, date(0), date(7));
    expect((await get(ws.key, "")).text).toBe(expected);
    expect((await get(ws.key, "")).text).toBe(expected);
    expect(await storedCount(ws.id)).toBe(7);
  });

  test("events within a millisecond of a day's 00:00 fall on the side Postgres puts them (microseconds)", async () => {
    const ws = await h.workspace();
    const midnight = new Date(londonMidnight(date(3))).toISOString().slice(0, 19);
    const before = `${midnight.slice(0, 10)}T${midnight.slice(11)}`;
    const day = (ms: number) => new Date(Date.parse(`${before}Z`) + ms).toISOString().slice(0, 19);
    // ends 300 µs after 00:00: running then; starts 300 µs before 00:00: on the day before
    await insertEvent(db, ws.id, { startsAt: `${day(-3600_000)}.000000Z`, endsAt: `${day(0)}.000300Z`, title: "A" });
    await insertEvent(db, ws.id, { startsAt: `${day(-1000)}.999700Z`, endsAt: `${day(3600_000)}.000000Z`, title: "B" });
    await insertEvent(db, ws.id, { startsAt: `${day(0)}.000300Z`, endsAt: `${day(3600_000)}.000000Z`, title: "C" });
    const whole = await expectPage(ws, date(2), date(5));
    expect(JSON.parse(whole).map((e: { title: string }) => e.title)).toEqual(["A", "B", "C"]);
    const third = await expectPage(ws, date(3), date(4));
    expect(JSON.parse(third).map((e: { title: string }) => e.title)).toEqual(["A", "B", "C"]);
    const second = await expectPage(ws, date(2), date(3));
    expect(JSON.parse(second).map((e: { title: string }) => e.title)).toEqual(["A", "B"]);
  });

  test("over the clocks' change: a 23-hour day in March", async () => {
    const ws = await h.workspace();
    const march = `${Number(today.slice(0, 4)) + 1}-03`;
    const sunday = [31, 30, 29, 28, 27, 26, 25]
      .map((d) => `${march}-${d}`)
      .find((d) => new Date(`${d}T12:00:00Z`).getUTCDay() === 0)!;
    const midnight = londonMidnight(sunday);
    // The day runs 23 hours: 23:00 after its 00:00 GMT is the next day's 00:00 BST.
    for (const minutes of [-30, 0, 60, 22 * 60 + 30, 23 * 60, 24 * 60]) {
      await insertEvent(db, ws.id, {
        startsAt: iso(midnight + minutes * 60_000),
        endsAt: iso(midnight + minutes * 60_000 + 900_000),
      });
    }
    const next = londonToday(addLondonDays(midnight, 1));
    const expected = await expectPage(ws, sunday, next);
    expect(JSON.parse(expected)).toHaveLength(3);
    expect(await storedCount(ws.id)).toBe(1);
  });
});

describe("every write that changes a page discards its stored days", () => {
  test("inserting, moving, cancelling and deleting events; renaming staff, properties and contacts", async () => {
    const { ws, staff } = await seeded(23);
    const pages: [string, string, string | undefined][] = [
      [date(0), date(7), undefined],
      [date(0), date(7), staff[0]],
      [date(2), date(4), staff[1]],
    ];
    const all = () => Promise.all(pages.map(([f, t, s]) => expectPage(ws, f, t, s)));
    const before = await all();
    // Each write changes one of the pages: the first event of the week, a name shown in it.
    const week = db`workspace_id = ${ws.id} and status <> 'cancelled'
      and starts_at >= ${iso(londonMidnight(date(0)))}::timestamptz and starts_at < ${iso(londonMidnight(date(7)))}::timestamptz`;
    const [shown] =
      await db`select (select id from calendar_events where ${week} order by starts_at, id limit 1) as first,
      (select contact_id from calendar_events where ${week} and contact_id is not null limit 1) as contact,
      (select property_id from calendar_events where ${week} and property_id is not null limit 1) as property`;
    expect([typeof shown!.first, typeof shown!.contact, typeof shown!.property]).toEqual([
      "string",
      "string",
      "string",
    ]);
    const writes = [
      () =>
        insertEvent(db, ws.id, {
          startsAt: iso(londonMidnight(date(2)) + 3600_000),
          staffUserId: staff[1],
          title: "New",
        }),
      () => db`update calendar_events set starts_at = starts_at + interval '1 hour', ends_at = ends_at + interval '1 hour'
               where workspace_id = ${ws.id} and id = ${shown!.first}`,
      () => db`update calendar_events set status = 'cancelled' where workspace_id = ${ws.id} and title = 'New'`,
      () => db`delete from calendar_events where workspace_id = ${ws.id} and id = ${shown!.first}`,
      () => db`update users set name = 'Ada Renamed' where workspace_id = ${ws.id} and id = ${staff[0]!}`,
      () =>
        db`update properties set label = 'Renamed Street' where workspace_id = ${ws.id} and id = ${shown!.property}`,
      () => db`update contacts set name = 'Cat Renamed' where workspace_id = ${ws.id} and id = ${shown!.contact}`,
    ];
    let last = before;
    for (const [i, write] of writes.entries()) {
      await write();
      const now = await all();
      expect({ i, changed: now.some((page, n) => page !== last[n]) }).toEqual({ i, changed: true });
      last = now;
    }
  });

  test("a write that changes no name shown keeps them; another workspace's write keeps them", async () => {
    const { ws, staff } = await seeded(29);
    const other = await seeded(31);
    await expectPage(ws, date(0), date(7), staff[0]);
    const stored = await storedCount(ws.id);
    await db`update users set role = 'admin' where workspace_id = ${ws.id} and id = ${staff[0]!}`;
    await db`update users set name = name where workspace_id = ${ws.id}`;
    await insertEvent(db, other.ws.id, { startsAt: iso(londonMidnight(date(1))) });
    expect(await storedCount(ws.id)).toBe(stored);
    await h.rows(ws).contact({ name: "Someone New" });
    await h.rows(ws).user({ name: "New Staff" });
    expect(await storedCount(ws.id)).toBe(stored);
  });

  test("a truncate of the events discards every workspace's days", async () => {
    const { ws } = await seeded(37);
    await expectPage(ws, date(0), date(7));
    await db`truncate calendar_events`;
    expect(await storedCount(ws.id)).toBe(0);
    expect((await get(ws.key, `?from=${date(0)}&to=${date(7)}`)).text).toBe("[]");
  });

  test("days computed from events read before a write and stored after it are never served", async () => {
    const { ws, staff } = await seeded(41);
    const [from, to] = [date(0), date(7)];
    const window = { from: londonMidnight(from), to: londonMidnight(to) };
    const sd = storedDaysOf({ staffId: staff[0] }, window)!;
    // The read a page makes before its events: nothing stored yet, the version to store with.
    const read = await readDays(db, ws.id, sd);
    expect(read).toMatch(/^V\d+$/);
    const stale = await agendaPage(db, {
      workspaceId: ws.id,
      from: new Date(window.from),
      to: new Date(window.to),
      staffId: staff[0],
      includeCancelled: false,
      take: 501,
    });
    // A write commits, then the page computed before it stores its days.
    await insertEvent(db, ws.id, { startsAt: iso(window.from + 3600_000), staffUserId: staff[0], title: "Late write" });
    const texts = stale.events.map((e) => JSON.stringify(e));
    await storeDays(db, {
      workspaceId: ws.id,
      sd,
      version: Number(read.slice(1)),
      texts: dayTextsOf(sd, texts, stale.startsAt, stale.endsAt),
    });
    expect(await storedCount(ws.id)).toBe(7);
    const page = await get(ws.key, `?from=${from}&to=${to}&staffId=${staff[0]}`);
    expect(page.text).toContain("Late write");
    expect(page.text).toBe(await computed(ws.id, from, to, staff[0]));
  });

  test("writers racing readers: once the writes stop, every page equals the computed one", async () => {
    const { ws: seededWs, staff } = await seeded(43);
    const ws = { ...seededWs, key: await h.key(seededWs, ["calendar:read"], { budgetPerMinute: 1_000_000 }) };
    const pages: [string, string, string | undefined][] = [
      [date(0), date(7), undefined],
      [date(0), date(7), staff[0]],
      [date(1), date(3), staff[2]],
    ];
    let writing = true;
    const writer = (async () => {
      for (let i = 0; i < 40; i++) {
        const at = londonMidnight(date(i % 7)) + (i % 20) * 3600_000;
        if (i % 5 === 4)
          await db`update users set name = ${`Ada ${i}`} where workspace_id = ${ws.id} and id = ${staff[0]!}`;
        else await insertEvent(db, ws.id, { startsAt: iso(at), staffUserId: staff[i % 3], title: `Race ${i}` });
        await Bun.sleep(2);
      }
      writing = false;
    })();
    const reader = async (n: number) => {
      while (writing) {
        const [f, t, s] = pages[n % pages.length]!;
        const page = await get(ws.key, `?from=${f}&to=${t}${s ? `&staffId=${s}` : ""}`);
        expect(page.status).toBe(200);
        n += 1;
      }
    };
    await Promise.all([writer, reader(0), reader(1), reader(2), reader(3)]);
    for (const [f, t, s] of pages) await expectPage(ws, f, t, s);
  });
});

describe("bounds", () => {
  test("an unknown member of staff, or days out of range, store nothing; the page is still right", async () => {
    const { ws } = await seeded(47);
    await expectPage(ws, date(0), date(7), "nobody");
    const far = storedDaysRange.after + 10;
    await insertEvent(db, ws.id, { startsAt: iso(londonMidnight(date(far)) + 3600_000) });
    await expectPage(ws, date(far), date(far + 2));
    const past = -storedDaysRange.before - 10;
    await expectPage(ws, date(past), date(past + 2));
    expect(await storedCount(ws.id)).toBe(0);
  });

  test("windows with other filters take the computed path and store nothing", async () => {
    const { ws, properties } = await seeded(53);
    for (const query of [
      `?from=${date(0)}&to=${date(7)}&propertyId=${properties[0]}`,
      `?from=${date(0)}&to=${date(7)}&kind=viewing`,
      `?from=${date(0)}&to=${date(7)}&includeCancelled=true`,
    ]) {
      expect((await get(ws.key, query)).status).toBe(200);
    }
    expect(await storedCount(ws.id)).toBe(0);
  });

  test("the daily purge forgets days out of range and keeps the others", async () => {
    const ws = await h.workspace();
    await db`insert into agenda_days (workspace_id, staff, day, version, shape, starting, starting_count, running,
                                      running_count)
             values (${ws.id}, '', london_today() - ${storedDaysRange.before + 1}::int, 0, 1, '', 0, '', 0),
                    (${ws.id}, '', london_today(), 0, 1, '', 0, '', 0),
                    (${ws.id}, '', london_today() + ${storedDaysRange.after + 1}::int, 0, 1, '', 0, '', 0)`;
    expect(await purgeAgendaDays(db)).toBeGreaterThanOrEqual(2);
    expect(await storedCount(ws.id)).toBe(1);
  });
});

describe("without the key-check read (MCP)", () => {
  test("run reads the stored days itself, and serves the same bytes", async () => {
    const { ws, staff } = await seeded(59);
    const expected = await expectPage(ws, date(0), date(7), staff[1]);
    const lookup = await authenticate(db, ws.key);
    const outcome = await execute(h.ctx, agenda, {
      apiKey: ws.key,
      tenantHeader: null,
      params: {},
      query: { from: date(0), to: date(7), staffId: staff[1] },
      body: { kind: "none" },
      requestId: ulid(),
      url: new URL("http://localhost/calendar/agenda"),
      lookup,
    });
    expect(outcome.status).toBe(200);
    expect(outcome.bodyText).toBe(expected);
  });
});

/** The digest of the page the service makes of the fixed events below, per agendaShape. */
const digests: Record<number, string> = {
  1: "9c7d79b0f12d6fdd5c52a2e8da6d75afe7e61e2db853916c03e69740d81007d5",
};

describe("the shape of stored days", () => {
  test("the page made of fixed events is the one recorded for agendaShape (a change to it raises agendaShape)", async () => {
    const ws = await h.workspace();
    const rows = h.rows(ws);
    await rows.user({ id: "u-1", name: "Ada Staff" });
    await rows.property({ id: "p-1", label: "1 Quay Street" });
    await rows.contact({ id: "c-1", name: "Cat Tenant" });
    await db`
      insert into calendar_events (workspace_id, id, title, kind, subject_kind, subject_id, starts_at, ends_at, location,
        status, created_by_user_id, property_id, staff_user_id, contact_id, notes, revision, outcome, outcome_note,
        outcome_recorded_at, feedback, follow_up_task_id, cancel_reason, cancelled_at, created_at, updated_at)
      values
        (${ws.id}, 'e-1', 'Viewing', 'viewing', 'property', 'p-1', '2030-01-07 09:00:00.123456+00', '2030-01-07 10:00+00',
         'On site', 'completed', 'u-1', 'p-1', 'u-1', 'c-1', 'Bring keys', 3, 'attended', 'Went well',
         '2030-01-07 10:05+00', ${db.json({ interest: "high", themes: ["light"], nextAction: "offer", note: "n" })},
         't-1', null, null, '2029-12-01 08:00+00', '2030-01-07 10:05+00'),
        (${ws.id}, 'e-2', 'Inspection', 'inspection', null, null, '2030-01-06 23:00+00', '2030-01-08 01:00+00',
         null, 'scheduled', null, null, 'u-1', null, null, 1, null, null, null, null, null, null, null,
         '2029-12-01 08:00+00', '2029-12-01 08:00+00')`;
    const page = await agendaPage(db, {
      workspaceId: ws.id,
      from: new Date("2030-01-07T00:00:00Z"),
      to: new Date("2030-01-08T00:00:00Z"),
      includeCancelled: false,
      take: 10,
    });
    expect(page.events.map((e) => e.id)).toEqual(["e-2", "e-1"]);
    const digest = createHash("sha256").update(JSON.stringify(page.events)).digest("hex");
    expect({ agendaShape, digest }).toEqual({ agendaShape, digest: digests[agendaShape]! });
  });

  test("days of another shape are not served: the page is computed and stored over them", async () => {
    const { ws, staff } = await seeded(61);
    const query = `?from=${date(0)}&to=${date(7)}&staffId=${staff[0]}`;
    const expected = await expectPage(ws, date(0), date(7), staff[0]);
    await db`update agenda_days set shape = ${agendaShape + 1},
             starting = replace(starting, '"title":"Visit ', '"title":"Other ') where workspace_id = ${ws.id}`;
    expect((await get(ws.key, query)).text).toBe(expected);
    const shapes = await db`select distinct shape from agenda_days where workspace_id = ${ws.id}`;
    expect(shapes.map((r) => r.shape)).toEqual([agendaShape]);
  });
});

// Behind a transaction pooler no statement is prepared (README, "Several replicas"): no cached plan to look at.
describe.skipIf(throughPgBouncer)("the key check's statement with the stored days' read", () => {
  test("pages served from stored days run one cached generic plan, which reads agenda_days by its key, never a scan", async () => {
    const { ws, staff } = await seeded(67);
    const { db: one } = await countingClient(h.database.url);
    const app = buildApp({ ...h.ctx, db: one });
    try {
      const page = async (d: number, s: string) => {
        const url = `http://localhost/calendar/agenda?from=${date(d)}&to=${date(d + 7)}&staffId=${s}`;
        const res = await app.handle(new Request(url, { headers: { "x-api-key": ws.key } }));
        expect(res.status).toBe(200);
      };
      const seqScans = async () => {
        await one`select pg_stat_force_next_flush()`;
        await one`select pg_stat_clear_snapshot()`;
        const [row] = await one`select seq_scan::int from pg_stat_user_tables where relname = 'agenda_days'`;
        return row!.seqScan as number;
      };
      for (let i = 0; i < 12; i++) await page(7 * (i % 4), staff[i % 3]!); // computed and stored, then served
      // Analysed, as autovacuum does once a table has grown: a plan cached while agenda_days was near empty may scan
      // it (bun run bench measured one reading every stored day at every page); ANALYZE makes Postgres plan again.
      await db`analyze agenda_days`;
      const before = await seqScans();
      for (let i = 0; i < 12; i++) await page(7 * (i % 4), staff[i % 3]!); // served from stored days
      expect(await seqScans()).toBe(before);
      const plans = (await one`
        select generic_plans::int, custom_plans::int from pg_prepared_statements
        where statement like '%from agenda_days d%' and statement not like '%pg_prepared_statements%'
        order by generic_plans + custom_plans desc limit 1`) as unknown as {
        genericPlans: number;
        customPlans: number;
      }[];
      // The read-only key check (the other statement takes a lease now and then), planned again after the analyse.
      expect(plans[0]!.customPlans).toBeLessThanOrEqual(10);
      expect(plans[0]!.genericPlans).toBeGreaterThanOrEqual(8);
    } finally {
      await one.end();
    }
  });
});
