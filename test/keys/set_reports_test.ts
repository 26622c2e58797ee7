/** GET /keys/sets/{id}/reports (keys.setReports). */
import { describe, expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import { Seed } from "../handovers/fixtures.ts";

const h = await harness();
const ws = await h.workspace();
const seed = new Seed(h.database.db, ws.id);
const get = (id: string, key = ws.key) => h.request("GET", `/keys/sets/${id}/reports`, { key });

describe("key set reports", () => {
  test("reports come newest first with their source, and cleared is null until cleared", async () => {
    const keySetId = await seed.keySet({ unitId: await seed.unit(), status: "checked_out", holderType: "contractor" });
    await seed.keyReport({
      keySetId,
      id: "REP-OLD",
      note: "Key snapped in the lock",
      sourceKind: "contractor",
      sourceId: "C-1",
      sourceLabel: "Ace Locks",
      reportedBy: "Ace Locks",
      reportedAt: "2026-01-05T09:00:00Z",
      cleared: { note: "Lock replaced, new key cut", by: "Front desk", at: "2026-01-06T16:30:00Z" },
    });
    await seed.keyReport({
      keySetId,
      id: "REP-NEW",
      note: "Fob does not open the gate",
      sourceKind: "inspection",
      sourceId: "INS-4",
      sourceLabel: "Check-out CO-4",
      reportedBy: "Jo Inspector",
      reportedAt: "2026-02-01T08:00:00.123Z",
    });
    const res = await get(keySetId);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      keySetId,
      notWorking: true,
      reports: [
        {
          id: "REP-NEW",
          keySetId,
          note: "Fob does not open the gate",
          source: { kind: "inspection", id: "INS-4", label: "Check-out CO-4" },
          reportedBy: "Jo Inspector",
          reportedAt: "2026-02-01T08:00:00.123Z",
          cleared: null,
        },
        {
          id: "REP-OLD",
          keySetId,
          note: "Key snapped in the lock",
          source: { kind: "contractor", id: "C-1", label: "Ace Locks" },
          reportedBy: "Ace Locks",
          reportedAt: "2026-01-05T09:00:00.000Z",
          cleared: { note: "Lock replaced, new key cut", by: "Front desk", at: "2026-01-06T16:30:00.000Z" },
        },
      ],
    });
  });

  test("a key set whose reports are all cleared works again", async () => {
    const keySetId = await seed.keySet({ unitId: await seed.unit() });
    await seed.keyReport({
      keySetId,
      reportedAt: "2026-01-01T00:00:00Z",
      cleared: { note: null, by: null, at: "2026-01-02T00:00:00Z" },
    });
    await seed.keyReport({
      keySetId,
      reportedAt: "2026-01-03T00:00:00Z",
      cleared: { note: "ok", by: "Sam", at: "2026-01-04T00:00:00Z" },
    });
    const res = await get(keySetId);
    expect(res.body.notWorking).toBe(false);
    expect(res.body.reports.map((r: any) => r.cleared)).toEqual([
      { note: "ok", by: "Sam", at: "2026-01-04T00:00:00.000Z" },
      { note: null, by: null, at: "2026-01-02T00:00:00.000Z" },
    ]);
  });

  test("a key set without reports works and lists none; a source without id or label says null", async () => {
    const quiet = await seed.keySet({ unitId: null });
    expect((await get(quiet)).body).toEqual({ keySetId: quiet, notWorking: false, reports: [] });
    const reported = await seed.keySet({ unitId: null, status: "lost" });
    await seed.keyReport({ keySetId: reported, sourceKind: "staff", reportedAt: "2026-01-01T00:00:00Z" });
    const res = await get(reported);
    expect(res.body.notWorking).toBe(true);
    expect(res.body.reports[0].source).toEqual({ kind: "staff", id: null, label: null });
  });

  test("reports at the same instant are ordered by id, newest id first", async () => {
    const keySetId = await seed.keySet({ unitId: null });
    for (const id of ["R-A", "R-C", "R-B"]) await seed.keyReport({ keySetId, id, reportedAt: "2026-03-01T12:00:00Z" });
    expect((await get(keySetId)).body.reports.map((r: any) => r.id)).toEqual(["R-C", "R-B", "R-A"]);
  });

  test("an unknown key set is KeySetNotFound", async () => {
    const res = await get("NO-SUCH-SET");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ _tag: "KeySetNotFound", keySetId: "NO-SUCH-SET" });
  });

  test("another workspace's key set is KeySetNotFound, and its reports never mix with ours", async () => {
    const other = await h.workspace();
    const theirs = new Seed(h.database.db, other.id);
    const theirSet = await theirs.keySet({ unitId: null, id: "KS-SAME" });
    await theirs.keyReport({ keySetId: theirSet, reportedAt: "2026-01-01T00:00:00Z" });
    const res = await get(theirSet);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ _tag: "KeySetNotFound", keySetId: "KS-SAME" });
    const mine = await seed.keySet({ unitId: null, id: "KS-SAME" });
    expect((await get(mine)).body).toEqual({ keySetId: "KS-SAME", notWorking: false, reports: [] });
    expect((await get(theirSet, other.key)).body.reports).toHaveLength(1);
  });

  test("keys:read is enough; handovers:read is not", async () => {
    const keySetId = await seed.keySet({ unitId: null });
    expect((await get(keySetId, await h.key(ws, ["keys:read"]))).status).toBe(200);
    const refused = await get(keySetId, await h.key(ws, ["handovers:read", "keys:write"]));
    expect(refused.body).toEqual({ _tag: "ScopeMissing", scope: "keys:read" });
  });
});
