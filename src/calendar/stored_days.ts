/**
 * Stored agenda days (sql/0023): which pages are served from them, what a read of them found, and a computed page cut
 * into days to store.
 */
import { londonMidnight, londonToday } from "../core/dates.ts";
import type { Window } from "./window.ts";

/**
 * The version of what a page holds for the same events, stored with each day (sql/0023): raise it whenever a change to
 * the agenda's statement, `eventOf` or the CalendarEvent schema changes the JSON of an event (a field, its order, a
 * format). Days of another shape are computed again on their next read; no migration is needed.
 * test/calendar/stored_days_test.ts fails until it is raised.
 */
export const agendaShape = 1;

/**
 * The London days of a page that stored days can serve: one member of staff's ('' : everyone's), no other filter. A
 * window of whole London days is its days' texts joined; any other window is cut from the days it touches: the first
 * day's events that end by `from` and the last day's that start at or after `to` are left out (cutDays).
 */
export interface StoredDays {
  /** A staff user id, or '' for every member of staff. */
  staff: string;
  /** The London days the window touches, `YYYY-MM-DD`, in order. */
  days: string[];
  /** The day after the last one. */
  end: string;
  /** The window's start when it is after the first day's 00:00 (epoch ms): that day is cut. */
  from?: number;
  /** The window's end when it is before `end`'s 00:00 (epoch ms): the last day is cut. */
  to?: number;
}

/**
 * The query parameters a page over stored days may carry; any other (a filter, a cursor, a parameter added later)
 * means the stored days may not hold exactly its page, and the page is computed.
 */
const servedParameters = new Set(["from", "to", "staffId", "limit", "includeCancelled"]);

const dayMs = 86_400_000;

/** The next calendar date of a `YYYY-MM-DD` date. */
function nextDate(date: string): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + dayMs).toISOString().slice(0, 10);
}

/**
 * The stored days a page is made of, or undefined when it cannot be: a first page (no cursor) with no filter but
 * `staffId` (servedParameters), cancelled events left out. Any window qualifies: its days are the London days from
 * the one holding `from` to the one holding the window's last millisecond, and a window that does not start or end
 * at a London 00:00 is cut from them.
 */
export function storedDaysOf(
  query: { staffId?: string; includeCancelled?: boolean },
  window: Window,
): StoredDays | undefined {
  for (const name in query) if (!servedParameters.has(name)) return undefined;
  if (query.includeCancelled) return undefined;
  const first = londonToday(window.from);
  const last = londonToday(window.to - 1);
  const days = [first];
  let end = nextDate(first);
  while (days[days.length - 1] !== last) {
    days.push(end);
    end = nextDate(end);
  }
  const sd: StoredDays = { staff: query.staffId ?? "", days, end };
  if (londonMidnight(first) !== window.from) sd.from = window.from;
  if (londonMidnight(end) !== window.to) sd.to = window.to;
  return sd;
}

/** Whether a page's window is exactly its days (no cut). */
export function wholeDays(sd: StoredDays): boolean {
  return sd.from === undefined && sd.to === undefined;
}

/**
 * What a read of stored days found: the page (the answer's body) when every day was stored and current; else the
 * version to store its days with, or none when the days could not be cut (the page is then computed and not stored).
 */
export type DaysRead = { found: true; count: number; body: string } | { found: false; version?: number };

/**
 * The read's text (see servableDays in queries.ts), cut to the window when it is not whole days: `<count>\n<page>`
 * for whole days; `C<count>\n<ids running at from>\n<first day>\x1e<the days between>\x1e<last day>` for a cut
 * window; `V<version>` when a day is missing.
 */
export function daysReadOf(text: string, sd: StoredDays): DaysRead {
  if (text.startsWith("V")) return { found: false, version: Number(text.slice(1)) };
  const line = text.indexOf("\n");
  if (!text.startsWith("C")) return { found: true, count: Number(text.slice(0, line)), body: text.slice(line + 1) };
  const line2 = text.indexOf("\n", line + 1);
  const running = text.slice(line + 1, line2);
  const [head, middle, tail] = text.slice(line2 + 1).split("\x1e") as [string, string, string];
  const cut = cutDays(sd, {
    count: Number(text.slice(1, line)),
    running: new Set(running === "" ? [] : running.split(",")),
    head,
    middle,
    tail,
  });
  return cut ? { found: true, ...cut } : { found: false };
}

/** A cut window's stored days as read: the first day (with those running at its 00:00), the days between, the last. */
export interface DaysToCut {
  /** The events of every day, as stored. */
  count: number;
  /** The ids of the page's events running at `from` (starting before it and ending after it), from the events. */
  running: Set<string>;
  head: string;
  middle: string;
  tail: string;
}

/**
 * A window cut from its days: of the first day's events, those starting before `from` are kept only when running at
 * `from` (their ids read from the events by the statement's own rule: an event's JSON holds its instants to the
 * millisecond, its row to the microsecond); of the last day's, those starting at or after `to` are left out (a
 * starting instant truncated to the millisecond compares with a bound on a whole millisecond as the instant does).
 * Undefined when an event's text is not as eventOf makes it.
 */
export function cutDays(sd: StoredDays, d: DaysToCut): { count: number; body: string } | undefined {
  const oneDay = sd.days.length === 1;
  const head = cutSegment(d.head, sd.from, oneDay ? sd.to : undefined, d.running);
  const tail = oneDay ? { text: "", dropped: 0 } : cutSegment(d.tail, undefined, sd.to, d.running);
  if (!head || !tail) return undefined;
  const parts = [head.text, d.middle, tail.text].filter((p) => p !== "");
  return { count: d.count - head.dropped - tail.dropped, body: `[${parts.join(",")}]` };
}

/** A day's events (JSON texts joined by ','), less those starting before `from` not running then, or at `to`. */
function cutSegment(
  text: string,
  from: number | undefined,
  to: number | undefined,
  running: Set<string>,
): { text: string; dropped: number } | undefined {
  if ((from === undefined && to === undefined) || text === "") return { text, dropped: 0 };
  const spans = spansOf(text);
  if (!spans) return undefined;
  const kept: string[] = [];
  let dropped = 0;
  for (let i = 0; i < spans.length; i += 2) {
    const [s, e] = [spans[i]!, spans[i + 1]!];
    const at = startsAtOf(text, s, e);
    if (at === undefined) return undefined;
    if (to !== undefined && at >= to) {
      dropped += (spans.length - i) / 2; // in order of start: none of the rest starts before `to`
      break;
    }
    if (from !== undefined && at < from) {
      const id = idOf(text, s, e);
      if (id === undefined) return undefined;
      if (!running.has(id)) {
        dropped += 1;
        continue;
      }
    }
    kept.push(text.slice(s, e));
  }
  return { text: kept.join(","), dropped };
}

/**
 * The bounds [start, end) of each JSON value in a text of values joined by ',', flat: strings skipped whole (a
 * quote is theirs unless escaped), the depth of objects and arrays followed, so a comma inside a value (a title, a
 * feedback's themes) never splits it. Undefined for text that is not such values.
 */
function spansOf(text: string): number[] | undefined {
  const out: number[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      let j = i;
      for (;;) {
        j = text.indexOf('"', j + 1);
        if (j < 0) return undefined;
        let slashes = 0;
        while (text.charCodeAt(j - 1 - slashes) === 92) slashes++;
        if (slashes % 2 === 0) break;
      }
      i = j;
    } else if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) depth--;
    else if (c === 44 && depth === 0) {
      out.push(start, i);
      start = i + 1;
    }
  }
  if (depth !== 0) return undefined;
  out.push(start, text.length);
  return out;
}

const idKey = '{"id":"';
const startsAtKey = '"startsAt":';

/** An event's id: its text's first field (ids are idents: no character JSON escapes). */
function idOf(text: string, s: number, e: number): string | undefined {
  if (!text.startsWith(idKey, s)) return undefined;
  const close = text.indexOf('"', s + idKey.length);
  return close < 0 || close >= e ? undefined : text.slice(s + idKey.length, close);
}

/**
 * An event's startsAt in epoch ms (-Infinity for null: -infinity). The first `"startsAt":` of its text is the field:
 * the fields before it are texts, in which a quote is always escaped, so the key cannot appear inside them.
 */
function startsAtOf(text: string, s: number, e: number): number | undefined {
  const k = text.indexOf(startsAtKey, s);
  if (k < 0 || k >= e) return undefined;
  const v = k + startsAtKey.length;
  if (text.startsWith("null", v)) return Number.NEGATIVE_INFINITY;
  const close = text.indexOf('"', v + 1);
  const at = Date.parse(text.slice(v + 1, close));
  return text.charCodeAt(v) !== 34 || Number.isNaN(at) ? undefined : at;
}

/** A computed page cut into its days: for each, its events' JSON joined, and that of those running at its 00:00. */
export interface DayTexts {
  starting: string[];
  startingCounts: number[];
  running: string[];
  runningCounts: number[];
}

/** An instant on a whole second as Postgres prints a timestamptz (TimeZone UTC, ISO DateStyle). */
function pgText(at: number): string {
  const iso = new Date(at).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}+00`;
}

/**
 * A whole page (every event of the window: no next page) cut into its days. `texts` are the events' JSON in the
 * page's order; `startsAt` and `endsAt` their bounds as Postgres prints them (to the microsecond). Such texts of years
 * 1000 to 9999 compare as their instants do ('+' sorts before '.'), so the cut is exactly the statement's: a day holds
 * the events starting in [its 00:00, the next day's), and those running at its 00:00 (started before, ending after),
 * every one of them on the page, since it overlaps the window.
 */
export function dayTextsOf(sd: StoredDays, texts: string[], startsAt: string[], endsAt: string[]): DayTexts {
  const bounds = [...sd.days, sd.end].map((d) => pgText(londonMidnight(d)));
  const out: DayTexts = { starting: [], startingCounts: [], running: [], runningCounts: [] };
  for (let d = 0; d < sd.days.length; d++) {
    const [start, next] = [bounds[d]!, bounds[d + 1]!];
    const starting: string[] = [];
    const running: string[] = [];
    for (let i = 0; i < texts.length; i++) {
      const s = startsAt[i]!;
      if (s < start) {
        if (endsAt[i]! > start) running.push(texts[i]!);
      } else if (s < next) starting.push(texts[i]!);
      else break; // in order of start: none of the rest starts before the next day
    }
    out.starting.push(starting.join(","));
    out.startingCounts.push(starting.length);
    out.running.push(running.join(","));
    out.runningCounts.push(running.length);
  }
  return out;
}
