/** Registers the string formats the schemas use, so Value.Check understands `date` and `date-time` (TypeBox refuses unknown formats). */
import { FormatRegistry } from "@sinclair/typebox";

/** Whether a string is a real calendar date `YYYY-MM-DD`. */
export function isDate(value: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const at = new Date(Date.UTC(y, mo - 1, d));
  return at.getUTCFullYear() === y && at.getUTCMonth() === mo - 1 && at.getUTCDate() === d;
}

/** Whether a string is an RFC 3339 instant with a date that exists. */
export function isDateTime(value: string): boolean {
  const m = /^(\d{4}-\d{2}-\d{2})[Tt ]([01]\d|2[0-3]):[0-5]\d:([0-5]\d|60)(\.\d+)?([Zz]|[+-]([01]\d|2[0-3]):[0-5]\d)$/.exec(value);
  return m !== null && isDate(m[1]!);
}

if (!FormatRegistry.Has("date")) FormatRegistry.Set("date", isDate);
if (!FormatRegistry.Has("date-time")) FormatRegistry.Set("date-time", isDateTime);
