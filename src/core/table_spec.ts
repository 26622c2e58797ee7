/**
 * How a table's written columns are declared, once, for every writer: the workspace import upserts whole tables by
 * the declaration (src/workspace_import/queries.ts), an API write inserts one row by it (table_queries.ts). A table
 * the API writes is declared next to its feature (src/contacts/table.ts); src/workspace_import/tables.ts lists every
 * table the import writes, in write order.
 */

/** A column type as the import's staging table declares it. */
export type ColumnType = "text" | "date" | "timestamptz" | "boolean" | "integer" | "bigint" | "jsonb" | "text[]";

/** A table's written columns, and how the import upserts it. */
export interface TableSpec {
  /** Columns identifying a row within the workspace. */
  key: string[];
  /** Every column written (key columns included) and its type; `workspace_id` is implied. */
  columns: Record<string, ColumnType>;
  /** `revision` goes up by one when the row changes. */
  revision?: boolean;
  /** A column set to now() when the row changes. */
  touch?: string;
  /** Columns whose null keeps the stored value, and means now() for a new row. */
  keep?: string[];
  /** The parent column of a nested list: the parent's rows the document does not list are deleted. */
  parent?: string;
}

/** The value a column of each type takes in a row (null is SQL null). */
interface ColumnValues {
  text: string;
  date: string;
  timestamptz: string;
  boolean: boolean;
  integer: number;
  bigint: number;
  jsonb: unknown;
  "text[]": string[];
}

/** The value of a column of type `T`. */
export type ColumnValue<T> = T extends ColumnType ? ColumnValues[T] : never;

/**
 * One row of a table: exactly its declared columns, each of its type or null, so that a misspelt or missing column
 * is a compile error rather than a NULL in the table.
 */
export type RowOf<S extends TableSpec> = { [C in keyof S["columns"]]: ColumnValue<S["columns"][C]> | null };
