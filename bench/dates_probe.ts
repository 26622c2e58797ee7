/**
 * The London calendar's cost per call (src/core/dates.ts): londonMidnight, londonToday and addLondonDays over 100,000
 * instants, and what one agenda request asks of them (its default window; a week's page served from stored days).
 *
 *   bun bench/dates_probe.ts [module]    module: another copy of dates.ts to compare (default: src/core/dates.ts)
 *
 * Two sets of instants: "one window" (92 days from 2026-03-01, across the spring change: what requests ask for) and
 * "2024-2027" (four years: a cache of hours or days would not hold them all). Each figure is the best of 5 rounds.
 */
import { resolve } from "node:path";

type Dates = {
  londonMidnight(date: string): number;
  londonToday(at?: number): string;
  addLondonDays(at: number, days: number): number;
};

const path = process.argv[2] ? resolve(process.argv[2]) : "../src/core/dates.ts";
const dates = (await import(path)) as Dates;
const count = 100_000;

function instants(from: number, to: number): number[] {
  let seed = 42;
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  return Array.from({ length: count }, () => from + Math.floor(random() * (to - from)));
}

const isoDay = (at: number) => new Date(at).toISOString().slice(0, 10);
let sink = 0;

/** The best of 5 rounds, in nanoseconds per call, of `call` over every element of `inputs`. */
function nsPerCall<T>(inputs: T[], call: (input: T) => number | string): number {
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < 5; round++) {
    const start = Bun.nanoseconds();
    for (const input of inputs) {
      const out = call(input);
      sink += typeof out === "number" ? out : out.length;
    }
    best = Math.min(best, (Bun.nanoseconds() - start) / inputs.length);
  }
  return best;
}

/** What resolveWindow asks for the default window: today's midnight, +7 days, and the 92-day limit. */
function defaultWindow(now: number): number {
  const from = dates.londonMidnight(dates.londonToday(now));
  return dates.addLondonDays(from, 7) + dates.addLondonDays(from, 92);
}

/**
 * What a page of a week asks (`from` and `to` dates, stored days): both bounds' midnights, the 92-day limit, then
 * storedDaysOf's first day and the midnight of each day up to `to` (the days' texts are made beforehand).
 */
function weekPage(days: string[]): number {
  const from = dates.londonMidnight(days[0]!);
  let total = dates.londonMidnight(days[7]!) + dates.addLondonDays(from, 92);
  total += dates.londonToday(from).length;
  for (const day of days) total += dates.londonMidnight(day);
  return total;
}

const sets = {
  "one window": instants(Date.UTC(2026, 2, 1), Date.UTC(2026, 5, 1)),
  "2024-2027": instants(Date.UTC(2024, 0, 1), Date.UTC(2028, 0, 1)),
};
console.log(`module: ${path}`);
for (const [name, at] of Object.entries(sets)) {
  const days = at.map(isoDay);
  const weeks = at.map((t) => Array.from({ length: 8 }, (_, i) => isoDay(t + i * 86_400_000)));
  const rows = [
    ["londonMidnight(date)", nsPerCall(days, dates.londonMidnight)],
    ["londonToday(at)", nsPerCall(at, dates.londonToday)],
    ["addLondonDays(at, 7)", nsPerCall(at, (t) => dates.addLondonDays(t, 7))],
    ["default window (4 calls)", nsPerCall(at, defaultWindow)],
    ["a week's page (12 calls)", nsPerCall(weeks, weekPage)],
  ] as const;
  console.log(`\n${name}`);
  for (const [what, ns] of rows) console.log(`  ${what.padEnd(28)} ${ns.toFixed(0).padStart(9)} ns/call`);
}
if (sink === 0) console.log("");
