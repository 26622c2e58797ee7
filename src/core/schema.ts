/** The schema helpers every group's schemas use: strict objects, identifiers, dates, instants, nullable values. */
import { Type, type TProperties, type TSchema } from "@sinclair/typebox";
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

const idCheck = TypeCompiler.Compile(Id);
/** Whether a value is an identifier (as Id checks it). */
export function isId(value: unknown): boolean {
  return idCheck.Check(value);
}

/** A calendar date `YYYY-MM-DD`. */
export const DateOn = Type.String({
  format: "date",
  pattern: "^\\d{4}-\\d{2}-\\d{2}$",
  description: "Calendar date, YYYY-MM-DD.",
});
/** An instant, RFC 3339 UTC with milliseconds. */
export const Instant = Type.String({
  format: "date-time",
  description: "Instant, RFC 3339 UTC with milliseconds: 2026-11-22T09:30:00.000Z.",
});
/** Nullable version of a schema. */
export function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}
