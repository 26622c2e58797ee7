/**
 * The hazard clock events' worker: `hazard_clock.due_soon` and `hazard_clock.breached`, each at most once per clock
 * and within a minute of its moment (clock_moments.ts), whatever processes run it and whenever they stop.
 *
 * Every process runs it: a run at start, then one every `clockEventsPollMs`. A run (a) keeps the moments of the
 * repairs written since (their writes marked them, sql/0029): claims a batch of marks, computes the repairs' clocks by
 * the rules of the answers and keeps the moments they owe and the open dues the list orders by (a bank-holiday load
 * marks the repairs it may move), one transaction a batch; then (b) sends the moments due:
 * claims a batch (`for update skip locked`), computes each repair's clocks again as of now, and in that transaction
 * records each event (the outbox the feed and the webhooks read) and marks its moment sent. A clock met or ceased by
 * its moment sends nothing, even when the write that says so came after the moment was kept; a moment the calendar
 * moved later waits. A crash rolls the batch back (its moments stay owed); a commit leaves them sent: exactly once.
 */
import type { Tx } from "../core/db.ts";
import type { AppContext } from "../core/operation.ts";
import { recordEvent, type Actor } from "../events/record.ts";
import { readWorkingCalendar } from "./bank_holidays.ts";
import { owedMoments, type ClockMoment } from "./clock_moments.ts";
import { openDues, repairClocks, type Clock, type ClockContext } from "./clocks.ts";
import { hazardClockBreached, hazardClockDueSoon } from "./events.ts";
import {
  claimClockChanges,
  claimDueMoments,
  keepOwedMoments,
  refreshOpenDues,
  repairRowsOf,
  settleMoments,
  type RepairKey,
  type RepairRow,
  type SettledMoments,
} from "./queries.ts";
import { clockFacts } from "./repair_rules.ts";

/** Milliseconds between two runs of a process's worker: well under the minute each event is promised within. */
export const clockEventsPollMs = 10_000;
/** Most repairs, or moments, one transaction takes. */
const batchSize = 100;

const actor: Actor = { kind: "worker", id: "hazard-clocks" };

/** What the worker needs of the service. */
type Context = Pick<AppContext, "db" | "config" | "log">;

/** What one run did: repairs whose moments it kept, and moments sent, dropped (no longer owed) and moved later. */
export interface ClockEventsRun {
  repairs: number;
  sent: number;
  dropped: number;
  moved: number;
}

const keyOf = (k: RepairKey) => `${k.workspaceId}/${k.repairId}`;
const ms = (instant: string) => Date.parse(instant);

/** The world the clocks are read in, from inside a transaction that claimed its batch (a calendar load is seen). */
async function clockContext(ctx: Context, tx: Tx, now: string): Promise<ClockContext> {
  const calendar = await readWorkingCalendar(tx);
  return { calendar, prsInForceFrom: ctx.config.prsInForceFrom, now };
}

/** A repair's clocks and the moments they owe; none when its rule set is unknown to this service (logged). */
function clocksOf(ctx: Context, row: RepairRow & RepairKey, context: ClockContext) {
  const facts = clockFacts(row);
  try {
    const clocks = repairClocks(facts, context);
    return { clocks, owed: owedMoments(facts, clocks), known: true };
  } catch (error) {
    ctx.log.warn("hazard clocks not computed", {
      workspaceId: row.workspaceId,
      repairId: row.repairId,
      error: String((error as Error)?.message ?? error),
    });
    return { clocks: [] as Clock[], owed: [] as ClockMoment[], known: false };
  }
}

/** (a) One batch of marked repairs: their owed moments kept. Answers how many repairs it took. */
async function keepBatch(ctx: Context, now: string): Promise<number> {
  return ctx.db.begin(async (tx) => {
    const claimed = await claimClockChanges(tx, batchSize);
    if (!claimed.length) return 0;
    // Read after the claim: a write (or a calendar load) whose mark was claimed committed before it.
    const rows = await repairRowsOf(tx, claimed);
    const context = await clockContext(ctx, tx, now);
    const computed = rows.map((row) => ({ row, ...clocksOf(ctx, row, context) }));
    const owed = computed.flatMap(({ row, owed }) =>
      owed.map((m) => ({ workspaceId: row.workspaceId, repairId: row.repairId, ...m })),
    );
    await keepOwedMoments(tx, claimed, owed);
    // The stored dues too, as the calendar now has them (a load marks every repair with an open clock).
    await refreshOpenDues(
      tx,
      computed
        .filter(({ known }) => known)
        .map(({ row, clocks }) => ({
          workspaceId: row.workspaceId,
          repairId: row.repairId,
          revision: row.revision,
          ...openDues(clocks),
        })),
    );
    return claimed.length;
  });
}

/** (b) One batch of moments due at `now`: each sent, dropped or moved. Answers what became of them. */
async function sendBatch(ctx: Context, now: string): Promise<SettledMoments> {
  return ctx.db.begin(async (tx) => {
    const settled: SettledMoments = { sent: [], dropped: [], moved: [] };
    const claimed = await claimDueMoments(tx, now, batchSize);
    if (!claimed.length) return settled;
    const keys = new Map(claimed.map((m) => [keyOf(m), { workspaceId: m.workspaceId, repairId: m.repairId }]));
    const rows = await repairRowsOf(tx, [...keys.values()]);
    const context = await clockContext(ctx, tx, now);
    const repairs = new Map(rows.map((row) => [keyOf(row), { row, ...clocksOf(ctx, row, context) }]));
    for (const m of claimed) {
      const repair = repairs.get(keyOf(m));
      const owed = repair?.owed.find((o) => o.clockKind === m.clockKind && o.moment === m.moment);
      if (!repair || !owed) settled.dropped.push(m);
      else if (ms(owed.at) > ms(now)) settled.moved.push({ ...m, at: owed.at });
      else {
        const { row, clocks } = repair;
        const eventId = await recordEvent(tx, m.moment === "due_soon" ? hazardClockDueSoon : hazardClockBreached, {
          workspaceId: m.workspaceId,
          subjectId: m.repairId,
          data: {
            repairId: m.repairId,
            reference: row.reference,
            regime: row.regime,
            clock: clocks.find((c) => c.kind === m.clockKind)!,
          },
          requestId: null,
          actor,
        });
        settled.sent.push({ ...m, eventId });
      }
    }
    await settleMoments(tx, settled);
    return settled;
  });
}

/**
 * One run at `now` (an instant; tests pass their own): the moments of every repair written since the last run kept,
 * then every moment due sent, a batch a transaction, until none is left.
 */
export async function runClockEvents(ctx: Context, now = new Date().toISOString()): Promise<ClockEventsRun> {
  const run: ClockEventsRun = { repairs: 0, sent: 0, dropped: 0, moved: 0 };
  for (;;) {
    const taken = await keepBatch(ctx, now);
    run.repairs += taken;
    if (taken < batchSize) break;
  }
  // Until a claim finds nothing: a clock's breach becomes claimable once its due_soon is sent.
  for (;;) {
    const { sent, dropped, moved } = await sendBatch(ctx, now);
    if (!sent.length && !dropped.length && !moved.length) break;
    run.sent += sent.length;
    run.dropped += dropped.length;
    run.moved += moved.length;
  }
  return run;
}

/** Starts this process's worker: a run at once, then one every `clockEventsPollMs`, until the job queue stops. */
export async function startClockEventsWorker(ctx: AppContext): Promise<void> {
  let running = true;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let wake: (() => void) | undefined;
  ctx.jobs.onStop(() => {
    running = false;
    clearTimeout(timer);
    wake?.();
  });
  void (async () => {
    while (running) {
      try {
        const run = await runClockEvents(ctx);
        if (run.sent || run.dropped || run.moved) ctx.log.info("hazard clock events", { ...run });
      } catch (error) {
        if (!running) break;
        ctx.log.warn("hazard clock events failed; the next run tries again", {
          error: String((error as Error)?.message ?? error),
        });
      }
      if (!running) break;
      await new Promise<void>((resolve) => {
        wake = resolve;
        timer = setTimeout(resolve, clockEventsPollMs);
      });
    }
  })();
  ctx.log.info("worker started", { worker: "hazard-clock-events", everyMs: clockEventsPollMs });
}
