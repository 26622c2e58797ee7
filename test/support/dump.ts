/** Whole-table snapshots of a test database, for "this changed nothing" assertions. */
import type { Db } from "../../src/core/db.ts";

/** The public tables, each with whether it has a workspace_id and an id column. */
async function tables(db: Db) {
  return db<{ tableName: string; scoped: boolean; hasId: boolean }[]>`
    select t.table_name, bool_or(c.column_name = 'workspace_id') as scoped, bool_or(c.column_name = 'id') as has_id
    from information_schema.tables t
    join information_schema.columns c on c.table_schema = t.table_schema and c.table_name = t.table_name
    where t.table_schema = 'public' and t.table_type = 'BASE TABLE'
    group by 1 order by 1`;
}

/** The rows of a table (those matching `where`, the table aliased x) as one sorted JSON array. */
async function rowsAsJson(db: Db, table: string, where = "true", parameters: string[] = []): Promise<string> {
  const [row] = await db.unsafe<[{ rows: string }]>(
    `select coalesce(json_agg(x order by x::text), '[]')::text as rows from ${table} x where ${where}`,
    parameters,
  );
  return row.rows;
}

/** Every table of the database, each as a sorted JSON array of its rows. */
export async function dumpDatabase(db: Db): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const { tableName } of await tables(db)) out[tableName] = await rowsAsJson(db, `"${tableName}"`);
  return out;
}

/** One workspace's rows of every table that has them (its workspaces row included), each as a sorted JSON array. */
export async function dumpWorkspace(db: Db, workspaceId: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const { tableName, scoped } of await tables(db)) {
    if (scoped) out[tableName] = await rowsAsJson(db, `"${tableName}"`, "x.workspace_id = $1", [workspaceId]);
  }
  out.workspaces = await rowsAsJson(db, "workspaces", "x.id = $1", [workspaceId]);
  return out;
}

/** Every `id` a workspace's rows hold, in every table that has an id column. */
export async function idsOfWorkspace(db: Db, workspaceId: string): Promise<Set<string>> {
  const ids = new Set<string>();
  for (const { tableName, scoped, hasId } of await tables(db)) {
    if (!scoped || !hasId) continue;
    const rows = await db.unsafe<{ id: string }[]>(`select id from "${tableName}" where workspace_id = $1`, [
      workspaceId,
    ]);
    for (const { id } of rows) ids.add(id);
  }
  return ids;
}
