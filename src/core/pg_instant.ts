/**
 * A `timestamptz` as Postgres prints it (its text: `2026-05-10 09:30:00.1234+00`) turned into the API's instant
 * (`2026-05-10T09:30:00.123Z`), byte for byte what the SQL function `iso()` makes of the same value. Postgres prints
 * a timestamp for about a third of what `iso()` (`to_char`) costs it; reading the text here costs far less again.
 *
 * The text is the one a connection of this service gets: `TimeZone` UTC (set at connection start, src/core/db.ts)
 * and the ISO `DateStyle` (Postgres's default, which the agenda's cursors rely on too).
 */

// `YYYY-MM-DD HH:MM:SS+00`, the usual case (whole seconds).
const plainLength = 22;
// Any finite value: a year of four or more digits, up to six fractional digits, `BC` for years before 1 AD.
const general = /^(\d{4,}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?\+00( BC)?$/;

/**
 * The instant `iso()` would print for a timestamp Postgres printed as `text`: the milliseconds truncated, as
 * `to_char`'s `MS` does; null for `infinity` and `-infinity` (`to_char` gives null). Throws on any other text (a
 * connection whose TimeZone is not UTC or whose DateStyle is not ISO).
 */
export function instantOfPgText(text: string): string | null {
  if (text.length === plainLength && text.charCodeAt(10) === 32 && text.endsWith("+00")) {
    return `${text.slice(0, 10)}T${text.slice(11, 19)}.000Z`;
  }
  if (text.length > plainLength && text.charCodeAt(10) === 32 && text.charCodeAt(19) === 46 && text.endsWith("+00")) {
    // A fraction of 1 to 6 digits between the seconds and the zone: its first three, padded, are the milliseconds.
    return `${text.slice(0, 10)}T${text.slice(11, 19)}.${`${text.slice(20, text.length - 3)}00`.slice(0, 3)}Z`;
  }
  if (text === "infinity" || text === "-infinity") return null;
  const m = general.exec(text);
  if (!m) throw new Error(`not a UTC timestamp in Postgres's ISO style: ${JSON.stringify(text)}`);
  // A year past 9999 has more digits; `to_char`'s YYYY prints them all, and a year BC as its number (no sign).
  return `${m[1]}T${m[2]}.${`${m[3] ?? ""}000`.slice(0, 3)}Z`;
}
