/** The agenda's window: dates meaning 00:00 Europe/London, the defaults, and the 92-day limit. */
import {
  addLondonDays,
  dateRangeText,
  dateSource,
  dateTimeSource,
  isDate,
  isDateTime,
  londonMidnight,
  londonToday,
} from "../core/dates.ts";
import { RequestInvalid } from "../core/errors.ts";

/** The longest window, in London calendar days. */
export const maxWindowDays = 92;
/** The default window's length, in London calendar days. */
export const defaultWindowDays = 7;

const dateOnly = /^\d{4}-\d{2}-\d{2}$/;
const instant = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * The pattern a window bound matches: a date `YYYY-MM-DD` or an RFC 3339 instant with its offset, its date in
 * dateRange (1900-01-01 to 2200-12-31, src/core/dates.ts).
 */
export const boundPattern = `^(?:${dateSource}|${dateTimeSource})$`;

function invalid(name: "from" | "to", message: string): RequestInvalid {
  return new RequestInvalid({
    message: `The query does not match its schema.`,
    issues: [{ path: `/query/${name}`, message }],
  });
}

/** A window bound as an instant: a date means 00:00 in London; an instant is taken to the millisecond. */
export function parseBound(name: "from" | "to", value: string): number {
  if (dateOnly.test(value)) {
    if (!isDate(value)) throw invalid(name, `${value} is not a calendar date ${dateRangeText}`);
    return londonMidnight(value);
  }
  const i = instant.exec(value);
  if (!i) throw invalid(name, "Expected a date YYYY-MM-DD or an RFC 3339 instant such as 2026-03-29T09:00:00Z");
  if (!isDateTime(value)) throw invalid(name, `${value} is not a valid instant of a date ${dateRangeText}`);
  const fraction = (i[3] ?? "").padEnd(3, "0").slice(0, 3);
  return Date.parse(`${i[1]}T${i[2]}.${fraction}${i[4]!.toUpperCase()}`);
}

/** A resolved window, [from, to) as instants (epoch milliseconds). */
export interface Window {
  from: number;
  to: number;
}

/**
 * Resolves the query's bounds: `from` defaults to today 00:00 in London, `to` to seven London days after
 * `from`. `to` must be after `from`, and at most 92 London days after it.
 */
export function resolveWindow(query: { from?: string; to?: string }, now: number): Window {
  const from = query.from === undefined ? londonMidnight(londonToday(now)) : parseBound("from", query.from);
  const to = query.to === undefined ? addLondonDays(from, defaultWindowDays) : parseBound("to", query.to);
  if (to <= from) throw invalid("to", "`to` must be after `from`");
  if (to > addLondonDays(from, maxWindowDays)) throw invalid("to", `The window is at most ${maxWindowDays} days`);
  return { from, to };
}
