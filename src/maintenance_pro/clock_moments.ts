/// <reference types="temporal-spec/global" />
/**
 * The moments a hazard clock owes an event, each at most once:
 *
 * - `due_soon` when a quarter of the clock's span (startsAt to dueAt) is left, and never more than 24 hours before
 *   dueAt: at dueAt − min(24 h, span / 4). A 24-hour clock is due soon 18 hours in; a 10-working-day one 24 hours
 *   before its dueAt.
 * - `breached` at the first millisecond after dueAt (the clock is breached once now is after dueAt).
 *
 * A moment is owed unless the clock was met or ceased by then: its milestone's `at`, or the `at` of what ceased it
 * (the milestone, or the cancel), at or before the moment (for `breached`, at or before dueAt: a clock met late was
 * breached). A moment already past when its clock appears (a clock created late, or already past due) is owed at
 * once; a clock created past due owes both, due_soon first.
 */
import type { Clock, ClockFacts, ClockKind } from "./clocks.ts";

/** The kinds of moment, in the order a clock reaches them. */
export const clockMomentKinds = ["due_soon", "breached"] as const;
/** A kind of moment. */
export type ClockMomentKind = (typeof clockMomentKinds)[number];

/** A moment a clock of a repair owes: which clock, which moment, and from when (UTC with milliseconds). */
export interface ClockMoment {
  clockKind: ClockKind;
  moment: ClockMomentKind;
  at: string;
}

/** The longest time before dueAt a clock is due soon. */
export const dueSoonLeadMaxMs = 24 * 60 * 60 * 1000;

const ms = (instant: string) => Temporal.Instant.from(instant).epochMilliseconds;
const text = (epochMs: number) =>
  Temporal.Instant.fromEpochMilliseconds(epochMs).toString({ fractionalSecondDigits: 3 });

/** When a clock is due soon: a quarter of its span left, and never more than 24 hours before its dueAt. */
export function dueSoonAt(clock: Pick<Clock, "startsAt" | "dueAt">): string {
  const due = ms(clock.dueAt);
  return text(due - Math.min(dueSoonLeadMaxMs, Math.floor((due - ms(clock.startsAt)) / 4)));
}

/** When a clock is breached: the first millisecond after its dueAt. */
export function breachedAt(clock: Pick<Clock, "dueAt">): string {
  return text(ms(clock.dueAt) + 1);
}

/** The `at` of what ceased a clock: the milestone of its ceasedReason, or the cancel; null unless ceased. */
function ceasedAt(clock: Clock, facts: ClockFacts): string | null {
  if (clock.ceasedReason === null) return null;
  if (clock.ceasedReason === "cancelled") return facts.cancelledAt;
  const kind = clock.ceasedReason === "no_hazard" ? "investigated" : clock.ceasedReason;
  return facts.milestones.find((m) => m.kind === kind)?.at ?? null;
}

/** The moments a repair's clocks (computed from `facts`) owe, in clock order, due_soon before breached. */
export function owedMoments(facts: ClockFacts, clocks: readonly Clock[]): ClockMoment[] {
  const owed: ClockMoment[] = [];
  for (const clock of clocks) {
    const ends = [clock.metAt, ceasedAt(clock, facts)].filter((at) => at !== null).map(ms);
    const settled = Math.min(Number.POSITIVE_INFINITY, ...ends);
    const dueSoon = dueSoonAt(clock);
    if (settled > ms(dueSoon)) owed.push({ clockKind: clock.kind, moment: "due_soon", at: dueSoon });
    if (settled > ms(clock.dueAt)) owed.push({ clockKind: clock.kind, moment: "breached", at: breachedAt(clock) });
  }
  return owed;
}
