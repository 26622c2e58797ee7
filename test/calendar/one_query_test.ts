/** An agenda page is one statement, read from indexes, whatever the window and filters. */
import { throughPgBouncer } from "../support/database.ts";
import { describe, expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import { countingClient, measurePage } from "../support/statements.ts";
import { buildApp } from "../../src/app.ts";
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
      const plans = (await db`
        select generic_plans::int, custom_plans::int from pg_prepared_statements
        where statement like '%from calendar_events%' and statement not like '%pg_prepared_statements%'`) as unknown as {
        genericPlans: number;
        customPlans: number;
      }[];
      expect(plans).toEqual([{ genericPlans: 7, customPlans: 5 }]);
    } finally {
      await db.end();
    }
  });
});
