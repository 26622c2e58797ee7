/** GET /maintenance-pro/repairs: the repairs desk's "what is due". */
import { describe, expect, test } from "bun:test";
import { harness, type TestResponse } from "../support/harness.ts";
import { encodeCursor } from "../../src/core/pagination.ts";
import { expectStatus, fromNow, repairCalls, repairWorld } from "./repair_fixtures.ts";

const h = await harness();
const world = await repairWorld(h);
const call = repairCalls(h, world);
const hour = 3_600_000;

/** Makes a repair, applies milestones, and returns it as last answered. */
async function make(fields: Record<string, unknown>, milestones: Record<string, unknown>[] = []) {
  let repair = expectStatus(await call.report(fields), 201);
  for (const m of milestones) {
    repair = expectStatus(await call.milestone(repair.id, { expectedRevision: repair.revision, ...m }), 200);
  }
  return repair;
}

// Made in this order, so createdAt ascends from `plain` to `mixed`.
const plain = await make({ title: "Dripping tap", category: "leak" });
const running = await make({ awareAt: fromNow(-hour), hazard: "emergency", hhsrsHazard: "fire" });
const breached = await make({ awareAt: "2026-06-01T09:00:00Z", hazard: "significant", hhsrsHazard: "excess_cold" });
const none = await make({ hazard: "none", unitId: undefined, tenancyId: undefined });
const completedLate = await make({ awareAt: "2026-05-01T09:00:00Z", hazard: "significant", hhsrsHazard: "noise" }, [
  { kind: "completed", at: "2026-06-30T09:00:00Z" },
]);
const completedInTime = await make({ awareAt: fromNow(-hour), hazard: "significant", hhsrsHazard: "noise" }, [
  { kind: "completed", at: fromNow(0) },
]);
// Emergency aware 30 hours ago, investigated now: the investigation is met late, making safe stays breached, and the
// written summary and preventative work clocks run.
const mixed = await make({ awareAt: fromNow(-30 * hour), hazard: "emergency", hhsrsHazard: "lead" }, [
  { kind: "investigated", at: fromNow(0), outcome: "hazard_confirmed" },
]);

const ids = (list: { id: string }[]) => list.map((r) => r.id);

describe("the order", () => {
  test("earliest dueAt among running or breached clocks first, repairs with none last by createdAt", async () => {
    const list = expectStatus(await call.list(), 200);
    expect(ids(list)).toEqual([
      completedLate.id, // 2026-05-15, breached even though completed
      breached.id, // 2026-06-15
      mixed.id, // make safe was due 6 hours ago
      running.id, // due in 23 hours
      plain.id,
      none.id,
      completedInTime.id,
    ]);
    const byId = Object.fromEntries(list.map((r: { id: string }) => [r.id, r]));
    expect(byId[mixed.id].clocks.map((c: { kind: string; status: string }) => [c.kind, c.status])).toEqual([
      ["emergency_investigate", "met_late"],
      ["emergency_make_safe", "breached"],
      ["written_summary", "running"],
      ["preventative_work_start", "running"],
    ]);
  });

  test("every repair is answered whole, as GET of it answers", async () => {
    const list = expectStatus(await call.list(), 200);
    for (const repair of list) expect(expectStatus(await call.get(repair.id), 200)).toEqual(repair);
  });
});

describe("filters", () => {
  const listed = async (query: string) => ids(expectStatus(await call.list(query), 200));

  test("clock=breached, running and open: repairs with at least one clock in that state now", async () => {
    expect(await listed("?clock=breached")).toEqual([completedLate.id, breached.id, mixed.id]);
    expect(await listed("?clock=running")).toEqual([mixed.id, running.id]);
    expect(await listed("?clock=open")).toEqual([completedLate.id, breached.id, mixed.id, running.id]);
  });

  test("dueBefore: a running or breached clock due strictly before it", async () => {
    expect(await listed(`?dueBefore=${encodeURIComponent(fromNow(0))}`)).toEqual([
      completedLate.id,
      breached.id,
      mixed.id,
    ]);
    expect(await listed("?dueBefore=2026-06-15T22:59:59.999Z")).toEqual([completedLate.id]);
    expect(await listed("?dueBefore=2026-06-16T00:00:00%2B01:00")).toEqual([completedLate.id, breached.id]);
  });

  test("status, propertyId and tenancyId", async () => {
    expect(await listed("?status=completed")).toEqual([completedLate.id, completedInTime.id]);
    expect(await listed("?status=triaged")).toEqual([breached.id, running.id, none.id]);
    expect(await listed("?status=reported")).toEqual([plain.id]);
    expect(await listed("?status=in_progress&clock=running")).toEqual([mixed.id]);
    expect(await listed(`?tenancyId=${world.tenancyId}&clock=open`)).toEqual([
      completedLate.id,
      breached.id,
      mixed.id,
      running.id,
    ]);
    expect((await listed(`?propertyId=${world.propertyId}`)).length).toBe(7);
  });

  test("a filter naming an unknown property or tenancy, or another workspace's, gives an empty list", async () => {
    const other = await repairWorld(h);
    await repairCalls(h, other).report();
    for (const query of [
      "?propertyId=nope",
      "?tenancyId=nope",
      `?propertyId=${other.propertyId}`,
      `?tenancyId=${other.tenancyId}`,
    ]) {
      expect(await listed(query)).toEqual([]);
    }
  });

  test("an unknown status, clock or parameter is RequestInvalid", async () => {
    for (const [query, path] of [
      ["?status=open", "/query/status"],
      ["?clock=late", "/query/clock"],
      ["?dueBefore=tomorrow", "/query/dueBefore"],
      ["?overdue=true", "/query/overdue"],
      ["?limit=201", "/query/limit"],
      ["?limit=0", "/query/limit"],
    ]) {
      const res = await call.list(query);
      expect(res.status).toBe(400);
      expect(res.body.issues.map((i: { path: string }) => i.path)).toContain(path);
    }
  });
});

describe("pages", () => {
  test("following the Link pages lists every repair once, in order; the last page has no Link", async () => {
    const all = ids(expectStatus(await call.list(), 200));
    const seen: string[] = [];
    let path: string | undefined = "/maintenance-pro/repairs?limit=2";
    let pages = 0;
    while (path) {
      const res: TestResponse = await h.request("GET", path, { key: world.ws.key });
      const page = expectStatus(res, 200);
      expect(page.length).toBeLessThanOrEqual(2);
      seen.push(...ids(page));
      pages++;
      const link: string | null = res.headers.get("link");
      const next: URL | undefined = link ? new URL(/^<([^>]+)>; rel="next"$/.exec(link)![1]!) : undefined;
      path = next && next.pathname + next.search;
    }
    expect(seen).toEqual(all);
    expect(pages).toBe(4);
  });

  test("the Link repeats the filters", async () => {
    const res = await call.list("?clock=open&limit=1");
    const link = new URL(/^<([^>]+)>/.exec(res.headers.get("link")!)![1]!);
    expect(link.searchParams.get("clock")).toBe("open");
    expect(link.searchParams.get("limit")).toBe("1");
    const next = await call.list(link.search);
    expect(ids(expectStatus(next, 200))).toEqual([breached.id]);
  });

  test("50 by default", async () => {
    const many = await repairWorld(h);
    const c = repairCalls(h, many);
    for (let i = 0; i < 51; i++) expectStatus(await c.report({ title: `Repair ${i}` }), 201);
    const res = await c.list();
    expect(expectStatus(res, 200)).toHaveLength(50);
    expect(res.headers.get("link")).toContain("cursor=");
    const rest = await c.list(new URL(/^<([^>]+)>/.exec(res.headers.get("link")!)![1]!).search);
    expect(expectStatus(rest, 200)).toHaveLength(1);
    expect(rest.headers.get("link")).toBeNull();
  });

  test("a cursor the service did not make is RequestInvalid at /query/cursor", async () => {
    for (const cursor of ["garbage", encodeCursor(["2026-01-01", "x", "y"]), encodeCursor([null, null, "id"])]) {
      const res = await call.list(`?cursor=${cursor}`);
      expect(res.status).toBe(400);
      expect(res.body.issues.map((i: { path: string }) => i.path)).toContain("/query/cursor");
    }
  });
});
