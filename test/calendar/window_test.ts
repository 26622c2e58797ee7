/** The agenda window (src/calendar/operations.ts): London midnights across the clock changes, defaults and limits. */
import { describe, expect, test } from "bun:test";
import { parseBound, resolveWindow } from "../../src/calendar/window.ts";

const iso = (t: number) => new Date(t).toISOString();

describe("window bounds", () => {
  test.each([
    ["2026-03-29T09:00:00Z", "2026-03-29T09:00:00.000Z"],
    ["2026-03-29T09:00:00.5+01:00", "2026-03-29T08:00:00.500Z"],
    ["2026-03-29t09:00:00.123456789z", "2026-03-29T09:00:00.123Z"],
    ["2026-10-25", "2026-10-24T23:00:00.000Z"],
  ])("%s is %s", (value, expected) => {
    expect(iso(parseBound("from", value))).toBe(expected);
  });

  test.each([
    "2026-02-30",
    "2026-13-01",
    "2026-03-29T24:00:00Z",
    "2026-03-29T09:00:00",
    "2026-03-29T09:00:00+25:00",
    "yesterday",
  ])("%s is refused naming the parameter", (value) => {
    expect(() => parseBound("to", value)).toThrow();
    try {
      parseBound("to", value);
    } catch (error: any) {
      expect(error.fields.issues[0].path).toBe("/query/to");
    }
  });
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
    expect(refusal({ from: "2026-03-29", to: "2026-03-29" })).toEqual({
      tag: "RequestInvalid",
      issues: [{ path: "/query/to", message: "`to` must be after `from`" }],
    });
    expect(refusal({ from: "2026-03-29T10:00:00Z", to: "2026-03-29T09:00:00Z" })?.tag).toBe("RequestInvalid");
    expect(refusal({ to: "2026-07-01" })?.tag).toBe("RequestInvalid");
  });

  test("92 London days are allowed across a change, 92 days and a minute are not", () => {
    const w = resolveWindow({ from: "2026-03-01", to: "2026-06-01" }, summerEvening);
    expect(w.to - w.from).toBe(92 * 86_400_000 - 3600_000);
    expect(refusal({ from: "2026-03-01", to: "2026-06-01T00:01:00+01:00" })).toEqual({
      tag: "RequestInvalid",
      issues: [{ path: "/query/to", message: "The window is at most 92 days" }],
    });
    const autumn = resolveWindow({ from: "2026-09-01", to: "2026-12-02" }, summerEvening);
    expect(autumn.to - autumn.from).toBe(92 * 86_400_000 + 3600_000);
  });
});
