/**
 * The schema stays distributable by workspace (ARCHITECTURE.md, "Beyond one Postgres"): read from pg_catalog on the
 * migrated database, every table of the public schema either has a `workspace_id` column and keys it everywhere
 * (its primary key, each unique constraint and unique index, each foreign key on both sides), or is a global table
 * listed below with the reason it is global and how it routes. Citus (`workspace_id` as the distribution column) and
 * a database per group of workspaces both need exactly this: a row and everything it must agree with live together.
 */
import { expect, test } from "bun:test";
import { harness } from "../support/harness.ts";

const h = await harness();

/** Tables without workspace_id, each with why it is global. A new one must be added here, with its reason. */
const globalTables: Record<string, string> = {
  workspaces: "the routing table itself: a workspace's slug and id lead to its shard (a Citus reference table)",
  rate_buckets:
    "the request budget of an API key, keyed by the key's id; the key is found by hash before its workspace is " +
    "known, so the bucket lives with the global key lookup (one row a key, written on the request path)",
  schema_migrations: "the migration runner's record, one per database (each shard has its own)",
  address_buckets:
    "the budget of the public routes (provider webhooks, the landlord portal) by client address, counted before " +
    "anything says which workspace a request concerns (sql/0014)",
  event_dispatch:
    "the webhook dispatcher's position in the commit order of this database's events (one row): each shard runs " +
    "its own dispatcher over its own events, so the row is per database, like schema_migrations",
  bank_holidays:
    "GOV.UK's England and Wales bank holidays, the same for every workspace: the hazard clocks' working days " +
    "(a Citus reference table, copied to every shard)",
  bank_holiday_loads:
    "the record of each bank-holiday list loaded (`bun run cli bank-holidays load`), as bank_holidays",
};

/**
 * Keys of per-workspace tables that are global on purpose: a lookup made before the workspace is known. Each needs
 * a global route when the data is split (ARCHITECTURE.md): in Citus a reference table of (hash → workspace_id), in a
 * database per group of workspaces a row in the routing database. `table.constraint` → why.
 */
const globalKeys: Record<string, string> = {
  "api_keys.api_keys_pkey":
    "a key's id is unique across workspaces: rate_buckets, the global budget row, is keyed by it alone",
  "api_keys.api_keys_key_hash_key":
    "every request finds its key by the hash of the x-api-key header before it knows the workspace",
  "portal_invitations.portal_invitations_token_hash_key":
    "a landlord opens an invitation link by its token alone, before the workspace is known",
  "tenant_links.tenant_links_token_hash_key":
    "a tenant's link is found by its token's hash alone; the workspace slug in its URL is checked against it after",
  "tenant_links.tenant_links_session_hash_key":
    "a tenant's session cookie is found by its hash alone, as the link was; the link's row then names the workspace",
  "contractor_links.contractor_links_token_hash_key":
    "a contractor opens a works order's link by its token alone, before the workspace is known",
  "sms_numbers.sms_numbers_pkey":
    "an inbound SMS webhook names the number it was sent to: the number routes it to its workspace (one each)",
  "webhook_deliveries.webhook_deliveries_pkey":
    "a provider's delivery is deduplicated by its own id before (or without) finding its workspace",
};

/** Schemas that are not the service's tables: pg-boss's queues (global: a job names its workspace in its data). */
const otherSchemas = ["pgboss"];

interface Table {
  name: string;
  perWorkspace: boolean;
}

test("every table is per workspace or a listed global table, and pg-boss keeps to its own schema", async () => {
  const tables = (await h.database.db`
    select c.relname as name,
           exists (select 1 from pg_attribute a
                   where a.attrelid = c.oid and a.attname = 'workspace_id' and not a.attisdropped) as per_workspace
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'public' and c.relkind in ('r', 'p')
    order by 1`) as unknown as Table[];
  const global = tables.filter((t) => !t.perWorkspace).map((t) => t.name);
  expect(global).toEqual(Object.keys(globalTables).sort());
  expect(tables.filter((t) => t.perWorkspace).length).toBeGreaterThan(30);
  const schemas = (await h.database.db`
    select distinct n.nspname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('r', 'p') and n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast', 'public')
    order by 1`) as unknown as { name: string }[];
  // pg-boss's schema appears once its queue started; nothing else may.
  expect(schemas.map((s) => s.name).filter((s) => !otherSchemas.includes(s))).toEqual([]);
});

test("every per-workspace table's primary key, unique constraints, unique indexes and foreign keys include workspace_id", async () => {
  const rows = (await h.database.db`
    with per_workspace as (
      select c.oid, c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind in ('r', 'p')
        and exists (select 1 from pg_attribute a
                    where a.attrelid = c.oid and a.attname = 'workspace_id' and not a.attisdropped)
    ),
    ws_col as (select attrelid, attnum from pg_attribute where attname = 'workspace_id' and not attisdropped)
    -- constraints: p (primary key), u (unique), f (foreign key: both its columns and the referenced ones)
    select t.relname as "table", k.conname as name, k.contype as kind,
           (select w.attnum from ws_col w where w.attrelid = k.conrelid) = any (k.conkey) as own_side,
           case when k.contype = 'f' then
             coalesce((select w.attnum from ws_col w where w.attrelid = k.confrelid) = any (k.confkey), false)
             or (select r.relname from pg_class r where r.oid = k.confrelid) = 'workspaces'
           else true end as other_side,
           pg_get_constraintdef(k.oid) as definition
    from pg_constraint k join per_workspace t on t.oid = k.conrelid
    where k.contype in ('p', 'u', 'f')
    union all
    -- unique indexes that are not a constraint's (a partial or expression unique index, say)
    select t.relname, ic.relname, 'i',
           (select w.attnum from ws_col w where w.attrelid = i.indrelid) = any (i.indkey::int2[]), true,
           pg_get_indexdef(i.indexrelid)
    from pg_index i join per_workspace t on t.oid = i.indrelid join pg_class ic on ic.oid = i.indexrelid
    where i.indisunique and not exists (select 1 from pg_constraint k where k.conindid = i.indexrelid)
    order by 1, 2`) as unknown as {
    table: string;
    name: string;
    kind: string;
    ownSide: boolean;
    otherSide: boolean;
    definition: string;
  }[];
  const tablesWithPk = new Set(rows.filter((r) => r.kind === "p").map((r) => r.table));
  const withoutPk = (await h.database.db`
    select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = 'public' and c.relkind in ('r', 'p')
      and exists (select 1 from pg_attribute a where a.attrelid = c.oid and a.attname = 'workspace_id')
    order by 1`) as unknown as { name: string }[];
  expect(withoutPk.map((t) => t.name).filter((t) => !tablesWithPk.has(t))).toEqual([]);
  const leaving = rows
    .filter((r) => !r.ownSide || !r.otherSide)
    .map((r) => `${r.table}.${r.name}`)
    .filter((name) => !(name in globalKeys))
    .map((name) => `${name}: ${rows.find((r) => `${r.table}.${r.name}` === name)!.definition}`);
  expect(leaving).toEqual([]);
  // Each listed exception still exists and still leaves workspace_id out (a fixed one comes off the list).
  const stillGlobal = rows.filter((r) => !r.ownSide).map((r) => `${r.table}.${r.name}`);
  expect(Object.keys(globalKeys).filter((k) => !stillGlobal.includes(k))).toEqual([]);
  // Foreign keys exist and were read (a query that matched nothing would pass the check above).
  expect(rows.filter((r) => r.kind === "f").length).toBeGreaterThan(20);
});
