/** The error of the workspace import. */
import { Type } from "@sinclair/typebox";
import { TaggedError } from "../core/errors.ts";

/**
 * The document was refused: `path` is the JSON pointer of the offending
 * value ("" for the whole document). Nothing was written.
 */
export class ImportRejected extends TaggedError(
  "ImportRejected",
  400,
  { path: Type.String(), message: Type.String() },
  "The workspace document was refused; `path` is the JSON pointer of the offending record or value. Nothing was " +
    "written.",
) {}
