/**
 * The working calendar a process keeps for its answers: a load of bank holidays by another process (`bun run cli
 * bank-holidays load`) is seen by the very next request, through the list, a repair's read and a write.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { harness } from "../support/harness.ts";
import { runCli } from "../support/service.ts";
import { expectStatus, repairCalls, repairWorld } from "./repair_fixtures.ts";

const h = await harness();
const world = await repairWorld(h);
const call = repairCalls(h, world);
const scratch = mkdtempSync(join(tmpdir(), "repairs-calendar-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

type GovUkFile = Record<string, { division: string; events: { date: string }[] }>;
const shipped = readFileSync(join(import.meta.dir, "../../data/bank-holidays.json"), "utf8");

/** The shipped GOV.UK file with the england-and-wales dates given left out, written to a file; its path. */
function without(name: string, dates: string[]): string {
  const file = JSON.parse(shipped) as GovUkFile;
  const ew = file["england-and-wales"]!;
  ew.events = ew.events.filter((e) => !dates.includes(e.date));
  const path = join(scratch, `${name}.json`);
  writeFileSync(path, JSON.stringify(file));
  return path;
}

/** Loads a file in another process, as an operator does. */
async function loadElsewhere(path: string) {
  const run = await runCli(["bank-holidays", "load", path], { databaseUrl: h.database.url });
  expect([run.code, run.stderr]).toEqual([0, ""]);
}

const dueOf = (repair: { clocks: { kind: string; dueAt: string; explanation: string }[] }) =>
  repair.clocks.find((c) => c.kind === "significant_investigate")!;

describe("the working calendar kept by a process", () => {
  test("a load by another process is seen by the next request: list, read and write", async () => {
    // Aware Tue 23 Dec 2025 10:00: 10 working days skip Thu 25 Dec, Fri 26 Dec and Thu 1 Jan, so the clock is due
    // at the end of Fri 9 Jan 2026; with Boxing Day a working day, at the end of Thu 8 Jan.
    const repair = expectStatus(
      await call.report({
        awareAt: "2025-12-23T10:00:00Z",
        hazard: "significant",
        hhsrsHazard: "damp_and_mould_growth",
      }),
      201,
    );
    const listed = async () => {
      const list = expectStatus(await call.list("?clock=open&limit=200"), 200) as { id: string }[];
      return list.find((r) => r.id === repair.id) as typeof repair;
    };
    // Twice, so the second answer comes from the calendar the first one kept.
    for (let i = 0; i < 2; i++) expect(dueOf(await listed()).dueAt).toBe("2026-01-09T23:59:59.999Z");

    await loadElsewhere(without("no-boxing-day", ["2025-12-26"]));
    const after = dueOf(await listed());
    expect(after.dueAt).toBe("2026-01-08T23:59:59.999Z");
    expect(after.explanation).toBe(
      "10 working days after Tue 23 Dec 2025, skipping Thu 25 Dec and Thu 1 Jan (bank holidays): due by the end of " +
        "Thu 8 Jan 2026",
    );
    expect(dueOf(expectStatus(await call.get(repair.id), 200)).dueAt).toBe("2026-01-08T23:59:59.999Z");

    // The shipped list again, then a write: its answer and the dues it stores are the shipped calendar's.
    await loadElsewhere(without("shipped", []));
    const written = expectStatus(await call.access(repair.id, { at: "2025-12-24T10:00:00Z", outcome: "granted" }), 200);
    expect(dueOf(written).dueAt).toBe("2026-01-09T23:59:59.999Z");
    const [stored] = await h.database.db<{ due: string }[]>`
      select iso(open_due_at) as due from repairs where id = ${repair.id}`;
    expect(stored!.due).toBe("2026-01-09T23:59:59.999Z");
    expect(dueOf(await listed()).dueAt).toBe("2026-01-09T23:59:59.999Z");
  });
});
