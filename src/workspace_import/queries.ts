/** The import's SQL: stored records the document refers to, and set-based upserts of whole tables. */
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Db, Tx } from "../core/db.ts";
import type { ColumnType, TableSpec } from "../core/table_spec.ts";
import type { Attributes, Target } from "./plan.ts";
import { tables, type Row, type TableName } from "./tables.ts";

type Sql = Db | Tx;

/** Where each kind of record lives, and the attributes reference rules read. */
const targetTables: Record<Target, { table: string; attributes: string }> = {
  users: { table: "users", attributes: "" },
  contacts: { table: "contacts", attributes: ", kind" },
  properties: { table: "properties", attributes: "" },
  blocks: { table: "blocks", attributes: ", property_id" },
  units: { table: "units", attributes: ", property_id" },
  tenancies: { table: "tenancies", attributes: ", unit_id" },
  repairs: { table: "repairs", attributes: "" },
  tasks: { table: "tasks", attributes: "" },
  inspections: { table: "inspections", attributes: "" },
  keySets: { table: "key_sets", attributes: "" },
  contractorInvoices: { table: "contractor_invoices", attributes: "" },
};

/** Locks the workspace row so that imports into one workspace run one at a time; false when it does not exist. */
export async function lockWorkspace(tx: Tx, workspaceId: string): Promise<boolean> {
  const rows = await tx`select id from workspaces where id = ${workspaceId} for update`;
  return rows.length === 1;
}

/** Stored records of a kind among `ids`, with their attributes. */
export async function storedRecords(
  tx: Sql,
  workspaceId: string,
  target: Target,
  ids: string[],
): Promise<Map<string, Attributes>> {
  const { table, attributes } = targetTables[target];
  const rows = await tx.unsafe<({ id: string } & Attributes)[]>(
    `select id::text${attributes} from ${table} where workspace_id = $1 and id = any($2::text[])`,
    [workspaceId, ids],
  );
  return new Map(rows.map(({ id, ...rest }) => [id, rest as Attributes]));
}

/** The stored parent of each nested record among `ids` (a finding's inspection, a payment's invoice…). */
export async function storedParents(
  tx: Sql,
  workspaceId: string,
  table: TableName,
  parentColumn: string,
  ids: string[],
): Promise<Map<string, string>> {
  const rows = await tx.unsafe<{ id: string; parent: string }[]>(
    `select id::text, ${parentColumn}::text as parent from ${table} where workspace_id = $1 and id = any($2::text[])`,
    [workspaceId, ids],
  );
  return new Map(rows.map((r) => [r.id, r.parent]));
}

/** The stored handovers of some tenancies. */
export async function storedHandovers(tx: Sql, workspaceId: string, tenancyIds: string[]) {
  return tx<{ id: string; tenancyId: string; direction: string }[]>`
    select id, tenancy_id, direction from handovers
    where workspace_id = ${workspaceId} and tenancy_id = any(${tenancyIds}::text[])`;
}

/** The id of the workspace's owner, if it has one. */
export async function storedOwner(tx: Sql, workspaceId: string): Promise<string | null> {
  const [row] = await tx<{ id: string }[]>`select id from users where workspace_id = ${workspaceId} and role = 'owner'`;
  return row?.id ?? null;
}

/** How many owners the workspace has. */
export async function ownerCount(tx: Sql, workspaceId: string): Promise<number> {
  const [row] = await tx<
    { n: number }[]
  >`select count(*)::int as n from users where workspace_id = ${workspaceId} and role = 'owner'`;
  return row!.n;
}

/** Makes every other owner of the workspace an admin (before the new owner is written: one owner at most, always). */
export async function demoteOwnersExcept(tx: Tx, workspaceId: string, userId: string): Promise<void> {
  await tx`update users set role = 'admin' where workspace_id = ${workspaceId} and role = 'owner' and id <> ${userId}`;
}

/** Sets the hazard regime; the revision goes up by one only when the regime changes. Returns whether it did. */
export async function setRegime(
  tx: Tx,
  workspaceId: string,
  regime: string,
): Promise<{ changed: boolean; revision: number }> {
  // No row means {private, 0}: a document saying "private" to a new workspace writes nothing.
  const rows = await tx<{ revision: number }[]>`
    with cur as (select regime, revision from hazard_settings where workspace_id = ${workspaceId})
    insert into hazard_settings (workspace_id, regime, revision)
    select ${workspaceId}, ${regime}, coalesce((select revision from cur), 0) + 1
    where ${regime} is distinct from coalesce((select regime from cur), 'private')
    on conflict (workspace_id) do update set regime = excluded.regime, revision = excluded.revision, updated_at = now()
    returning revision`;
  return { changed: rows.length > 0, revision: rows[0]?.revision ?? 0 };
}

const sqlCache = new Map<string, { stage: string; upsert: string; remove: string | null }>();

/**
 * The statements of a table. Rows are first copied into a temporary staging table; the upsert then updates the
 * stored rows that differ (revision + 1, touched column now()) and inserts the missing ones, in one statement.
 * Unchanged rows are not written at all, so loading the same document twice changes nothing.
 */
function statements(name: TableName, collect: boolean) {
  const cacheKey = `${name}:${collect}`;
  const cached = sqlCache.get(cacheKey);
  if (cached) return cached;
  const spec: TableSpec = tables[name];
  const cols = Object.keys(spec.columns);
  const keep = spec.keep ?? [];
  const plain = cols.filter((c) => !spec.key.includes(c) && !keep.includes(c));
  const stage = `import_${name}`;
  const match = spec.key.map((k) => `t.${k} = s.${k}`).join(" and ");
  const ret = spec.parent ?? spec.key[0]!;
  const differs = [
    ...(plain.length
      ? [`(${plain.map((c) => `t.${c}`).join(", ")}) is distinct from (${plain.map((c) => `s.${c}`).join(", ")})`]
      : []),
    ...keep.map((c) => `(s.${c} is not null and s.${c} is distinct from t.${c})`),
  ];
  const sets = [
    ...plain.map((c) => `${c} = s.${c}`),
    ...keep.map((c) => `${c} = coalesce(s.${c}, t.${c})`),
    ...(spec.revision ? ["revision = t.revision + 1"] : []),
    ...(spec.touch ? [`${spec.touch} = now()`] : []),
  ];
  const values = cols.map((c) => (keep.includes(c) ? `coalesce(s.${c}, now())` : `s.${c}`)).join(", ");
  const update = differs.length
    ? `with u as (update ${name} t set ${sets.join(", ")} from ${stage} s
                  where t.workspace_id = $1 and ${match} and (${differs.join(" or ")}) returning t.${ret}),`
    : "with";
  const updated = differs.length ? `select ${ret} as c from u union all ` : "";
  const changed = collect ? `array(select distinct c::text from (${updated}select ${ret} from i) y)` : "'{}'::text[]";
  const upsert = `
    ${update}
    i as (insert into ${name} (workspace_id, ${cols.join(", ")})
          select $1::text, ${values} from ${stage} s
          where not exists (select 1 from ${name} t where t.workspace_id = $1 and ${match})
          returning ${ret})
    select ${changed} as changed, (select count(*) from (${updated}select ${ret} from i) y)::int as written`;
  // Nested lists are complete: the listed parents' rows that the document leaves out go.
  const remove = spec.parent
    ? `with d as (delete from ${name} t where t.workspace_id = $1 and t.${spec.parent} = any($2::text[])
                   and not exists (select 1 from ${stage} s where ${match})
                   returning t.${spec.parent})
       select array(select distinct ${spec.parent}::text from d) as changed, (select count(*) from d)::int as written`
    : null;
  const built = {
    stage: `create temp table ${stage} (${cols.map((c) => `${c} ${spec.columns[c]}`).join(", ")}) on commit drop`,
    upsert,
    remove,
  };
  sqlCache.set(cacheKey, built);
  return built;
}

const copyEscapes: Record<string, string> = { "\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r" };

/** A value in COPY's text format. */
function copyValue(value: unknown, type: ColumnType): string {
  if (value === null || value === undefined) return "\\N";
  const text =
    type === "jsonb"
      ? JSON.stringify(value)
      : type === "text[]"
        ? `{${(value as string[]).map((v) => `"${v.replace(/[\\"]/g, "\\$&")}"`).join(",")}}`
        : typeof value === "boolean"
          ? value
            ? "t"
            : "f"
          : String(value);
  return text.replace(/[\\\t\n\r]/g, (c) => copyEscapes[c]!);
}

/** The rows as COPY text, in chunks. */
function* copyChunks(rows: readonly Row<TableName>[], columns: [string, ColumnType][]) {
  const size = 2000;
  for (let i = 0; i < rows.length; i += size) {
    let chunk = "";
    for (const row of rows.slice(i, i + size))
      chunk += columns.map(([c, type]) => copyValue((row as Record<string, unknown>)[c], type)).join("\t") + "\n";
    yield chunk;
  }
}

/**
 * Writes one table's rows (and, for a nested list, removes what the listed parents no longer have). With `collect`,
 * returns the ids (or, for a nested list, the parent ids) of the rows that changed.
 */
export async function writeTable(
  tx: Tx,
  workspaceId: string,
  name: TableName,
  rows: readonly Row<TableName>[],
  parents: string[],
  collect: boolean,
): Promise<{ changed: string[]; written: number }> {
  const { stage, upsert, remove } = statements(name, collect);
  const columns = Object.entries(tables[name].columns) as [string, ColumnType][];
  await tx.unsafe(stage);
  if (rows.length) {
    const writable = await tx.unsafe(`copy import_${name} from stdin`).writable();
    await pipeline(Readable.from(copyChunks(rows, columns)), writable);
    await tx.unsafe(`analyze import_${name}`);
  }
  const changed: string[] = [];
  let written = 0;
  if (remove && parents.length) {
    const [d] = await tx.unsafe<{ changed: string[]; written: number }[]>(remove, [workspaceId, parents]);
    changed.push(...d!.changed);
    written += d!.written;
  }
  if (rows.length) {
    const [w] = await tx.unsafe<{ changed: string[]; written: number }[]>(upsert, [workspaceId]);
    changed.push(...w!.changed);
    written += w!.written;
  }
  return { changed, written };
}

/** Raises the revision of invoices whose entries changed while their own row did not. */
export async function bumpInvoiceRevisions(tx: Tx, workspaceId: string, ids: string[]): Promise<void> {
  if (!ids.length) return;
  await tx`
    update contractor_invoices set revision = revision + 1
    where workspace_id = ${workspaceId} and id = any(${ids}::text[])`;
}
