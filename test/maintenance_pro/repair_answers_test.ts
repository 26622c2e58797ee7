/**
 * The repairs list's kept answers (src/maintenance_pro/repair_answers.ts): byte for byte the answers computed afresh
 * from the row, at any moment; kept by revision, so a write (which moves the revision) shows at the next page and a
 * change that did not move it would not; clocks computed at every answer.
 */
import { describe, expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import { currentWorkingCalendar } from "../../src/maintenance_pro/bank_holidays.ts";
import type { ClockContext } from "../../src/maintenance_pro/clocks.ts";
import { repairRowsById } from "../../src/maintenance_pro/queries.ts";
import { repairAnswerTexts } from "../../src/maintenance_pro/repair_answers.ts";
import { repairAnswer } from "../../src/maintenance_pro/repair_rules.ts";
import { expectStatus, fromNow, repairCalls, repairWorld } from "./repair_fixtures.ts";

const h = await harness();
const db = h.database.db;
const world = await repairWorld(h);
const call = repairCalls(h, world);
const hour = 3_600_000;

const report = async (fields: Record<string, unknown>) => expectStatus(await call.report(fields), 201);
const plain = await report({ title: "Dripping tap", category: "leak" });
const running = await report({ awareAt: fromNow(-hour), hazard: "emergency", hhsrsHazard: "fire" });
const mixed = await report({ awareAt: fromNow(-30 * hour), hazard: "emergency", hhsrsHazard: "lead" });
expectStatus(
  await call.milestone(mixed.id, {
    expectedRevision: mixed.revision,
    kind: "investigated",
    at: fromNow(0),
    outcome: "hazard_confirmed",
  }),
  200,
);
const repairs = [plain, running, mixed];

const contextAt = async (now: string): Promise<ClockContext> => ({
  calendar: await currentWorkingCalendar(db),
  prsInForceFrom: h.ctx.config.prsInForceFrom,
  now,
});

/** The page as the list reads it: ids and revisions as stored now. */
async function page() {
  const rows = await db<{ id: string; revision: number }[]>`
    select id, revision from repairs where workspace_id = ${world.ws.id} and id = any(${repairs.map((r) => r.id)})
    order by id`;
  return rows.map((r) => ({ id: r.id, revision: r.revision }));
}

/** The answers computed afresh from the rows, in the page's order. */
async function computed(context: ClockContext): Promise<string[]> {
  const rows = await repairRowsById(
    db,
    world.ws.id,
    repairs.map((r) => r.id),
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  return (await page()).map((p) => JSON.stringify(repairAnswer(byId.get(p.id)!, context)));
}

describe("kept answers", () => {
  test("are the answers computed afresh, byte for byte, read first and kept, at moments either side of a due", async () => {
    // The running emergency's investigation falls due 24 hours after awareness: running now, breached a day on.
    for (const now of [fromNow(0), fromNow(30 * hour), fromNow(-2 * hour), fromNow(0)]) {
      const context = await contextAt(now);
      expect(await repairAnswerTexts(db, world.ws.id, await page(), context)).toEqual(await computed(context));
    }
    const later = await repairAnswerTexts(db, world.ws.id, await page(), await contextAt(fromNow(30 * hour)));
    const clocks = JSON.parse(later.find((t) => t.includes(running.id))!).clocks;
    expect(clocks.map((c: { kind: string; status: string }) => [c.kind, c.status])).toContainEqual([
      "emergency_investigate",
      "breached",
    ]);
  });

  test("are kept by revision: a row changed without moving it still answers as kept, and a moved one anew", async () => {
    const context = await contextAt(fromNow(0));
    await repairAnswerTexts(db, world.ws.id, await page(), context);
    // No writer of the service does this: every write moves the revision in the same transaction.
    await db`update repairs set title = 'Changed behind the revision' where workspace_id = ${world.ws.id}
             and id = ${plain.id}`;
    const kept = await repairAnswerTexts(db, world.ws.id, await page(), context);
    expect(JSON.parse(kept.find((t) => t.includes(plain.id))!).title).toBe("Dripping tap");
    await db`update repairs set revision = revision + 1 where workspace_id = ${world.ws.id} and id = ${plain.id}`;
    const read = await repairAnswerTexts(db, world.ws.id, await page(), context);
    expect(JSON.parse(read.find((t) => t.includes(plain.id))!).title).toBe("Changed behind the revision");
    expect(read).toEqual(await computed(context));
  });

  test("a repair gone since the page's statement is left out; one written since answers at its new revision", async () => {
    const context = await contextAt(fromNow(0));
    const stale = (await page()).map((p) => (p.id === running.id ? { ...p, revision: 0 } : p));
    const gone = [...stale, { id: "rpr-never-was", revision: 1 }];
    const texts = await repairAnswerTexts(db, world.ws.id, gone, context);
    expect(texts).toEqual(await computed(context));
  });

  test("the list answers a write at once: the page after a milestone carries it and the new revision", async () => {
    const before = expectStatus(await call.list(), 200);
    const listed = before.find((r: { id: string }) => r.id === running.id);
    const after = expectStatus(
      await call.milestone(running.id, {
        expectedRevision: listed.revision,
        kind: "investigated",
        at: fromNow(0),
        outcome: "hazard_confirmed",
      }),
      200,
    );
    const again = expectStatus(await call.list(), 200).find((r: { id: string }) => r.id === running.id);
    expect(again).toEqual(after);
    expect(again.revision).toBe(listed.revision + 1);
  });
});
