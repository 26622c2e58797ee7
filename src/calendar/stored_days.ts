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

/** The London days of a page that stored days can serve: one member of staff's ('' : everyone's), no other filter. */
export interface StoredDays {
  /** A staff user id, or '' for every member of staff. */
  staff: string;
  /** The window's London days, `YYYY-MM-DD`, in order: the window is exactly these days. */
  days: string[];
  /** The day after the last one (the window's end). */
  end: string;
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
 * `staffId` (servedParameters), cancelled events left out, over a window of whole London days (from and to at 00:00
 * in London, as dates and the default window are).
 */
export function storedDaysOf(
  query: { staffId?: string; includeCancelled?: boolean },
  window: Window,
): StoredDays | undefined {
  for (const name in query) if (!servedParameters.has(name)) return undefined;
  if (query.includeCancelled) return undefined;
  const first = londonToday(window.from);
  if (londonMidnight(first) !== window.from) return undefined;
  const days = [first];
  let end = nextDate(first);
  for (;;) {
    const at = londonMidnight(end);
    if (at === window.to) break;
    if (at > window.to) return undefined;
    days.push(end);
    end = nextDate(end);
  }
  return { staff: query.staffId ?? "", days, end };
}

/** What a read of stored days found: the page (the answer's body) when every day was stored and current. */
export type DaysRead = { found: true; count: number; body: string } | { found: false; version: number };

/** The read's text (see servableDays in queries.ts): `<count>\n<page>` when found, else `V<version>`. */
export function daysReadOf(text: string): DaysRead {
  if (text.startsWith("V")) return { found: false, version: Number(text.slice(1)) };
  const line = text.indexOf("\n");
  return { found: true, count: Number(text.slice(0, line)), body: text.slice(line + 1) };
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
