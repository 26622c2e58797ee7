/// <reference types="temporal-spec/global" />
/**
 * The hazard clock events: `hazard_clock.due_soon` with a quarter of the span left (at most 24 h
 * before dueAt) and `hazard_clock.breached` after dueAt, each once per clock, never for a clock met or ceased by its
 * moment; recorded by the worker's run, `now` passed in; into the feed and to webhooks; exactly once across runs,
 * pools and processes.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { connect } from "../../src/core/db.ts";
import { loadBankHolidays } from "../../src/maintenance_pro/bank_holidays.ts";
import { runClockEvents } from "../../src/maintenance_pro/clock_events_worker.ts";
import { breachedAt, dueSoonAt, owedMoments } from "../../src/maintenance_pro/clock_moments.ts";
import type { Clock, ClockFacts } from "../../src/maintenance_pro/clocks.ts";
import { ensureDeliveryQueue } from "../../src/webhooks/deliver.ts";
import { dispatchOnce } from "../../src/webhooks/dispatcher.ts";
import { throughPgBouncer } from "../support/database.ts";
import { harness, type TestWorkspace } from "../support/harness.ts";
import { until } from "../telephony/fixtures.ts";
import { fileReceivers, subscribe, webhookContext } from "../webhooks/receiver.ts";
import { expectStatus, fromNow, repairCalls, repairWorld, type RepairWorld } from "./repair_fixtures.ts";

setDefaultTimeout(60_000);
const h = await harness();
const db = h.database.db;

const hour = 3_600_000;
const plus = (instant: string, ms: number) => new Date(Date.parse(instant) + ms).toISOString();
const farFuture = "2030-01-01T00:00:00.000Z";

const significant = { hazard: "significant", hhsrsHazard: "damp_and_mould_growth" };
const emergency = { hazard: "emergency", hhsrsHazard: "electrical_hazards" };

/** A run of the worker at `now`. */
const run = (now: string) => runClockEvents(h.ctx, now);

interface ClockEventRow {
  type: string;
  subjectKind: string;
  subjectId: string;
  data: { repairId: string; reference: string | null; regime: string | null; clock: Clock };
  actorKind: string;
  actorId: string | null;
  requestId: string | null;
}

/** The workspace's hazard clock events, in the feed's order. */
async function clockEvents(ws: TestWorkspace): Promise<ClockEventRow[]> {
  return [
    ...(await db<ClockEventRow[]>`
      select type, subject_kind, subject_id, data, actor_kind, actor_id, request_id from events
      where workspace_id = ${ws.id} and type like 'hazard_clock.%' order by tx_id, id`),
  ];
}

/** `[type, clock kind]` of each event, in order. */
const kinds = (events: ClockEventRow[]) => events.map((e) => [e.type, e.data.clock.kind]);

/** A world of its own (a workspace with a tenancy) and the repair calls on it. */
async function fresh(): Promise<{ world: RepairWorld; call: ReturnType<typeof repairCalls> }> {
  const world = await repairWorld(h);
  return { world, call: repairCalls(h, world) };
}

/** Reports a repair, 201. */
async function report(call: ReturnType<typeof repairCalls>, fields: Record<string, unknown>) {
  return expectStatus(await call.report(fields), 201);
}

describe("the moments of a clock", () => {
  const clock = (startsAt: string, dueAt: string) => ({ startsAt, dueAt });

  test("due soon a quarter of the span before dueAt, and never more than 24 hours before it", () => {
    // 24 hours: 18 hours in. 80 hours: 20 hours before. 14 days: 24 hours before.
    expect(dueSoonAt(clock("2026-06-01T09:00:00.000Z", "2026-06-02T09:00:00.000Z"))).toBe("2026-06-02T03:00:00.000Z");
    expect(dueSoonAt(clock("2026-06-01T00:00:00.000Z", "2026-06-04T08:00:00.000Z"))).toBe("2026-06-03T12:00:00.000Z");
    expect(dueSoonAt(clock("2026-06-01T09:00:00.000Z", "2026-06-15T22:59:59.999Z"))).toBe("2026-06-14T22:59:59.999Z");
  });

  test("breached at the first millisecond after dueAt", () => {
    expect(breachedAt({ dueAt: "2026-06-15T22:59:59.999Z" })).toBe("2026-06-15T23:00:00.000Z");
  });

  const facts = (milestones: ClockFacts["milestones"], cancelledAt: string | null = null): ClockFacts => ({
    awareAt: "2026-06-01T09:00:00.000Z",
    hazard: "emergency",
    hhsrsHazard: "fire",
    regime: "social",
    policyVersion: "awaabs-law-2025-10-27",
    milestones,
    cancelledAt,
  });
  const base: Clock = {
    kind: "emergency_make_safe",
    basis: "statutory",
    rule: "awaabs-law-2025-10-27/emergency_make_safe",
    startsAt: "2026-06-01T09:00:00.000Z",
    dueAt: "2026-06-02T09:00:00.000Z",
    status: "running",
    metAt: null,
    ceasedReason: null,
    explanation: "24 hours",
  };
  const owed = (clock: Partial<Clock>, f = facts([])) => owedMoments(f, [{ ...base, ...clock }]).map((m) => m.moment);

  test("a clock owes both moments until it is met or ceased; met or ceased at a moment, it does not owe it", () => {
    expect(owed({})).toEqual(["due_soon", "breached"]);
    expect(owed({ status: "met", metAt: "2026-06-02T03:00:00.000Z" })).toEqual([]);
    expect(owed({ status: "met", metAt: "2026-06-02T03:00:00.001Z" })).toEqual(["due_soon"]);
    expect(owed({ status: "met", metAt: "2026-06-02T09:00:00.000Z" })).toEqual(["due_soon"]);
    // Met late: it was breached.
    expect(owed({ status: "met_late", metAt: "2026-06-02T09:00:00.001Z" })).toEqual(["due_soon", "breached"]);
    const decanted = (at: string) => facts([{ kind: "decanted", at, outcome: null }]);
    expect(owed({ status: "ceased", ceasedReason: "decanted" }, decanted("2026-06-02T02:00:00.000Z"))).toEqual([]);
    expect(owed({ status: "ceased", ceasedReason: "decanted" }, decanted("2026-06-02T04:00:00.000Z"))).toEqual([
      "due_soon",
    ]);
    const cancelled = facts([], "2026-06-02T05:00:00.000Z");
    expect(owed({ status: "ceased", ceasedReason: "cancelled" }, cancelled)).toEqual(["due_soon"]);
    const noHazard = facts([{ kind: "investigated", at: "2026-06-01T10:00:00.000Z", outcome: "no_hazard" }]);
    expect(owed({ status: "ceased", ceasedReason: "no_hazard" }, noHazard)).toEqual([]);
  });
});

describe("hazard_clock.due_soon and hazard_clock.breached", () => {
  test("a 10-working-day clock: due_soon 24 h before dueAt, breached after it, each once, with its repair", async () => {
    const { world, call } = await fresh();
    const repair = await report(call, significant);
    const [clock] = repair.clocks as Clock[];
    expect(clock!.kind).toBe("significant_investigate");
    const dueSoon = plus(clock!.dueAt, -24 * hour);
    expect(Date.parse(dueSoon)).toBeGreaterThan(Date.parse(clock!.startsAt) + 0.75 * (10 * 24 * hour));

    await run(new Date().toISOString());
    await run(plus(dueSoon, -1));
    expect(await clockEvents(world.ws)).toEqual([]);
    await run(dueSoon);
    const [event] = await clockEvents(world.ws);
    expect(event).toEqual({
      type: "hazard_clock.due_soon",
      subjectKind: "hazard_clock",
      subjectId: repair.id,
      data: { repairId: repair.id, reference: repair.reference, regime: "private", clock: clock! },
      actorKind: "worker",
      actorId: "hazard-clocks",
      requestId: null,
    });

    await run(clock!.dueAt);
    await run(plus(dueSoon, hour));
    expect(kinds(await clockEvents(world.ws))).toEqual([["hazard_clock.due_soon", "significant_investigate"]]);
    await run(breachedAt(clock!));
    await run(breachedAt(clock!));
    await run(farFuture);
    const events = await clockEvents(world.ws);
    expect(kinds(events)).toEqual([
      ["hazard_clock.due_soon", "significant_investigate"],
      ["hazard_clock.breached", "significant_investigate"],
    ]);
    expect(events[1]!.data).toEqual({
      repairId: repair.id,
      reference: repair.reference,
      regime: "private",
      clock: { ...clock!, status: "breached" },
    });
  });

  test("24-hour clocks are due soon 18 hours in; the regime is the repair's", async () => {
    const { world, call } = await fresh();
    const put = await h.request("PUT", "/maintenance-pro/hazard-settings", {
      key: world.ws.key,
      body: { regime: "social", expectedRevision: 0 },
    });
    expect(put.status).toBe(200);
    const repair = await report(call, emergency);
    const startsAt = (repair.clocks as Clock[])[0]!.startsAt;
    await run(plus(startsAt, 18 * hour - 1));
    expect(await clockEvents(world.ws)).toEqual([]);
    await run(plus(startsAt, 18 * hour));
    const events = await clockEvents(world.ws);
    expect(kinds(events)).toEqual([
      ["hazard_clock.due_soon", "emergency_investigate"],
      ["hazard_clock.due_soon", "emergency_make_safe"],
    ]);
    expect(events.map((e) => [e.data.regime, e.data.clock.basis, e.data.clock.status])).toEqual([
      ["social", "statutory", "running"],
      ["social", "statutory", "running"],
    ]);
  });

  test("a clock created past its due_soon moment sends it at the next run, and breached at its dueAt", async () => {
    const { world, call } = await fresh();
    const repair = await report(call, { ...emergency, awareAt: fromNow(-20 * hour) });
    const now = new Date().toISOString();
    await run(now);
    expect(kinds(await clockEvents(world.ws))).toEqual([
      ["hazard_clock.due_soon", "emergency_investigate"],
      ["hazard_clock.due_soon", "emergency_make_safe"],
    ]);
    const dueAt = (repair.clocks as Clock[])[0]!.dueAt;
    await run(dueAt);
    expect(await clockEvents(world.ws)).toHaveLength(2);
    await run(plus(dueAt, 1));
    expect(kinds(await clockEvents(world.ws))).toEqual([
      ["hazard_clock.due_soon", "emergency_investigate"],
      ["hazard_clock.due_soon", "emergency_make_safe"],
      ["hazard_clock.breached", "emergency_investigate"],
      ["hazard_clock.breached", "emergency_make_safe"],
    ]);
  });

  test("a clock created already past due sends due_soon and then breached at the next run", async () => {
    const { world, call } = await fresh();
    await report(call, { ...emergency, awareAt: fromNow(-30 * hour) });
    await run(new Date().toISOString());
    const events = await clockEvents(world.ws);
    expect(kinds(events)).toEqual([
      ["hazard_clock.due_soon", "emergency_investigate"],
      ["hazard_clock.due_soon", "emergency_make_safe"],
      ["hazard_clock.breached", "emergency_investigate"],
      ["hazard_clock.breached", "emergency_make_safe"],
    ]);
    expect(events.every((e) => e.data.clock.status === "breached")).toBe(true);
    await run(farFuture);
    expect(await clockEvents(world.ws)).toHaveLength(4);
  });

  test("a clock's breach waits while its due_soon is being sent elsewhere, so the feed has them in order", async () => {
    const { world, call } = await fresh();
    const repair = await report(call, { ...emergency, awareAt: fromNow(-30 * hour) });
    await run(repair.awareAt); // keeps the moments, sends none
    const other = connect(h.database.url, { max: 1, pooled: throughPgBouncer });
    let release!: () => void;
    let held!: () => void;
    const holding = new Promise<void>((resolve) => (held = resolve));
    const holder = other.begin(async (tx) => {
      await tx`
        select 1 from hazard_clock_moments
        where repair_id = ${repair.id} and clock_kind = 'emergency_investigate' and moment = 'due_soon' for update`;
      held();
      await new Promise<void>((resolve) => (release = resolve));
    });
    try {
      await holding;
      await run(new Date().toISOString());
      expect(kinds(await clockEvents(world.ws))).toEqual([
        ["hazard_clock.due_soon", "emergency_make_safe"],
        ["hazard_clock.breached", "emergency_make_safe"],
      ]);
    } finally {
      release();
      await holder;
      await other.end();
    }
    await run(new Date().toISOString());
    expect(kinds(await clockEvents(world.ws)).slice(2)).toEqual([
      ["hazard_clock.due_soon", "emergency_investigate"],
      ["hazard_clock.breached", "emergency_investigate"],
    ]);
  });

  test("a clock met before its moments sends neither; met after due_soon, no breached", async () => {
    const { world, call } = await fresh();
    const early = await report(call, significant);
    const met = await call.milestone(early.id, {
      expectedRevision: 1,
      kind: "investigated",
      at: new Date().toISOString(),
      outcome: "no_hazard",
    });
    expect(met.status).toBe(200);
    const late = await report(call, significant);
    const [clock] = late.clocks as Clock[];
    await run(dueSoonAt(clock!));
    const meets = await call.milestone(late.id, {
      expectedRevision: 1,
      kind: "investigated",
      at: new Date().toISOString(),
      outcome: "hazard_confirmed",
    });
    expect(meets.status).toBe(200);
    await run(farFuture);
    const events = (await clockEvents(world.ws)).filter((e) => e.data.clock.kind === "significant_investigate");
    expect(events.map((e) => [e.type, e.subjectId])).toEqual([["hazard_clock.due_soon", late.id]]);
  });

  test("a clock met after its moments were kept sends nothing, even before they are kept again", async () => {
    const { world, call } = await fresh();
    const repair = await report(call, significant);
    await run(new Date().toISOString());
    expect(await db`select 1 from hazard_clock_moments where repair_id = ${repair.id}`).toHaveLength(2);
    const res = await call.milestone(repair.id, {
      expectedRevision: 1,
      kind: "investigated",
      at: new Date().toISOString(),
      outcome: "no_hazard",
    });
    expect(res.status).toBe(200);
    // As if the write's mark were not yet committed when the worker looks: the moments kept are stale.
    await db`delete from hazard_clock_changes where workspace_id = ${world.ws.id}`;
    await run(farFuture);
    const ofClock = (await clockEvents(world.ws)).filter((e) => e.data.clock.kind === "significant_investigate");
    expect(ofClock).toEqual([]);
    const kept = await db`
      select 1 from hazard_clock_moments where repair_id = ${repair.id} and clock_kind = 'significant_investigate'`;
    expect(kept.length).toBe(0);
  });

  test("ceased clocks send neither: no hazard found, decanted, completed, cancelled", async () => {
    const { world, call } = await fresh();
    const now = () => new Date().toISOString();
    const noHazard = await report(call, emergency);
    const r1 = await call.milestone(noHazard.id, {
      expectedRevision: 1,
      kind: "investigated",
      at: now(),
      outcome: "no_hazard",
    });
    expect(r1.status).toBe(200);
    const decanted = await report(call, emergency);
    expect((await call.milestone(decanted.id, { expectedRevision: 1, kind: "decanted", at: now() })).status).toBe(200);
    const completed = await report(call, significant);
    expect((await call.milestone(completed.id, { expectedRevision: 1, kind: "completed", at: now() })).status).toBe(
      200,
    );
    const cancelled = await report(call, emergency);
    expect((await call.cancel(cancelled.id, { reason: "Reported twice" })).status).toBe(200);
    await run(farFuture);
    const events = await clockEvents(world.ws);
    const of = (id: string) => events.filter((e) => e.subjectId === id).map((e) => [e.type, e.data.clock.kind]);
    // No hazard: investigate met, make-safe ceased; the written summary still runs.
    expect(of(noHazard.id)).toEqual([
      ["hazard_clock.due_soon", "written_summary"],
      ["hazard_clock.breached", "written_summary"],
    ]);
    expect(of(decanted.id)).toEqual([
      ["hazard_clock.due_soon", "emergency_investigate"],
      ["hazard_clock.breached", "emergency_investigate"],
    ]);
    expect(of(completed.id)).toEqual([]);
    expect(of(cancelled.id)).toEqual([]);
  });

  test("a re-triage replaces the moments; a moment already sent is not sent again", async () => {
    const { world, call } = await fresh();
    const repair = await report(call, {});
    const triage = async (revision: number, fields: Record<string, unknown>) =>
      expectStatus(await call.triage(repair.id, { expectedRevision: revision, ...fields }), 200);
    const asSignificant = await triage(1, significant);
    await run(new Date().toISOString());
    const asEmergency = await triage(2, emergency);
    await run(new Date().toISOString());
    const moments = await db<{ clockKind: string; moment: string }[]>`
      select clock_kind, moment from hazard_clock_moments where repair_id = ${repair.id} order by 1, 2`;
    expect(moments.map((m) => [m.clockKind, m.moment])).toEqual([
      ["emergency_investigate", "breached"],
      ["emergency_investigate", "due_soon"],
      ["emergency_make_safe", "breached"],
      ["emergency_make_safe", "due_soon"],
    ]);
    const emergencyClock = (asEmergency.clocks as Clock[])[0]!;
    await run(dueSoonAt(emergencyClock));
    // Significant, then emergency again: the same emergency clocks, their due_soon sent already.
    await triage(3, significant);
    await run(new Date().toISOString());
    await triage(4, emergency);
    await run(farFuture);
    expect(kinds(await clockEvents(world.ws))).toEqual([
      ["hazard_clock.due_soon", "emergency_investigate"],
      ["hazard_clock.due_soon", "emergency_make_safe"],
      ["hazard_clock.breached", "emergency_investigate"],
      ["hazard_clock.breached", "emergency_make_safe"],
    ]);
    expect((asSignificant.clocks as Clock[]).map((c) => c.kind)).toEqual(["significant_investigate"]);
  });

  test("a moment kept for an instant its clock no longer owes waits for the new one", async () => {
    const { world, call } = await fresh();
    const repair = await report(call, significant);
    const [clock] = repair.clocks as Clock[];
    await run(new Date().toISOString());
    // As a calendar whose load the worker has not seen would have it: due a day sooner.
    await db`
      update hazard_clock_moments set at = at - interval '1 day'
      where repair_id = ${repair.id} and moment = 'due_soon'`;
    await run(plus(dueSoonAt(clock!), -hour));
    expect(await clockEvents(world.ws)).toEqual([]);
    const [kept] = await db<{ at: string }[]>`
      select iso(at) as at from hazard_clock_moments where repair_id = ${repair.id} and moment = 'due_soon'`;
    expect(kept!.at).toBe(dueSoonAt(clock!));
  });

  test("a bank holiday load moves the moments of open clocks", async () => {
    const { world, call } = await fresh();
    const repair = await report(call, significant);
    const [clock] = repair.clocks as Clock[];
    await run(new Date().toISOString());
    // A working day inside the clock's span made a holiday moves its dueAt a working day on.
    const file = JSON.parse(await Bun.file(join(import.meta.dir, "../../data/bank-holidays.json")).text());
    const shipped = file["england-and-wales"].events as { date: string; title: string }[];
    const holidays = new Set(shipped.map((e) => e.date));
    let day = Temporal.Instant.from(clock!.startsAt).toZonedDateTimeISO("Europe/London").toPlainDate().add({ days: 3 });
    while (day.dayOfWeek > 5 || holidays.has(day.toString())) day = day.add({ days: 1 });
    const date = day.toString();
    file["england-and-wales"].events = [...shipped, { date, title: "A test holiday", notes: "", bunting: false }];
    try {
      await loadBankHolidays(db, JSON.stringify(file), "test");
      const moved = expectStatus(await call.get(repair.id), 200).clocks[0] as Clock;
      expect(Date.parse(moved.dueAt)).toBeGreaterThan(Date.parse(clock!.dueAt));
      await run(new Date().toISOString());
      const [kept] = await db<{ at: string }[]>`
        select iso(at) as at from hazard_clock_moments where repair_id = ${repair.id} and moment = 'due_soon'`;
      expect(kept!.at).toBe(dueSoonAt(moved));
      await run(dueSoonAt(clock!));
      expect(await clockEvents(world.ws)).toEqual([]);
    } finally {
      file["england-and-wales"].events = shipped;
      await loadBankHolidays(db, JSON.stringify(file), "test");
    }
  });

  test("a bank holiday load moves the stored dues the due list orders and filters by, a held row at a later run", async () => {
    const { world, call } = await fresh();
    const repair = await report(call, significant);
    const [clock] = repair.clocks as Clock[];
    await run(new Date().toISOString());
    const stored = async () =>
      (
        await db<{ first: string; last: string; revision: number; updatedAt: string }[]>`
          select iso(open_due_at) as first, iso(open_due_last_at) as last, revision, iso(updated_at) as updated_at
          from repairs where workspace_id = ${world.ws.id} and id = ${repair.id}`
      )[0]!;
    const before = await stored();
    expect(before.first).toBe(clock!.dueAt);
    const dueBy = (instant: string) =>
      call.list(`?clock=open&dueBefore=${encodeURIComponent(instant)}`).then((res) => expectStatus(res, 200));
    const file = JSON.parse(await Bun.file(join(import.meta.dir, "../../data/bank-holidays.json")).text());
    const shipped = file["england-and-wales"].events as { date: string; title: string }[];
    const holidays = new Set(shipped.map((e) => e.date));
    let day = Temporal.Instant.from(clock!.startsAt).toZonedDateTimeISO("Europe/London").toPlainDate().add({ days: 3 });
    while (day.dayOfWeek > 5 || holidays.has(day.toString())) day = day.add({ days: 1 });
    file["england-and-wales"].events = [...shipped, { date: day.toString(), title: "Test", notes: "", bunting: false }];
    // Another transaction holds the repair's row (as a works order's raise does) while the worker runs.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holder = db.begin(async (tx) => {
      await tx`select 1 from repairs where workspace_id = ${world.ws.id} and id = ${repair.id} for no key update`;
      locked();
      await held;
    });
    try {
      await isLocked;
      await loadBankHolidays(db, JSON.stringify(file), "test");
      const moved = (expectStatus(await call.get(repair.id), 200).clocks as Clock[])[0]!;
      expect(Date.parse(moved.dueAt)).toBeGreaterThan(Date.parse(clock!.dueAt));
      await run(new Date().toISOString());
      // Not waited for: the dues stay, and the repair is marked for a later run.
      expect((await stored()).first).toBe(clock!.dueAt);
      const marks = await db`select 1 from hazard_clock_changes where repair_id = ${repair.id}`;
      expect(marks).toHaveLength(1);
      release();
      await holder;
      await run(new Date().toISOString());
      const after = await stored();
      expect(after).toEqual({
        first: moved.dueAt,
        last: moved.dueAt,
        revision: before.revision,
        updatedAt: before.updatedAt,
      });
      const ids = (page: { id: string }[]) => page.map((r) => r.id).filter((id) => id === repair.id);
      expect(ids(await dueBy(moved.dueAt))).toEqual([]);
      expect(ids(await dueBy(plus(moved.dueAt, 1)))).toEqual([repair.id]);
    } finally {
      release();
      await holder;
      file["england-and-wales"].events = shipped;
      await loadBankHolidays(db, JSON.stringify(file), "test");
      await run(new Date().toISOString());
    }
  });
});

describe("exactly once", () => {
  test("runs at once on separate pools send each moment once", async () => {
    const { world, call } = await fresh();
    const awareAt = fromNow(-30 * hour);
    for (let i = 0; i < 30; i++) await report(call, { ...emergency, awareAt });
    await run(awareAt); // keeps the moments, sends none: the runs below race for the same ones
    expect(await clockEvents(world.ws)).toEqual([]);
    const pools = [0, 1, 2, 3].map(() => connect(h.database.url, { max: 2, pooled: throughPgBouncer }));
    try {
      const now = new Date().toISOString();
      await Promise.all(pools.map((pool) => runClockEvents({ ...h.ctx, db: pool }, now)));
      await Promise.all(pools.map((pool) => runClockEvents({ ...h.ctx, db: pool }, now)));
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
    const events = await clockEvents(world.ws);
    expect(events).toHaveLength(120);
    expect(new Set(events.map((e) => `${e.subjectId} ${e.type} ${e.data.clock.kind}`)).size).toBe(120);
  });
});

describe("the feed and webhooks", () => {
  const receiver = fileReceivers();

  test("the events are in GET /events and reach a subscription", async () => {
    const ctx = webhookContext(h, "1,1,1");
    await ensureDeliveryQueue(ctx.jobs);
    const { world, call } = await fresh();
    const r = receiver();
    await subscribe(db, world.ws, r.url, "hazard_clock.due_soon,hazard_clock.breached");
    const repair = await report(call, { ...emergency, awareAt: fromNow(-30 * hour) });
    await run(new Date().toISOString());
    const feed = await h.request("GET", "/events?type=hazard_clock.due_soon,hazard_clock.breached", {
      key: world.ws.key,
    });
    expect(feed.status).toBe(200);
    expect(
      feed.body.map((e: { type: string; subject: unknown; data: { repairId: string; clock: Clock } }) => [
        e.type,
        e.subject,
        e.data.repairId,
        e.data.clock.kind,
      ]),
    ).toEqual([
      ["hazard_clock.due_soon", { kind: "hazard_clock", id: repair.id }, repair.id, "emergency_investigate"],
      ["hazard_clock.due_soon", { kind: "hazard_clock", id: repair.id }, repair.id, "emergency_make_safe"],
      ["hazard_clock.breached", { kind: "hazard_clock", id: repair.id }, repair.id, "emergency_investigate"],
      ["hazard_clock.breached", { kind: "hazard_clock", id: repair.id }, repair.id, "emergency_make_safe"],
    ]);
    await until(async () => {
      const { events, late } = await dispatchOnce(ctx);
      await late;
      return r.received.length >= 4 && !events ? true : undefined;
    }, "the deliveries");
    const bodies = r.received.map((x) => JSON.parse(x.body));
    expect(bodies.map((b) => [b.type, b.data.clock.kind]).sort()).toEqual([
      ["hazard_clock.breached", "emergency_investigate"],
      ["hazard_clock.breached", "emergency_make_safe"],
      ["hazard_clock.due_soon", "emergency_investigate"],
      ["hazard_clock.due_soon", "emergency_make_safe"],
    ]);
    expect(new Set(bodies.map((b) => b.id))).toEqual(new Set(feed.body.map((e: { id: string }) => e.id)));
  });
});

describe("across processes", () => {
  const children: ReturnType<typeof Bun.spawn>[] = [];
  afterAll(async () => {
    for (const child of children) child.kill("SIGKILL");
    await Promise.all(children.map((c) => c.exited));
  });

  /** A service process running only the job workers (the hazard clocks' among them). */
  function workerProcess() {
    const child = Bun.spawn(["bun", join(import.meta.dir, "worker_process.ts")], {
      env: { ...process.env, DATABASE_URL: h.database.url, LOG_LEVEL: "silent" },
      stdout: "ignore",
      stderr: "inherit",
    });
    children.push(child);
    return child;
  }

  test("two worker processes, one killed part way, record each event exactly once", async () => {
    const { world, call } = await fresh();
    const repairs = 60;
    for (let i = 0; i < repairs; i++) await report(call, { ...emergency, awareAt: fromNow(-30 * hour) });
    const [a] = [workerProcess(), workerProcess()];
    await until(async () => ((await clockEvents(world.ws)).length > 0 ? true : undefined), "the first events", 30_000);
    a!.kill("SIGKILL");
    await a!.exited;
    const events = await until(
      async () => {
        const found = await clockEvents(world.ws);
        return found.length >= repairs * 4 ? found : undefined;
      },
      "every event",
      45_000,
    );
    expect(events).toHaveLength(repairs * 4);
    expect(new Set(events.map((e) => `${e.subjectId} ${e.type} ${e.data.clock.kind}`)).size).toBe(repairs * 4);
    const [owed] = await db<{ n: number }[]>`
      select count(*)::int as n from hazard_clock_moments where workspace_id = ${world.ws.id} and sent_at is null`;
    expect(owed!.n).toBe(0);
  });
});
