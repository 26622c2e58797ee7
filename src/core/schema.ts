/** The schema helpers every group's schemas use: strict objects, identifiers, dates, instants, nullable values. */
import { Type, type TProperties, type TSchema } from "@sinclair/typebox";
import { dateRangeText, dateSource, dateTimeSource } from "./dates.ts";
import "./formats.ts";
import { TypeCompiler } from "@sinclair/typebox/compiler";

/** A strict object schema: unknown fields are refused, never stripped. */
export function Strict<T extends TProperties>(properties: T, options: { description?: string; title?: string } = {}) {
  return Type.Object(properties, { ...options, additionalProperties: false });
}

/** An identifier with a description of its own: 1 to 64 characters of A-Z a-z 0-9 _ -. */
export function Identifier(description: string) {
  return Type.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9_-]+$", description });
}

/** A path parameter or record identifier. */
export const Id = Identifier(
  "An identifier: a ULID minted here, or an imported id (1 to 64 characters of A-Z a-z 0-9 _ -).",
);

/**
 * The optional `requestId` of a create's body: retries with it replay the first answer (src/core/idempotency.ts).
 */
export const RequestId = Type.Optional(
  Type.String({
    minLength: 1,
    maxLength: 128,
    pattern: "^[^\\x00-\\x1F\\x7F-\\x9F]+$",
    description:
      "1 to 128 printable characters. A retry with the same requestId and the same body replays the first " +
      "answer (201, byte for byte, with `Idempotent-Replayed: true`) and creates nothing; with a different body " +
      "it is refused with RequestIdReused. Kept at least 30 days.",
  }),
);

const idCheck = TypeCompiler.Compile(Id);
/** Whether a value is an identifier (as Id checks it). */
export function isId(value: unknown): boolean {
  return idCheck.Check(value);
}

/** A calendar date `YYYY-MM-DD`, 1900-01-01 to 2200-12-31 (dateRange, src/core/dates.ts). */
export const DateOn = Type.String({
  format: "date",
  pattern: `^${dateSource}$`,
  description: `Calendar date, YYYY-MM-DD, ${dateRangeText}.`,
});
/** An instant, RFC 3339 UTC with milliseconds, of a date 1900-01-01 to 2200-12-31 (dateRange). */
export const Instant = Type.String({
  format: "date-time",
  pattern: `^${dateTimeSource}$`,
  description: `Instant, RFC 3339 UTC with milliseconds: 2026-11-22T09:30:00.000Z, of a date ${dateRangeText}.`,
});
/** Nullable version of a schema. */
export function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}
