/** Works orders over REST and MCP: raise (its default requiredBy and refusals), read, list, cancel, their events. */
import { describe, expect, test } from "bun:test";
import { ulid } from "ulid";
import { harness } from "../support/harness.ts";
import { bodyOf, connectHttp, type Handler } from "../mcp/support.ts";
import { expectStatus, fromNow, repairCalls, repairWorld, type RepairWorld } from "./repair_fixtures.ts";

const h = await harness();
const db = h.database.db;

/** A world with a contractor contact and an emergency repair reported an hour ago. */
async function orderWorld(given?: RepairWorld) {
  const world = given ?? (await repairWorld(h));
  const call = repairCalls(h, world);
  const contractorId = await h.rows(world.ws).contact({ name: "Cal Contractor", roles: ["contractor"] });
  const repair = expectStatus(
    await call.report({ awareAt: fromNow(-3_600_000), hazard: "emergency", hhsrsHazard: "damp_and_mould_growth" }),
    201,
  );
  const key = world.ws.key;
  const orders = {
    raise: (body: Record<string, unknown>, repairId = repair.id, k = key) =>
      h.request("POST", `/maintenance-pro/repairs/${repairId}/works-orders`, {
        key: k,
        body: { contractorContactId: contractorId, purpose: "make_safe", instructions: "Make it safe", ...body },
      }),
    get: (id: string, k = key) => h.request("GET", `/maintenance-pro/works-orders/${id}`, { key: k }),
    list: (query = "", k = key) => h.request("GET", `/maintenance-pro/works-orders${query}`, { key: k }),
    cancel: (id: string, body: Record<string, unknown>, k = key) =>
      h.request("POST", `/maintenance-pro/works-orders/${id}/cancel`, { key: k, body }),
  };
  return { world, call, contractorId, repair, orders };
}

describe("raising a works order", () => {
  test("a raise answers the order: reference per repair, requiredBy the clock its purpose serves, event, log", async () => {
    const { repair, orders, contractorId, world } = await orderWorld();
    const makeSafe = repair.clocks.find((c: { kind: string }) => c.kind === "emergency_make_safe").dueAt;
    const first = expectStatus(await orders.raise({ instructions: "  Make it safe  " }), 201);
    expect(first).toMatchObject({
      reference: `${repair.reference}/1`,
      repairId: repair.id,
      contractorContactId: contractorId,
      purpose: "make_safe",
      instructions: "Make it safe",
      requiredBy: makeSafe,
      status: "raised",
      appointment: null,
      keySetId: null,
      revision: 1,
    });
    const second = expectStatus(await orders.raise({ purpose: "repair" }), 201);
    expect(second.reference).toBe(`${repair.reference}/2`);
    expect(second.requiredBy).toBeNull();
    const given = expectStatus(await orders.raise({ purpose: "repair", requiredBy: "2031-01-02T03:04:05+01:00" }), 201);
    expect(given.requiredBy).toBe("2031-01-02T02:04:05.000Z");
    const events = await db`
      select type, data from events where workspace_id = ${world.ws.id} and subject_id = ${first.id}`;
    expect(events.map((e) => e.type)).toEqual(["works_order.raised"]);
    expect(events[0]!.data).toEqual(first);
    const log = await db`
      select action from activity_log where workspace_id = ${world.ws.id} and subject_id = ${first.id}`;
    expect(log.map((l) => l.action)).toEqual(["maintenance-pro.works_order_raised"]);
    expect(expectStatus(await orders.get(first.id), 200)).toEqual(first);
  });

  test("refusals: unknown repair, another workspace's, closed repair, unknown contact, not a contractor", async () => {
    const { world, call, repair, orders } = await orderWorld();
    const other = await orderWorld();
    const refused = async (res: Awaited<ReturnType<typeof orders.raise>>, status: number, type: string) => {
      expect(res.status).toBe(status);
      expect(res.body.type ?? res.body.error?.type ?? res.text).toContain(type);
    };
    await refused(await orders.raise({}, ulid()), 404, "RepairNotFound");
    await refused(await orders.raise({}, other.repair.id), 404, "RepairNotFound");
    await refused(await orders.raise({ contractorContactId: ulid() }), 404, "ContactNotFound");
    await refused(await orders.raise({ contractorContactId: other.contractorId }), 404, "ContactNotFound");
    await refused(await orders.raise({ contractorContactId: world.tenantId }), 409, "NotAContractor");
    await refused(await orders.raise({ keySetId: ulid() }), 400, "KeySetNotOfUnit");
    const otherUnit = await h.rows(world.ws).unit({ propertyId: world.propertyId, label: "Flat 3" });
    const [elsewhere, ours] = [ulid(), ulid()];
    await db`
      insert into key_sets (workspace_id, id, reference, label, unit_id, status, holder_type)
      values (${world.ws.id}, ${elsewhere}, 'K-1', 'Front door', ${otherUnit}, 'in_office', 'office'),
             (${world.ws.id}, ${ours}, 'K-2', 'Front door', ${world.unitId}, 'in_office', 'office')`;
    await refused(await orders.raise({ keySetId: elsewhere }), 400, "KeySetNotOfUnit");
    expect(expectStatus(await orders.raise({ keySetId: ours }), 201).keySetId).toBe(ours);
    await db`delete from works_orders where workspace_id = ${world.ws.id}`;
    expectStatus(await call.cancel(repair.id, { reason: "Duplicate" }), 200);
    await refused(await orders.raise({}), 409, "RepairClosed");
    expect(await db`select 1 from works_orders where workspace_id = ${world.ws.id}`).toHaveLength(0);
  });
});

describe("retries with a requestId", () => {
  test("the same requestId and body raise one order and replay it; another body or repair is RequestIdReused", async () => {
    const { world, repair, orders, call } = await orderWorld();
    const body = { requestId: "raise-1", instructions: "Make it safe" };
    const first = await orders.raise(body);
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const retries = await Promise.all([
      orders.raise(body),
      orders.raise({ instructions: "Make it safe", requestId: "raise-1" }),
    ]);
    for (const retry of retries) {
      expect(retry.status).toBe(201);
      expect(retry.headers.get("idempotent-replayed")).toBe("true");
      expect(retry.text).toBe(first.text);
    }
    const otherBody = await orders.raise({ ...body, instructions: "Something else" });
    expect(otherBody.status).toBe(422);
    expect(otherBody.text).toContain("RequestIdReused");
    const second = expectStatus(await call.report({}), 201);
    const otherRepair = await orders.raise(body, second.id);
    expect(otherRepair.status).toBe(422);
    expect(otherRepair.text).toContain("RequestIdReused");
    const stored = await db`select id from works_orders where workspace_id = ${world.ws.id}`;
    expect(stored.map((r) => r.id)).toEqual([first.body.id]);
    const events = await db`select 1 from events where workspace_id = ${world.ws.id} and type = 'works_order.raised'`;
    expect(events).toHaveLength(1);
    expect(repair.id).toBe(first.body.repairId);
  });
});

describe("the list", () => {
  test("orders by requiredBy (none last), filters by repair, contractor, status and requiredBefore, pages", async () => {
    const a = await orderWorld();
    const b = await orderWorld(a.world);
    const late = expectStatus(await a.orders.raise({ requiredBy: "2030-01-01T00:00:00Z" }), 201);
    const none = expectStatus(await a.orders.raise({ purpose: "repair" }), 201);
    const early = expectStatus(await b.orders.raise({ requiredBy: "2029-01-01T00:00:00Z" }), 201);
    const ids = (res: Awaited<ReturnType<typeof a.orders.list>>) =>
      expectStatus(res, 200).map((o: { id: string }) => o.id);
    expect(ids(await a.orders.list())).toEqual([early.id, late.id, none.id]);
    expect(ids(await a.orders.list(`?repairId=${a.repair.id}`))).toEqual([late.id, none.id]);
    expect(ids(await a.orders.list(`?contractorContactId=${b.contractorId}`))).toEqual([early.id]);
    expect(ids(await a.orders.list("?requiredBefore=2029-06-01T00:00:00Z"))).toEqual([early.id]);
    expectStatus(await a.orders.cancel(late.id, { expectedRevision: 1, reason: "Not needed" }), 200);
    expect(ids(await a.orders.list("?status=cancelled"))).toEqual([late.id]);
    expect(ids(await a.orders.list("?status=raised"))).toEqual([early.id, none.id]);
    expect((await a.orders.list("?status=done")).status).toBe(400);
    const first = await a.orders.list("?limit=2");
    expect(ids(first)).toEqual([early.id, late.id]);
    const next = first.headers.get("link")!.match(/<([^>]+)>/)![1]!;
    const url = new URL(next);
    expect(ids(await a.orders.list(url.search))).toEqual([none.id]);
    const other = await orderWorld();
    expect(ids(await other.orders.list())).toEqual([]);
    expect((await other.orders.get(early.id)).status).toBe(404);
  });
});

describe("cancelling", () => {
  test("cancel from an open status; a stale revision, a closed order and another workspace are refused", async () => {
    const { orders, world } = await orderWorld();
    const order = expectStatus(await orders.raise({}), 201);
    const stale = await orders.cancel(order.id, { expectedRevision: 2, reason: "x" });
    expect(stale.status).toBe(409);
    expect(stale.text).toContain("RevisionConflict");
    const other = await orderWorld();
    expect((await other.orders.cancel(order.id, { expectedRevision: 1, reason: "x" })).status).toBe(404);
    const cancelled = expectStatus(await orders.cancel(order.id, { expectedRevision: 1, reason: " Sorted " }), 200);
    expect(cancelled).toMatchObject({ status: "cancelled", cancelReason: "Sorted", revision: 2 });
    expect(expectStatus(await orders.cancel(order.id, { expectedRevision: 1, reason: "again" }), 200)).toEqual(
      cancelled,
    );
    const events = await db`select type from events where workspace_id = ${world.ws.id} and subject_id = ${order.id}`;
    expect(events.map((e) => e.type)).toEqual(["works_order.raised", "works_order.cancelled"]);
    for (const status of ["completed", "declined"]) {
      const done = expectStatus(await orders.raise({}), 201);
      await db`update works_orders set status = ${status} where workspace_id = ${world.ws.id} and id = ${done.id}`;
      const res = await orders.cancel(done.id, { expectedRevision: 1, reason: "x" });
      expect(res.status).toBe(409);
      expect(res.text).toContain("WorksOrderClosed");
    }
  });
});

describe("as MCP tools", () => {
  test("each operation is a tool; a raise through the tool is the REST raise", async () => {
    const { world, repair, contractorId, orders } = await orderWorld();
    const session = await connectHttp(h.app as unknown as Handler, { key: world.ws.key });
    try {
      const names = (await session.client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(
        expect.arrayContaining([
          "maintenancePro_raiseWorksOrder",
          "maintenancePro_worksOrder",
          "maintenancePro_worksOrders",
          "maintenancePro_cancelWorksOrder",
        ]),
      );
      const result = await session.client.callTool({
        name: "maintenancePro_raiseWorksOrder",
        arguments: { id: repair.id, contractorContactId: contractorId, purpose: "investigation", instructions: "Look" },
      });
      const order = bodyOf(result);
      expect(order.status).toBe("raised");
      expect(expectStatus(await orders.get(order.id), 200)).toEqual(order);
    } finally {
      await session.close();
    }
  });
});
