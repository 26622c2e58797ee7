/**
 * The text rule in the workspace import (core/storable_text.ts): a string of the document holding a
 * NUL character or an unpaired surrogate, wherever it is, refuses the whole document naming its JSON path, through
 * importWorkspace and through the CLI, and nothing is written.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { harness } from "../support/harness.ts";
import { envWithout, runToEnd } from "../support/service.ts";
import { importWorkspace } from "../../src/workspace_import/import.ts";
import { ImportRejected } from "../../src/workspace_import/errors.ts";
import { fullDocument, countRows } from "./fixtures.ts";

const h = await harness();
const db = h.database.db;

/** The JSON pointer of every string of a value (field names aside). */
function stringPointers(value: unknown, path = ""): string[] {
  if (typeof value === "string") return [path];
  if (Array.isArray(value)) return value.flatMap((v, i) => stringPointers(v, `${path}/${i}`));
  if (value && typeof value === "object")
    return Object.entries(value).flatMap(([k, v]) => stringPointers(v, `${path}/${k}`));
  return [];
}

/** A copy of the document with the string at a pointer replaced. */
function withString(doc: unknown, pointer: string, value: string): any {
  const copy = structuredClone(doc) as any;
  const tokens = pointer.slice(1).split("/");
  let at = copy;
  for (const t of tokens.slice(0, -1)) at = at[t];
  at[tokens.at(-1)!] = value;
  return copy;
}

/** The error an import throws (fails the test when it succeeds). */
async function rejection(slug: string, doc: unknown): Promise<Record<string, unknown>> {
  try {
    await importWorkspace(db, slug, doc);
  } catch (error) {
    if (error instanceof ImportRejected) return error.toBody();
    throw error;
  }
  throw new Error("the import was accepted");
}

const bad = [
  { name: "a NUL character", value: "a\u0000b", message: /NUL/ },
  { name: "a lone surrogate", value: "a\udc00b", message: /surrogate/ },
];

describe("a string the database cannot store", () => {
  test("anywhere in a document that uses every collection, it is ImportRejected naming its path, and nothing is written", async () => {
    const ws = await h.workspace();
    const doc = fullDocument();
    const pointers = stringPointers(doc);
    expect(pointers.length).toBeGreaterThan(100);
    const before = await countRows(db);
    for (const pointer of pointers) {
      for (const { name, value, message } of bad) {
        const error = await rejection(ws.slug, withString(doc, pointer, value));
        expect(error, `${name} at ${pointer}`).toEqual({
          _tag: "ImportRejected",
          path: pointer,
          message: expect.stringMatching(message),
        });
      }
    }
    expect(await countRows(db)).toEqual(before);
  });

  test("in a field name it is refused naming that field", async () => {
    const ws = await h.workspace();
    const doc = fullDocument() as any;
    doc.properties[0].facts["fire\u0000Alarm"] = "yes";
    expect(await rejection(ws.slug, doc)).toEqual({
      _tag: "ImportRejected",
      path: "/properties/0/facts/fire\u0000Alarm",
      message: expect.stringMatching(/^Field name: .*NUL/),
    });
  });

  test("the CLI prints ImportRejected with the path, exits 2 and writes nothing", async () => {
    const ws = await h.workspace();
    const doc = fullDocument();
    const scratch = mkdtempSync(join(tmpdir(), "lettings-import-text-"));
    const before = await countRows(db);
    for (const [pointer, value] of [
      ["/contacts/0/name", "Linda\u0000"],
      ["/tasks/1/title", "Chase \ud800landlord"],
    ] as const) {
      const file = join(scratch, "doc.json");
      // JSON.stringify writes both as \u escapes, as an exporting system would.
      writeFileSync(file, JSON.stringify(withString(doc, pointer, value)));
      const { stdout, stderr, code } = await runToEnd(
        [process.execPath, "src/cli.ts", "import", "--workspace", ws.slug, file],
        { env: envWithout([], { DATABASE_URL: h.database.url }) },
      );
      expect(code).toBe(2);
      expect(stdout).toBe("");
      expect(JSON.parse(stderr)).toEqual({
        _tag: "ImportRejected",
        path: pointer,
        message: expect.stringMatching(/NUL|surrogate/),
      });
    }
    expect(await countRows(db)).toEqual(before);
    rmSync(scratch, { recursive: true, force: true });
  });
});
