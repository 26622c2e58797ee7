/**
 * The list answers each repair as GET answers it, byte for byte (its clocks computed on epoch milliseconds with a
 * calendar the process keeps, GET's the same way): with texts that need escaping and every kind of field.
 */
import { describe, expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import { expectStatus, repairCalls, repairWorld } from "./repair_fixtures.ts";

const h = await harness();
const world = await repairWorld(h);
const call = repairCalls(h, world);

/** Every instant long past, so that no clock changes status between the list and the reads. */
const tricky = 'Quote " backslash \\ tab\tnewline\nemoji 😀 ’curly’ \u007f <b>&amp;</b> \u2028';

async function make(fields: Record<string, unknown>, milestones: Record<string, unknown>[] = []) {
  let repair = expectStatus(await call.report(fields), 201);
  for (const m of milestones)
    repair = expectStatus(await call.milestone(repair.id, { expectedRevision: repair.revision, ...m }), 200);
  return repair;
}

const plain = await make({
  title: "Dripping tap",
  category: "leak",
  reporter: { kind: "staff" },
  tenancyId: undefined,
});
const escaped = await make(
  {
    awareAt: "2026-06-01T09:00:00+01:00",
    hazard: "significant",
    hhsrsHazard: "damp_and_mould_growth",
    title: tricky.slice(0, 60),
    description: tricky,
    location: "Back bedroom, “north” wall",
    reporter: { kind: "other", name: tricky.slice(0, 30) },
  },
  [
    { kind: "investigated", at: "2026-06-03T10:00:00Z", outcome: "hazard_confirmed", note: tricky },
    { kind: "summary_sent", at: "2026-06-04T10:00:00.5Z", method: "email" },
  ],
);
expectStatus(await call.access(escaped.id, { at: "2026-06-02T08:00:00Z", outcome: "no_answer", note: tricky }), 200);
expectStatus(await call.access(escaped.id, { at: "2026-06-02T09:00:00Z", outcome: "granted" }), 200);
const emergency = await make({ awareAt: "2026-07-01T23:30:00Z", hazard: "emergency", hhsrsHazard: "fire" }, [
  { kind: "made_safe", at: "2026-07-02T10:00:00Z" },
]);
expectStatus(await call.cancel(emergency.id, { reason: `Duplicate ${tricky}` }), 200);
const trimmed = await make({ awareAt: "2026-05-01T09:00:00Z", hazard: "significant", hhsrsHazard: "noise" }, [
  { kind: "completed", at: "2026-05-20T09:00:00Z" },
]);
describe("the list's text", () => {
  test("is the text of the repairs' own answers, in the list's order, byte for byte", async () => {
    for (const query of ["", "?limit=2", "?clock=open", "?status=cancelled"]) {
      const list = await call.list(query);
      expect(list.status).toBe(200);
      const ids = (list.body as { id: string }[]).map((r) => r.id);
      const reads = await Promise.all(ids.map((id) => call.get(id)));
      expect(list.text).toBe(`[${reads.map((r) => r.text).join(",")}]`);
    }
    const all = (await call.list()).body as { id: string }[];
    expect(all.map((r) => r.id).sort()).toEqual([plain.id, escaped.id, emergency.id, trimmed.id].sort());
  });
});
