/**
 * The import's planned rows are typed from the table declarations (src/workspace_import/tables.ts): a misspelt,
 * missing or mistyped column is a compile error. The `@ts-expect-error` lines below are checked by `tsc --noEmit`
 * (.ci/run): were the types to stop refusing them, the directive itself would be the error.
 */
import { describe, expect, test } from "bun:test";
import { prepareDocument } from "../../src/workspace_import/import.ts";
import { type Row, type Rows, tables, type TableName } from "../../src/workspace_import/tables.ts";
import { fullDocument } from "./fixtures.ts";

/** Rows the compiler accepts or refuses; never run. */
export function typeChecks(rows: Rows): void {
  const meter: Row<"unit_meters"> = { unit_id: "u-1", meter: "gas" };
  const keySet: Row<"key_sets">["sequence"] = 3;
  rows.unit_meters = [meter, { unit_id: "u-1", meter: null }];
  void keySet;
  // @ts-expect-error a misspelt column
  rows.unit_meters.push({ unit_id: "u-1", meeter: "gas" });
  // @ts-expect-error a missing column
  rows.unit_meters.push({ unit_id: "u-1" });
  // @ts-expect-error a column of another table
  rows.unit_meters.push({ unit_id: "u-1", meter: "gas", tenancy_id: "t-1" });
  // @ts-expect-error a value of the wrong type (sequence is an integer column)
  rows.key_sets = [{ ...rows.key_sets![0]!, sequence: "3" }];
  // @ts-expect-error a table the import does not write
  rows.api_keys = [];
}

describe("planned rows", () => {
  test("every row the plan of a full document builds has exactly its table's declared columns", () => {
    const plan = prepareDocument(fullDocument());
    const tablesWritten = Object.keys(plan.rows) as TableName[];
    expect(tablesWritten.length).toBeGreaterThan(20);
    for (const name of tablesWritten) {
      const declared = Object.keys(tables[name].columns).sort();
      for (const row of plan.rows[name]!)
        expect({ name, columns: Object.keys(row).sort() }).toEqual({ name, columns: declared });
    }
  });
});
