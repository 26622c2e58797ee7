/** The demo workspace, seen through the API the way a person trying it would. */
import { describe, expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import { ensureDemo } from "../../src/workspace_import/demo.ts";
import { operations } from "../../src/operations.ts";

const h = await harness();
const demo = await ensureDemo(h.database.db);

/** Every (code, direction) pair the outstanding rules (src/handovers/outstanding.ts) can produce. */
const pairs = [
  "check_in_missing/move_in",
  "check_in_open/move_in",
  "follow_ups_open/move_in",
  "keys_not_handed_over/move_in",
  "keys_unattributed/move_in",
  "meter_readings_missing/move_in",
  "handover_open/move_in",
  "check_out_missing/move_out",
  "check_out_open/move_out",
  "follow_ups_open/move_out",
  "keys_held/move_out",
  "keys_unattributed/move_out",
  "meter_readings_missing/move_out",
  "forwarding_missing/move_out",
  "notice_evidence_missing/move_out",
  "handover_open/move_out",
];

describe("the demo workspace", () => {
  test("its tenancies show every outstanding code in every direction it can take", async () => {
    const ids = (
      await h.database.db<
        { id: string }[]
      >`select t.id from tenancies t join workspaces w on w.id = t.workspace_id where w.slug = 'demo'`
    ).map((r) => r.id);
    const seen = new Set<string>();
    for (const id of ids) {
      const res = await h.request("GET", `/handovers/tenancies/${id}`, { key: demo.key });
      expect(res.status).toBe(200);
      for (const item of res.body.outstanding) seen.add(`${item.code}/${item.direction}`);
    }
    expect([...seen].sort()).toEqual([...pairs].sort());
  });

  test("the README's try-it tenancy has many outstanding items", async () => {
    const res = await h.request("GET", "/handovers/tenancies/ten-ashby-2b", { key: demo.key });
    expect(res.status).toBe(200);
    expect(res.body.outstanding.length).toBeGreaterThanOrEqual(8);
  });

  test("its repairs desk shows a clock in each status, most urgent first", async () => {
    const res = await h.request("GET", "/maintenance-pro/repairs?limit=200", { key: demo.key });
    expect(res.status).toBe(200);
    type Clock = { kind: string; basis: string; status: string; dueAt: string };
    type Repair = { id: string; status: string; hhsrsHazard: string | null; clocks: Clock[] };
    const repairs: Repair[] = res.body;
    const clocks = repairs.flatMap((r) => r.clocks.map((c) => ({ ...c, repair: r })));
    expect([...new Set(clocks.map((c) => c.status))].sort()).toEqual([
      "breached",
      "ceased",
      "met",
      "met_late",
      "running",
    ]);
    expect([...new Set(repairs.map((r) => r.status))].sort()).toEqual([
      "awaiting_contractor",
      "cancelled",
      "completed",
      "in_progress",
      "reported",
      "triaged",
    ]);
    const statutory = (c: Clock) => c.basis === "statutory";
    const [breached, emergency, dueThisWeek] = repairs;
    // A damp and mould investigation not made in its 10 working days.
    expect(breached!.hhsrsHazard).toBe("damp_and_mould_growth");
    expect(breached!.clocks.filter(statutory).map((c) => `${c.kind} ${c.status}`)).toEqual([
      "significant_investigate breached",
    ]);
    // The social regime's emergency: 24 hours to investigate and to make safe, both running.
    expect(emergency!.clocks.filter(statutory).map((c) => `${c.kind} ${c.status}`)).toEqual([
      "emergency_investigate running",
      "emergency_make_safe running",
    ]);
    const running = dueThisWeek!.clocks.find((c) => c.status === "running")!;
    expect(Date.parse(running.dueAt) - Date.now()).toBeGreaterThan(24 * 3_600_000);
    expect(Date.parse(running.dueAt) - Date.now()).toBeLessThan(7 * 24 * 3_600_000);
  });

  test("every GET operation answers 200 for the demo key with its parameters left out", async () => {
    for (const op of operations.filter((o) => o.method === "GET" && !o.path.includes(":"))) {
      const res = await h.request("GET", op.path, { key: demo.key });
      expect({ op: op.id, status: res.status }).toEqual({ op: op.id, status: 200 });
    }
  });
});
