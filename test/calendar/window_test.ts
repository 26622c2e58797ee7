/** The agenda window (CONTRACT.md §4.9): London midnights across the clock changes, defaults and limits. */
import { describe, expect, test } from "bun:test";
import { addLondonDays, londonInstant, londonMidnight, londonOffset, londonToday, parseBound, resolveWindow } from "../../src/calendar/window.ts";

const iso = (t: number) => new Date(t).toISOString();

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

describe("window bounds", () => {
  test.each([
    ["2026-03-29T09:00:00Z", "2026-03-29T09:00:00.000Z"],
    ["2026-03-29T09:00:00.5+01:00", "2026-03-29T08:00:00.500Z"],
    ["2026-03-29t09:00:00.123456789z", "2026-03-29T09:00:00.123Z"],
    ["2026-10-25", "2026-10-24T23:00:00.000Z"],
  ])("%s is %s", (value, expected) => {
    expect(iso(parseBound("from", value))).toBe(expected);
  });

  test.each(["2026-02-30", "2026-13-01", "2026-03-29T24:00:00Z", "2026-03-29T09:00:00", "2026-03-29T09:00:00+25:00", "yesterday"])(
    "%s is refused naming the parameter",
    (value) => {
      expect(() => parseBound("to", value)).toThrow();
      try {
        parseBound("to", value);
      } catch (error: any) {
        expect(error.fields.issues[0].path).toBe("/query/to");
      }
    },
  );
});

describe("resolving the window", () => {
  const summerEvening = Date.parse("2026-07-01T23:30:00Z"); // 00:30 on 2 July in London

  test("the default is today 00:00 in London to seven days later", () => {
    const w = resolveWindow({}, summerEvening);
    expect(iso(w.from)).toBe("2026-07-01T23:00:00.000Z");
    expect(iso(w.to)).toBe("2026-07-08T23:00:00.000Z");
  });

  test("a default window over the autumn change lasts seven days and one hour", () => {
    const w = resolveWindow({}, Date.parse("2026-10-22T12:00:00Z"));
    expect(iso(w.from)).toBe("2026-10-21T23:00:00.000Z");
    expect(iso(w.to)).toBe("2026-10-29T00:00:00.000Z");
  });

  test("only from given: to is seven London days later", () => {
    const w = resolveWindow({ from: "2026-03-25" }, summerEvening);
    expect(iso(w.to)).toBe("2026-03-31T23:00:00.000Z");
  });

  function refusal(query: { from?: string; to?: string }) {
    try {
      resolveWindow(query, summerEvening);
    } catch (error: any) {
      return { tag: error.tag, issues: error.fields.issues };
    }
    return undefined;
  }

  test("to must be after from", () => {
    expect(refusal({ from: "2026-03-29", to: "2026-03-29" })).toEqual({ tag: "RequestInvalid", issues: [{ path: "/query/to", message: "`to` must be after `from`" }] });
    expect(refusal({ from: "2026-03-29T10:00:00Z", to: "2026-03-29T09:00:00Z" })?.tag).toBe("RequestInvalid");
    expect(refusal({ to: "2026-07-01" })?.tag).toBe("RequestInvalid");
  });

  test("92 London days are allowed across a change, 92 days and a minute are not", () => {
    const w = resolveWindow({ from: "2026-03-01", to: "2026-06-01" }, summerEvening);
    expect(w.to - w.from).toBe(92 * 86_400_000 - 3600_000);
    expect(refusal({ from: "2026-03-01", to: "2026-06-01T00:01:00+01:00" })).toEqual({ tag: "RequestInvalid", issues: [{ path: "/query/to", message: "The window is at most 92 days" }] });
    const autumn = resolveWindow({ from: "2026-09-01", to: "2026-12-02" }, summerEvening);
    expect(autumn.to - autumn.from).toBe(92 * 86_400_000 + 3600_000);
  });
});
