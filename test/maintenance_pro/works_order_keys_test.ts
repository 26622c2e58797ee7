/**
 * A works order's key set: the agency checks it out to the order's contractor and back in (REST and MCP), with every
 * refusal; the handover row of the unit's tenancy follows the set's holder; the contractor's page says whether they
 * have it, and its form "The key does not work" stores a key report of source kind `repair` once.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { ulid } from "ulid";
import { bodyOf, connectHttp, type Handler } from "../mcp/support.ts";
import { harness } from "../support/harness.ts";
import { contractorCalls, contractorWorld, deliverToOutbox } from "./contractor_fixtures.ts";
import { outboxContext } from "./portal_fixtures.ts";
import { expectStatus } from "./repair_fixtures.ts";

const h = await harness();
const db = h.database.db;
const ctx = outboxContext(h);
afterAll(() => rmSync(ctx.config.dataDir, { recursive: true, force: true }));
const { page, post } = contractorCalls(ctx);

/** An order naming a key set of the repair's unit (in the office), with calls of the key set operations. */
async function keyed(given?: Awaited<ReturnType<typeof contractorWorld>>) {
  const w = given ?? (await contractorWorld(h));
  const ws = w.world.ws;
  const keySetId = ulid();
  await db`
    insert into key_sets (workspace_id, id, reference, label, unit_id, status, holder_type, holder_name, sequence)
    values (${ws.id}, ${keySetId}, ${`K-${keySetId.slice(-4)}`}, 'Front door', ${w.world.unitId}, 'in_office',
      'office', 'Bristol office', 1)`;
  const order = await w.raise({ keySetId });
  const key = ws.key;
  const checkOut = (id = order.id, k = key) =>
    h.request("POST", `/maintenance-pro/works-orders/${id}/key-set/check-out`, { key: k });
  const giveBack = (id = order.id, k = key) =>
    h.request("POST", `/maintenance-pro/works-orders/${id}/key-set/return`, { key: k });
  const keySet = async () => {
    const [row] = await db`
      select status, holder_type, holder_contact_id, holder_name, tenancy_id from key_sets
      where workspace_id = ${ws.id} and id = ${keySetId}`;
    return row!;
  };
  /** The set as the handover row of the unit's tenancy lists it: the list it is in, or none. */
  const handoverList = async () => {
    const row = expectStatus(await h.request("GET", `/handovers/tenancies/${w.world.tenancyId}`, { key }), 200);
    const lists = ["held", "ambiguous", "available"].filter((l) =>
      row.keys[l].some((k: { id: string }) => k.id === keySetId),
    );
    return { lists, row };
  };
  const log = () =>
    db<{ action: string; detail: Record<string, unknown> }[]>`
      select action, detail from activity_log
      where workspace_id = ${ws.id} and subject_id = ${order.id} and action like '%key_set%'
      order by occurred_at, id`;
  return { ...w, keySetId, order, checkOut, giveBack, keySet, handoverList, log };
}

const refusal = (res: { status: number; body: { _tag?: string } & Record<string, unknown> }) => ({
  status: res.status,
  tag: res.body._tag,
});

describe("checking the key set out and back in", () => {
  test("check-out: held by the contractor, in no handover list, still after completion; return: available", async () => {
    const o = await keyed();
    expect(o.order.keySet).toEqual({
      id: o.keySetId,
      reference: expect.stringMatching(/^K-/),
      label: "Front door",
      status: "in_office",
      holderType: "office",
      withContractor: false,
    });
    expect((await o.handoverList()).lists).toEqual(["available"]);

    const out = expectStatus(await o.checkOut(), 200);
    expect(out.keySet).toMatchObject({ status: "checked_out", holderType: "contractor", withContractor: true });
    // A write of the key set, not of the order.
    expect(out.revision).toBe(o.order.revision);
    expect(out.updatedAt).toBe(o.order.updatedAt);
    expect(await o.keySet()).toEqual({
      status: "checked_out",
      holderType: "contractor",
      holderContactId: o.contractorId,
      holderName: "Cal Contractor",
      tenancyId: null,
    });
    expect(
      expectStatus(await h.request("GET", `/maintenance-pro/works-orders/${o.order.id}`, { key: o.world.ws.key }), 200),
    ).toEqual(out);
    // Checked out to a contractor: in none of the tenancy's lists, as any set out elsewhere.
    expect((await o.handoverList()).lists).toEqual([]);

    // Again: the same answer, nothing written.
    const logged = await o.log();
    expect(logged.map((l) => l.action)).toEqual(["maintenance-pro.works_order_key_set_checked_out"]);
    expect(logged[0]!.detail).toMatchObject({
      keySetId: o.keySetId,
      contractorContactId: o.contractorId,
      from: { status: "in_office", holderType: "office", holderContactId: null },
    });
    const again = await o.checkOut();
    expect(again.status).toBe(200);
    expect(again.body).toEqual(out);
    expect(await o.log()).toHaveLength(1);

    // The order completes with the set still out: the handover row still shows it as out (in no list).
    await db`update works_orders set status = 'completed' where workspace_id = ${o.world.ws.id} and id = ${o.order.id}`;
    expect((await o.handoverList()).lists).toEqual([]);
    expect((await o.keySet()).status).toBe("checked_out");
    // A repeat of the check-out after completion still answers the same, writing nothing.
    expect((await o.checkOut()).status).toBe(200);
    expect(await o.log()).toHaveLength(1);

    // Returned (allowed after completion): back in the office, available to the tenancy.
    const back = expectStatus(await o.giveBack(), 200);
    expect(back.keySet).toMatchObject({ status: "in_office", holderType: "office", withContractor: false });
    expect(await o.keySet()).toEqual({
      status: "in_office",
      holderType: "office",
      holderContactId: null,
      holderName: "",
      tenancyId: null,
    });
    expect((await o.handoverList()).lists).toEqual(["available"]);
    expect((await o.log()).map((l) => l.action)).toEqual([
      "maintenance-pro.works_order_key_set_checked_out",
      "maintenance-pro.works_order_key_set_returned",
    ]);
    // A repeated return: the same answer, nothing written.
    const backAgain = await o.giveBack();
    expect(backAgain.status).toBe(200);
    expect(backAgain.body).toEqual(back);
    expect(await o.log()).toHaveLength(2);
  });

  test("refusals: unknown order, another workspace's, no key set, lost, out to someone else, closed", async () => {
    const o = await keyed();
    const other = await keyed();
    const before = await o.keySet();
    for (const id of [ulid(), other.order.id]) {
      expect(refusal(await o.checkOut(id))).toEqual({ status: 404, tag: "WorksOrderNotFound" });
      expect(refusal(await o.giveBack(id))).toEqual({ status: 404, tag: "WorksOrderNotFound" });
    }
    expect(await other.keySet()).toMatchObject({ status: "in_office" });

    const noKeys = await o.raise({});
    expect(refusal(await o.checkOut(noKeys.id))).toEqual({ status: 409, tag: "WorksOrderHasNoKeySet" });
    expect(refusal(await o.giveBack(noKeys.id))).toEqual({ status: 409, tag: "WorksOrderHasNoKeySet" });

    await db`update key_sets set status = 'lost' where workspace_id = ${o.world.ws.id} and id = ${o.keySetId}`;
    expect(refusal(await o.checkOut())).toEqual({ status: 409, tag: "KeySetLost" });
    const lostReturn = await o.giveBack();
    expect(lostReturn.status).toBe(409);
    expect(lostReturn.body).toMatchObject({ _tag: "KeySetNotWithContractor", keySetId: o.keySetId, status: "lost" });

    // Checked out to the tenant: the refusal says who has it.
    await db`
      update key_sets set status = 'checked_out', holder_type = 'tenant', holder_contact_id = ${o.world.tenantId},
        holder_name = 'Tia Tenant'
      where workspace_id = ${o.world.ws.id} and id = ${o.keySetId}`;
    const taken = await o.checkOut();
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({
      _tag: "KeySetCheckedOut",
      keySetId: o.keySetId,
      holderType: "tenant",
      holderName: "Tia Tenant",
    });
    const notOurs = await o.giveBack();
    expect(notOurs.status).toBe(409);
    expect(notOurs.body).toMatchObject({
      _tag: "KeySetNotWithContractor",
      status: "checked_out",
      holderType: "tenant",
      holderName: "Tia Tenant",
    });
    // Another contractor holds it: the same.
    const rival = await h.rows(o.world.ws).contact({ name: "Rob Rival", roles: ["contractor"] });
    await db`
      update key_sets set holder_type = 'contractor', holder_contact_id = ${rival}, holder_name = 'Rob Rival'
      where workspace_id = ${o.world.ws.id} and id = ${o.keySetId}`;
    expect((await o.checkOut()).body).toMatchObject({ _tag: "KeySetCheckedOut", holderName: "Rob Rival" });
    expect((await o.giveBack()).body).toMatchObject({ _tag: "KeySetNotWithContractor", holderName: "Rob Rival" });

    // A closed order takes no check-out (a return is still taken: see above).
    await db`
      update key_sets set status = 'in_office', holder_type = 'office', holder_contact_id = null, holder_name = ''
      where workspace_id = ${o.world.ws.id} and id = ${o.keySetId}`;
    for (const status of ["completed", "declined", "cancelled"]) {
      await db`update works_orders set status = ${status} where workspace_id = ${o.world.ws.id} and id = ${o.order.id}`;
      const res = await o.checkOut();
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ _tag: "WorksOrderClosed", status });
    }
    // Nothing was written by any refusal.
    expect(await o.log()).toHaveLength(0);
    expect(await other.log()).toHaveLength(0);
    expect((await o.keySet()).status).toBe(before.status);
  });

  test("two orders of different contractors check the set out at once, again and again: exactly one wins", async () => {
    const o = await keyed();
    const rival = await h.rows(o.world.ws).contact({ name: "Rob Rival", roles: ["contractor"] });
    const second = await o.raise({ keySetId: o.keySetId, contractorContactId: rival });
    for (let round = 0; round < 10; round++) {
      const answers = await Promise.all([o.checkOut(o.order.id), o.checkOut(second.id)]);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
      const loser = answers.find((a) => a.status === 409)!;
      const winner = answers.indexOf(answers.find((a) => a.status === 200)!) === 0 ? o.contractorId : rival;
      expect(loser.body._tag).toBe("KeySetCheckedOut");
      expect((await o.keySet()).holderContactId).toBe(winner);
      const back = await o.giveBack(winner === rival ? second.id : o.order.id);
      expect(back.status).toBe(200);
    }
  });

  test("as MCP tools: listed for a writing key, not for a reading one; a check-out through the tool is REST's", async () => {
    const o = await keyed();
    const tools = ["maintenancePro_checkOutWorksOrderKeySet", "maintenancePro_returnWorksOrderKeySet"];
    const session = await connectHttp(h.app as unknown as Handler, { key: o.world.ws.key });
    const reader = await connectHttp(h.app as unknown as Handler, {
      key: await h.key(o.world.ws, ["maintenance-pro:read"]),
    });
    try {
      const names = (await session.client.listTools()).tools.map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(tools));
      const readable = (await reader.client.listTools()).tools.map((t) => t.name);
      expect(tools.filter((t) => readable.includes(t))).toEqual([]);
      const result = await session.client.callTool({ name: tools[0]!, arguments: { id: o.order.id } });
      const order = bodyOf(result);
      expect(order.keySet).toMatchObject({ status: "checked_out", withContractor: true });
      expect(expectStatus(await o.checkOut(), 200)).toEqual(order);
      const back = bodyOf(await session.client.callTool({ name: tools[1]!, arguments: { id: o.order.id } }));
      expect(back.keySet.status).toBe("in_office");
    } finally {
      await session.close();
      await reader.close();
    }
  });
});

describe("the contractor's page", () => {
  /** An order naming a key set, its link delivered. */
  async function linked() {
    const o = await keyed();
    const token = await deliverToOutbox(ctx, o.world.ws.id, o.order.id);
    const reports = async () =>
      expectStatus(await h.request("GET", `/keys/sets/${o.keySetId}/reports`, { key: o.world.ws.key }), 200);
    const report = (note: string, headers?: Record<string, string>) =>
      post(token, { action: "key_report", note }, headers);
    return { ...o, token, reports, report };
  }

  test("says whether the contractor has the set: collect it from us, then you have it, then collect again", async () => {
    const o = await linked();
    const text = async () => (await page(o.token)).text;
    expect(await text()).toContain(`Key set ${o.order.keySet.reference}: Front door. Collect it from us.`);
    expectStatus(await o.checkOut(), 200);
    expect(await text()).toContain(`Key set ${o.order.keySet.reference}: Front door. You have it.`);
    expectStatus(await o.giveBack(), 200);
    expect(await text()).toContain("Collect it from us.");
    // The form is offered while the order is open and names a key set; not on an order without one.
    expect(await text()).toContain('value="key_report"');
    const noKeys = await o.raise({});
    const noKeysToken = await deliverToOutbox(ctx, o.world.ws.id, noKeys.id);
    const plain = (await page(noKeysToken)).text;
    expect(plain).toContain("No keys needed from us");
    expect(plain).not.toContain('value="key_report"');
  });

  test("a report from the page is a key report of the repair, by the contractor, logged; sent twice it is one", async () => {
    const o = await linked();
    expect((await o.reports()).reports).toEqual([]);
    const [{ sentAfter }] = await db<[{ sentAfter: string }]>`select now()::text as sent_after`;
    const sent = await o.report("  The key turns but the lock does not open  ");
    expect(sent.status).toBe(303);
    expect(sent.headers.get("location")).toBe(`/contractor/${o.token}`);
    const after = await o.reports();
    expect(after.notWorking).toBe(true);
    expect(after.reports).toEqual([
      {
        id: expect.any(String),
        keySetId: o.keySetId,
        note: "The key turns but the lock does not open",
        source: { kind: "repair", id: o.repair.id, label: o.repair.reference },
        reportedBy: "Cal Contractor",
        reportedAt: expect.any(String),
        cleared: null,
      },
    ]);
    const [stamp] = await db`
      select reported_at >= ${sentAfter}::timestamptz and reported_at <= now() as now_ish from key_reports
      where workspace_id = ${o.world.ws.id} and id = ${after.reports[0].id}`;
    expect(stamp!.nowIsh).toBe(true);
    const [entry] = await db<{ action: string; actorKeyId: string | null; detail: Record<string, unknown> }[]>`
      select action, actor_key_id, detail from activity_log
      where workspace_id = ${o.world.ws.id} and subject_id = ${o.order.id}
        and action = 'maintenance-pro.works_order_key_set_reported'`;
    expect(entry).toMatchObject({
      actorKeyId: null,
      detail: {
        actor: { kind: "contractor", contactId: o.contractorId },
        keySetId: o.keySetId,
        keyReportId: after.reports[0].id,
        note: "The key turns but the lock does not open",
      },
    });
    expect((await page(o.token)).text).toContain("You told us the key does not work");
    // The same form again (a double submit), even at once: still one report, each answer back to the page.
    const again = await Promise.all([
      o.report("The key turns but the lock does not open"),
      o.report("The key turns but the lock does not open"),
    ]);
    expect(again.map((a) => a.status)).toEqual([303, 303]);
    expect((await o.reports()).reports).toHaveLength(1);
    // Another note is another report; the order itself is not written.
    expect((await o.report("The spare does not fit either")).status).toBe(303);
    expect((await o.reports()).reports).toHaveLength(2);
    const order = expectStatus(
      await h.request("GET", `/maintenance-pro/works-orders/${o.order.id}`, { key: o.world.ws.key }),
      200,
    );
    expect(order.revision).toBe(o.order.revision);
  });

  test("refused: no note, a cross-site post, a closed order; nothing is stored", async () => {
    const o = await linked();
    const empty = await o.report("   ");
    expect(empty.status).toBe(400);
    expect(empty.text).toContain("Please say what is wrong with the key.");
    const crossSite = await o.report("Broken", { "sec-fetch-site": "cross-site", origin: "https://evil.example" });
    expect(crossSite.status).toBe(403);
    await db`update works_orders set status = 'cancelled' where workspace_id = ${o.world.ws.id} and id = ${o.order.id}`;
    const closed = await o.report("Broken");
    expect(closed.status).toBe(409);
    expect(closed.text).toContain("Nothing was recorded: this order is now cancelled");
    expect((await page(o.token)).text).not.toContain('value="key_report"');
    expect((await o.reports()).reports).toEqual([]);
  });
});
