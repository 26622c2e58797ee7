/** One row of a declared table (table_spec.ts) as an API write inserts it. */
import type postgres from "postgres";
import type { Db, Tx } from "./db.ts";
import type { RowOf, TableSpec } from "./table_spec.ts";

/**
 * A new row of a table: every declared column, each of its value, null, or an SQL expression of the statement
 * (`'R-' || …`). A jsonb column takes a value, never an expression.
 */
export type NewRow<S extends TableSpec> = { [C in keyof RowOf<S>]: RowOf<S>[C] | postgres.Fragment };

/** Of each declared table, its written columns, its jsonb ones, and those whose null means now() for a new row. */
const plans = new WeakMap<TableSpec, { columns: string[]; jsonb: Set<string>; keep: Set<string> }>();

function planOf(spec: TableSpec) {
  let plan = plans.get(spec);
  if (!plan) {
    const columns = Object.keys(spec.columns);
    const jsonb = new Set(columns.filter((c) => spec.columns[c] === "jsonb"));
    plan = { columns: ["workspace_id", ...columns], jsonb, keep: new Set(spec.keep) };
    plans.set(spec, plan);
  }
  return plan;
}

/**
 * The columns and values of one new row, for `insert into <table> ${rowInsert(…)}`: `(workspace_id, <declared
 * columns>, <extra columns>) values (…)`, the same for every row of the table, so the statement stays one prepared
 * text. Each declared column is written as the import writes a new row: a jsonb value as its JSON text (a string
 * too: the pool passes a string to json as it is), a null `keep` column as now(). `extra` gives columns the
 * declaration leaves to the import's upsert (`revision`, `updated_at`).
 */
export function rowInsert<S extends TableSpec>(
  sql: Db | Tx,
  spec: S,
  workspaceId: string,
  row: NewRow<S>,
  extra: Record<string, postgres.ParameterOrJSON<never> | postgres.Fragment> = {},
) {
  const { columns, jsonb, keep } = planOf(spec);
  const values: Record<string, unknown> = { workspace_id: workspaceId };
  for (let i = 1; i < columns.length; i++) {
    const column = columns[i]!;
    const value = (row as Record<string, unknown>)[column];
    values[column] =
      value === null
        ? keep.has(column)
          ? sql`now()`
          : null
        : jsonb.has(column)
          ? sql.json(JSON.stringify(value) as never)
          : value;
  }
  Object.assign(values, extra);
  return sql(values as never, [...columns, ...Object.keys(extra)]);
}
