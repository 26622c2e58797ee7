/**
 * The string formats schemas use, registered with TypeBox over Elysia's looser ones: the API's `date`,
 * `date-time` and `email`, and the import document's `import-date` and `import-instant` (names of its own, so
 * that its stricter instant changes no other schema's meaning). Every date and instant format takes only dates of
 * dateRange (1900-01-01 to 2200-12-31, src/core/dates.ts).
 */
import { FormatRegistry } from "@sinclair/typebox";
import { isDate, isDateTime, isInstant } from "./dates.ts";

FormatRegistry.Set("date", isDate);
FormatRegistry.Set("date-time", isDateTime);
FormatRegistry.Set("email", (v) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v) && v.length <= 254);
FormatRegistry.Set("import-date", isDate);
FormatRegistry.Set("import-instant", isInstant);
