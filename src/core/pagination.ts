/** Keyset pagination of list operations: `limit`, an opaque `cursor`, and `Link: <…>; rel="next"`. */
import { Type } from "@sinclair/typebox";
import { RequestInvalid } from "./errors.ts";

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
    "the list's order; the next page starts right after it. A cursor this service did not make is refused " +
    "(400).",
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

/** Decodes a cursor made by encodeCursor; anything else is RequestInvalid at `/query/cursor`. */
export function decodeCursor(cursor: string, accept: (position: unknown[]) => boolean): (string | null)[] {
  let position: unknown;
  try {
    position = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    position = undefined;
  }
  if (!Array.isArray(position) || !position.every((v) => v === null || typeof v === "string") || !accept(position)) {
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
