/// <reference types="temporal-spec/global" />
/**
 * The hazard clocks of a repair, computed from its data and `now`, never stored. The rules (Awaab's Law as the
 * rule set `awaabs-law-2025-10-27` applies it):
 *
 * - emergency_investigate, emergency_make_safe: hazard emergency, from awareAt, 24 hours; met by investigated,
 *   made_safe.
 * - significant_investigate: hazard significant, from awareAt, 10 working days; met by investigated.
 * - written_summary: once investigated (hazard significant or emergency), from its `at`, 3 working days; met by
 *   summary_sent.
 * - safety_work_start: once investigated with hazard_confirmed (hazard significant), from its `at`, 5 working days;
 *   met by safety_work_started.
 * - preventative_work_start: once investigated with hazard_confirmed, from its `at`, 84 calendar days; met by
 *   preventative_work_started.
 *
 * Ceasing: `investigated` with `no_hazard` ceases every clock but written_summary; `decanted` ceases
 * emergency_make_safe; `completed` and a cancel cease every clock. A clock ceases only when its due instant is
 * after the ceasing moment: a clock already past due stays breached (a breach is a fact), or becomes met_late
 * when its milestone comes. Status, first that holds: met / met_late, ceased, breached (now > dueAt), running.
 */
import { zone } from "../core/dates.ts";
import { clockDue, clockDueMs, type ClockPeriod, type WorkingCalendar } from "./working_days.ts";

/** The kinds of clock, in the order a repair lists them. */
export const clockKinds = [
  "emergency_investigate",
  "emergency_make_safe",
  "significant_investigate",
  "written_summary",
  "safety_work_start",
  "preventative_work_start",
] as const;
/** A kind of clock. */
export type ClockKind = (typeof clockKinds)[number];

/** The statuses of a clock. */
export const clockStatuses = ["met", "met_late", "ceased", "breached", "running"] as const;
/** A clock's status. */
export type ClockStatus = (typeof clockStatuses)[number];

/** Why a clock ceased: the milestone that ceased it, `no_hazard`, or `cancelled`. */
export type CeasedReason = "decanted" | "completed" | "no_hazard" | "cancelled";

/** A hazard clock as a repair answers it. */
export interface Clock {
  kind: ClockKind;
  basis: "statutory" | "policy";
  rule: string;
  startsAt: string;
  dueAt: string;
  status: ClockStatus;
  metAt: string | null;
  ceasedReason: CeasedReason | null;
  explanation: string;
}

/** The milestone facts the clocks read. */
export interface ClockMilestone {
  kind: string;
  at: string;
  outcome: string | null;
}

/** What the clocks of a repair are computed from. */
export interface ClockFacts {
  awareAt: string | null;
  hazard: "none" | "significant" | "emergency" | null;
  hhsrsHazard: string | null;
  regime: "private" | "social" | null;
  policyVersion: string | null;
  milestones: readonly ClockMilestone[];
  /** When the repair was cancelled (a cancel ceases every clock still running then). */
  cancelledAt: string | null;
}

/** The world the clocks are read in: the working calendar, the private-sector start date, and now. */
export interface ClockContext {
  calendar: WorkingCalendar;
  /** The date (`YYYY-MM-DD`) the private rented sector comes under the rules; null while none is set. */
  prsInForceFrom: string | null;
  /** The instant the statuses are read at (breached or running). */
  now: string | Temporal.Instant;
}

/** A rule set: when it applies by law, to which hazards, and each clock's period and meeting milestone. */
interface RuleSet {
  /** The first London day awareness falls under the rules for social landlords. */
  socialInForceFrom: string;
  /** Whether a hazard of a level is in the law's scope (else the clocks are the agency's policy). */
  inScope(hazard: "significant" | "emergency", hhsrsHazard: string | null): boolean;
  periods: Record<ClockKind, ClockPeriod>;
  metBy: Record<ClockKind, string>;
}

const awaabsLaw: RuleSet = {
  socialInForceFrom: "2025-10-27",
  inScope: (hazard, hhsrs) =>
    hazard === "emergency" ? hhsrs !== null && hhsrs !== "crowding_and_space" : hhsrs === "damp_and_mould_growth",
  periods: {
    emergency_investigate: { unit: "hours", amount: 24 },
    emergency_make_safe: { unit: "hours", amount: 24 },
    significant_investigate: { unit: "working_days", amount: 10 },
    written_summary: { unit: "working_days", amount: 3 },
    safety_work_start: { unit: "working_days", amount: 5 },
    preventative_work_start: { unit: "calendar_days", amount: 84 },
  },
  metBy: {
    emergency_investigate: "investigated",
    emergency_make_safe: "made_safe",
    significant_investigate: "investigated",
    written_summary: "summary_sent",
    safety_work_start: "safety_work_started",
    preventative_work_start: "preventative_work_started",
  },
};

/** The rule sets by policyVersion; a workspace's hazard settings name the one its triages take. */
const ruleSets: Record<string, RuleSet> = { "awaabs-law-2025-10-27": awaabsLaw };

/** Each clock's `rule` (`<policyVersion>/<kind>`) by policyVersion, made once. */
const ruleNames: Record<string, Record<ClockKind, string>> = Object.fromEntries(
  Object.keys(ruleSets).map((version) => [
    version,
    Object.fromEntries(clockKinds.map((kind) => [kind, `${version}/${kind}`])) as Record<ClockKind, string>,
  ]),
);

/** The policyVersions of the rule sets the service knows. */
export const knownPolicyVersions: readonly string[] = Object.keys(ruleSets);

/** Every rule the service applies, as a clock's `rule` names it, with its period and the milestone that meets it. */
export function clockRules(): { rule: string; period: ClockPeriod; metBy: string }[] {
  return Object.entries(ruleSets).flatMap(([version, rules]) =>
    clockKinds.map((kind) => ({ rule: `${version}/${kind}`, period: rules.periods[kind], metBy: rules.metBy[kind] })),
  );
}

/** Whether the service knows the rule set a policyVersion names. */
export function knownPolicyVersion(policyVersion: string): boolean {
  return Object.hasOwn(ruleSets, policyVersion);
}

const instant = (value: string | Temporal.Instant) =>
  typeof value === "string" ? Temporal.Instant.from(value) : value;
const text = (value: Temporal.Instant) => value.toString({ fractionalSecondDigits: 3 });
/** 00:00 Europe/London on a date, as an instant. */
const londonMidnight = (date: string) => Temporal.PlainDate.from(date).toZonedDateTime(zone).toInstant();

/** `statutory` when the law binds this repair's clocks, else `policy` (the same periods as a service level). */
function basisOf(facts: ClockFacts, rules: RuleSet, context: ClockContext, awareAt: Temporal.Instant) {
  const hazard = facts.hazard;
  if (hazard !== "significant" && hazard !== "emergency") return "policy";
  if (!rules.inScope(hazard, facts.hhsrsHazard)) return "policy";
  const from =
    facts.regime === "social" ? rules.socialInForceFrom : facts.regime === "private" ? context.prsInForceFrom : null;
  if (from === null) return "policy";
  return Temporal.Instant.compare(awareAt, londonMidnight(from)) >= 0 ? "statutory" : "policy";
}

/** The clocks that exist, with their anchors: which kinds, each starting when. */
function existing(facts: ClockFacts, awareAt: Temporal.Instant): [ClockKind, Temporal.Instant][] {
  const investigated = facts.milestones.find((m) => m.kind === "investigated");
  const clocks: [ClockKind, Temporal.Instant][] = [];
  if (facts.hazard === "emergency") clocks.push(["emergency_investigate", awareAt], ["emergency_make_safe", awareAt]);
  if (facts.hazard === "significant") clocks.push(["significant_investigate", awareAt]);
  if (investigated && (facts.hazard === "significant" || facts.hazard === "emergency")) {
    const at = instant(investigated.at);
    clocks.push(["written_summary", at]);
    if (investigated.outcome === "hazard_confirmed") {
      if (facts.hazard === "significant") clocks.push(["safety_work_start", at]);
      clocks.push(["preventative_work_start", at]);
    }
  }
  return clocks;
}

/** The moments that cease a clock of a kind, with their reasons, earliest first. */
function ceasings(facts: ClockFacts, kind: ClockKind): { at: Temporal.Instant; reason: CeasedReason }[] {
  const found: { at: Temporal.Instant; reason: CeasedReason }[] = [];
  for (const m of facts.milestones) {
    if (m.kind === "completed") found.push({ at: instant(m.at), reason: "completed" });
    if (m.kind === "decanted" && kind === "emergency_make_safe") found.push({ at: instant(m.at), reason: "decanted" });
    if (m.kind === "investigated" && m.outcome === "no_hazard" && kind !== "written_summary")
      found.push({ at: instant(m.at), reason: "no_hazard" });
  }
  if (facts.cancelledAt !== null) found.push({ at: instant(facts.cancelledAt), reason: "cancelled" });
  return found.sort((a, b) => Temporal.Instant.compare(a.at, b.at));
}

/**
 * The clocks of a repair, in table order: none before triage, for hazard `none`, or for a legacy record (no
 * awareAt or policyVersion). Throws for a policyVersion the service has no rule set for.
 */
export function repairClocks(facts: ClockFacts, context: ClockContext): Clock[] {
  if (facts.awareAt === null || facts.policyVersion === null) return [];
  if (facts.hazard !== "significant" && facts.hazard !== "emergency") return [];
  const rules = ruleSets[facts.policyVersion];
  if (!rules) throw new Error(`no hazard clock rule set is named ${facts.policyVersion}`);
  return clocksInMs(facts, rules, context) ?? clocksOnTemporal(facts, rules, context);
}

/**
 * repairClocks computed on Temporal instants only, whatever their form: what the epoch-millisecond path must answer
 * byte for byte (its tests compare the two).
 */
export function repairClocksOnTemporal(facts: ClockFacts, context: ClockContext): Clock[] {
  if (facts.awareAt === null || facts.policyVersion === null) return [];
  if (facts.hazard !== "significant" && facts.hazard !== "emergency") return [];
  const rules = ruleSets[facts.policyVersion];
  if (!rules) throw new Error(`no hazard clock rule set is named ${facts.policyVersion}`);
  return clocksOnTemporal(facts, rules, context);
}

/** The clocks on Temporal instants: any instants at all (what clocksInMs answers for whole milliseconds). */
function clocksOnTemporal(facts: ClockFacts, rules: RuleSet, context: ClockContext): Clock[] {
  const awareAt = instant(facts.awareAt!);
  const now = instant(context.now);
  const basis = basisOf(facts, rules, context, awareAt);
  return existing(facts, awareAt).map(([kind, startsAt]) => {
    const due = clockDue(context.calendar, startsAt, rules.periods[kind]);
    const met = facts.milestones.find((m) => m.kind === rules.metBy[kind]);
    const ceasing = met ? undefined : ceasings(facts, kind).find((c) => Temporal.Instant.compare(c.at, due.dueAt) < 0);
    let status: ClockStatus;
    if (met) status = Temporal.Instant.compare(instant(met.at), due.dueAt) <= 0 ? "met" : "met_late";
    else if (ceasing) status = "ceased";
    else if (Temporal.Instant.compare(now, due.dueAt) > 0) status = "breached";
    else status = "running";
    return {
      kind,
      basis,
      rule: `${facts.policyVersion}/${kind}`,
      startsAt: text(startsAt),
      dueAt: text(due.dueAt),
      status,
      metAt: met ? text(instant(met.at)) : null,
      ceasedReason: ceasing?.reason ?? null,
      explanation: due.explanation,
    };
  });
}

/** An instant as answers write it (`2026-12-23T10:00:00.000Z`): Date reads and writes these exactly. */
const answerForm = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** Epoch ms of an instant in answer form, or NaN for any other (clocksInMs then leaves it to Temporal). */
function msOf(value: string | Temporal.Instant): number {
  if (typeof value !== "string")
    return value.epochNanoseconds % 1_000_000n === 0n ? value.epochMilliseconds : Number.NaN;
  return answerForm.test(value) ? Date.parse(value) : Number.NaN;
}

/** London midnights of the in-force dates, by date. */
const midnights = new Map<string, number>();
function londonMidnightMs(date: string): number {
  let ms = midnights.get(date);
  if (ms === undefined) {
    ms = londonMidnight(date).epochMilliseconds;
    if (midnights.size > 100) midnights.clear();
    midnights.set(date, ms);
  }
  return ms;
}

/**
 * The clocks as clocksOnTemporal answers them, on epoch milliseconds with each count of days made once a calendar
 * (clockDueMs); undefined when an instant is not in answer form (whole milliseconds, UTC), left to Temporal then.
 */
function clocksInMs(facts: ClockFacts, rules: RuleSet, context: ClockContext): Clock[] | undefined {
  const awareMs = msOf(facts.awareAt!);
  const nowMs = msOf(context.now);
  if (Number.isNaN(awareMs) || Number.isNaN(nowMs)) return undefined;
  const milestones: { kind: string; at: string; ms: number; outcome: string | null }[] = [];
  for (const m of facts.milestones) {
    const ms = msOf(m.at);
    if (Number.isNaN(ms)) return undefined;
    milestones.push({ kind: m.kind, at: m.at, ms, outcome: m.outcome });
  }
  const cancelledMs = facts.cancelledAt === null ? null : msOf(facts.cancelledAt);
  if (Number.isNaN(cancelledMs)) return undefined;
  const hazard = facts.hazard;
  let basis: Clock["basis"] = "policy";
  if ((hazard === "significant" || hazard === "emergency") && rules.inScope(hazard, facts.hhsrsHazard)) {
    const from =
      facts.regime === "social" ? rules.socialInForceFrom : facts.regime === "private" ? context.prsInForceFrom : null;
    if (from !== null && awareMs >= londonMidnightMs(from)) basis = "statutory";
  }
  const investigated = milestones.find((m) => m.kind === "investigated");
  const anchors: [ClockKind, string, number][] = [];
  const awareAt = facts.awareAt!;
  if (hazard === "emergency")
    anchors.push(["emergency_investigate", awareAt, awareMs], ["emergency_make_safe", awareAt, awareMs]);
  if (hazard === "significant") anchors.push(["significant_investigate", awareAt, awareMs]);
  if (investigated && (hazard === "significant" || hazard === "emergency")) {
    anchors.push(["written_summary", investigated.at, investigated.ms]);
    if (investigated.outcome === "hazard_confirmed") {
      if (hazard === "significant") anchors.push(["safety_work_start", investigated.at, investigated.ms]);
      anchors.push(["preventative_work_start", investigated.at, investigated.ms]);
    }
  }
  const names = ruleNames[facts.policyVersion!]!;
  return anchors.map(([kind, startsAt, startMs]) => {
    const due = clockDueMs(context.calendar, startMs, rules.periods[kind]);
    const met = milestones.find((m) => m.kind === rules.metBy[kind]);
    let ceasing: { ms: number; reason: CeasedReason } | undefined;
    if (!met) {
      // The earliest ceasing moment before the due instant (the first listed of equal ones), as ceasings() sorts.
      const consider = (ms: number, reason: CeasedReason) => {
        if (ms < due.dueMs && (ceasing === undefined || ms < ceasing.ms)) ceasing = { ms, reason };
      };
      for (const m of milestones) {
        if (m.kind === "completed") consider(m.ms, "completed");
        if (m.kind === "decanted" && kind === "emergency_make_safe") consider(m.ms, "decanted");
        if (m.kind === "investigated" && m.outcome === "no_hazard" && kind !== "written_summary")
          consider(m.ms, "no_hazard");
      }
      if (cancelledMs !== null) consider(cancelledMs, "cancelled");
    }
    let status: ClockStatus;
    if (met) status = met.ms <= due.dueMs ? "met" : "met_late";
    else if (ceasing) status = "ceased";
    else if (nowMs > due.dueMs) status = "breached";
    else status = "running";
    return {
      kind,
      basis,
      rule: names[kind],
      startsAt,
      dueAt: due.dueText,
      status,
      metAt: met ? met.at : null,
      ceasedReason: ceasing?.reason ?? null,
      explanation: due.explanation,
    };
  });
}

/**
 * The earliest and latest due instants among a repair's open clocks (running or breached: not met, not ceased),
 * or nulls when none is open. Which clocks are open does not depend on `now`: a breached clock stays open. The
 * repairs list keeps these stored (`open_due_at`, `open_due_last_at`) so that it can order and filter by them.
 */
export function openDues(clocks: readonly Clock[]): { first: string | null; last: string | null } {
  const dues = clocks
    .filter((c) => c.status === "running" || c.status === "breached")
    .map((c) => c.dueAt)
    .sort();
  return { first: dues[0] ?? null, last: dues.at(-1) ?? null };
}
