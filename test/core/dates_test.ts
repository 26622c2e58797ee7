/** Dates and instants (src/core/dates.ts): date and instant texts, and the London calendar across the clock changes. */
import { beforeEach, describe, expect, test } from "bun:test";
import {
  addLondonDays,
  isCalendarDay,
  isDate,
  isDateTime,
  isInstant,
  londonInstant,
  londonMidnight,
  londonToday,
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
    ["2026-03-29", "00:59:59", "2026-03-29T00:59:59.000Z"], // the last GMT second before the spring change
    ["2026-03-29", "02:00", "2026-03-29T01:00:00.000Z"], // the first BST minute
    ["2026-10-25", "00:59:59", "2026-10-24T23:59:59.000Z"], // BST still
    ["2026-10-25", "02:00", "2026-10-25T02:00:00.000Z"], // GMT again
    ["2026-07-01", "09:15", "2026-07-01T08:15:00.000Z"],
  ])("%s %s in London is %s", (date, time, expected) => {
    expect(iso(londonInstant(date, time))).toBe(expected);
  });

  test("a time the spring change skips is read with the winter offset; a repeated autumn time is the first", () => {
    expect(iso(londonInstant("2026-03-29", "01:30"))).toBe("2026-03-29T01:30:00.000Z");
    expect(iso(londonInstant("2026-10-25", "01:30"))).toBe("2026-10-25T00:30:00.000Z");
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

  test("a text that is not a date YYYY-MM-DD has no midnight", () => {
    expect(() => londonMidnight("2026-3-29")).toThrow("not a date");
    expect(() => londonMidnight("2026-02-30")).toThrow();
  });
});

describe("the London calendar against Intl around the 2026 and 2027 clock changes", () => {
  // The oracle: the time zone database through Intl.DateTimeFormat, with none of the code under test.
  const intl = new Intl.DateTimeFormat("en-GB", {
    timeZone: "Europe/London",
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  });
  /** London's wall clock at an instant, written as the UTC instant of the same reading. */
  const wallOf = (at: number) => {
    const p = Object.fromEntries(intl.formatToParts(new Date(at)).map((x) => [x.type, Number(x.value)]));
    return Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!, ((at % 1000) + 1000) % 1000);
  };
  /** `YYYY-MM-DDTHH:MM:SS` of a wall reading. */
  const text = (wall: number) => new Date(wall).toISOString().slice(0, 19);
  /**
   * The instant a wall reading names: the earliest instant that reads it (London is at +00:00 or +01:00 in these
   * years); a reading no instant has (the spring gap) is taken with the offset of the day before.
   */
  const instantOf = (wall: number) => {
    const readings = [wall - 3600_000, wall].filter((t) => wallOf(t) === wall);
    return readings.length > 0 ? readings[0]! : wall - (wallOf(wall - 86_400_000) - (wall - 86_400_000));
  };

  // The last Sundays of March and October, at 01:00 UTC when the clocks change; ~3.5 days either side.
  const changes = ["2026-03-29T01:00:00Z", "2026-10-25T01:00:00Z", "2027-03-28T01:00:00Z", "2027-10-31T01:00:00Z"];
  const perChange = 10_000;
  const step = 60_007; // a minute and 7 ms: the seconds and milliseconds vary too
  const instants = changes.flatMap((change) =>
    Array.from({ length: perChange }, (_, i) => Date.parse(change) + (i - perChange / 2) * step),
  );
  const mismatches: string[] = [];
  beforeEach(() => {
    mismatches.length = 0;
  });
  const expectSame = (what: string, mine: unknown, theirs: unknown) => {
    if (mine !== theirs) mismatches.push(`${what}: ${String(mine)}, Intl ${String(theirs)}`);
  };

  test("every day's midnight is the first instant Intl reads as that day", () => {
    const days = new Set(instants.map((at) => text(wallOf(at)).slice(0, 10)));
    expect(days.size).toBe(4 * 8);
    for (const day of days) {
      const midnight = londonMidnight(day);
      expectSame(`midnight of ${day}`, text(wallOf(midnight)), `${day}T00:00:00`);
      expectSame(`the instant before ${day}`, text(wallOf(midnight - 1)).slice(0, 10) < day, true);
    }
    expect(mismatches).toEqual([]);
  });

  test(`${instants.length} instants: the London day, a day on and back, the wall clock back to an instant`, () => {
    for (const at of instants) {
      const wall = wallOf(at);
      const day = londonToday(at);
      expectSame(`today at ${iso(at)}`, day, text(wall).slice(0, 10));
      expectSame(
        `${iso(at)} is in its day`,
        londonMidnight(day) <= at && at - londonMidnight(day) < 25 * 3600_000,
        true,
      );
      expectSame(`${iso(at)} + 1 day`, addLondonDays(at, 1), instantOf(wall + 86_400_000));
      expectSame(`${iso(at)} - 1 day`, addLondonDays(at, -1), instantOf(wall - 86_400_000));
      const [date, time] = text(wall).split("T") as [string, string];
      expectSame(`${date} ${time}`, londonInstant(date, time), instantOf(wall - (wall % 1000)));
    }
    expect(mismatches).toEqual([]);
    // ~300,000 readings through Intl: a few seconds, more than bun's 5 s default on a busy machine.
  }, 60_000);

  test("every minute of the four change days' wall clocks, the skipped and repeated ones too", () => {
    for (const change of changes) {
      const date = change.slice(0, 10);
      for (let minute = 0; minute < 24 * 60; minute++) {
        const time = `${String(Math.floor(minute / 60)).padStart(2, "0")}:${String(minute % 60).padStart(2, "0")}`;
        expectSame(`${date} ${time}`, londonInstant(date, time), instantOf(Date.parse(`${date}T${time}:00Z`)));
      }
    }
    expect(mismatches).toEqual([]);
  });
});
