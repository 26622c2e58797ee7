/** A syntactically valid request for any declared operation: path filled with placeholder ids. */
import type { Operation } from "../../src/core/operation.ts";

/** The operation's path with every `:param` replaced by `id`. */
export function pathOf(op: Operation, id = "ZZ-UNKNOWN"): string {
  return op.path.replace(/:([A-Za-z0-9_]+)/g, id);
}
