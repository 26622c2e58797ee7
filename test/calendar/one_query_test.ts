/** An agenda page is one statement, read from indexes, whatever the window and filters. */
import { describe, expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import { buildApp } from "../../src/app.ts";
import { connect } from "../../src/core/db.ts";
import { insertEvent, insertStaff } from "./fixtures.ts";

const h = await harness();
const ws = await h.workspace();

/** A client that records every statement it sends with its parameters (its connection is opened first). */
async function countingClient() {
  const db = connect(h.database.url, { max: 1 });
  await db`select 1`;
  const statements: { query: string; parameters: unknown[] }[] = [];
  (db.options as { debug: unknown }).debug = (_connection: number, query: string, parameters: unknown[]) => statements.push({ query, parameters });
  return { db, statements };
}

/** The scans Postgres plans for a statement when it may not read a table from end to end. */
async function scans(query: string, parameters: unknown[]): Promise<string[]> {
  return h.database.db.begin(async (tx) => {
    await tx`set local enable_seqscan = off`;
    const [row] = await tx.unsafe(`explain (format json) ${query}`, parameters as any[]);
    const found: string[] = [];
    const walk = (node: any) => {
      if (/Scan/.test(node["Node Type"]) && node["Relation Name"]) found.push(`${node["Node Type"]} on ${node["Relation Name"]}`);
      for (const child of node.Plans ?? []) walk(child);
    };
    walk(Object.values(row as object)[0][0].Plan);
    return found;
  }) as Promise<string[]>;
}

const staff = await insertStaff(h.database.db, ws.id, "Priya");
for (let i = 0; i < 30; i++) await insertEvent(h.database.db, ws.id, { startsAt: `2026-05-${String(10 + (i % 5)).padStart(2, "0")}T09:00:00Z`, staffUserId: i % 2 ? staff : null });
await insertEvent(h.database.db, ws.id, { startsAt: "2026-05-01T09:00:00Z", endsAt: "2026-06-01T09:00:00Z", staffUserId: staff });

describe("one indexed statement per page", () => {
  /** Sends a request through an app on the counting client; returns the answer and the page statement's scans. */
  async function measured(url: string) {
    const { db, statements } = await countingClient();
    const app = buildApp({ ...h.ctx, db });
    try {
      const res = await app.handle(new Request(url, { headers: { "x-api-key": ws.key } }));
      expect(res.status).toBe(200);
      expect(statements).toHaveLength(2);
      const page = statements[1]!;
      expect(page.query).toContain("calendar_events");
      return { link: res.headers.get("link"), scans: await scans(page.query, page.parameters) };
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
