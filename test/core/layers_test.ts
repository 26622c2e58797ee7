/**
 * The layers point one way: no file under src/core or src/events imports a feature folder (src/<area>/) or a file
 * at the root of src that gathers them (src/operations.ts, src/event_types.ts, …); only src/config.ts is shared.
 * What core and events need from the features is passed in by the root files.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const src = resolve(import.meta.dir, "../../src");
const layers = ["core", "events"];
/** What a file of those layers may import at the root of src. */
const sharedRootFiles = ["config.ts"];

/** Every module specifier in `code`: static imports and re-exports (type-only too) and dynamic imports. */
function specifiersOf(code: string): string[] {
  const found = code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["']([^"']+)["']/g);
  return [...found].map((m) => m[1]!);
}

/** The imports of `file` (under src) that leave core and events for a folder or a gathering file of src. */
function arrowsUp(file: string, code: string): string[] {
  return specifiersOf(code).filter((specifier) => {
    if (!specifier.startsWith(".")) return false;
    const target = relative(src, resolve(dirname(file), specifier));
    if (target.startsWith("..")) return false;
    const [top, ...rest] = target.split("/");
    return rest.length ? !layers.includes(top!) : !sharedRootFiles.includes(top!);
  });
}

const files = layers.flatMap((layer) =>
  readdirSync(join(src, layer), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .map((f) => join(src, layer, f)),
);

describe("core and events import no feature", () => {
  test("the check sees an arrow up, whatever the form of the import", () => {
    const file = join(src, "core", "x.ts");
    expect(arrowsUp(file, 'import { a } from "../telephony/queries.ts";')).toEqual(["../telephony/queries.ts"]);
    expect(arrowsUp(file, 'import type { A } from "../calendar/x.ts";')).toEqual(["../calendar/x.ts"]);
    expect(arrowsUp(file, 'const m = await import("../mcp/http.ts");')).toEqual(["../mcp/http.ts"]);
    expect(arrowsUp(file, 'export { b } from "../operations.ts";')).toEqual(["../operations.ts"]);
    expect(arrowsUp(file, 'import "../workers.ts";')).toEqual(["../workers.ts"]);
    expect(arrowsUp(file, 'import { c } from "./db.ts";\nimport { d } from "../events/record.ts";')).toEqual([]);
    expect(
      arrowsUp(file, 'import type { Config } from "../config.ts";\nimport pkg from "../../package.json";'),
    ).toEqual([]);
  });

  test("no file under src/core or src/events imports one", () => {
    expect(files.length).toBeGreaterThan(40);
    const found = files.flatMap((file) =>
      arrowsUp(file, readFileSync(file, "utf8")).map((s) => `${relative(src, file)}: ${s}`),
    );
    expect(found).toEqual([]);
  });
});
