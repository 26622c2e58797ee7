/**
 * A contractor's appointment on the agenda: an event of kind `repair_visit` at the repair's property with the
 * contractor, moved when agreed again, closed by the visit (attended, or no_show for no access), a new one for the
 * next appointment, cancelled with the order. Read through `GET /calendar/agenda`, over stored days and computed.
 */
import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { londonInstant, londonToday } from "../../src/core/dates.ts";
import { harness } from "../support/harness.ts";
import { contractorCalls, contractorWorld, deliverToOutbox } from "./contractor_fixtures.ts";
import { outboxContext } from "./portal_fixtures.ts";
import { expectStatus } from "./repair_fixtures.ts";

const h = await harness();
const ctx = outboxContext(h);
afterAll(() => rmSync(ctx.config.dataDir, { recursive: true, force: true }));
const { post } = contractorCalls(ctx);

const tomorrow = londonToday(Date.now() + 86_400_000);
const later = londonToday(Date.now() + 3 * 86_400_000);
const iso = (date: string, time: string) => new Date(londonInstant(date, time)).toISOString();

async function linked(purpose = "repair") {
  const w = await contractorWorld(h);
  const order = await w.raise({ purpose });
  const token = await deliverToOutbox(ctx, w.world.ws.id, order.id);
  const read = async () =>
    expectStatus(await h.request("GET", `/maintenance-pro/works-orders/${order.id}`, { key: w.world.ws.key }), 200);
  const act = async (action: string, fields: Record<string, string> = {}) => {
    const res = await post(token, { revision: String((await read()).revision), action, ...fields });
    expect(res.status).toBe(303);
  };
  /** The agenda's repair visits of the next week (dates: served from stored days once stored), and filtered. */
  const agenda = async (extra = "") => {
    const days = `from=${londonToday()}&to=${londonToday(Date.now() + 7 * 86_400_000)}`;
    const all = expectStatus(await h.request("GET", `/calendar/agenda?${days}${extra}`, { key: w.world.ws.key }), 200);
    const byKind = expectStatus(
      await h.request("GET", `/calendar/agenda?${days}&kind=repair_visit${extra}`, { key: w.world.ws.key }),
      200,
    );
    expect(byKind).toEqual(all.filter((e: { kind: string }) => e.kind === "repair_visit"));
    return byKind;
  };
  return { ...w, order, act, agenda };
}

test("an appointment is a repair_visit on the agenda, moved when agreed again, closed by the visit", async () => {
  const o = await linked();
  expect(await o.agenda()).toEqual([]);
  await o.act("accept");
  await o.act("schedule", { date: tomorrow, from: "09:00", to: "11:00" });
  const [visit] = await o.agenda();
  expect(visit).toMatchObject({
    kind: "repair_visit",
    subjectKind: "works_order",
    subjectId: o.order.id,
    title: `Repair visit ${o.order.reference}: Cal Contractor`,
    startsAt: iso(tomorrow, "09:00"),
    endsAt: iso(tomorrow, "11:00"),
    status: "scheduled",
    propertyId: o.world.propertyId,
    propertyLabel: "4 Mill Lane",
    contactId: o.contractorId,
    contactName: "Cal Contractor",
    staffUserId: null,
    revision: 1,
  });
  // Agreed again before the visit: the same event, moved (the stored days were discarded with the write).
  await o.act("schedule", { date: later, from: "14:00", to: "15:00" });
  const moved = await o.agenda();
  expect(moved).toHaveLength(1);
  expect(moved[0]).toMatchObject({ id: visit.id, startsAt: iso(later, "14:00"), revision: 2 });

  await o.act("visit", { outcome: "no_access", note: "No answer at the door" });
  const [missed] = await o.agenda();
  expect(missed).toMatchObject({ id: visit.id, status: "completed", outcome: "no_show" });
  expect(missed.outcomeNote).toBe("No answer at the door");

  await o.act("schedule", { date: tomorrow, from: "16:00", to: "17:00" });
  await o.act("visit", { outcome: "completed", note: "Fixed" });
  const visits = await o.agenda();
  expect(visits).toHaveLength(2);
  const second = visits.find((e: { id: string }) => e.id !== visit.id);
  expect(second).toMatchObject({ startsAt: iso(tomorrow, "16:00"), status: "completed", outcome: "attended" });
});

test("the agency cancelling the order cancels its visit to come", async () => {
  const o = await linked();
  await o.act("accept");
  await o.act("schedule", { date: tomorrow, from: "09:00", to: "10:00" });
  expect(await o.agenda()).toHaveLength(1);
  expectStatus(
    await h.request("POST", `/maintenance-pro/works-orders/${o.order.id}/cancel`, {
      key: o.world.ws.key,
      body: { expectedRevision: 3, reason: "Tenant moved out" },
    }),
    200,
  );
  expect(await o.agenda()).toEqual([]);
  const [cancelled] = await o.agenda("&includeCancelled=true");
  expect(cancelled).toMatchObject({ status: "cancelled", cancelReason: "Tenant moved out" });
});
