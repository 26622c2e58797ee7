/**
 * The table declarations (src/workspace_import/tables.ts lists them all, contacts and repairs declared next to their
 * feature) against the migrated database: each declared column exists with the declared type (a domain's base type),
 * each key is a unique index, and every column a new row needs (not null, no default) is declared, so the columns the
 * import and the API's inserts (rowInsert) write cannot drift from sql/ unseen.
 */
import { describe, expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import type { ColumnType } from "../../src/core/table_spec.ts";
import { tables, type TableName } from "../../src/workspace_import/tables.ts";

const h = await harness();
const db = h.database.db;

/** How Postgres names each declared column type (format_type). */
const pgType: Record<ColumnType, string> = {
  text: "text",
  date: "date",
  timestamptz: "timestamp with time zone",
  boolean: "boolean",
  integer: "integer",
  bigint: "bigint",
  jsonb: "jsonb",
  "text[]": "text[]",
};

/** A table's columns as the database has them. */
async function storedColumns(table: string) {
  return db<{ name: string; type: string; required: boolean }[]>`
    select a.attname as name,
           -- A domain (ident, …) as the type it is made from: the staging table's column is of that type.
           format_type(case when t.typtype = 'd' then t.typbasetype else a.atttypid end, null) as type,
           a.attnotnull and not a.atthasdef and a.attgenerated = '' as required
    from pg_attribute a join pg_type t on t.oid = a.atttypid
    where a.attrelid = ${table}::regclass and a.attnum > 0 and not a.attisdropped`;
}

/** Whether the table has a unique index on exactly these columns (with workspace_id, when it has one). */
async function hasUniqueKey(table: string, key: string[]) {
  const [row] = await db<{ found: boolean }[]>`
    select exists (
      select 1 from pg_index i
      where i.indrelid = ${table}::regclass and i.indisunique and i.indpred is null
        and (select array_agg(a.attname::text order by a.attname) from pg_attribute a
             where a.attrelid = i.indrelid and a.attnum = any(i.indkey))
            = (select array_agg(k order by k) from unnest(${[...key, "workspace_id"]}::text[]) k)
    ) as found`;
  return row!.found;
}

describe("the import's table declarations", () => {
  test.each(Object.keys(tables) as TableName[])("%s: columns and types as migrated, key unique", async (name) => {
    const spec = tables[name];
    const stored = new Map((await storedColumns(name)).map((c) => [c.name, c]));
    const declared = Object.entries(spec.columns as Record<string, ColumnType>);
    expect(declared.map(([c]) => [c, stored.get(c)?.type ?? "missing"])).toEqual(
      declared.map(([c, type]) => [c, pgType[type]]),
    );
    const written = new Set(["workspace_id", ...Object.keys(spec.columns)]);
    expect([...stored.values()].filter((c) => c.required && !written.has(c.name)).map((c) => c.name)).toEqual([]);
    expect(await hasUniqueKey(name, spec.key)).toBe(true);
  });
});
