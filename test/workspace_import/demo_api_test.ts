/** The demo workspace, seen through the API the way a person trying it would. */
import { describe, expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import { ensureDemo } from "../../src/workspace_import/demo.ts";
import { operations } from "../../src/operations.ts";

const h = await harness();
const demo = await ensureDemo(h.database.db);

/** Every (code, direction) pair CONTRACT.md §4.1 can produce. */
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

  test("every GET operation answers 200 for the demo key with its parameters left out", async () => {
    for (const op of operations.filter((o) => o.method === "GET" && !o.path.includes(":"))) {
      const res = await h.request("GET", op.path, { key: demo.key });
      expect({ op: op.id, status: res.status }).toEqual({ op: op.id, status: 200 });
    }
  });
});
