import { expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { DateOn, Instant } from "../../src/core/schema.ts";

test.each([
  ["2026-11-22", true],
  ["2024-02-29", true],
  ["2023-02-29", false],
  ["2026-13-01", false],
  ["2026-1-01", false],
  ["", false],
  ["1900-01-01", true],
  ["2200-12-31", true],
  ["1899-12-31", false],
  ["9999-12-31", false],
])("DateOn %p is %p", (value, ok) => {
  expect(Value.Check(DateOn, value)).toBe(ok);
});

test.each([
  ["2026-11-22T09:30:00.000Z", true],
  ["2026-11-22T09:30:00Z", true],
  ["2026-11-22T09:30:00+01:00", true],
  ["2026-11-22 09:30:00", false],
  ["2026-11-22", false],
  ["2026-02-30T00:00:00Z", false],
  ["2200-12-31T23:59:59.999Z", true],
  ["9999-12-31T00:00:00Z", false],
  ["1899-12-31T23:00:00-01:00", false],
])("Instant %p is %p", (value, ok) => {
  expect(Value.Check(Instant, value)).toBe(ok);
});
