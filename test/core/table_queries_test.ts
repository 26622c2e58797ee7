/**
 * rowInsert writes a declared table's new row as the import writes one: every declared column, a jsonb value as its
 * JSON (a string included), a null `keep` column as now(), the extra columns after; one statement text for every row.
 */
import { describe, expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import { rowInsert } from "../../src/core/table_queries.ts";
import type { TableSpec } from "../../src/core/table_spec.ts";

const h = await harness();
const db = h.database.db;

const spec = {
  key: ["id"],
  columns: { id: "text", tags: "text[]", doc: "jsonb", note: "text", created_at: "timestamptz" },
  keep: ["created_at"],
} satisfies TableSpec;

/** Inserts rows into a temporary table of the spec's columns (and revision), returning them as text. */
async function written(rows: Parameters<typeof rowInsert<typeof spec>>[3][]) {
  return db.begin(async (tx) => {
    await tx`create temp table t (workspace_id text, id text, tags text[], doc jsonb, note text,
                                  created_at timestamptz, revision int) on commit drop`;
    const texts = new Set<string>();
    for (const row of rows) {
      const q = tx`insert into t ${rowInsert(tx, spec, "w1", row, { revision: 7 })}`;
      await q;
      texts.add((q as unknown as { statement: { string: string } }).statement.string);
    }
    const stored = await tx<{ row: string; now: boolean }[]>`
      select (to_jsonb(t) - 'created_at')::text as row, created_at = now() as now from t order by id`;
    return { stored: [...stored], texts: [...texts] };
  });
}

describe("rowInsert", () => {
  test("writes every declared column as the import does, in one statement text", async () => {
    const { stored, texts } = await written([
      { id: "a", tags: ["x", "y,z"], doc: [{ k: 1 }], note: null, created_at: null },
      { id: "b", tags: [], doc: "just text", note: "n", created_at: null },
    ]);
    expect(stored).toEqual([
      {
        row: '{"id": "a", "doc": [{"k": 1}], "note": null, "tags": ["x", "y,z"], "revision": 7, "workspace_id": "w1"}',
        now: true,
      },
      {
        row: '{"id": "b", "doc": "just text", "note": "n", "tags": [], "revision": 7, "workspace_id": "w1"}',
        now: true,
      },
    ]);
    expect(texts).toHaveLength(1);
  });

  test("a keep column given keeps its value", async () => {
    const { stored } = await written([
      { id: "c", tags: [], doc: null, note: null, created_at: "2001-02-03T04:05:06.789Z" },
    ]);
    expect(stored[0]!.now).toBe(false);
  });
});
