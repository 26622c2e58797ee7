/** Dates and instants (src/core/dates.ts): date and instant texts, and the London calendar across the clock changes. */
import { describe, expect, test } from "bun:test";
import {
  addLondonDays,
  isCalendarDay,
  isDate,
  isDateTime,
  isInstant,
  londonInstant,
  londonMidnight,
  londonOffset,
  londonToday,
  londonWall,
} from "../../src/core/dates.ts";

const iso = (t: number) => new Date(t).toISOString();

describe("date and instant texts", () => {
  test.each([
    ["2026-11-22", true],
    ["2024-02-29", true],
    ["2023-02-29", false],
    ["2026-13-01", false],
    ["2026-1-01", false],
    ["1900-01-01", true],
    ["2200-12-31", true],
    ["1899-12-31", false],
    ["2201-01-01", false],
    ["9999-12-31", false],
    ["0000-01-01", false],
  ])("isDate(%p) is %p", (value, ok) => {
    expect(isDate(value)).toBe(ok);
  });

  test.each([
    ["2026-11-22T09:30:00.000Z", true, true],
    ["2026-11-22T09:30:00+01:00", true, true],
    ["2026-11-22t09:30:00z", true, false],
    ["2026-11-22T09:30:00.123456789Z", true, false],
    ["2026-11-22T09:30:00.123456Z", true, true],
    ["2026-11-22T09:60:00Z", false, false],
    ["2026-02-30T09:30:00Z", false, false],
    ["2026-11-22T09:30:00", false, false],
    ["2026-11-22T24:00:00Z", false, false],
    ["2026-11-22T09:30:00+24:00", false, false],
    ["1900-01-01T00:00:00Z", true, true],
    ["2200-12-31T23:59:59.999Z", true, true],
    ["1899-12-31T23:59:59Z", false, false],
    ["2201-01-01T00:00:00Z", false, false],
    ["9999-12-31T00:00:00Z", false, false],
  ])("%p: the API's date-time %p, the import's instant %p", (value, dateTime, instant) => {
    expect([isDateTime(value), isInstant(value)]).toEqual([dateTime, instant]);
  });

  test.each([
    [2024, 2, 29, true],
    [2023, 2, 29, false],
    [44, 3, 15, true],
    [100, 2, 29, false],
    [9999, 12, 31, true],
    [0, 1, 1, false],
  ])("isCalendarDay(%p, %p, %p) is %p, whatever the century", (year, month, day, ok) => {
    expect(isCalendarDay(year, month, day)).toBe(ok);
  });
});

describe("London midnight of a date", () => {
  test.each([
    ["2026-01-15", "2026-01-15T00:00:00.000Z"], // winter: GMT
    ["2026-07-01", "2026-06-30T23:00:00.000Z"], // summer: BST
    ["2026-03-28", "2026-03-28T00:00:00.000Z"], // the Saturday before the spring change
    ["2026-03-29", "2026-03-29T00:00:00.000Z"], // the last Sunday of March: midnight is still GMT
    ["2026-03-30", "2026-03-29T23:00:00.000Z"], // the Monday after: BST
    ["2026-10-24", "2026-10-23T23:00:00.000Z"], // the Saturday before the autumn change
    ["2026-10-25", "2026-10-24T23:00:00.000Z"], // the last Sunday of October: midnight is still BST
    ["2026-10-26", "2026-10-26T00:00:00.000Z"], // the Monday after: GMT
    ["2025-03-30", "2025-03-30T00:00:00.000Z"],
    ["2025-10-26", "2025-10-25T23:00:00.000Z"],
    ["2028-02-29", "2028-02-29T00:00:00.000Z"],
  ])("%s starts at %s", (date, expected) => {
    expect(iso(londonMidnight(date))).toBe(expected);
  });

  test("the spring Sunday lasts 23 hours and the autumn Sunday 25", () => {
    expect(londonMidnight("2026-03-30") - londonMidnight("2026-03-29")).toBe(23 * 3600_000);
    expect(londonMidnight("2026-10-26") - londonMidnight("2026-10-25")).toBe(25 * 3600_000);
    expect(londonMidnight("2026-06-02") - londonMidnight("2026-06-01")).toBe(24 * 3600_000);
  });
});

describe("London wall clock", () => {
  test.each([
    ["2026-03-29T00:59:59.999Z", 0],
    ["2026-03-29T01:00:00.000Z", 3600_000],
    ["2026-10-25T00:59:59.999Z", 3600_000],
    ["2026-10-25T01:00:00.000Z", 0],
  ])("the offset at %s is %d ms", (at, offset) => {
    expect(londonOffset(Date.parse(at))).toBe(offset);
  });

  test("a time the spring change skips is read with the winter offset; a repeated autumn time is the first", () => {
    const skipped = londonInstant({ year: 2026, month: 3, day: 29, hour: 1, minute: 30, second: 0, ms: 0 });
    expect(iso(skipped)).toBe("2026-03-29T01:30:00.000Z");
    const repeated = londonInstant({ year: 2026, month: 10, day: 25, hour: 1, minute: 30, second: 0, ms: 0 });
    expect(iso(repeated)).toBe("2026-10-25T00:30:00.000Z");
  });

  test("adding London days keeps the wall-clock time across a change", () => {
    expect(iso(addLondonDays(Date.parse("2026-03-28T09:00:00Z"), 1))).toBe("2026-03-29T08:00:00.000Z");
    expect(iso(addLondonDays(Date.parse("2026-10-24T08:00:00Z"), 1))).toBe("2026-10-25T09:00:00.000Z");
    expect(iso(addLondonDays(Date.parse("2026-01-31T12:00:00Z"), 30))).toBe("2026-03-02T12:00:00.000Z");
  });

  test("today is the London date: 23:30 UTC in summer is already tomorrow", () => {
    expect(londonToday(Date.parse("2026-07-01T23:30:00Z"))).toBe("2026-07-02");
    expect(londonToday(Date.parse("2026-01-01T23:30:00Z"))).toBe("2026-01-01");
  });
});

describe("London wall clock read an hour at a time", () => {
  // The oracle: the time zone database through Intl, read afresh for every instant.
  const oracle = new Intl.DateTimeFormat("en-GB", {
    timeZone: "Europe/London",
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  });
  const read = (at: number) => {
    const w = londonWall(at);
    const p = Object.fromEntries(oracle.formatToParts(new Date(at)).map((x) => [x.type, Number(x.value)]));
    return [
      [w.year, w.month, w.day, w.hour, w.minute, w.second, w.ms],
      [p.year, p.month, p.day, p.hour, p.minute, p.second, ((at % 1000) + 1000) % 1000],
    ];
  };
  const mismatches = (instants: number[]) =>
    instants.map(read).filter(([mine, theirs]) => JSON.stringify(mine) !== JSON.stringify(theirs));

  test("every hour's first and last millisecond agree with Intl: double summer time (1939-1948) and 2024-2027", () => {
    const instants: number[] = [];
    for (const [from, to] of [
      [Date.UTC(1939, 0, 1), Date.UTC(1948, 0, 1)],
      [Date.UTC(2024, 0, 1), Date.UTC(2028, 0, 1)],
    ] as const) {
      for (let t = from; t < to; t += 3600_000) instants.push(t, t + 3599_999);
    }
    expect(mismatches(instants)).toEqual([]);
    // ~230,000 readings through Intl: 2-3 s on a quiet machine, more than bun's 5 s default on a busy one.
  }, 60_000);

  test("random instants from 1800 to 2200 agree with Intl (before 1900 Intl is read every time)", () => {
    const from = Date.UTC(1800, 0, 1);
    const span = Date.UTC(2200, 0, 1) - from;
    const instants = Array.from({ length: 20_000 }, () => from + Math.floor(Math.random() * span));
    expect(mismatches(instants)).toEqual([]);
  }, 60_000);
});
