/** An agenda page is one statement, read from indexes, whatever the window and filters. */
import { describe, expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import { countingClient, plannedScans } from "../support/statements.ts";
import { buildApp } from "../../src/app.ts";
import { insertEvent, insertStaff } from "./fixtures.ts";

const h = await harness();
const ws = await h.workspace();



const staff = await insertStaff(h.database.db, ws.id, "Priya");
for (let i = 0; i < 30; i++) await insertEvent(h.database.db, ws.id, { startsAt: `2026-05-${String(10 + (i % 5)).padStart(2, "0")}T09:00:00Z`, staffUserId: i % 2 ? staff : null });
await insertEvent(h.database.db, ws.id, { startsAt: "2026-05-01T09:00:00Z", endsAt: "2026-06-01T09:00:00Z", staffUserId: staff });

describe("one indexed statement per page", () => {
  /** Sends a request through an app on the counting client; returns the answer and the page statement's scans. */
  async function measured(url: string) {
    const { db, statements } = await countingClient(h.database.url);
    const app = buildApp({ ...h.ctx, db });
    try {
      const res = await app.handle(new Request(url, { headers: { "x-api-key": ws.key } }));
      expect(res.status).toBe(200);
      expect(statements).toHaveLength(2);
      const page = statements[1]!;
      expect(page.query).toContain("calendar_events");
      return { link: res.headers.get("link"), scans: await plannedScans(h.database.db, page.query, page.parameters) };
    } finally {
      await db.end();
    }
  }

  test.each([
    ["the whole agenda", "?from=2026-05-10&to=2026-05-20&limit=5"],
    ["one member of staff's agenda", `?from=2026-05-10&to=2026-05-20&limit=5&staffId=${staff}`],
  ])("%s: a first and a following page cost one statement each after the key check, reading only indexes", async (_name, query) => {
    const first = await measured(`http://localhost/calendar/agenda${query}`);
    const next = await measured(/^<([^>]+)>/.exec(first.link!)![1]!);
    for (const page of [first, next]) {
      expect(page.scans.filter((s) => s.endsWith("on calendar_events"))).toHaveLength(2);
      expect(page.scans.filter((s) => s.startsWith("Seq Scan"))).toEqual([]);
    }
  });
});
