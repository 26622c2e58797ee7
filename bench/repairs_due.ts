/**
 * The repairs desk's "what is due" (issue 31, point 4): the pages the `repairsDue` scenario asks for, and the tables
 * of its naive baseline.
 *
 * The pages are `GET /maintenance-pro/repairs?clock=open&dueBefore=<a week ahead>&limit=50`: the first page, and
 * every later page as the service's own `Link` header names it (its cursor), collected by walking the list once
 * through the running service before the scenario (not measured).
 *
 * The baseline is what Postgres alone does for such a page, naively but well: one statement that checks the key and
 * takes one from its budget in an UNLOGGED table (a CTE), then one indexed range read of at most 50 rows of a
 * denormalised copy of the repairs, from a random position of the same list (a fifth of them the first page; every
 * read full, as the scenario's pages).
 */

/** The list's page size (the 50); BENCH_REPAIRS_LIMIT changes it (the tiny test's pages are smaller). */
export function repairsDueLimit(env: Record<string, string | undefined> = process.env): number {
  const raw = env.BENCH_REPAIRS_LIMIT;
  const limit = raw === undefined || raw === "" ? 50 : Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > 200)
    throw new Error(`BENCH_REPAIRS_LIMIT must be an integer from 1 to 200, not "${raw}"`);
  return limit;
}

/** The due list's pages: the first page's path, then each next page's, as the service's Link headers give them. */
export interface RepairsDuePages {
  dueBefore: string;
  limit: number;
  paths: string[];
  /** Repairs listed over all the pages. */
  rows: number;
  /** How many repairs each page listed, in the order of `paths`. */
  rowsPerPage: number[];
}

/**
 * The pages the scenario reads: every full page (`limit` repairs), the first included, so that an answer lists as
 * many repairs at every scale (a partial last page would make a small list look cheaper a request); every page when
 * none is full.
 */
export function fullPages(pages: RepairsDuePages): string[] {
  const full = pages.paths.filter((_, i) => pages.rowsPerPage[i] === pages.limit);
  return full.length ? full : pages.paths;
}

/** The first page of the due list for `dueBefore`. */
export const firstRepairsDuePath = (dueBefore: string, limit: number) =>
  `/maintenance-pro/repairs?clock=open&dueBefore=${encodeURIComponent(dueBefore)}&limit=${limit}`;

/**
 * Walks the due list from its first page, following `Link: <…>; rel="next"`, through `get` (a fetch against the
 * service, or app.handle); at most `maxPages` pages. Throws when a page does not answer 200 with an array.
 */
export async function collectRepairsDuePages(
  get: (path: string) => Promise<Response>,
  input: { dueBefore: string; limit: number; maxPages?: number },
): Promise<RepairsDuePages> {
  const paths = [firstRepairsDuePath(input.dueBefore, input.limit)];
  const rowsPerPage: number[] = [];
  for (let page = 0; page < paths.length && page < (input.maxPages ?? 2000); page++) {
    const res = await get(paths[page]!);
    const text = await res.text();
    const body = res.status === 200 ? (JSON.parse(text) as unknown) : undefined;
    if (!Array.isArray(body)) throw new Error(`GET ${paths[page]} answered ${res.status}: ${text.slice(0, 300)}`);
    rowsPerPage.push(body.length);
    const link = res.headers.get("link");
    const next = link ? /^<([^>]+)>;\s*rel="next"$/.exec(link)?.[1] : undefined;
    if (next) {
      const url = new URL(next);
      paths.push(`${url.pathname}${url.search}`);
    }
  }
  return {
    dueBefore: input.dueBefore,
    limit: input.limit,
    paths: paths.slice(0, rowsPerPage.length),
    rows: rowsPerPage.reduce((a, b) => a + b, 0),
    rowsPerPage,
  };
}

/**
 * What the baseline's tables hold: the positions a range read may start after (position 0: the first page), and the
 * last one from which a read still finds `limit` repairs (so that, as the scenario's pages, every read is full).
 */
export interface RepairsDueBaselineTables {
  positions: number;
  lastFullStart: number;
}

/** A database connection that runs text (postgres.js's `unsafe`). */
interface Sql {
  unsafe(query: string, parameters?: (string | number)[]): Promise<unknown>;
}

/**
 * Makes the baseline's tables: `bench_key_budgets` (UNLOGGED, one row a key), `bench_repairs_due` (the repairs with
 * their sort key as a plain column, indexed in the list's order) and `bench_repair_positions` (every position of the
 * due list before `dueBefore`, numbered; 0 is before the first). Idempotent: a second call makes them again.
 */
export async function prepareRepairsDueBaseline(
  db: Sql,
  input: { workspaceId: string; keyId: string; dueBefore: string; limit: number },
): Promise<RepairsDueBaselineTables> {
  await db.unsafe(`
    drop table if exists bench_key_budgets, bench_repairs_due, bench_repair_positions;
    create unlogged table bench_key_budgets (key_id text primary key, tokens bigint not null, updated_at timestamptz not null);
    create table bench_repairs_due as select coalesce(open_due_at, 'infinity') as due, r.* from repairs r;
    create index bench_repairs_due_order on bench_repairs_due (workspace_id, due, created_at, id);`);
  await db.unsafe(`insert into bench_key_budgets values ($1, 1000000000, now())`, [input.keyId]);
  await db.unsafe(
    `create table bench_repair_positions as
     select 0::bigint as n, '-infinity'::timestamptz as due, '-infinity'::timestamptz as created_at, ''::text as id
     union all
     select row_number() over (order by due, created_at, id), due, created_at, id from bench_repairs_due
     where workspace_id = '${input.workspaceId.replace(/'/g, "''")}' and due < '${input.dueBefore}'::timestamptz`,
  );
  await db.unsafe(`
    alter table bench_repair_positions add primary key (n);
    analyze bench_key_budgets, bench_repairs_due, bench_repair_positions;`);
  const [row] = (await db.unsafe(`select max(n)::int as positions from bench_repair_positions`)) as {
    positions: number;
  }[];
  return { positions: row!.positions, lastFullStart: Math.max(0, row!.positions - input.limit) };
}

/** Drops the baseline's tables. */
export async function dropRepairsDueBaseline(db: Sql): Promise<void> {
  await db.unsafe(`drop table if exists bench_key_budgets, bench_repairs_due, bench_repair_positions`);
}
