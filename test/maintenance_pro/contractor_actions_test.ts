/**
 * The contractor's forms: accept, decline (a reason), an appointment, the visit (attended, no access with a note,
 * completed). Each follows the order's statuses, moves its revision, records its event and activity entry naming the
 * contractor, and writes on the repair what the agency would have (milestone or access attempt). Refusals change
 * nothing; the agency cancelling while the contractor completes: exactly one wins.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { londonInstant, londonToday } from "../../src/core/dates.ts";
import { harness } from "../support/harness.ts";
import { contractorCalls, contractorWorld, deliverToOutbox } from "./contractor_fixtures.ts";
import { outboxContext } from "./portal_fixtures.ts";
import { expectStatus } from "./repair_fixtures.ts";

const h = await harness();
const db = h.database.db;
const ctx = outboxContext(h);
afterAll(() => rmSync(ctx.config.dataDir, { recursive: true, force: true }));
const { page, post } = contractorCalls(ctx);

const tomorrow = londonToday(Date.now() + 86_400_000);
const window = { date: tomorrow, from: "09:00", to: "11:30" };

/** An order raised and its link delivered, with calls of its page. */
async function linked(purpose = "make_safe", given?: Awaited<ReturnType<typeof contractorWorld>>) {
  const w = given ?? (await contractorWorld(h));
  const order = await w.raise({ purpose });
  const token = await deliverToOutbox(ctx, w.world.ws.id, order.id);
  const read = async () =>
    expectStatus(await h.request("GET", `/maintenance-pro/works-orders/${order.id}`, { key: w.world.ws.key }), 200);
  const repair = async () => expectStatus(await w.call.get(w.repair.id), 200);
  const act = async (action: string, fields: Record<string, string> = {}, headers?: Record<string, string>) => {
    const revision = String((await read()).revision);
    return post(token, { revision, action, ...fields }, headers);
  };
  const events = async () =>
    db<{ type: string; actorKind: string; actorId: string; data: { revision: number } }[]>`
      select type, actor_kind, actor_id, data from events
      where workspace_id = ${w.world.ws.id} and subject_id in (${order.id}, ${w.repair.id})
        and type not in ('repair.reported', 'repair.triaged')
      order by tx_id, id`;
  const log = async () =>
    db<{ action: string; actorKeyId: string | null; detail: Record<string, unknown> }[]>`
      select action, actor_key_id, detail from activity_log
      where workspace_id = ${w.world.ws.id} and subject_id in (${order.id}, ${w.repair.id})
        and action not in ('maintenance-pro.repair_reported', 'maintenance-pro.repair_triaged')
      order by occurred_at, id`;
  return { ...w, order, token, read, repair, act, events, log };
}

describe("the order's statuses", () => {
  test("accept, appointment, no access, new appointment, completed: each writes its event and log entry", async () => {
    const o = await linked("make_safe");
    const accepted = await o.act("accept");
    expect(accepted.status).toBe(303);
    expect(accepted.headers.get("location")).toBe(`/contractor/${o.token}`);
    expect(await o.read()).toMatchObject({ status: "accepted", revision: 2 });

    expect((await o.act("schedule", window)).status).toBe(303);
    const scheduled = await o.read();
    expect(scheduled).toMatchObject({ status: "scheduled", revision: 3 });
    expect(scheduled.appointment).toEqual({
      startsAt: new Date(londonInstant(tomorrow, "09:00")).toISOString(),
      endsAt: new Date(londonInstant(tomorrow, "11:30")).toISOString(),
    });

    expect((await o.act("visit", { outcome: "no_access", note: "Knocked twice, rang the tenant" })).status).toBe(303);
    expect(await o.read()).toMatchObject({ status: "no_access", revision: 4 });
    const afterNoAccess = await o.repair();
    expect(afterNoAccess.accessAttempts).toHaveLength(1);
    expect(afterNoAccess.accessAttempts[0]).toMatchObject({ outcome: "no_answer" });
    expect(afterNoAccess.accessAttempts[0].note).toContain("Knocked twice, rang the tenant");

    expect((await o.act("schedule", { ...window, from: "13:00", to: "14:00" })).status).toBe(303);
    expect(await o.read()).toMatchObject({ status: "scheduled", revision: 5 });
    expect((await o.act("visit", { outcome: "completed", note: "Ceiling propped" })).status).toBe(303);
    const done = await o.read();
    expect(done).toMatchObject({ status: "completed", revision: 6 });

    const repair = await o.repair();
    expect(repair.milestones.map((m: { kind: string }) => m.kind)).toEqual(["made_safe"]);
    expect(repair.milestones[0].note).toContain("Ceiling propped");
    expect(repair.clocks.find((c: { kind: string }) => c.kind === "emergency_make_safe").status).toBe("met");

    const events = await o.events();
    expect(events.map((e) => e.type)).toEqual([
      "works_order.raised",
      "works_order.accepted",
      "works_order.scheduled",
      "repair.access_attempt_recorded",
      "works_order.no_access",
      "works_order.scheduled",
      "repair.milestone_recorded",
      "works_order.completed",
    ]);
    for (const e of events.slice(1)) expect([e.actorKind, e.actorId]).toEqual(["contractor", o.contractorId]);
    expect(events.at(-1)!.data).toEqual(done);
    // The feed answers them (its envelope names the contractor as the actor).
    const types =
      "type=works_order.accepted&type=works_order.scheduled&type=works_order.no_access" + "&type=works_order.completed";
    const items = expectStatus(await h.request("GET", `/events?${types}`, { key: o.world.ws.key }), 200);
    expect(items.map((e: { type: string }) => e.type)).toEqual([
      "works_order.accepted",
      "works_order.scheduled",
      "works_order.no_access",
      "works_order.scheduled",
      "works_order.completed",
    ]);
    for (const e of items) expect(e.actor).toEqual({ kind: "contractor", id: o.contractorId });
    const log = await o.log();
    expect(log.map((l) => l.action)).toEqual([
      "maintenance-pro.works_order_raised",
      "maintenance-pro.works_order_accepted",
      "maintenance-pro.works_order_scheduled",
      "maintenance-pro.repair_access_attempt_recorded",
      "maintenance-pro.works_order_no_access",
      "maintenance-pro.works_order_scheduled",
      "maintenance-pro.repair_milestone_recorded",
      "maintenance-pro.works_order_completed",
    ]);
    for (const l of log.slice(1)) {
      expect(l.actorKeyId).toBeNull();
      expect(l.detail.actor).toEqual({ kind: "contractor", contactId: o.contractorId });
    }
    // A completed order's page is read-only; a form sent anyway is refused and changes nothing.
    expect((await page(o.token)).text).not.toContain("<form");
    const late = await post(o.token, { revision: "6", action: "accept" });
    expect(late.status).toBe(409);
    expect(late.text).toContain("Nothing was recorded: this order is now completed.");
    expect((await o.read()).revision).toBe(6);
  });

  test("declining needs a reason; a declined order takes nothing more", async () => {
    const o = await linked();
    const blank = await o.act("decline", { reason: "   " });
    expect(blank.status).toBe(400);
    expect(blank.text).toContain("Please say why you decline the order.");
    expect(await o.read()).toMatchObject({ status: "raised", revision: 1 });
    expect((await o.act("decline", { reason: "  Fully booked this month " })).status).toBe(303);
    expect(await o.read()).toMatchObject({ status: "declined", declineReason: "Fully booked this month", revision: 2 });
    expect((await o.events()).map((e) => e.type)).toEqual(["works_order.raised", "works_order.declined"]);
    expect((await o.act("accept")).status).toBe(409);
    expect((await o.read()).revision).toBe(2);
  });

  test("an action its status does not allow is refused and changes nothing", async () => {
    const o = await linked();
    for (const [action, fields] of [
      ["schedule", window],
      ["visit", { outcome: "completed" }],
      ["visit", { outcome: "attended" }],
      ["visit", { outcome: "no_access", note: "No one in" }],
    ] as const) {
      const res = await o.act(action, fields);
      expect([action, res.status]).toEqual([action, 409]);
      expect(res.text).toContain("Nothing was recorded");
    }
    expect((await o.act("accept")).status).toBe(303);
    const again = await o.act("accept");
    expect(again.status).toBe(409);
    expect((await o.act("decline", { reason: "Changed my mind" })).status).toBe(409);
    expect((await o.act("visit", { outcome: "completed" })).status).toBe(409);
    expect(await o.read()).toMatchObject({ status: "accepted", revision: 2 });
    expect((await o.events()).map((e) => e.type)).toEqual(["works_order.raised", "works_order.accepted"]);
  });

  test("a form sent against an older revision (a second submit, a stale page) is refused", async () => {
    const o = await linked();
    expect((await post(o.token, { revision: "1", action: "accept" })).status).toBe(303);
    const twice = await post(o.token, { revision: "1", action: "accept" });
    expect(twice.status).toBe(409);
    expect(twice.text).toContain("the order changed since you opened the page");
    const stale = await post(o.token, { revision: "1", action: "schedule", ...window });
    expect(stale.status).toBe(409);
    expect(await o.read()).toMatchObject({ status: "accepted", revision: 2 });
  });

  test("cross-site posts are refused and change nothing; a post without a revision is a form problem", async () => {
    const o = await linked();
    const foreign = await o.act("accept", {}, { "sec-fetch-site": "cross-site", origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    expect(foreign.text).toContain("Please use the form on our page");
    const byOrigin = await o.act("accept", {}, { origin: "https://evil.example" });
    expect(byOrigin.status).toBe(403);
    const noRevision = await post(o.token, { action: "accept" });
    expect(noRevision.status).toBe(400);
    const unknownAction = await o.act("delete");
    expect(unknownAction.status).toBe(400);
    expect(await o.read()).toMatchObject({ status: "raised", revision: 1 });
  });
});

describe("the forms' fields", () => {
  test("an appointment needs a date and two times, ending after it starts, not over, within a year", async () => {
    const o = await linked();
    await o.act("accept");
    const yesterday = londonToday(Date.now() - 2 * 86_400_000);
    const nextYear = londonToday(Date.now() + 400 * 86_400_000);
    for (const [fields, problem] of [
      [{ date: "", from: "09:00", to: "10:00" }, "give the appointment&#x27;s date"],
      [{ date: tomorrow, from: "9am", to: "10:00" }, "give the appointment&#x27;s date"],
      [{ date: "2026-02-30", from: "09:00", to: "10:00" }, "give the appointment&#x27;s date"],
      [{ date: tomorrow, from: "10:00", to: "10:00" }, "must end after it starts"],
      [{ date: yesterday, from: "09:00", to: "10:00" }, "must not be over already"],
      [{ date: nextYear, from: "09:00", to: "10:00" }, "must be within a year"],
    ] as const) {
      const res = await o.act("schedule", fields);
      expect([fields, res.status]).toEqual([fields, 400]);
      expect(res.text).toContain(problem);
    }
    expect(await o.read()).toMatchObject({ status: "accepted", revision: 2, appointment: null });
  });

  test("no access needs a note; the household refusing entry records the attempt as refused", async () => {
    const o = await linked();
    await o.act("accept");
    await o.act("schedule", window);
    const bare = await o.act("visit", { outcome: "no_access", note: "  " });
    expect(bare.status).toBe(400);
    expect(bare.text).toContain("Please say what you tried when you could not get in.");
    const noOutcome = await o.act("visit", { note: "Done" });
    expect(noOutcome.status).toBe(400);
    expect(await o.read()).toMatchObject({ status: "scheduled", revision: 3 });
    expect((await o.repair()).accessAttempts).toHaveLength(0);
    const refused = await o.act("visit", { outcome: "no_access", note: "Tenant would not open", refused: "yes" });
    expect(refused.status).toBe(303);
    expect((await o.repair()).accessAttempts.map((a: { outcome: string }) => a.outcome)).toEqual(["refused"]);
  });
});

describe("what the repair gets", () => {
  test("investigation: `investigated` with the finding when attended, once; the finding is required", async () => {
    const o = await linked("investigation");
    await o.act("accept");
    await o.act("schedule", window);
    const noFinding = await o.act("visit", { outcome: "attended" });
    expect(noFinding.status).toBe(400);
    expect(noFinding.text).toContain("Please say what you found");
    expect((await o.act("visit", { outcome: "attended", finding: "hazard_confirmed" })).status).toBe(303);
    const repair = await o.repair();
    expect(repair.milestones).toHaveLength(1);
    expect(repair.milestones[0]).toMatchObject({ kind: "investigated", outcome: "hazard_confirmed" });
    expect(repair.clocks.find((c: { kind: string }) => c.kind === "emergency_investigate").status).toBe("met");
    // Completing records no second `investigated` (the repair would refuse it); the order still completes.
    expect((await o.act("visit", { outcome: "completed", finding: "hazard_confirmed" })).status).toBe(303);
    expect((await o.read()).status).toBe("completed");
    expect((await o.repair()).milestones).toHaveLength(1);
    const log = await o.log();
    expect(log.at(-1)!.detail.repairWrite).toBe("skipped: MilestoneRecorded");
  });

  test("safety work: `safety_work_started` when attended, once the investigation confirmed the hazard", async () => {
    const w = await contractorWorld(h);
    const o = await linked("safety_work", w);
    await o.act("accept");
    await o.act("schedule", window);
    // Not investigated yet: the repair would refuse the milestone, so the order moves on without it.
    expect((await o.act("visit", { outcome: "attended" })).status).toBe(303);
    expect((await o.repair()).milestones).toHaveLength(0);
    expect((await o.log()).at(-1)!.detail.repairWrite).toBe("skipped: MilestoneOutOfOrder");

    const second = await linked("safety_work", w);
    const rev = (await second.repair()).revision;
    expectStatus(
      await w.call.milestone(w.repair.id, {
        expectedRevision: rev,
        kind: "investigated",
        outcome: "hazard_confirmed",
        at: new Date().toISOString(),
      }),
      200,
    );
    await second.act("accept");
    await second.act("schedule", window);
    expect((await second.act("visit", { outcome: "attended" })).status).toBe(303);
    const kinds = (await second.repair()).milestones.map((m: { kind: string }) => m.kind);
    expect(kinds).toEqual(["investigated", "safety_work_started"]);
  });

  test("repair: `completed` when completed, closing the repair", async () => {
    const o = await linked("repair");
    await o.act("accept");
    await o.act("schedule", window);
    expect((await o.act("visit", { outcome: "completed", note: "New trap fitted" })).status).toBe(303);
    const repair = await o.repair();
    expect(repair.status).toBe("completed");
    expect(repair.milestones.map((m: { kind: string }) => m.kind)).toEqual(["completed"]);
    expect(repair.milestones[0].recordedByUserId).toBe(o.world.ws.ownerUserId);
  });
});

describe("the agency cancelling while the contractor completes", () => {
  /** Sessions of this database waiting for a lock. */
  const waiting = async () =>
    (
      await db<{ n: number }[]>`
        select count(*)::int as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock'`
    )[0]!.n;
  const until = async (check: () => Promise<boolean>) => {
    for (let i = 0; i < 400 && !(await check()); i++) await Bun.sleep(25);
    if (!(await check())) throw new Error("never happened");
  };

  /** Completes and cancels one order at once; `first` queues for the order's row lock first when given. */
  async function race(first?: "contractor" | "agency") {
    const o = await linked("repair");
    await o.act("accept");
    await o.act("schedule", window);
    const revision = (await o.read()).revision;
    const complete = () =>
      post(o.token, { revision: String(revision), action: "visit", outcome: "completed", note: "Done" });
    const cancel = () =>
      h.request("POST", `/maintenance-pro/works-orders/${o.order.id}/cancel`, {
        key: o.world.ws.key,
        body: { expectedRevision: revision, reason: "Tenant moved out" },
      });
    let answers: [Awaited<ReturnType<typeof complete>>, Awaited<ReturnType<typeof cancel>>];
    if (!first) answers = await Promise.all([complete(), cancel()]);
    else {
      // A third transaction holds the order's row while both queue for it, in the order wanted.
      let release = () => {};
      let locked = () => {};
      const held = new Promise<void>((resolve) => (release = resolve));
      const holding = new Promise<void>((resolve) => (locked = resolve));
      const holder = db.begin(async (tx) => {
        await tx`select 1 from works_orders where workspace_id = ${o.world.ws.id} and id = ${o.order.id} for update`;
        locked();
        await held;
      });
      await holding;
      const before = await waiting();
      const a = first === "contractor" ? complete() : cancel();
      await until(async () => (await waiting()) === before + 1);
      const b = first === "contractor" ? cancel() : complete();
      await until(async () => (await waiting()) === before + 2);
      release();
      await holder;
      const [x, y] = await Promise.all([a, b]);
      answers = first === "contractor" ? [x as never, y as never] : [y as never, x as never];
    }
    const [completed, cancelled] = answers;
    const final = await o.read();
    expect(final.revision).toBe(revision + 1);
    const repair = await o.repair();
    if (final.status === "completed") {
      expect(completed.status).toBe(303);
      expect(cancelled.status).toBe(409);
      expect(cancelled.body._tag).toBe("RevisionConflict");
      expect(repair.status).toBe("completed");
    } else {
      expect(final.status).toBe("cancelled");
      expect(cancelled.status).toBe(200);
      expect(completed.status).toBe(409);
      expect(completed.text).toContain("Nothing was recorded: this order is now cancelled by the agency.");
      expect(repair.milestones).toHaveLength(0);
    }
    const types = (await o.events()).map((e) => e.type);
    expect(types.filter((t) => t === "works_order.completed" || t === "works_order.cancelled")).toHaveLength(1);
    return final.status;
  }

  test("the contractor first: the order completes, the cancel is a RevisionConflict", async () => {
    expect(await race("contractor")).toBe("completed");
  });

  test("the agency first: the order is cancelled, the contractor's page says so, the repair unchanged", async () => {
    expect(await race("agency")).toBe("cancelled");
  });

  test("sent at the same moment, again and again: exactly one wins each time", async () => {
    for (let round = 0; round < 5; round++) await race();
  });
});
