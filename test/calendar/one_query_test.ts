/** An agenda page is one statement, read from indexes, whatever the window and filters. */
import { throughPgBouncer } from "../support/database.ts";
import { describe, expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import { countingClient, measurePage, preparedPlans } from "../support/statements.ts";
import { buildApp } from "../../src/app.ts";
import { addLondonDays, londonMidnight, londonToday } from "../../src/core/dates.ts";
import { insertEvent } from "./fixtures.ts";

const h = await harness();
const ws = await h.workspace();

const staff = await h.rows(ws).user({ name: "Priya" });
for (let i = 0; i < 30; i++)
  await insertEvent(h.database.db, ws.id, {
    startsAt: `2026-05-${String(10 + (i % 5)).padStart(2, "0")}T09:00:00Z`,
    staffUserId: i % 2 ? staff : null,
  });
await insertEvent(h.database.db, ws.id, {
  startsAt: "2026-05-01T09:00:00Z",
  endsAt: "2026-06-01T09:00:00Z",
  staffUserId: staff,
});

describe("one indexed statement per page", () => {
  test.each([
    ["the whole agenda", "?from=2026-05-10&to=2026-05-20&limit=5"],
    ["one member of staff's agenda", `?from=2026-05-10&to=2026-05-20&limit=5&staffId=${staff}`],
  ])(
    "%s: a first and a following page cost one statement each after the key check, reading only indexes",
    async (_name, query) => {
      const first = await measurePage(h, ws.key, `http://localhost/calendar/agenda${query}`, "calendar_events");
      const next = await measurePage(h, ws.key, /^<([^>]+)>/.exec(first.link!)![1]!, "calendar_events");
      for (const page of [first, next]) {
        expect(page.scans.filter((s) => s.endsWith("on calendar_events"))).toHaveLength(2);
        expect(page.scans.filter((s) => s.startsWith("Seq Scan"))).toEqual([]);
      }
    },
  );
});

// Behind a transaction pooler the service prepares no named statements (each is planned where it runs: see the
// README's "Several replicas"), so there is no cached plan to look at.
describe.skipIf(throughPgBouncer)("the page's statement is planned once", () => {
  test("after Postgres's five custom plans, every page runs the cached generic plan (no planning per page)", async () => {
    // A busy workspace beside this small one, analysed: with the values in sight, the custom plans of the small
    // workspace's pages looked far cheaper than the generic plan, so every page was planned again.
    const busy = await h.workspace();
    await h.database.db`
      insert into calendar_events (workspace_id, id, title, kind, starts_at, ends_at, status)
      select ${busy.id}, 'ev-' || i, 'Viewing', 'viewing', t, t + interval '1 hour' * (1 + i % 50), 'scheduled'
      from generate_series(1, 20000) i, lateral (select timestamptz '2026-03-01' + interval '10 minutes' * i as t) s`;
    await h.database.db`analyze calendar_events`;
    const { db } = await countingClient(h.database.url);
    const app = buildApp({ ...h.ctx, db });
    try {
      for (let day = 10; day < 22; day++) {
        const url = `http://localhost/calendar/agenda?from=2026-05-${day}&to=2026-05-${day + 7}&staffId=${staff}`;
        const res = await app.handle(new Request(url, { headers: { "x-api-key": ws.key } }));
        expect(res.status).toBe(200);
      }
      expect(await preparedPlans(db, "%from calendar_events%")).toEqual([{ genericPlans: 7, customPlans: 5 }]);
    } finally {
      await db.end();
    }
  });
});

describe.skipIf(throughPgBouncer)("a window cut from stored days", () => {
  test("costs the key check's statement alone, whose generic plan reads the events running at `from` by the range index", async () => {
    const near = await h.workspace();
    const person = await h.rows(near).user({ name: "Sam" });
    const day = addLondonDays(londonMidnight(londonToday()), 2);
    for (let i = 0; i < 20; i++)
      await insertEvent(h.database.db, near.id, {
        startsAt: new Date(day + i * 5 * 3600_000).toISOString(),
        endsAt: new Date(day + i * 5 * 3600_000 + 7 * 3600_000).toISOString(),
        staffUserId: person,
      });
    const from = new Date(day + 9 * 3600_000).toISOString();
    const to = new Date(day + 3 * 86_400_000 + 9 * 3600_000).toISOString();
    const url = `http://localhost/calendar/agenda?from=${from}&to=${to}&staffId=${person}`;
    const first = await h.app.handle(new Request(url, { headers: { "x-api-key": near.key } }));
    expect(first.status).toBe(200); // computed, its days stored whole
    const body = await first.text();
    const { db, statements } = await countingClient(h.database.url);
    const app = buildApp({ ...h.ctx, db });
    const page = async () => {
      const res = await app.handle(new Request(url, { headers: { "x-api-key": near.key } }));
      expect(res.status).toBe(200);
      expect(await res.text()).toBe(body);
    };
    /** Index scans on calendar_events by index, as this connection's statistics see them. */
    const indexScans = async () => {
      await db`select pg_stat_force_next_flush()`;
      await db`select pg_stat_clear_snapshot()`;
      const rows = await db`select indexrelname as name, idx_scan::int as scans, idx_tup_read::int as read
                            from pg_stat_user_indexes where relname = 'calendar_events'`;
      return Object.fromEntries(
        rows.map((r) => [r.name as string, { scans: r.scans as number, read: r.read as number }]),
      );
    };
    try {
      const sent = statements.length;
      await page();
      expect(statements.length - sent).toBe(1);
      // The plan Postgres keeps after its five custom plans (the generic one): it may not take the
      // (workspace_id, starts_at) index for `starts_at < from` and read the workspace's whole past.
      await db`set plan_cache_mode = force_generic_plan`;
      const before = await indexScans();
      for (let i = 0; i < 3; i++) await page();
      const after = await indexScans();
      const used = Object.keys(after).filter((name) => after[name]!.scans !== before[name]!.scans);
      expect(used).toEqual(["calendar_events_span"]);
      const [span, spanBefore] = [after.calendar_events_span!, before.calendar_events_span!];
      expect(span.scans - spanBefore.scans).toBe(3);
      // Only the events running at `from` (two of the workspace's 20), not every event of the workspace.
      expect(span.read - spanBefore.read).toBeLessThanOrEqual(3 * 2);
    } finally {
      await db.end();
    }
  });
});
