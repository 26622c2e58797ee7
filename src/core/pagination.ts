/** Keyset pagination of list operations: `limit`, an opaque `cursor`, and `Link: <…>; rel="next"`. */
import { Type } from "@sinclair/typebox";
import { isCalendarDay } from "./dates.ts";
import { RequestInvalid } from "./errors.ts";
import { isId } from "./schema.ts";

/** The `limit` query parameter: 1 to `max`, `fallback` when absent. */
export function Limit(fallback: number, max: number) {
  return Type.Integer({
    minimum: 1,
    maximum: max,
    description: `Items per page, 1 to ${max}; ${fallback} when absent.`,
  });
}

/** The `cursor` query parameter. */
export const Cursor = Type.String({
  minLength: 1,
  maxLength: 512,
  pattern: "^[A-Za-z0-9_-]+$",
  description:
    "Opaque: do not build it, follow the `Link` header of the previous page. It names the position reached in " +
    "the list's order; the next page starts right after it. A cursor this service did not make, one that does " +
    "not name a position of the list's order as the service spells it, is refused: 400 `RequestInvalid` at " +
    "`/query/cursor`.",
});

/** The `Link` response header of a paged list, for the declaration's responseHeaders. */
export const linkHeader = {
  Link: {
    description:
      'Present when another page follows: `<absolute URL of the next page>; rel="next"`. The URL repeats the ' +
      "request's query with a `cursor`; follow it as it is. No header: this was the last page. Its address is the " +
      "service's public one (PUBLIC_BASE_URL) when configured, else the one the request was sent to (its Host).",
  },
};

/** Encodes a position (the sort key of the last item listed) as an opaque cursor. */
export function encodeCursor(position: readonly (string | null)[]): string {
  return Buffer.from(JSON.stringify(position), "utf8").toString("base64url");
}

/** One field of a cursor's position: whether a decoded value is one the service's own SQL prints there. */
export type CursorField = (value: unknown) => value is string | null;

/** A timestamptz as the service's connections print it (TimeZone UTC, ISO DateStyle: src/core/pg_instant.ts). */
const pgInstant = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.\d{1,6})?\+00$/;
/** The largest bigint: a transaction id (`xid8`) past it is none this database has handed out. */
const maxBigint = 2n ** 63n - 1n;

/**
 * A timestamptz as Postgres prints it to the service: a real day of years 1 to 9999 and a time of day (no hour 24,
 * no leap second), so that Postgres takes it back as the same instant.
 */
function cursorInstant(value: unknown): value is string {
  const m = typeof value === "string" ? pgInstant.exec(value) : null;
  return (
    !!m &&
    isCalendarDay(Number(m[1]), Number(m[2]), Number(m[3])) &&
    Number(m[4]) < 24 &&
    Number(m[5]) < 60 &&
    Number(m[6]) < 60
  );
}

/** The fields cursor positions are made of, each checked whole: a value Postgres would refuse never reaches it. */
export const cursorFields = {
  /** A timestamptz as Postgres prints it to the service (`2026-05-10 09:30:00.123456+00`). */
  instant: cursorInstant,
  /** An instant, or null (the position of an item without one: a thread without messages). */
  instantOrNull: (value: unknown): value is string | null => value === null || cursorInstant(value),
  /** A record's id (core/schema.ts Id). */
  id: (value: unknown): value is string => typeof value === "string" && isId(value),
  /** A transaction id (`xid8`) as Postgres prints it: digits, no leading zero, within bigint's range. */
  txId: (value: unknown): value is string =>
    typeof value === "string" && /^(0|[1-9]\d{0,18})$/.test(value) && BigInt(value) <= maxBigint,
} satisfies Record<string, CursorField>;

/**
 * Decodes a cursor made by encodeCursor from a position of these fields (cursorFields), in order. Anything else is
 * RequestInvalid at `/query/cursor`: text that is not a position's JSON in base64url as encodeCursor spells it, or a
 * position of other fields, or a field with a value the service never prints there (a day that does not exist, a
 * transaction past bigint), which would otherwise fail the list's statement (a 500) or list nothing (an empty page).
 */
export function decodeCursor(cursor: string, fields: readonly CursorField[]): (string | null)[] {
  let position: unknown;
  try {
    position = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    position = undefined;
  }
  const made =
    Array.isArray(position) &&
    position.length === fields.length &&
    fields.every((field, i) => field(position[i])) &&
    encodeCursor(position) === cursor;
  if (!made) {
    throw new RequestInvalid({
      message: "The cursor is not one this service made.",
      issues: [{ path: "/query/cursor", message: "Use the cursor of a Link header as it is" }],
    });
  }
  return position as (string | null)[];
}

/** The `Link` header value pointing at the next page: the request's URL with `cursor` (and `pinned`) set. */
export function nextLink(url: URL, cursor: string, pinned: Record<string, string> = {}): string {
  const next = new URL(url.toString());
  for (const [name, value] of Object.entries(pinned)) next.searchParams.set(name, value);
  next.searchParams.set("cursor", cursor);
  return `<${next.toString()}>; rel="next"`;
}
