/** The agenda's window: dates meaning 00:00 Europe/London, the defaults, and the 92-day limit. */
import { RequestInvalid } from "../core/errors.ts";

/** The time zone whose midnight a date means. */
export const zone = "Europe/London";
/** The longest window, in London calendar days. */
export const maxWindowDays = 92;
/** The default window's length, in London calendar days. */
export const defaultWindowDays = 7;

const dateOnly = /^(\d{4})-(\d{2})-(\d{2})$/;
const instant = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;

/** The pattern a window bound matches: a date `YYYY-MM-DD` or an RFC 3339 instant with its offset. */
export const boundPattern = "^(\\d{4}-\\d{2}-\\d{2}|\\d{4}-\\d{2}-\\d{2}[Tt]\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,9})?([Zz]|[+-]\\d{2}:\\d{2}))$";

const parts = new Intl.DateTimeFormat("en-GB", {
  timeZone: zone, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit",
  hour: "2-digit", minute: "2-digit", second: "2-digit",
});

/** A wall-clock reading in London. */
export interface Wall {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  ms: number;
}

/** The London wall clock at an instant. */
export function londonWall(at: number): Wall {
  const p = Object.fromEntries(parts.formatToParts(new Date(at)).map((x) => [x.type, x.value]));
  return {
    year: Number(p.year), month: Number(p.month), day: Number(p.day),
    hour: Number(p.hour), minute: Number(p.minute), second: Number(p.second), ms: ((at % 1000) + 1000) % 1000,
  };
}

function wallAsUtc(w: Wall): number {
  return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second, w.ms);
}

/** London's offset from UTC at an instant, in milliseconds (0 in winter, 3 600 000 in summer). */
export function londonOffset(at: number): number {
  return wallAsUtc(londonWall(at)) - at;
}

/**
 * The instant a London wall-clock reading names. A reading the spring change skips (01:xx on the last
 * Sunday of March) is read with the winter offset, so it lands one hour later; a reading the autumn
 * change repeats is the first of the two.
 */
export function londonInstant(w: Wall): number {
  const asUtc = wallAsUtc(w);
  const before = asUtc - londonOffset(asUtc - 12 * 3600_000);
  const after = asUtc - londonOffset(asUtc + 12 * 3600_000);
  const candidates = [before, after].filter((t) => wallAsUtc(londonWall(t)) === asUtc).sort((a, b) => a - b);
  return candidates[0] ?? before;
}

/** 00:00 in London on a date (`YYYY-MM-DD`), as an instant. */
export function londonMidnight(date: string): number {
  const m = dateOnly.exec(date);
  if (!m) throw new Error(`not a date: ${date}`);
  return londonInstant({ year: Number(m[1]), month: Number(m[2]), day: Number(m[3]), hour: 0, minute: 0, second: 0, ms: 0 });
}

/** The same London wall-clock time `days` calendar days later (a London day lasts 23 to 25 hours). */
export function addLondonDays(at: number, days: number): number {
  const w = londonWall(at);
  const shifted = new Date(Date.UTC(w.year, w.month - 1, w.day + days));
  return londonInstant({ ...w, year: shifted.getUTCFullYear(), month: shifted.getUTCMonth() + 1, day: shifted.getUTCDate() });
}

/** Today's date in London, `YYYY-MM-DD`. */
export function londonToday(now: number): string {
  const w = londonWall(now);
  return `${w.year}-${String(w.month).padStart(2, "0")}-${String(w.day).padStart(2, "0")}`;
}

function invalid(name: "from" | "to", message: string): RequestInvalid {
  return new RequestInvalid({ message: `The query does not match its schema.`, issues: [{ path: `/query/${name}`, message }] });
}

/** A window bound as an instant: a date means 00:00 in London; an instant is taken to the millisecond. */
export function parseBound(name: "from" | "to", value: string): number {
  const d = dateOnly.exec(value);
  if (d) {
    const utc = new Date(`${value}T00:00:00Z`);
    if (Number.isNaN(utc.getTime()) || !utc.toISOString().startsWith(value)) throw invalid(name, `${value} is not a calendar date`);
    return londonMidnight(value);
  }
  const i = instant.exec(value);
  if (!i) throw invalid(name, "Expected a date YYYY-MM-DD or an RFC 3339 instant such as 2026-03-29T09:00:00Z");
  const fraction = (i[3] ?? "").padEnd(3, "0").slice(0, 3);
  const normalised = `${i[1]}T${i[2]}.${fraction}${i[4]!.toUpperCase()}`;
  const at = Date.parse(normalised);
  const [h, mi, s] = i[2]!.split(":").map(Number);
  const offset = i[4]!.toUpperCase() === "Z" ? [0, 0] : i[4]!.slice(1).split(":").map(Number);
  const validDate = !Number.isNaN(Date.parse(`${i[1]}T00:00:00Z`)) && new Date(`${i[1]}T00:00:00Z`).toISOString().startsWith(i[1]!);
  if (Number.isNaN(at) || !validDate || h! > 23 || mi! > 59 || s! > 59 || offset[0]! > 23 || offset[1]! > 59) {
    throw invalid(name, `${value} is not a valid instant`);
  }
  return at;
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
