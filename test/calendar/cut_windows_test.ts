/**
 * Agenda windows that are not whole London days (UTC midnights in summer, windows starting or ending mid-day) are cut
 * from the stored days they touch: every answer equals the page computed from the events (agendaPage, the path every
 * other page takes), byte for byte, first and again.
 */
import { describe, expect, test } from "bun:test";
import { harness, type TestResponse, type TestWorkspace } from "../support/harness.ts";
import { addLondonDays, londonMidnight, londonToday } from "../../src/core/dates.ts";
import { agendaPage } from "../../src/calendar/queries.ts";
import { agenda } from "../../src/calendar/operations.ts";
import { authenticate, execute } from "../../src/core/execute.ts";
import { ulid } from "ulid";
import { insertEvent } from "./fixtures.ts";

const h = await harness();
const db = h.database.db;

const hour = 3600_000;
const iso = (t: number) => new Date(t).toISOString();
/** An instant `ms` plus `micro` microseconds, as text (a JS Date would drop the microseconds). */
const us = (ms: number, micro: number) => `${iso(ms).slice(0, 23)}${String(micro).padStart(3, "0")}Z`;
const today = londonToday(Date.now());
/** 00:00 in London `n` days after today. */
const midnight = (n: number) => addLondonDays(londonMidnight(today), n);

/** The page computed from the events: the oracle. */
async function computed(
  workspaceId: string,
  window: { from: number; to: number; staffId?: string; after?: { at: string; id: string } },
  take = 501,
) {
  const page = await agendaPage(db, {
    workspaceId,
    from: new Date(window.from),
    to: new Date(window.to),
    staffId: window.staffId,
    after: window.after,
    includeCancelled: false,
    take,
  });
  return page;
}

const get = async (key: string, query: string) => {
  const res = await h.request("GET", `/calendar/agenda${query}`, { key });
  return { status: res.status, text: res.text, link: res.headers.get("link") };
};

const queryOf = (from: number, to: number, staffId?: string) =>
  `?from=${iso(from)}&to=${iso(to)}${staffId ? `&staffId=${staffId}` : ""}`;

const storedCount = async (workspaceId: string) =>
  Number((await db`select count(*) from agenda_days where workspace_id = ${workspaceId}`)[0]!.count);

/** Titles in the stored days marked by hand (no version moves): what a page cut from them answers shows the mark. */
const mark = (workspaceId: string, from: string, to: string) =>
  db`update agenda_days set starting = replace(starting, ${from}, ${to}), running = replace(running, ${from}, ${to})
     where workspace_id = ${workspaceId}`;

/**
 * Asks for a window twice (the first computes it and stores its days whole, the second is cut from them): both equal
 * the oracle; then, with the stored titles marked, the answer is the oracle's with the same marks (served from them).
 */
async function expectWindow(ws: TestWorkspace, from: number, to: number, staffId?: string): Promise<string> {
  const expected = JSON.stringify((await computed(ws.id, { from, to, staffId })).events);
  for (let i = 0; i < 2; i++) {
    const page = await get(ws.key, queryOf(from, to, staffId));
    expect(page.status).toBe(200);
    expect(page.text).toBe(expected);
    expect(page.link).toBeNull();
  }
  await mark(ws.id, '"title":"', '"title":"Stored ');
  try {
    expect((await get(ws.key, queryOf(from, to, staffId))).text).toBe(
      expected.replaceAll('"title":"', '"title":"Stored '),
    );
  } finally {
    await mark(ws.id, '"title":"Stored ', '"title":"');
  }
  return expected;
}

/** A workspace with three members of staff and 150 events around today, some long, some cancelled, some off the ms. */
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
  const base = midnight(-3);
  for (let i = 0; i < 150; i++) {
    const start = base + Math.floor(random() * 30 * 96) * 900_000; // on a quarter hour in 30 days
    const long = random() < 0.15; // overnight or longer: across a day's 00:00 and a window's bounds
    const end = start + (long ? Math.floor(random() * 3 * 86_400_000) + hour : 1800_000);
    await insertEvent(db, ws.id, {
      startsAt: random() < 0.2 ? us(start, Math.floor(random() * 999) + 1) : iso(start),
      endsAt: random() < 0.2 ? us(end, Math.floor(random() * 999) + 1) : iso(end),
      status: random() < 0.15 ? "cancelled" : "scheduled",
      staffUserId: random() < 0.9 ? pick(staff) : null,
      propertyId: random() < 0.7 ? pick(properties) : null,
      contactId: random() < 0.5 ? pick(contacts) : null,
      title: `Visit ${i}`,
    });
  }
  return { ws, staff, random };
}

/**
 * The last Sunday of `month` (03 or 10) between `lo` and `hi` days after today, `YYYY-MM-DD`: windows around it stay
 * within the days that are stored (92 before today to 366 after). Any 371 days hold one.
 */
function clockChange(month: "03" | "10", lo: number, hi: number): string {
  const year = Number(today.slice(0, 4));
  for (const y of [year - 1, year, year + 1]) {
    const sunday = [31, 30, 29, 28, 27, 26, 25]
      .map((d) => `${y}-${month}-${d}`)
      .find((d) => new Date(`${d}T12:00:00Z`).getUTCDay() === 0)!;
    if (londonMidnight(sunday) >= midnight(lo) && londonMidnight(sunday) <= midnight(hi)) return sunday;
  }
  throw new Error("unreachable");
}

describe("windows cut from stored days", () => {
  test("windows starting and ending at any instant, for everyone and each member of staff, equal the computed page", async () => {
    const { ws, staff, random } = await seeded(7);
    for (let i = 0; i < 24; i++) {
      const day = Math.floor(random() * 20) - 2;
      const from =
        i % 3 === 0
          ? midnight(day) + Math.floor(random() * 96) * 900_000 // a quarter hour
          : midnight(day) + Math.floor(random() * 86_400_000); // any millisecond
      const to = from + hour + Math.floor(random() * 8 * 86_400_000);
      await expectWindow(ws, from, to, i % 4 === 3 ? undefined : staff[i % 3]);
    }
    expect(await storedCount(ws.id)).toBeGreaterThan(0);
  });

  test("UTC midnights in summer and in winter, and weeks across both clock changes", async () => {
    const ws = await h.workspace();
    const staff = await h.rows(ws).user({ name: "Ada Staff" });
    const spring = clockChange("03", -80, 340);
    const autumn = clockChange("10", -80, 340);
    const january = clockChange("03", -25, 350); // its January is within the stored days
    const utc = (date: string, days: number) => Date.parse(`${date}T00:00:00Z`) + days * 86_400_000;
    const windows: [number, number][] = [
      [utc(spring, -3), utc(spring, 4)], // from 00:00 GMT (a London 00:00) to 01:00 BST: the last day cut
      [utc(spring, 8), utc(spring, 15)], // summer: 01:00 BST to 01:00 BST, both days cut
      [utc(autumn, -3), utc(autumn, 4)], // from 01:00 BST to 00:00 GMT: the first day cut
      [utc(january, -60), utc(january, -53)], // winter: UTC midnights are London's
    ];
    // Around each bound: events ending at it, just after and just before it, starting at it and within a
    // millisecond of it, running across it, and cancelled ones.
    for (const [from, to] of windows) {
      for (const at of [from, to]) {
        for (const [start, end, status] of [
          [iso(at - hour), iso(at), "scheduled"],
          [iso(at - hour), us(at, 300), "scheduled"],
          [iso(at - hour), us(at - 1, 700), "scheduled"],
          [us(at - 1, 700), iso(at + hour), "scheduled"],
          [iso(at), iso(at + hour), "scheduled"],
          [us(at, 300), iso(at + hour), "scheduled"],
          [iso(at - 2 * hour), iso(at + 2 * hour), "cancelled"],
          [iso(at - 30 * hour), iso(at + 30 * hour), "scheduled"],
          [iso(at - 90 * 60_000), iso(at - 30 * 60_000), "scheduled"],
        ] as const) {
          await insertEvent(db, ws.id, { startsAt: start, endsAt: end, status, staffUserId: staff });
          await insertEvent(db, ws.id, { startsAt: start, endsAt: end, status, staffUserId: null });
        }
      }
    }
    for (const [from, to] of windows) {
      const page = JSON.parse(await expectWindow(ws, from, to, staff)) as unknown[];
      expect(page.length).toBeGreaterThan(8);
      await expectWindow(ws, from, to);
    }
  });

  test("events within a millisecond of a cut fall on the side Postgres puts them (microseconds)", async () => {
    const ws = await h.workspace();
    const day = midnight(3);
    const [from, to] = [day + 9 * hour, day + 17 * hour];
    const events: [string, string, string][] = [
      ["runsInto", iso(day - hour), us(from, 300)], // running at the day's 00:00, ends 300 µs after from: listed
      ["endsAtFromRunning", iso(day - hour), iso(from)], // running at the day's 00:00, ends at from: not listed
      ["endsAtFrom", iso(from - hour), iso(from)], // not listed
      ["endsJustAfter", iso(from - hour), us(from, 1)], // listed
      ["endsJustBefore", iso(from - hour), us(from - 1, 999)], // not listed
      ["startsJustBefore", us(from - 1, 700), iso(from + hour)], // listed (running at from)
      ["startsAtFrom", iso(from), iso(from + hour)], // listed
      ["startsJustBeforeTo", us(to - 1, 700), iso(to + hour)], // listed
      ["startsAtTo", iso(to), iso(to + hour)], // not listed
      ["startsJustAfterTo", us(to, 300), iso(to + hour)], // not listed
    ];
    for (const [title, startsAt, endsAt] of events) await insertEvent(db, ws.id, { title, startsAt, endsAt });
    const page = JSON.parse(await expectWindow(ws, from, to)) as { title: string }[];
    expect(page.map((e) => e.title)).toEqual([
      "runsInto",
      "endsJustAfter",
      "startsJustBefore",
      "startsAtFrom",
      "startsJustBeforeTo",
    ]);
    // The same day stored, a window within it: cut at both ends from one day.
    const inner = JSON.parse(await expectWindow(ws, from + 1, to - 1)) as { title: string }[];
    expect(inner.map((e) => e.title)).toEqual(["startsJustBefore", "startsAtFrom"]);
  });

  test("awkward texts and feedback holding what looks like an event's start are cut as values, never split", async () => {
    const ws = await h.workspace();
    const staff = await h.rows(ws).user({ name: 'Jo "JJ" \\ Smith, },{"id":"x' });
    const titles = [
      '},{"id":"fake","title":"x","startsAt":"2000-01-01T00:00:00.000Z"',
      "ends in a backslash \\",
      'quote \\" and brace { [ , ] }',
      "tab\tand\u001fseparator\u0001, line\nbreak",
      '"startsAt":null',
      "Zoë 李 🏠",
    ];
    const feedbacks = [
      { interest: "keen", themes: ['},{"id":"evil","startsAt":"1999-01-01T00:00:00.000Z"}', "a,b", "]"], note: "}" },
      { themes: ['{"id":"', "[{"], nextAction: ",{", extra: { id: "deeper" } },
      null,
    ];
    const day = midnight(5);
    const [from, to] = [day + 10 * hour, addLondonDays(day, 2) + 10 * hour];
    let n = 0;
    for (const at of [day - 2 * hour, day + 2 * hour, from - hour, from, addLondonDays(day, 2) + 9 * hour, to]) {
      for (const [i, title] of titles.entries()) {
        await insertEvent(db, ws.id, {
          title,
          startsAt: iso(at + i * 60_000),
          endsAt: iso(at + (i % 2 ? 3 * hour : 30 * 60_000)),
          staffUserId: n % 3 ? staff : null,
          feedback: feedbacks[n % feedbacks.length],
        });
        n += 1;
      }
    }
    const page = JSON.parse(await expectWindow(ws, from, to)) as { title: string }[];
    expect(page.length).toBeGreaterThan(titles.length);
    expect(new Set(page.map((e) => e.title))).toEqual(new Set(titles));
    await expectWindow(ws, from, to, staff);
  });

  test("a write after the days were stored is seen by the next cut window (the running ids read with them)", async () => {
    const { ws, staff } = await seeded(11);
    const [from, to] = [midnight(2) + 10 * hour, midnight(6) + 10 * hour];
    await expectWindow(ws, from, to, staff[0]);
    await insertEvent(db, ws.id, {
      title: "Late write",
      startsAt: iso(from - hour),
      endsAt: us(from, 5),
      staffUserId: staff[0],
    });
    const page = await get(ws.key, queryOf(from, to, staff[0]));
    expect(page.text).toContain("Late write");
    expect(page.text).toBe(JSON.stringify((await computed(ws.id, { from, to, staffId: staff[0] })).events));
    await expectWindow(ws, from, to, staff[0]);
  });

  test("cancelled events are left out; with includeCancelled=true the page is computed, and equals the oracle", async () => {
    const { ws } = await seeded(13);
    const [from, to] = [midnight(1) + 7 * hour, midnight(8) + 7 * hour];
    const served = await expectWindow(ws, from, to);
    expect(served).not.toContain('"status":"cancelled"');
    const all = await agendaPage(db, {
      workspaceId: ws.id,
      from: new Date(from),
      to: new Date(to),
      includeCancelled: true,
      take: 501,
    });
    expect(all.events.some((e) => e.status === "cancelled")).toBe(true);
    const page = await get(ws.key, `${queryOf(from, to)}&includeCancelled=true`);
    expect(page.text).toBe(JSON.stringify(all.events));
  });

  test("pages followed through their links across the cut equal the computed pages, every event once", async () => {
    const { ws, staff } = await seeded(17);
    for (const staffId of [staff[2], undefined]) {
      const [from, to] = [midnight(0) + 13 * hour + 1, midnight(5) + 11 * hour];
      const whole = JSON.parse(await expectWindow(ws, from, to, staffId)) as { id: string }[];
      expect(whole.length).toBeGreaterThan(8);
      let path: string | null = `/calendar/agenda${queryOf(from, to, staffId)}&limit=4`;
      let after: { at: string; id: string } | undefined;
      const seen: string[] = [];
      while (path) {
        const res: TestResponse = await h.request("GET", path, { key: ws.key });
        const expected = await computed(ws.id, { from, to, staffId, after }, 5);
        const more = expected.events.length > 4;
        expect(res.text).toBe(JSON.stringify(expected.events.slice(0, 4)));
        expect(res.headers.get("link") !== null).toBe(more);
        seen.push(...(res.body as { id: string }[]).map((e) => e.id));
        after = { at: expected.startsAt[3]!, id: expected.events[3]?.id ?? "" };
        const link: string | null = res.headers.get("link");
        const next: URL | undefined = link ? new URL(/^<([^>]+)>/.exec(link)![1]!) : undefined;
        path = next ? `${next.pathname}${next.search}` : null;
      }
      expect(seen).toEqual(whole.map((e) => e.id));
    }
  });

  test("the limit's edge: 200 events in a cut window are one page from stored days; 201 are computed with a Link", async () => {
    const ws = await h.workspace();
    const staff = await h.rows(ws).user({ name: "Ada Staff" });
    const day = midnight(4);
    const [from, to] = [day + 6 * hour, addLondonDays(day, 3) + 20 * hour];
    // 200 in the window; 30 on its first and last days outside it (so its days hold 230: stored all the same).
    for (let i = 0; i < 200; i++)
      await insertEvent(db, ws.id, { title: `In ${i}`, startsAt: iso(from + i * 15 * 60_000), staffUserId: staff });
    for (let i = 0; i < 15; i++) {
      await insertEvent(db, ws.id, { title: `Before ${i}`, startsAt: iso(day + i * 60_000), staffUserId: staff });
      await insertEvent(db, ws.id, { title: `After ${i}`, startsAt: iso(to + i * 60_000), staffUserId: staff });
    }
    const page = JSON.parse(await expectWindow(ws, from, to, staff)) as unknown[];
    expect(page).toHaveLength(200);
    expect(await storedCount(ws.id)).toBe(4);
    // One page short of its events: computed, its first 199 and a Link.
    const short = await get(ws.key, `${queryOf(from, to, staff)}&limit=199`);
    const first = await computed(ws.id, { from, to, staffId: staff }, 200);
    expect(short.text).toBe(JSON.stringify(first.events.slice(0, 199)));
    expect(short.link).toContain("cursor=");
    // One more event: 201 in the window.
    await insertEvent(db, ws.id, { title: "In 200", startsAt: iso(to - 1), staffUserId: staff });
    for (let i = 0; i < 2; i++) {
      const over = await get(ws.key, queryOf(from, to, staff));
      const expected = await computed(ws.id, { from, to, staffId: staff }, 201);
      expect(expected.events).toHaveLength(201);
      expect(over.text).toBe(JSON.stringify(expected.events.slice(0, 200)));
      expect(over.link).toContain("cursor=");
    }
  });

  test("a cut window's days out of the stored range are not stored; the page is still right", async () => {
    const { ws } = await seeded(19);
    const far = midnight(400) + 5 * hour;
    await insertEvent(db, ws.id, { startsAt: iso(far + hour) });
    for (let i = 0; i < 2; i++) {
      expect((await get(ws.key, queryOf(far, far + 2 * 86_400_000))).text).toBe(
        JSON.stringify((await computed(ws.id, { from: far, to: far + 2 * 86_400_000 })).events),
      );
    }
    expect(await storedCount(ws.id)).toBe(0);
  });

  test("without the key-check read (MCP), run reads the days itself and cuts the same bytes", async () => {
    const { ws, staff } = await seeded(23);
    const [from, to] = [midnight(3) + 11 * hour, midnight(9) + 2 * hour];
    const expected = await expectWindow(ws, from, to, staff[1]);
    await mark(ws.id, '"title":"', '"title":"Stored ');
    const outcome = await execute(h.ctx, agenda, {
      apiKey: ws.key,
      tenantHeader: null,
      params: {},
      query: { from: iso(from), to: iso(to), staffId: staff[1] },
      body: { kind: "none" },
      requestId: ulid(),
      url: new URL("http://localhost/calendar/agenda"),
      lookup: await authenticate(db, ws.key),
    });
    expect(outcome.status).toBe(200);
    expect(outcome.bodyText).toBe(expected.replaceAll('"title":"', '"title":"Stored '));
  });
});
