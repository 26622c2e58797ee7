/// <reference types="temporal-spec/global" />
/**
 * The clocks on epoch milliseconds (what answers use) against the clocks on Temporal instants (repairClocksOnTemporal),
 * over thousands of drawn repairs: starts around both clock changes of every year, at midnights and the last
 * millisecond of days, in years the calendar does not cover, with every milestone and a cancel. Every answer must be
 * the same, byte for byte. London's offsets and days are also checked against Intl, which shares no code with either.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repairClocks, repairClocksOnTemporal, type ClockFacts } from "../../src/maintenance_pro/clocks.ts";
import {
  formatLondonMs,
  formatLondonTime,
  londonDayNumber,
  londonOffsetMs,
  workingCalendar,
  type WorkingCalendar,
} from "../../src/maintenance_pro/working_days.ts";

const shipped = JSON.parse(readFileSync(join(import.meta.dir, "../../data/bank-holidays.json"), "utf8")) as Record<
  string,
  { events: { date: string; title: string }[] }
>;
const events = shipped["england-and-wales"]!.events;
const years = [...new Set(events.map((e) => Number(e.date.slice(0, 4))))];
const calendar = workingCalendar(events, years);
/** The same years with Christmas 2026 moved to a Tuesday: a second calendar must not reuse the first's counts. */
const moved = workingCalendar(
  events.map((e) => (e.date === "2026-12-25" ? { ...e, date: "2026-12-29" } : e)),
  years,
);

/** A small seeded generator (mulberry32), so a failure can be replayed. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const hour = 3_600_000;
/** Instants near London's clock changes (last Sundays of March and October, 01:00 UTC), midnights and day ends. */
function instants(next: () => number): number {
  const year = 2011 + Math.floor(next() * 22);
  const pick = next();
  if (pick < 0.3) {
    const month = next() < 0.5 ? 2 : 9;
    const last = new Date(Date.UTC(year, month + 1, 0));
    const sunday = Date.UTC(year, month, last.getUTCDate() - last.getUTCDay(), 1);
    return sunday + Math.round((next() - 0.5) * 6 * hour);
  }
  const day = Date.UTC(year, 0, 1) + Math.floor(next() * 366) * 86_400_000;
  if (pick < 0.5) return day - hour + (next() < 0.5 ? 0 : -1) + (next() < 0.5 ? 0 : hour);
  return day + Math.floor(next() * 86_400_000);
}

const iso = (ms: number) => new Date(ms).toISOString();
const kinds = [
  "investigated",
  "made_safe",
  "decanted",
  "completed",
  "summary_sent",
  "safety_work_started",
  "preventative_work_started",
];

function drawn(next: () => number): { facts: ClockFacts; now: string } {
  const aware = instants(next);
  const hazard = next() < 0.5 ? "significant" : "emergency";
  const milestones = kinds
    .filter(() => next() < 0.35)
    .map((kind) => ({
      kind,
      at: iso(aware + Math.floor(next() * 40 * 86_400_000)),
      outcome: kind === "investigated" ? (next() < 0.7 ? "hazard_confirmed" : "no_hazard") : null,
    }));
  const hhsrs = ["damp_and_mould_growth", "crowding_and_space", "fire", null][Math.floor(next() * 4)]!;
  const facts: ClockFacts = {
    awareAt: iso(aware),
    hazard,
    hhsrsHazard: hhsrs,
    regime: next() < 0.5 ? "social" : "private",
    policyVersion: "awaabs-law-2025-10-27",
    milestones,
    cancelledAt: next() < 0.2 ? iso(aware + Math.floor(next() * 20 * 86_400_000)) : null,
  };
  return { facts, now: iso(aware + Math.floor(next() * 30 * 86_400_000)) };
}

function compare(cal: WorkingCalendar, count: number, seed: number) {
  const next = random(seed);
  let clocks = 0;
  for (let i = 0; i < count; i++) {
    const { facts, now } = drawn(next);
    const prs = next() < 0.5 ? null : "2026-05-01";
    const context = { calendar: cal, prsInForceFrom: prs, now };
    const fast = repairClocks(facts, context);
    const exact = repairClocksOnTemporal(facts, context);
    if (JSON.stringify(fast) !== JSON.stringify(exact))
      expect({ facts, now, fast }).toEqual({ facts, now, fast: exact });
    clocks += fast.length;
  }
  return clocks;
}

describe("the clocks on epoch milliseconds", () => {
  test("answer as the clocks on Temporal do, over 6,000 drawn repairs and two calendars", () => {
    expect(compare(calendar, 3000, 31)).toBeGreaterThan(5000);
    expect(compare(moved, 3000, 31)).toBeGreaterThan(5000);
  });

  test("a second calendar's counts are its own: Christmas 2026 moved changes the due day", () => {
    const facts: ClockFacts = {
      awareAt: "2026-12-23T10:00:00.000Z",
      hazard: "significant",
      hhsrsHazard: "damp_and_mould_growth",
      regime: "social",
      policyVersion: "awaabs-law-2025-10-27",
      milestones: [],
      cancelledAt: null,
    };
    const now = "2026-12-23T10:00:00.000Z";
    expect(repairClocks(facts, { calendar, prsInForceFrom: null, now })[0]!.dueAt).toBe("2027-01-11T23:59:59.999Z");
    const other = repairClocks(facts, { calendar: moved, prsInForceFrom: null, now })[0]!;
    expect(other.explanation).toContain("Tue 29 Dec");
    expect(other).toEqual(repairClocksOnTemporal(facts, { calendar: moved, prsInForceFrom: null, now })[0]!);
  });

  test("instants not in answer form (offsets, microseconds) are left to Temporal and answered the same", () => {
    const facts: ClockFacts = {
      awareAt: "2026-03-29T01:30:00+01:00",
      hazard: "emergency",
      hhsrsHazard: "fire",
      regime: "social",
      policyVersion: "awaabs-law-2025-10-27",
      milestones: [{ kind: "investigated", at: "2026-03-30T10:00:00.000123Z", outcome: "hazard_confirmed" }],
      cancelledAt: null,
    };
    const context = { calendar, prsInForceFrom: null, now: Temporal.Instant.from("2026-03-30T00:30:00.0000005Z") };
    expect(repairClocks(facts, context)).toEqual(repairClocksOnTemporal(facts, context));
  });
});

describe("London's offset, day and clock face on epoch milliseconds", () => {
  const parts = new Intl.DateTimeFormat("en-GB", {
    timeZone: "Europe/London",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
  });
  test("agree with Intl around every clock change of 1990-2040 and at drawn instants", () => {
    const next = random(7);
    const checked: number[] = [];
    for (let year = 1990; year <= 2040; year++)
      for (const month of [2, 9]) {
        const last = new Date(Date.UTC(year, month + 1, 0));
        const change = Date.UTC(year, month, last.getUTCDate() - last.getUTCDay(), 1);
        checked.push(change - 1, change, change + 1, change - hour, change + hour);
      }
    for (let i = 0; i < 2000; i++) checked.push(instants(next));
    for (const ms of checked) {
      const p = Object.fromEntries(parts.formatToParts(ms).map((x) => [x.type, x.value]));
      const local = Date.UTC(+p.year!, +p.month! - 1, +p.day!, +p.hour!, +p.minute!, +p.second!);
      expect({ ms, offset: londonOffsetMs(ms) }).toEqual({ ms, offset: local - Math.floor(ms / 1000) * 1000 });
      expect(londonDayNumber(ms)).toBe(Math.floor(local / 86_400_000));
      expect(formatLondonMs(ms)).toBe(formatLondonTime(Temporal.Instant.fromEpochMilliseconds(ms)));
    }
  });
});
