/// <reference types="temporal-spec/global" />
/**
 * Dates and instants: which texts are calendar dates and RFC 3339 instants the API accepts (years 1900 to 2200), and
 * the calendar of Europe/London (on Temporal, from the time zone database).
 */

/**
 * The dates the API accepts, in every date and instant it takes (query, body, path, the import document): far enough
 * for any tenancy or record, near enough that every date computed from one (a window's end, London's midnights)
 * stays one Postgres, JavaScript and the time zone database all take. Out of it is 400 at validation.
 */
export const dateRange = { first: "1900-01-01", last: "2200-12-31" } as const;
/** The range as schema descriptions state it (they feed the OpenAPI document). */
export const dateRangeText = `from ${dateRange.first} to ${dateRange.last}`;
/** The years of dateRange as a regular expression (no anchors, no group that captures). */
const yearSource = "(?:19\\d{2}|2[01]\\d{2}|2200)";
/** A `YYYY-MM-DD` of a year of dateRange, for patterns (no anchors): the month and day are checked apart. */
export const dateSource = `${yearSource}-\\d{2}-\\d{2}`;
/**
 * An RFC 3339 date-time with its zone whose date is of a year of dateRange, for patterns (no anchors): its groups
 * capture the date, the hour, minute and second, and the offset's hours and minutes, checked apart.
 */
export const dateTimeSource =
  `(${dateSource})[Tt](\\d{2}):(\\d{2}):(\\d{2})(?:\\.\\d{1,9})?` + "(?:[Zz]|[+-](\\d{2}):(\\d{2}))";

const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/;
const apiDatePattern = new RegExp(`^${dateSource}$`);
const dateTimeParts = new RegExp(`^${dateTimeSource}$`);
const instantPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$/;

/** Whether a year, month and day name a day of the (proleptic Gregorian) calendar, for any year from 1 to 9999. */
export function isCalendarDay(year: number, month: number, day: number): boolean {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return year >= 1 && date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** Whether a text is a real calendar date `YYYY-MM-DD` of dateRange. */
export function isDate(value: string): boolean {
  const m = datePattern.exec(value);
  return !!m && apiDatePattern.test(value) && isCalendarDay(Number(m[1]), Number(m[2]), Number(m[3]));
}

/**
 * Whether a text is an RFC 3339 date-time with a zone (the API's `date-time`: `T` and `Z` in either case), every field
 * in its range (no hour 24, no leap second), its date as written in dateRange.
 */
export function isDateTime(value: string): boolean {
  const m = dateTimeParts.exec(value);
  if (!m || !isDate(m[1]!)) return false;
  const [hour, minute, second] = [Number(m[2]), Number(m[3]), Number(m[4])];
  return hour < 24 && minute < 60 && second < 60 && (m[5] === undefined || (Number(m[5]) < 24 && Number(m[6]) < 60));
}

/**
 * Whether a text is an RFC 3339 instant with a zone (`Z` or `±hh:mm`) as the import takes it: the API's `date-time`
 * with upper-case `T` and `Z` and at most microseconds (what Postgres keeps).
 */
export function isInstant(value: string): boolean {
  return instantPattern.test(value) && isDateTime(value);
}

/** The time zone of the service's calendar: "today", and the midnight a date means. */
export const zone = "Europe/London";

/** 00:00 in London on a date (`YYYY-MM-DD`), as an instant (epoch milliseconds): the first of that London day. */
export function londonMidnight(date: string): number {
  const m = datePattern.exec(date);
  if (!m) throw new Error(`not a date: ${date}`);
  return new Temporal.PlainDate(Number(m[1]), Number(m[2]), Number(m[3])).toZonedDateTime(zone).epochMilliseconds;
}

/**
 * The instant a London wall-clock time (`HH:MM`, or with seconds) names on a date (`YYYY-MM-DD`). A time the spring
 * change skips (01:xx on the last Sunday of March) is read with the winter offset, so it lands one hour later; a time
 * the autumn change repeats is the first of the two.
 */
export function londonInstant(date: string, time: string): number {
  return Temporal.PlainDate.from(date).toZonedDateTime({ timeZone: zone, plainTime: time }).epochMilliseconds;
}

/**
 * The same London wall-clock time `days` calendar days later (a London day lasts 23 to 25 hours), a time that day
 * skips or repeats read as londonInstant reads it.
 */
export function addLondonDays(at: number, days: number): number {
  return Temporal.Instant.fromEpochMilliseconds(at).toZonedDateTimeISO(zone).add({ days }).epochMilliseconds;
}

/** Today's date in London at an instant (now by default), `YYYY-MM-DD`. */
export function londonToday(now: number = Date.now()): string {
  return Temporal.Instant.fromEpochMilliseconds(now).toZonedDateTimeISO(zone).toPlainDate().toString();
}

const readable = new Intl.DateTimeFormat("en-GB", {
  timeZone: zone,
  day: "numeric",
  month: "long",
  year: "numeric",
  hour: "2-digit",
  minute: "2-digit",
});

/** An instant as people in the UK read it: `1 December 2026 at 06:09 (UK time)`. */
export function ukTimeText(at: string | number | Date): string {
  return `${readable.format(new Date(at))} (UK time)`;
}
