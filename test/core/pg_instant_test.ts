/** Postgres's text of a timestamptz read as the API's instant: the same bytes as the SQL function iso(). */
import { describe, expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import { instantOfPgText } from "../../src/core/pg_instant.ts";

const h = await harness();
const db = h.database.db;

/** Each timestamp's text as a connection of the service gets it, and what iso() prints for it. */
async function printed(values: string[]): Promise<{ text: string; iso: string | null }[]> {
  return (await db`
    select t::text as text, iso(t) as iso
    from unnest(${values}::text[]) with ordinality v(value, n), lateral (select v.value::timestamptz as t) x
    order by n`) as unknown as { text: string; iso: string | null }[];
}

describe("instantOfPgText", () => {
  test("whole seconds, every length of fraction, the clock changes, the ends of the range: as iso() prints them", async () => {
    const values = [
      "2026-05-10 09:30:00+00",
      "2026-03-29 00:59:59.999999+00",
      "2026-03-29 01:00:00+00",
      "2026-10-25 00:59:59.5+00",
      "2026-10-25 01:00:00.000001+00",
      "2026-01-01 00:00:00.1+00",
      "2026-01-01 00:00:00.12+00",
      "2026-01-01 00:00:00.123+00",
      "2026-01-01 00:00:00.1234+00",
      "2026-01-01 00:00:00.12345+00",
      "2026-01-01 00:00:00.123456+00",
      "2026-01-01 00:00:00.0009+00",
      "2026-01-01 00:00:00.999999+00",
      "2026-06-01 12:00:00+01",
      "1970-01-01 00:00:00+00",
      "0001-01-01 00:00:00+00",
      "9999-12-31 23:59:59.999999+00",
      "10000-01-01 00:00:00+00",
      "12345-06-07 08:09:10.11+00",
      "0044-03-15 12:00:00.25+00 BC",
      "4713-11-24 00:00:00+00 BC",
    ];
    const rows = await printed(values);
    expect(rows.some((r) => r.text.includes("BC"))).toBe(true);
    expect(rows.some((r) => r.text.startsWith("10000-"))).toBe(true);
    for (const { text, iso } of rows) expect({ text, iso: instantOfPgText(text) }).toEqual({ text, iso });
  });

  test("infinity and -infinity are null, as iso() makes them", async () => {
    const rows = await printed(["infinity", "-infinity"]);
    expect(rows.map((r) => r.iso)).toEqual([null, null]);
    for (const { text } of rows) expect(instantOfPgText(text)).toBeNull();
  });

  test("20,000 random instants to the microsecond, 1900 to 2100", async () => {
    const rows = (await db`
      select t::text as text, iso(t) as iso from (
        select timestamptz '1900-01-01 00:00:00+00' + random() * interval '200 years' as t
        from generate_series(1, 20000)
        union all
        select date_trunc('second', timestamptz '1900-01-01 00:00:00+00' + random() * interval '200 years')
        from generate_series(1, 2000)) x`) as unknown as { text: string; iso: string }[];
    const wrong = rows.filter((r) => instantOfPgText(r.text) !== r.iso);
    expect(wrong).toEqual([]);
    expect(rows.filter((r) => r.text.length === 22).length).toBeGreaterThan(1000);
  });

  test("a text in another zone or style is refused rather than misread", () => {
    expect(() => instantOfPgText("2026-05-10 10:30:00+01")).toThrow();
    expect(() => instantOfPgText("Sun May 10 09:30:00 2026 UTC")).toThrow();
    expect(() => instantOfPgText("10/05/2026 09:30:00 UTC")).toThrow();
  });
});
