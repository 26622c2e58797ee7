/// <reference types="temporal-spec/global" />
/**
 * The hazard clocks' working-day arithmetic. Expectations come from the GOV.UK list read here and from an oracle of
 * this file's own (UTC-day stepping over Date, the London day and offset from Intl.DateTimeFormat), or are written out
 * by hand; never from the module under test.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  calendarDaysAfter,
  clockDue,
  endOfLondonDay,
  explainDayCount,
  formatDay,
  formatLondonTime,
  londonDay,
  workingCalendar,
  workingDaysAfter,
  type WorkingCalendar,
} from "../../src/maintenance_pro/working_days.ts";

type GovUkEvent = { title: string; date: string; notes: string; bunting: boolean };
const file = JSON.parse(readFileSync(join(import.meta.dir, "../../data/bank-holidays.json"), "utf8")) as Record<
  string,
  { events: GovUkEvent[] }
>;
const govUk = file["england-and-wales"]!.events;
const holidaySet = new Set(govUk.map((e) => e.date));
const fileYears = govUk.map((e) => Number(e.date.slice(0, 4)));
const firstYear = Math.min(...fileYears);
const lastYear = Math.max(...fileYears);
const allYears = Array.from({ length: lastYear - firstYear + 1 }, (_, i) => firstYear + i);
const calendar = workingCalendar(govUk, allYears);

// ── The oracle: no Temporal, no module code ──
const dayMs = 86_400_000;
const londonClock = new Intl.DateTimeFormat("en-GB", {
  timeZone: "Europe/London",
  hourCycle: "h23",
  year: "numeric",
  month: "2-digit",
  day: "2-digit",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
});
/** London's wall clock at an instant, as numbers. */
function wall(ms: number) {
  const parts = Object.fromEntries(londonClock.formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  return {
    y: Number(parts.year),
    m: Number(parts.month),
    d: Number(parts.day),
    h: Number(parts.hour),
    min: Number(parts.minute),
    s: Number(parts.second),
  };
}
/** The London day of an instant as a UTC midnight in ms. */
function oracleLondonDay(ms: number): number {
  const w = wall(ms);
  return Date.UTC(w.y, w.m - 1, w.d);
}
/** London's offset from UTC at an instant, in ms. */
function londonOffset(ms: number): number {
  const w = wall(ms);
  return Date.UTC(w.y, w.m - 1, w.d, w.h, w.min, w.s) - Math.floor(ms / 1000) * 1000;
}
const iso = (utcMidnight: number) => new Date(utcMidnight).toISOString().slice(0, 10);
/** 23:59:59.999 London time on a day, as an ISO instant. */
function oracleEndOfDay(utcMidnight: number): string {
  const asIfUtc = utcMidnight + dayMs - 1;
  return new Date(asIfUtc - londonOffset(asIfUtc)).toISOString();
}
/** The oracle's count: day 0 is the London day of `startMs`; weekends and listed days are skipped. */
function oracleWorking(startMs: number, n: number, holidays = holidaySet, known = new Set(allYears)) {
  let day = oracleLondonDay(startMs);
  const skipped: string[] = [];
  let unknown = false;
  for (let counted = 0; counted < n; ) {
    day += dayMs;
    const weekday = new Date(day).getUTCDay();
    if (weekday === 0 || weekday === 6) continue;
    if (!known.has(new Date(day).getUTCFullYear())) unknown = true;
    if (holidays.has(iso(day))) skipped.push(iso(day));
    else counted++;
  }
  return { dueAt: oracleEndOfDay(day), skipped, unknown };
}

const at = (instant: string) => Temporal.Instant.from(instant);
const due = (cal: WorkingCalendar, start: string, n: number) => workingDaysAfter(cal, at(start), n);
const dueText = (cal: WorkingCalendar, start: string, n: number) => due(cal, start, n).dueAt.toString();
const skippedOf = (count: { skipped: { day: Temporal.PlainDate }[] }) => count.skipped.map((s) => s.day.toString());

/** Expects the module's count to be the oracle's (over `holidays` and `known` years), and returns it. */
function agreed(start: string, n: number, cal = calendar, holidays = holidaySet, known = new Set(allYears)) {
  const count = due(cal, start, n);
  const expected = oracleWorking(Date.parse(start), n, holidays, known);
  expect([start, n, count.dueAt.toString(), skippedOf(count), count.unknownYears.length > 0]).toEqual([
    start,
    n,
    expected.dueAt,
    expected.skipped,
    expected.unknown,
  ]);
  return count;
}

describe("the specification's example", () => {
  test("aware Wed 23 Dec 2026 10:00: 10 working days are due 2027-01-11T23:59:59.999Z, with its sentence", () => {
    const result = clockDue(calendar, at("2026-12-23T10:00:00Z"), { unit: "working_days", amount: 10 });
    expect(result.dueAt.toString()).toBe("2027-01-11T23:59:59.999Z");
    expect(result.explanation).toBe(
      "10 working days after Wed 23 Dec 2026, skipping Fri 25 Dec, Mon 28 Dec and Fri 1 Jan (bank holidays): " +
        "due by the end of Mon 11 Jan 2027",
    );
    expect(result.skipped.map((s) => [s.day.toString(), s.title])).toEqual([
      ["2026-12-25", "Christmas Day"],
      ["2026-12-28", "Boxing Day"],
      ["2027-01-01", "New Year’s Day"],
    ]);
    expect(result.unknownYears).toEqual([]);
    agreed("2026-12-23T10:00:00Z", 10);
  });

  test("25 Dec 2026 and 28 Dec 2026 are not working days: 1 working day from Thu 24 Dec is Tue 29 Dec", () => {
    expect(dueText(calendar, "2026-12-24T09:00:00Z", 1)).toBe("2026-12-29T23:59:59.999Z");
    agreed("2026-12-24T09:00:00Z", 1);
  });
});

describe("weekends", () => {
  test("1 working day from a Friday is the Monday (in BST: 22:59:59.999Z)", () => {
    expect(dueText(calendar, "2026-06-05T11:00:00Z", 1)).toBe("2026-06-08T22:59:59.999Z");
    agreed("2026-06-05T11:00:00Z", 1);
  });

  test("5 working days from a Monday in winter end the next Monday at 23:59:59.999Z", () => {
    expect(dueText(calendar, "2026-02-02T09:00:00Z", 5)).toBe("2026-02-09T23:59:59.999Z");
    agreed("2026-02-02T09:00:00Z", 5);
  });

  test("a count skips weekends without naming them", () => {
    const count = agreed("2026-02-06T15:00:00Z", 3);
    expect(count.dueDay.toString()).toBe("2026-02-11");
    expect(explainDayCount(count)).toBe("3 working days after Fri 6 Feb 2026: due by the end of Wed 11 Feb 2026");
  });
});

describe("substitute days, Christmas and New Year", () => {
  test("2026/27: Boxing Day on a Saturday moves to Mon 28 Dec; New Year's Day is Fri 1 Jan", () => {
    const count = agreed("2026-12-22T12:00:00Z", 6);
    expect(skippedOf(count)).toEqual(["2026-12-25", "2026-12-28", "2027-01-01"]);
    // Wed 23, Thu 24, Tue 29, Wed 30, Thu 31, Mon 4.
    expect(count.dueAt.toString()).toBe("2027-01-04T23:59:59.999Z");
  });

  test("2027/28: Christmas and Boxing Day move to Mon 27 and Tue 28 Dec, New Year’s Day to Mon 3 Jan", () => {
    const christmas = agreed("2027-12-23T10:00:00Z", 3);
    // Fri 24, Wed 29, Thu 30.
    expect(christmas.dueAt.toString()).toBe("2027-12-30T23:59:59.999Z");
    expect(skippedOf(christmas)).toEqual(["2027-12-27", "2027-12-28"]);
    const newYear = agreed("2027-12-31T10:00:00Z", 1);
    expect(newYear.dueAt.toString()).toBe("2028-01-04T23:59:59.999Z");
    expect(skippedOf(newYear)).toEqual(["2028-01-03"]);
    expect(explainDayCount(newYear)).toBe(
      "1 working day after Fri 31 Dec 2027, skipping Mon 3 Jan (bank holiday): due by the end of Tue 4 Jan 2028",
    );
  });

  test("10 working days from Mon 20 Dec 2027 skip 27 Dec, 28 Dec and 3 Jan", () => {
    const count = agreed("2027-12-20T10:00:00Z", 10);
    expect(count.dueAt.toString()).toBe("2028-01-06T23:59:59.999Z");
    expect(skippedOf(count)).toEqual(["2027-12-27", "2027-12-28", "2028-01-03"]);
  });
});

describe("Easter", () => {
  test("2026: Good Friday 3 Apr and Easter Monday 6 Apr are skipped", () => {
    const count = agreed("2026-04-02T09:00:00Z", 1);
    expect(count.dueAt.toString()).toBe("2026-04-07T22:59:59.999Z");
    expect(skippedOf(count)).toEqual(["2026-04-03", "2026-04-06"]);
  });

  test("2027: Good Friday 26 Mar, the clock change on Sun 28 Mar and Easter Monday 29 Mar", () => {
    const count = agreed("2027-03-25T12:00:00Z", 1);
    expect(count.dueAt.toString()).toBe("2027-03-30T22:59:59.999Z");
    expect(skippedOf(count)).toEqual(["2027-03-26", "2027-03-29"]);
  });

  test("2028: Good Friday 14 Apr and Easter Monday 17 Apr", () => {
    const count = agreed("2028-04-12T12:00:00Z", 3);
    // Thu 13, Tue 18, Wed 19.
    expect(count.dueAt.toString()).toBe("2028-04-19T22:59:59.999Z");
  });
});

describe("the March and October clock changes", () => {
  test("Sat 28 Mar 2026 23:30 GMT is still Saturday; its working day ends Mon 30 Mar 23:59:59.999 BST", () => {
    expect(londonDay(at("2026-03-28T23:30:00Z")).toString()).toBe("2026-03-28");
    expect(dueText(calendar, "2026-03-28T23:30:00Z", 1)).toBe("2026-03-30T22:59:59.999Z");
    agreed("2026-03-28T23:30:00Z", 1);
  });

  test("the night of the March change: 00:30 GMT and 02:30 BST on Sun 29 Mar are both Sunday", () => {
    for (const start of ["2026-03-29T00:30:00Z", "2026-03-29T01:30:00Z"]) {
      expect(londonDay(at(start)).toString()).toBe("2026-03-29");
      expect(dueText(calendar, start, 1)).toBe("2026-03-30T22:59:59.999Z");
      agreed(start, 1);
    }
  });

  test("23:30 UTC in summer is already the next London day", () => {
    expect(londonDay(at("2026-06-30T23:30:00Z")).toString()).toBe("2026-07-01");
    expect(londonDay(at("2026-06-30T22:59:59.999Z")).toString()).toBe("2026-06-30");
    expect(dueText(calendar, "2026-06-30T23:30:00Z", 1)).toBe("2026-07-02T22:59:59.999Z");
    expect(dueText(calendar, "2026-06-30T22:59:59.999Z", 1)).toBe("2026-07-01T22:59:59.999Z");
    agreed("2026-06-30T23:30:00Z", 1);
    agreed("2026-06-30T22:59:59.999Z", 1);
  });

  test("the night of the October change: 00:30 BST and both 01:30s of Sun 25 Oct 2026 are Sunday", () => {
    for (const start of ["2026-10-24T23:30:00Z", "2026-10-25T00:30:00Z", "2026-10-25T01:30:00Z"]) {
      expect(londonDay(at(start)).toString()).toBe("2026-10-25");
      expect(dueText(calendar, start, 1)).toBe("2026-10-26T23:59:59.999Z");
      agreed(start, 1);
    }
    expect(londonDay(at("2026-10-24T22:59:59Z")).toString()).toBe("2026-10-24");
  });

  test("a count from BST into GMT ends at 23:59:59.999Z, and from GMT into BST at 22:59:59.999Z", () => {
    // Thu 22 Oct 23:30 BST: Fri 23, Mon 26, Tue 27 (GMT).
    expect(dueText(calendar, "2026-10-22T22:30:00Z", 3)).toBe("2026-10-27T23:59:59.999Z");
    // Wed 24 Mar 23:30 GMT: Thu 25, (Good Friday, the change, Easter Monday), Tue 30, Wed 31 (BST).
    expect(dueText(calendar, "2027-03-24T23:30:00Z", 3)).toBe("2027-03-31T22:59:59.999Z");
    agreed("2026-10-22T22:30:00Z", 3);
    agreed("2027-03-24T23:30:00Z", 3);
  });

  test("the end of a London day on the days of the changes", () => {
    expect(endOfLondonDay(Temporal.PlainDate.from("2026-03-29")).toString()).toBe("2026-03-29T22:59:59.999Z");
    expect(endOfLondonDay(Temporal.PlainDate.from("2026-10-25")).toString()).toBe("2026-10-25T23:59:59.999Z");
    expect(endOfLondonDay(Temporal.PlainDate.from("2027-03-28")).toString()).toBe("2027-03-28T22:59:59.999Z");
    expect(endOfLondonDay(Temporal.PlainDate.from("2027-10-31")).toString()).toBe("2027-10-31T23:59:59.999Z");
  });
});

describe("awareness on a non-working day", () => {
  test("on a Saturday (Sat 26 Dec 2026) day 0 is the Saturday: 10 working days end Tue 12 Jan 2027", () => {
    const count = agreed("2026-12-26T10:00:00Z", 10);
    expect(count.anchorDay.toString()).toBe("2026-12-26");
    expect(count.dueAt.toString()).toBe("2027-01-12T23:59:59.999Z");
    expect(skippedOf(count)).toEqual(["2026-12-28", "2027-01-01"]);
  });

  test("on a bank holiday (Fri 25 Dec 2026) the holiday is day 0, not a skipped day", () => {
    const count = agreed("2026-12-25T10:00:00Z", 1);
    expect(count.dueAt.toString()).toBe("2026-12-29T23:59:59.999Z");
    expect(explainDayCount(count)).toBe(
      "1 working day after Fri 25 Dec 2026, skipping Mon 28 Dec (bank holiday): due by the end of Tue 29 Dec 2026",
    );
  });

  test("on Easter Monday 2026 at 23:30 BST", () => {
    const count = agreed("2026-04-06T22:30:00Z", 1);
    expect(count.dueAt.toString()).toBe("2026-04-07T22:59:59.999Z");
    expect(count.skipped).toEqual([]);
  });
});

describe("past the years of the list", () => {
  test(`a count into ${lastYear + 1} skips only weekends there, and says so`, () => {
    expect(lastYear).toBe(2028);
    const result = clockDue(calendar, at("2028-12-20T10:00:00Z"), { unit: "working_days", amount: 10 });
    // Thu 21, Fri 22, Wed 27, Thu 28, Fri 29, then 1 Jan 2029 counts: Mon 1, Tue 2, Wed 3, Thu 4, Fri 5.
    expect(result.dueAt.toString()).toBe("2029-01-05T23:59:59.999Z");
    expect(result.unknownYears).toEqual([2029]);
    expect(result.explanation).toBe(
      "10 working days after Wed 20 Dec 2028, skipping Mon 25 Dec and Tue 26 Dec (bank holidays), counting only " +
        "weekends as non-working days in 2029, for which no bank holidays are known: due by the end of Fri 5 Jan 2029",
    );
    agreed("2028-12-20T10:00:00Z", 10);
  });

  test("a count wholly in a later year: the early May Monday of 2030 is a working day", () => {
    const count = agreed("2030-05-01T09:00:00Z", 5);
    expect(count.dueAt.toString()).toBe("2030-05-08T22:59:59.999Z");
    expect(count.unknownYears).toEqual([2030]);
  });

  test("a count before the first year of the list says so too", () => {
    const count = agreed(`${firstYear - 1}-12-29T10:00:00Z`, 2);
    expect(count.unknownYears).toEqual([firstYear - 1]);
  });

  test("a calendar that knows fewer years counts Fri 1 Jan 2027 as a working day and says 2027 is not known", () => {
    const listed = govUk.filter((e) => e.date < "2027");
    const short = workingCalendar(listed, [2025, 2026]);
    const count = agreed("2026-12-23T10:00:00Z", 10, short, new Set(listed.map((e) => e.date)), new Set([2025, 2026]));
    expect(count.dueAt.toString()).toBe("2027-01-08T23:59:59.999Z");
    expect(skippedOf(count)).toEqual(["2026-12-25", "2026-12-28"]);
    expect(count.unknownYears).toEqual([2027]);
  });

  test("a count that ends in the last known year does not say so", () => {
    expect(agreed("2028-12-01T10:00:00Z", 10).unknownYears).toEqual([]);
  });
});

describe("calendar days and hours", () => {
  test("84 calendar days from Wed 23 Dec 2026 end Wed 17 Mar 2027, counting every day", () => {
    const result = clockDue(calendar, at("2026-12-23T10:00:00Z"), { unit: "calendar_days", amount: 84 });
    expect(result.dueAt.toString()).toBe("2027-03-17T23:59:59.999Z");
    expect(result.explanation).toBe("84 calendar days after Wed 23 Dec 2026: due by the end of Wed 17 Mar 2027");
    expect(result.skipped).toEqual([]);
  });

  test("84 calendar days across the March change end at 22:59:59.999Z; the oracle agrees for every day of 2026", () => {
    expect(calendarDaysAfter(at("2026-01-10T12:00:00Z"), 84).dueAt.toString()).toBe("2026-04-04T22:59:59.999Z");
    for (let day = Date.UTC(2026, 0, 1); day < Date.UTC(2027, 0, 1); day += dayMs) {
      const start = day + 23 * 3_600_000 + 30 * 60_000;
      const expected = oracleEndOfDay(oracleLondonDay(start) + 84 * dayMs);
      expect(calendarDaysAfter(Temporal.Instant.fromEpochMilliseconds(start), 84).dueAt.toString()).toBe(expected);
    }
  });

  test("24 hours are elapsed time: across the March change the London clock shows an hour more", () => {
    const result = clockDue(calendar, at("2026-03-28T12:00:00Z"), { unit: "hours", amount: 24 });
    expect(result.dueAt.toString()).toBe("2026-03-29T12:00:00Z");
    expect(result.explanation).toBe("24 hours after Sat 28 Mar 2026 12:00 GMT: due by Sun 29 Mar 2026 13:00 BST");
  });

  test("24 hours over a weekend and a bank holiday are still 24 hours", () => {
    const result = clockDue(calendar, at("2026-12-24T16:45:30Z"), { unit: "hours", amount: 24 });
    expect(result.dueAt.toString()).toBe("2026-12-25T16:45:30Z");
    expect(result.explanation).toBe("24 hours after Thu 24 Dec 2026 16:45:30 GMT: due by Fri 25 Dec 2026 16:45:30 GMT");
  });

  test("0 days end at the end of day 0; negative or fractional counts are refused", () => {
    expect(dueText(calendar, "2026-07-01T08:00:00Z", 0)).toBe("2026-07-01T22:59:59.999Z");
    expect(() => due(calendar, "2026-07-01T08:00:00Z", -1)).toThrow(RangeError);
    expect(() => due(calendar, "2026-07-01T08:00:00Z", 1.5)).toThrow(RangeError);
    expect(() => calendarDaysAfter(at("2026-07-01T08:00:00Z"), -1)).toThrow(RangeError);
    expect(() => clockDue(calendar, at("2026-07-01T08:00:00Z"), { unit: "hours", amount: -24 })).toThrow(RangeError);
  });
});

describe("formatting", () => {
  test("a day reads as 'Wed 23 Dec 2026', or 'Fri 1 Jan' without its year", () => {
    expect(formatDay(Temporal.PlainDate.from("2026-12-23"))).toBe("Wed 23 Dec 2026");
    expect(formatDay(Temporal.PlainDate.from("2027-01-01"), { year: false })).toBe("Fri 1 Jan");
    expect(formatDay(Temporal.PlainDate.from("2028-02-29"))).toBe("Tue 29 Feb 2028");
  });

  test("an instant reads as London's clock with GMT or BST", () => {
    expect(formatLondonTime(at("2026-07-01T08:05:00Z"))).toBe("Wed 1 Jul 2026 09:05 BST");
    expect(formatLondonTime(at("2026-10-25T01:30:00Z"))).toBe("Sun 25 Oct 2026 01:30 GMT");
    expect(formatLondonTime(at("2026-10-25T00:30:00Z"))).toBe("Sun 25 Oct 2026 01:30 BST");
  });

  test("weekday names agree with Intl for every day of 2025-2028", () => {
    const weekday = new Intl.DateTimeFormat("en-GB", { timeZone: "UTC", weekday: "short" });
    for (let day = Date.UTC(2025, 0, 1); day < Date.UTC(2029, 0, 1); day += dayMs) {
      const text = formatDay(Temporal.PlainDate.from(iso(day)));
      expect(text.slice(0, 3)).toBe(weekday.format(new Date(day)));
    }
  });
});

describe("every day of 2025-2028", () => {
  test("for N in 3, 5 and 10, from noon UTC and from 23:30 UTC, the module and the oracle agree", () => {
    let checked = 0;
    for (let day = Date.UTC(2025, 0, 1); day < Date.UTC(2029, 0, 1); day += dayMs) {
      for (const start of [day + 12 * 3_600_000, day + 23 * 3_600_000 + 30 * 60_000]) {
        for (const n of [3, 5, 10]) {
          const count = workingDaysAfter(calendar, Temporal.Instant.fromEpochMilliseconds(start), n);
          const expected = oracleWorking(start, n);
          if (
            count.dueAt.toString() !== expected.dueAt ||
            skippedOf(count).join() !== expected.skipped.join() ||
            count.unknownYears.length > 0 !== expected.unknown
          ) {
            expect({ start: new Date(start).toISOString(), n, due: count.dueAt.toString() }).toEqual({
              start: new Date(start).toISOString(),
              n,
              due: expected.dueAt,
            });
            expect(skippedOf(count)).toEqual(expected.skipped);
            expect(count.unknownYears.length > 0).toBe(expected.unknown);
          }
          checked++;
        }
      }
    }
    expect(checked).toBe(1461 * 2 * 3);
  });

  test("the oracle itself: every working day it counts is a weekday absent from the GOV.UK list", () => {
    // 2026 has 365 days, 104 weekend days and 8 bank holidays on weekdays: 253 working days.
    const end = oracleWorking(Date.parse("2025-12-31T12:00:00Z"), 253);
    expect(end.dueAt).toBe("2026-12-31T23:59:59.999Z");
    expect(end.skipped).toEqual(govUk.filter((e) => e.date.startsWith("2026")).map((e) => e.date));
  });
});
