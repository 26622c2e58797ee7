/** Checks a value against the document schema; the first problem is reported with its JSON path. */
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { ValueErrorType, type ValueError } from "@sinclair/typebox/errors";
import { Id, WorkspaceDocument, type WorkspaceDoc } from "./schema.ts";
import { ImportRejected } from "./errors.ts";
import { textIssues } from "../core/storable_text.ts";
import { dateRangeText } from "../core/dates.ts";

const compiled = TypeCompiler.Compile(WorkspaceDocument);

/**
 * The innermost path and a person-readable message of a schema error
 * (TypeBox's own, made specific for formats and unions).
 */
function explain(error: ValueError): { path: string; message: string } {
  const schema = error.schema as {
    format?: string;
    description?: string;
    anyOf?: { const?: unknown; type?: string }[];
  };
  const at = (message: string) => ({ path: error.path, message });
  if (error.type === ValueErrorType.StringFormat && schema.format === "import-date")
    return at(`Expected a calendar date YYYY-MM-DD ${dateRangeText}`);
  if (error.type === ValueErrorType.StringFormat && schema.format === "import-instant") {
    return at(`Expected an RFC 3339 instant with a zone, such as 2026-11-22T09:30:00.000Z, of a date ${dateRangeText}`);
  }
  if (error.type === ValueErrorType.Union && schema.anyOf) {
    const literals = schema.anyOf.filter((s) => s.const !== undefined).map((s) => JSON.stringify(s.const));
    const nullable = schema.anyOf.some((s) => s.type === "null");
    if (literals.length) return at(`Expected one of ${literals.join(", ")}${nullable ? " or null" : ""}`);
    // A nullable value that is not null: the other branch's own error says what is wrong, and where.
    for (const branch of error.errors) {
      const first = branch.First();
      if (first && (first.schema as { type?: string }).type !== "null") {
        const inner = explain(first);
        return inner.path === error.path && nullable ? { ...inner, message: `${inner.message} (or null)` } : inner;
      }
    }
  }
  if (error.type === ValueErrorType.ObjectAdditionalProperties) return at("Unknown field");
  // An id's length and characters are one rule (Identifier), which its description states whichever part failed.
  const idLength =
    error.schema === Id &&
    (error.type === ValueErrorType.StringMinLength || error.type === ValueErrorType.StringMaxLength);
  if ((error.type === ValueErrorType.StringPattern || idLength) && schema.description) {
    return at(
      `Expected ${schema.description.charAt(0).toLowerCase()}${schema.description.slice(1).replace(/\.$/, "")}`,
    );
  }
  return at(error.message);
}

/**
 * Returns the document typed, or throws ImportRejected naming the first offending path: a schema error, else a
 * string the database cannot store (core/storable_text.ts).
 */
export function validateDocument(value: unknown): WorkspaceDoc {
  if (compiled.Check(value)) {
    const [text] = textIssues(value, "", 1);
    if (text) throw new ImportRejected(text);
    return value;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ImportRejected({ path: "", message: "The document must be one JSON object" });
  }
  const [text] = textIssues(value, "", 1);
  const error = explain(compiled.Errors(value).First()!);
  // A string breaking the text rule is named with the rule, whatever its schema says of it too.
  throw new ImportRejected(text && text.path === error.path ? text : { ...error, path: error.path.toWellFormed() });
}
