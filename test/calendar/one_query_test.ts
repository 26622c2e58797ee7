/** An agenda page is one statement, read from indexes, whatever the window and filters. */
import { describe, expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import { measurePage } from "../support/statements.ts";
import { insertEvent, insertStaff } from "./fixtures.ts";

const h = await harness();
const ws = await h.workspace();



const staff = await insertStaff(h.database.db, ws.id, "Priya");
for (let i = 0; i < 30; i++) await insertEvent(h.database.db, ws.id, { startsAt: `2026-05-${String(10 + (i % 5)).padStart(2, "0")}T09:00:00Z`, staffUserId: i % 2 ? staff : null });
await insertEvent(h.database.db, ws.id, { startsAt: "2026-05-01T09:00:00Z", endsAt: "2026-06-01T09:00:00Z", staffUserId: staff });

describe("one indexed statement per page", () => {

  test.each([
    ["the whole agenda", "?from=2026-05-10&to=2026-05-20&limit=5"],
    ["one member of staff's agenda", `?from=2026-05-10&to=2026-05-20&limit=5&staffId=${staff}`],
  ])("%s: a first and a following page cost one statement each after the key check, reading only indexes", async (_name, query) => {
    const first = await measurePage(h, ws.key, `http://localhost/calendar/agenda${query}`, "calendar_events");
    const next = await measurePage(h, ws.key, /^<([^>]+)>/.exec(first.link!)![1]!, "calendar_events");
    for (const page of [first, next]) {
      expect(page.scans.filter((s) => s.endsWith("on calendar_events"))).toHaveLength(2);
      expect(page.scans.filter((s) => s.startsWith("Seq Scan"))).toEqual([]);
    }
  });
});
