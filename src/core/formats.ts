/** The string formats schemas use (`date`, `date-time`, `email`), registered with TypeBox over Elysia's looser ones. */
import { FormatRegistry } from "@sinclair/typebox";

const date = /^(\d{4})-(\d{2})-(\d{2})$/;
const dateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;

/** Whether a text is a real calendar date `YYYY-MM-DD`. */
export function isDate(value: string): boolean {
  const m = date.exec(value);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

/** Whether a text is an RFC 3339 date-time with a zone. */
export function isDateTime(value: string): boolean {
  return dateTime.test(value) && isDate(value.slice(0, 10)) && !Number.isNaN(Date.parse(value));
}

FormatRegistry.Set("date", isDate);
FormatRegistry.Set("date-time", isDateTime);
FormatRegistry.Set("email", (v) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v) && v.length <= 254);
