/// <reference types="temporal-spec/global" />
/**
 * The bank-holiday list: the shipped GOV.UK data, the migration that stores it, the validated loader and its CLI
 * command (`bank-holidays load FILE`), on a real database. Dates expected here come from the GOV.UK file read by the
 * test, from the dates written out by hand, or from the statutory rules computed by the test itself.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Db } from "../../src/core/db.ts";
import {
  BankHolidaysRejected,
  loadBankHolidays,
  parseBankHolidays,
  readWorkingCalendar,
} from "../../src/maintenance_pro/bank_holidays.ts";
import { workingDaysAfter } from "../../src/maintenance_pro/working_days.ts";
import { createTestDatabase, type TestDatabase } from "../support/database.ts";
import { runCli } from "../support/service.ts";

setDefaultTimeout(60_000);

type GovUkEvent = { title: string; date: string; notes: string; bunting: boolean };
type GovUkFile = Record<string, { division: string; events: GovUkEvent[] }>;
const shippedText = readFileSync(join(import.meta.dir, "../../data/bank-holidays.json"), "utf8");
const shipped = () => JSON.parse(shippedText) as GovUkFile;
const ew = (file: GovUkFile) => file["england-and-wales"]!.events;

const scratch = mkdtempSync(join(tmpdir(), "bank-holidays-"));
const databases: TestDatabase[] = [];
afterAll(async () => {
  rmSync(scratch, { recursive: true, force: true });
  await Promise.all(databases.map((d) => d.drop()));
});
/** A fresh migrated database for one test. */
async function fresh(): Promise<TestDatabase> {
  const database = await createTestDatabase();
  databases.push(database);
  return database;
}

/** Everything the loader may change, in a fixed order. */
async function stored(db: Db) {
  const holidays = await db`
    select division, to_char(date, 'YYYY-MM-DD') as date, title, notes, bunting, load_id::int
    from bank_holidays order by division, date`;
  const loads = await db`
    select id::int, loaded_at::text, source, division, first_year, last_year, events
    from bank_holiday_loads order by id`;
  return { holidays: [...holidays], loads: [...loads] };
}

// ── The statutory rules (Banking and Financial Dealings Act 1971 and the royal proclamations), computed here ──
const utc = (y: number, m: number, d: number) => new Date(Date.UTC(y, m - 1, d));
const day = (date: Date) => date.toISOString().slice(0, 10);
const plus = (date: Date, days: number) => new Date(date.getTime() + days * 86_400_000);
/** Easter Sunday (the anonymous Gregorian computus). */
function easter(y: number): Date {
  const a = y % 19;
  const b = Math.floor(y / 100);
  const c = y % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  return utc(y, month, ((h + l - 7 * m + 114) % 31) + 1);
}
const firstMonday = (y: number, m: number) => {
  const first = utc(y, m, 1);
  return plus(first, (8 - first.getUTCDay()) % 7);
};
const lastMonday = (y: number, m: number) => {
  const last = utc(y, m + 1, 0);
  return plus(last, -((last.getUTCDay() + 6) % 7));
};
const weekend = (date: Date) => date.getUTCDay() === 0 || date.getUTCDay() === 6;
/** The usual England and Wales bank holidays of a year, weekend days moved to the next free weekday. */
function ruleHolidays(y: number): GovUkEvent[] {
  const taken = new Set<string>();
  const observed = (date: Date) => {
    let d = date;
    while (weekend(d) || taken.has(day(d))) d = plus(d, 1);
    taken.add(day(d));
    return { date: day(d), notes: day(d) === day(date) ? "" : "Substitute day" };
  };
  const event = (title: string, date: Date, bunting = true) => ({ title, ...observed(date), bunting });
  const christmas = () => event("Christmas Day", utc(y, 12, 25));
  const boxing = () => event("Boxing Day", utc(y, 12, 26));
  // 26 December is the bank holiday when it is not a Sunday; with Christmas on a Sunday, 27 December stands for it.
  const december = utc(y, 12, 25).getUTCDay() === 0 ? [boxing(), christmas()] : [christmas(), boxing()];
  return [
    event("New Year’s Day", utc(y, 1, 1)),
    event("Good Friday", plus(easter(y), -2), false),
    event("Easter Monday", plus(easter(y), 1)),
    event("Early May bank holiday", firstMonday(y, 5)),
    event("Spring bank holiday", lastMonday(y, 5)),
    event("Summer bank holiday", lastMonday(y, 8)),
    ...december,
  ].sort((a, b) => (a.date < b.date ? -1 : 1));
}

describe("the shipped list", () => {
  test("2025-2028 are the dates GOV.UK announced, written out by hand", () => {
    const listed = ew(shipped())
      .map((e) => e.date)
      .filter((d) => d >= "2025" && d < "2029");
    expect(listed).toEqual([
      ...["2025-01-01", "2025-04-18", "2025-04-21", "2025-05-05", "2025-05-26", "2025-08-25", "2025-12-25"],
      ...["2025-12-26", "2026-01-01", "2026-04-03", "2026-04-06", "2026-05-04", "2026-05-25", "2026-08-31"],
      ...["2026-12-25", "2026-12-28", "2027-01-01", "2027-03-26", "2027-03-29", "2027-05-03", "2027-05-31"],
      ...["2027-08-30", "2027-12-27", "2027-12-28", "2028-01-03", "2028-04-14", "2028-04-17", "2028-05-01"],
      ...["2028-05-29", "2028-08-28", "2028-12-25", "2028-12-26"],
    ]);
  });

  test("2024-2028 and 2013-2019 are what the statutory rules and the computus give, substitute days included", () => {
    for (const year of [2013, 2014, 2015, 2016, 2017, 2018, 2019, 2024, 2025, 2026, 2027, 2028]) {
      const listed = ew(shipped()).filter((e) => e.date.startsWith(String(year)));
      expect(listed.map(({ date, notes }) => ({ date, notes }))).toEqual(
        ruleHolidays(year).map(({ date, notes }) => ({ date, notes })),
      );
    }
  });

  test("the file is GOV.UK's format with its three divisions, and the loader takes it", () => {
    expect(Object.keys(shipped()).sort()).toEqual(["england-and-wales", "northern-ireland", "scotland"]);
    const list = parseBankHolidays(shippedText);
    expect([list.firstYear, list.lastYear, list.events.length]).toEqual([2012, 2028, ew(shipped()).length]);
  });

  test("a migrated database holds the shipped england-and-wales list, from one load covering 2012-2028", async () => {
    const { db } = await fresh();
    const { holidays, loads } = await stored(db);
    expect(
      holidays.map(({ division, date, title, notes, bunting }) => ({ division, date, title, notes, bunting })),
    ).toEqual(ew(shipped()).map((e) => ({ division: "england-and-wales", ...e })));
    expect(loads.map(({ division, firstYear, lastYear, events }) => [division, firstYear, lastYear, events])).toEqual([
      ["england-and-wales", 2012, 2028, ew(shipped()).length],
    ]);
    expect(loads[0]!.source).toContain("https://www.gov.uk/bank-holidays.json");
  });

  test("the calendar read from the database is the list and its years", async () => {
    const { db } = await fresh();
    const calendar = await readWorkingCalendar(db);
    expect([...calendar.holidays].map(([date, title]) => ({ date, title }))).toEqual(
      ew(shipped()).map(({ date, title }) => ({ date, title })),
    );
    expect([...calendar.knownYears]).toEqual(Array.from({ length: 17 }, (_, i) => 2012 + i));
    const example = workingDaysAfter(calendar, Temporal.Instant.from("2026-12-23T10:00:00Z"), 10);
    expect(example.dueAt.toString()).toBe("2027-01-11T23:59:59.999Z");
  });
});

/** The shipped file with england-and-wales's events of `from` onwards, plus the rules' events of `extra` years. */
function newer(from: string, extra: number[]): GovUkFile {
  const file = shipped();
  file["england-and-wales"]!.events = [
    ...ew(file).filter((e) => e.date >= from),
    ...extra.flatMap((year) => ruleHolidays(year)),
  ];
  return file;
}

describe("loading a newer list", () => {
  test("a file of 2025-2029 replaces those years, keeps 2012-2024, and is recorded", async () => {
    const { db } = await fresh();
    const before = await stored(db);
    const file = newer("2025", [2029]);
    const loaded = await loadBankHolidays(db, JSON.stringify(file), "/tmp/bank-holidays.json");
    const added2029 = ruleHolidays(2029).map((e) => e.date);
    expect(loaded).toEqual({
      loadId: 2,
      source: "/tmp/bank-holidays.json",
      division: "england-and-wales",
      firstYear: 2025,
      lastYear: 2029,
      events: 40,
      added: added2029,
      removed: [],
    });
    const after = await stored(db);
    expect(after.holidays.filter((h) => h.date < "2025")).toEqual(before.holidays.filter((h) => h.date < "2025"));
    expect(
      after.holidays.filter((h) => h.date >= "2025").map((h) => [h.date, h.title, h.notes, h.bunting, h.loadId]),
    ).toEqual(ew(file).map((e) => [e.date, e.title, e.notes, e.bunting, 2]));
    expect(after.loads.map((l) => [l.id, l.source, l.firstYear, l.lastYear, l.events])).toEqual([
      [1, before.loads[0]!.source, 2012, 2028, 140],
      [2, "/tmp/bank-holidays.json", 2025, 2029, 40],
    ]);
    const calendar = await readWorkingCalendar(db);
    expect(Math.max(...calendar.knownYears)).toBe(2029);
    // 1 Jan 2029 is now a bank holiday, and 2029 a known year.
    const count = workingDaysAfter(calendar, Temporal.Instant.from("2028-12-20T10:00:00Z"), 10);
    expect([count.dueAt.toString(), count.unknownYears]).toEqual(["2029-01-08T23:59:59.999Z", []]);
  });

  test("a holiday moved within a year is removed from its old date and added on its new one", async () => {
    const { db } = await fresh();
    const file = newer("2027", []);
    file["england-and-wales"]!.events = ew(file)
      .filter((e) => e.date < "2028")
      .map((e) => (e.date === "2027-05-31" ? { ...e, date: "2027-06-04", notes: "Moved" } : e));
    const loaded = await loadBankHolidays(db, JSON.stringify(file), "moved.json");
    expect([loaded.firstYear, loaded.lastYear, loaded.added, loaded.removed]).toEqual([
      2027,
      2027,
      ["2027-06-04"],
      ["2027-05-31"],
    ]);
    const dates = (await stored(db)).holidays.map((h) => h.date);
    expect(dates).toContain("2027-06-04");
    expect(dates).not.toContain("2027-05-31");
    expect(dates).toContain("2028-05-29");
  });

  test("loading the shipped file again changes no bank holiday and records the load", async () => {
    const { db } = await fresh();
    const before = await stored(db);
    const loaded = await loadBankHolidays(db, shippedText, "data/bank-holidays.json");
    expect([loaded.added, loaded.removed, loaded.events]).toEqual([[], [], 140]);
    const after = await stored(db);
    expect(after.holidays.map(({ loadId: _, ...h }) => h)).toEqual(before.holidays.map(({ loadId: _, ...h }) => h));
    expect(after.loads).toHaveLength(2);
  });
});

/** A malformed variant of the shipped file, and what the refusal says. */
type Malformed = [name: string, text: () => string, reason: string, path: string];
const edited = (edit: (file: GovUkFile) => unknown) => () => {
  const file = shipped();
  edit(file);
  return JSON.stringify(file);
};
const malformed: Malformed[] = [
  ["text that is not JSON", () => shippedText.slice(0, 500), "not_json", ""],
  ["a JSON array", () => "[]", "not_gov_uk_format", ""],
  [
    "no england-and-wales division",
    edited((f) => delete f["england-and-wales"]),
    "division_missing",
    "/england-and-wales",
  ],
  ["a division that is not an object", edited((f) => ((f.scotland as unknown) = [])), "not_gov_uk_format", "/scotland"],
  [
    "a bunting that is not a boolean",
    edited((f) => ((ew(f)[3]!.bunting as unknown) = "yes")),
    "not_gov_uk_format",
    "/england-and-wales/events/3/bunting",
  ],
  [
    "a date not written YYYY-MM-DD",
    edited((f) => (ew(f)[5]!.date = "2013-1-1")),
    "not_gov_uk_format",
    "/england-and-wales/events/5/date",
  ],
  [
    "an event without a title",
    edited((f) => delete (ew(f)[0] as Partial<GovUkEvent>).title),
    "not_gov_uk_format",
    "/england-and-wales/events/0/title",
  ],
  [
    "a NUL character in a title",
    edited((f) => (ew(f)[2]!.title = "Easter\u0000Monday")),
    "not_gov_uk_format",
    "/england-and-wales/events/2/title",
  ],
  [
    "a division named unlike its key",
    edited((f) => (f["england-and-wales"]!.division = "scotland")),
    "division_mismatch",
    "/england-and-wales/division",
  ],
  [
    "an impossible date",
    edited((f) => (ew(f)[140 - 1]!.date = "2028-02-30")),
    "impossible_date",
    "/england-and-wales/events/139/date",
  ],
  [
    "an impossible date in another division",
    edited((f) => (f.scotland!.events[1]!.date = "2027-02-29")),
    "impossible_date",
    "/scotland/events/1/date",
  ],
  [
    "a year 0000",
    edited((f) => (ew(f)[0]!.date = "0000-01-01")),
    "impossible_date",
    "/england-and-wales/events/0/date",
  ],
  [
    "a date listed twice",
    edited((f) => ew(f).push({ ...ew(f)[10]! })),
    "duplicate_date",
    "/england-and-wales/events/140/date",
  ],
  [
    "a year without events",
    edited((f) => (f["england-and-wales"]!.events = ew(f).filter((e) => !e.date.startsWith("2026")))),
    "year_missing",
    "/england-and-wales/events",
  ],
  ["no events", edited((f) => (f["england-and-wales"]!.events = [])), "no_events", "/england-and-wales/events"],
];

describe("a malformed file", () => {
  test.each(malformed)("%s is refused with its reason and path", (_name, text, reason, path) => {
    let error: unknown;
    try {
      parseBankHolidays(text());
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(BankHolidaysRejected);
    const body = (error as BankHolidaysRejected).toBody();
    expect([body._tag, body.reason, body.path]).toEqual(["BankHolidaysRejected", reason, path]);
    expect(typeof body.message === "string" && body.message.length > 0).toBe(true);
  });

  test("every refusal leaves the database as it was", async () => {
    const { db } = await fresh();
    const before = await stored(db);
    for (const [, text, reason] of malformed) {
      const refused = await loadBankHolidays(db, text(), "bad.json").then(
        () => undefined,
        (e: unknown) => e,
      );
      expect((refused as BankHolidaysRejected).toBody().reason).toBe(reason);
    }
    expect(await stored(db)).toEqual(before);
  });
});

describe("bun run cli bank-holidays load", () => {
  test("a newer file loads: the command prints what it loaded and the database has it", async () => {
    const database = await fresh();
    const path = join(scratch, "newer.json");
    writeFileSync(path, JSON.stringify(newer("2024", [2029, 2030]), null, 2));
    const run = await runCli(["bank-holidays", "load", path], { databaseUrl: database.url });
    expect([run.code, run.stderr]).toEqual([0, ""]);
    expect(run.out).toEqual({
      loadId: 2,
      source: path,
      division: "england-and-wales",
      firstYear: 2024,
      lastYear: 2030,
      events: 56,
      added: [...ruleHolidays(2029), ...ruleHolidays(2030)].map((e) => e.date),
      removed: [],
    });
    const calendar = await readWorkingCalendar(database.db);
    expect(calendar.holidays.get("2030-12-26")).toBe("Boxing Day");
    expect(Math.max(...calendar.knownYears)).toBe(2030);
  });

  test("standard input loads with -", async () => {
    const database = await fresh();
    const run = await runCli(["bank-holidays", "load", "-"], {
      databaseUrl: database.url,
      stdin: JSON.stringify(newer("2028", [2029])),
    });
    expect(run.code).toBe(0);
    expect([run.out.source, run.out.firstYear, run.out.lastYear]).toEqual(["standard input", 2028, 2029]);
  });

  test("a malformed file is refused as JSON on stderr with exit code 2, and changes nothing", async () => {
    const database = await fresh();
    const before = await stored(database.db);
    const path = join(scratch, "duplicate.json");
    const file = shipped();
    ew(file).push({ ...ew(file)[130]! });
    writeFileSync(path, JSON.stringify(file));
    const run = await runCli(["bank-holidays", "load", path], { databaseUrl: database.url });
    expect([run.code, run.stdout]).toEqual([2, ""]);
    expect(run.err).toEqual({
      _tag: "BankHolidaysRejected",
      reason: "duplicate_date",
      path: "/england-and-wales/events/140/date",
      message: `${ew(file)[130]!.date} is listed twice`,
    });
    const notJson = await runCli(["bank-holidays", "load", "-"], { databaseUrl: database.url, stdin: "<html>" });
    expect([notJson.code, notJson.err?._tag, notJson.err?.reason]).toEqual([2, "BankHolidaysRejected", "not_json"]);
    expect(await stored(database.db)).toEqual(before);
  });

  test("without a FILE, or with an unreadable one, the usage is printed as text, exit code 2", async () => {
    for (const args of [
      ["bank-holidays", "load"],
      ["bank-holidays", "load", join(scratch, "missing.json")],
    ]) {
      const run = await runCli(args, { databaseUrl: null });
      expect([run.code, run.stdout]).toEqual([2, ""]);
      expect(run.stderr).toStartWith("UsageError: ");
      expect(run.stderr).toContain("  bank-holidays load FILE");
    }
  });
});
