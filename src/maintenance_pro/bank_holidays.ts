/// <reference types="temporal-spec/global" />
/**
 * The bank-holiday list of the hazard clocks: GOV.UK's bank-holidays.json format, its validation, its loading into the
 * database (the england-and-wales division), and the working calendar read back from it.
 */
import { Type, type Static } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import type { Db, Tx } from "../core/db.ts";
import { TaggedError } from "../core/errors.ts";
import { textIssues } from "../core/storable_text.ts";
import { bankHolidayRows, calendarVersion, replaceBankHolidays, type BankHolidayRow } from "./queries.ts";
import { workingCalendar, type WorkingCalendar } from "./working_days.ts";

/** The division the clocks count with: Awaab's Law is England's, and GOV.UK lists England and Wales together. */
export const clockDivision = "england-and-wales";

/** One event of GOV.UK's list. Fields GOV.UK may add later are ignored. */
export const BankHolidayEvent = Type.Object({
  title: Type.String({ minLength: 1 }),
  date: Type.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}$", description: "A calendar date YYYY-MM-DD" }),
  notes: Type.String(),
  bunting: Type.Boolean(),
});

/** One division of GOV.UK's list: its name and its events. */
export const BankHolidayDivision = Type.Object({
  division: Type.String({ minLength: 1 }),
  events: Type.Array(BankHolidayEvent),
});

/** GOV.UK's bank-holidays.json: divisions by name (england-and-wales, scotland, northern-ireland). */
export const BankHolidaysFile = Type.Object(
  { [clockDivision]: BankHolidayDivision },
  { additionalProperties: BankHolidayDivision },
);

/** A file of GOV.UK's bank-holidays.json format. */
export type BankHolidaysFile = Static<typeof BankHolidaysFile>;

const compiled = TypeCompiler.Compile(BankHolidaysFile);

/** Why a bank-holiday file was refused. */
export const BankHolidaysRejectedReason = Type.Union([
  Type.Literal("not_json"),
  Type.Literal("not_gov_uk_format"),
  Type.Literal("division_missing"),
  Type.Literal("division_mismatch"),
  Type.Literal("no_events"),
  Type.Literal("impossible_date"),
  Type.Literal("duplicate_date"),
  Type.Literal("year_missing"),
]);

/** A bank-holiday file was refused: `path` is the JSON pointer of what is wrong. Nothing was changed. */
export class BankHolidaysRejected extends TaggedError(
  "BankHolidaysRejected",
  400,
  { reason: BankHolidaysRejectedReason, path: Type.String(), message: Type.String() },
  "The bank-holiday file was refused; `path` is the JSON pointer of the offending value. Nothing was changed.",
) {}

/** The england-and-wales events of a valid file and the years they cover. */
export interface BankHolidayList {
  events: BankHolidayRow[];
  firstYear: number;
  lastYear: number;
}

function refuse(reason: Static<typeof BankHolidaysRejectedReason>, path: string, message: string): never {
  throw new BankHolidaysRejected({ reason, path, message });
}

/**
 * The england-and-wales list of a GOV.UK bank-holidays.json text, or BankHolidaysRejected: not JSON, not the format,
 * no england-and-wales division, a division named unlike its key, an impossible date (2027-02-30, or a year outside
 * 1900-2999) in any division; and
 * for england-and-wales no events, a date listed twice, or a year without events between its first and last years.
 */
export function parseBankHolidays(text: string): BankHolidayList {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    refuse("not_json", "", `The file is not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    refuse("not_gov_uk_format", "", "The file must be one JSON object of divisions, as GOV.UK's bank-holidays.json");
  if (!(clockDivision in value))
    refuse("division_missing", `/${clockDivision}`, `The file has no ${clockDivision} division`);
  if (!compiled.Check(value)) {
    const error = compiled.Errors(value).First()!;
    refuse("not_gov_uk_format", error.path.toWellFormed(), error.message);
  }
  const [unstorable] = textIssues(value, "", 1);
  if (unstorable) refuse("not_gov_uk_format", unstorable.path, unstorable.message);
  for (const [key, division] of Object.entries(value)) {
    const at = `/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`;
    if (division.division !== key)
      refuse(
        "division_mismatch",
        `${at}/division`,
        `The division ${key} is named ${JSON.stringify(division.division)}`,
      );
    division.events.forEach((event, i) => {
      let year = 0;
      try {
        year = Temporal.PlainDate.from(event.date).year;
      } catch {
        refuse("impossible_date", `${at}/events/${i}/date`, `${event.date} is not a day of the calendar`);
      }
      if (year < 1900 || year > 2999)
        refuse("impossible_date", `${at}/events/${i}/date`, `${event.date} is not in the years 1900 to 2999`);
    });
  }
  const events = value[clockDivision].events.map(({ date, title, notes, bunting }) => ({
    date,
    title,
    notes,
    bunting,
  }));
  if (!events.length) refuse("no_events", `/${clockDivision}/events`, `The ${clockDivision} division lists no events`);
  const seen = new Set<string>();
  events.forEach((event, i) => {
    if (seen.has(event.date))
      refuse("duplicate_date", `/${clockDivision}/events/${i}/date`, `${event.date} is listed twice`);
    seen.add(event.date);
  });
  const years = new Set(events.map((e) => Number(e.date.slice(0, 4))));
  const firstYear = Math.min(...years);
  const lastYear = Math.max(...years);
  for (let year = firstYear; year <= lastYear; year++) {
    if (!years.has(year)) {
      refuse(
        "year_missing",
        `/${clockDivision}/events`,
        `The ${clockDivision} division lists ${firstYear} to ${lastYear} but no event in ${year}`,
      );
    }
  }
  events.sort((a, b) => (a.date < b.date ? -1 : 1));
  return { events, firstYear, lastYear };
}

/** What a load did. */
export interface BankHolidaysLoaded {
  loadId: number;
  source: string;
  division: string;
  firstYear: number;
  lastYear: number;
  /** The events now stored for those years. */
  events: number;
  /** Dates that became bank holidays with this load. */
  added: string[];
  /** Dates of those years that are bank holidays no longer. */
  removed: string[];
}

/**
 * Loads a GOV.UK bank-holidays.json text: its england-and-wales events replace the stored ones of the years it covers,
 * with a record of the load, in one transaction. A refused file (BankHolidaysRejected) changes nothing.
 */
export async function loadBankHolidays(db: Db, text: string, source: string): Promise<BankHolidaysLoaded> {
  const list = parseBankHolidays(text);
  const load = { source, division: clockDivision, firstYear: list.firstYear, lastYear: list.lastYear };
  const { loadId, replaced } = await db.begin((tx) => replaceBankHolidays(tx, load, list.events));
  const before = new Set(replaced.map((r) => r.date));
  const after = new Set(list.events.map((e) => e.date));
  return {
    loadId,
    ...load,
    events: list.events.length,
    added: [...after].filter((d) => !before.has(d)),
    removed: [...before].filter((d) => !after.has(d)).sort(),
  };
}

/** The working calendar of the clocks as stored: the england-and-wales bank holidays and the years loads covered. */
export async function readWorkingCalendar(db: Db | Tx): Promise<WorkingCalendar> {
  const { holidays, years } = await bankHolidayRows(db, clockDivision);
  return workingCalendar(holidays, years);
}

/** The calendar last read from each database (its client), with the version it was read at. */
const kept = new WeakMap<Db, { version: number; calendar: WorkingCalendar }>();

/**
 * The working calendar as stored at `version` or later: the one kept for this database when it was read at
 * `version`, else read again (with its version, in one statement) and kept. A load, by any process, adds a load row
 * and so moves the version: a request that reads the version in its own statement (the repairs list does) answers
 * with every load committed before that statement. Without a `version`, it is read first (one small statement).
 */
export async function currentWorkingCalendar(db: Db, version?: number): Promise<WorkingCalendar> {
  const wanted = version ?? (await calendarVersion(db));
  const held = kept.get(db);
  if (held && held.version === wanted) return held.calendar;
  const { holidays, years, version: read } = await bankHolidayRows(db, clockDivision);
  const calendar = workingCalendar(holidays, years);
  // Kept unless a newer one was kept meanwhile (versions only grow).
  if (!held || held.version <= read) kept.set(db, { version: read, calendar });
  return calendar;
}
