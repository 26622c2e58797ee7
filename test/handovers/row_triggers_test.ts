/**
 * The stored handover rows (sql/0008) stay right only if every table the inputs statement reads carries the
 * triggers that mark them. This derives both sets from the database, so a new join in `tenancyInputs` without its
 * triggers, or a trigger dropped, fails here rather than serving stale rows while every other test passes.
 *
 * The tables read come from pg_depend of a view made from the statement's own text (in a transaction that rolls
 * back), not from its plan: a plan leaves out what the planner eliminated (a left join it proved useless, a branch
 * it proved empty), and the statement's dependencies list every relation it names, wherever it names it.
 */
import { describe, expect, test } from "bun:test";
import type { Db, Tx } from "../../src/core/db.ts";
import { tenancyInputs } from "../../src/handovers/queries.ts";
import { harness } from "../support/harness.ts";
import { countingClient } from "../support/statements.ts";
import { Seed } from "./fixtures.ts";

const h = await harness();
const ws = await h.workspace();
const db = h.database.db;

/** Tables that feed a row only through another table's rows, so a change of theirs matters only when updated. */
const updateOnly: Record<string, string> = {
  repairs: "a repair feeds a row only once a finding points at it, and cannot be deleted while one does",
  tasks: "a task feeds a row only once a finding points at it, and cannot be deleted while one does",
};
/** Functions of values only (they read no table), which the statement may call. */
const valueFunctions = ["iso", "london_today", "ymd"];
/** The table the statement reads its stored row's version from: the cache itself, not an input. */
const cache = "handover_rows";

class RolledBack {
  constructor(readonly value: unknown) {}
}
/** Runs `f` in a transaction that is rolled back whatever happens; returns its value. */
async function rolledBack<T>(f: (tx: Tx) => Promise<T>): Promise<T> {
  try {
    await db.begin(async (tx) => {
      throw new RolledBack(await f(tx));
    });
  } catch (error) {
    if (error instanceof RolledBack) return error.value as T;
    throw error;
  }
  throw new Error("unreachable");
}

/** The facts statement as tenancyInputs sends it, with its parameters. */
async function inputsStatement(): Promise<{ query: string; parameters: unknown[] }> {
  const seed = new Seed(db, ws.id);
  const tenancyId = await seed.tenancy({ unitId: await seed.unit() });
  const counting = await countingClient(h.database.url);
  try {
    await tenancyInputs(counting.db, ws.id, tenancyId);
    expect(counting.statements).toHaveLength(1);
    return counting.statements[0]!;
  } finally {
    await counting.db.end();
  }
}

/** The relations (by kind) and the functions outside pg_catalog that a statement names. */
async function namedBy(tx: Tx | Db, query: string, parameters: unknown[]) {
  const literal = (value: unknown) => `'${String(value).replaceAll("'", "''")}'`;
  const text = query.replace(/\$(\d+)/g, (_, n: string) => literal(parameters[Number(n) - 1]));
  await tx.unsafe(`create temp view named_by_statement as ${text}`);
  const [found] = await tx<{ relations: string[]; functions: string[] }[]>`
    with deps as (
      select d.refclassid, d.refobjid from pg_depend d join pg_rewrite r on r.oid = d.objid
      where d.classid = 'pg_rewrite'::regclass and r.ev_class = 'named_by_statement'::regclass)
    select
      array(select distinct format('%s (%s)', c.relname, c.relkind) from deps join pg_class c on c.oid = deps.refobjid
            where deps.refclassid = 'pg_class'::regclass and c.oid <> 'named_by_statement'::regclass order by 1)
        as relations,
      array(select distinct p.proname::text from deps join pg_proc p on p.oid = deps.refobjid
            where deps.refclassid = 'pg_proc'::regclass and p.pronamespace <> 'pg_catalog'::regnamespace order by 1)
        as functions`;
  return found!;
}

/** The tables carrying triggers that run handover_rows_touch(), enabled, with the events they fire on. */
async function triggered(tx: Tx | Db): Promise<Record<string, string[]>> {
  const rows = await tx<{ relname: string; events: string[] }[]>`
    select c.relname, array_agg(distinct e.event order by e.event) as events
    from pg_trigger t
    join pg_class c on c.oid = t.tgrelid
    join pg_proc p on p.oid = t.tgfoid
    cross join lateral (values (4, 'insert'), (8, 'delete'), (16, 'update')) as e (bit, event)
    where p.proname = 'handover_rows_touch' and not t.tgisinternal and t.tgenabled <> 'D' and t.tgtype & e.bit <> 0
    group by c.relname`;
  return Object.fromEntries(rows.map((r) => [r.relname, r.events]));
}

/** What is wrong between the relations a statement names and the triggered tables; empty when they agree. */
function problems(named: { relations: string[]; functions: string[] }, triggers: Record<string, string[]>) {
  const found: string[] = [];
  const read = new Set<string>();
  for (const relation of named.relations) {
    const [, name, kind] = /^(.*) \((.)\)$/.exec(relation)!;
    if (kind !== "r") found.push(`${name}: a relation of kind ${kind}; the triggers need the tables under it`);
    else if (name !== cache) read.add(name!);
  }
  for (const name of read) {
    const expected = name in updateOnly ? ["update"] : ["delete", "insert", "update"];
    if (!triggers[name]) found.push(`${name}: read by the inputs statement, without handover-row triggers`);
    else if (triggers[name].join() !== expected.join())
      found.push(`${name}: handover-row triggers on ${triggers[name].join(", ")}, not on ${expected.join(", ")}`);
  }
  for (const name of Object.keys(triggers))
    if (!read.has(name)) found.push(`${name}: carries handover-row triggers, not read by the inputs statement`);
  for (const name of named.functions)
    if (!valueFunctions.includes(name))
      found.push(`${name}(): a function the statement calls; which tables does it read?`);
  return found.sort();
}

const statement = await inputsStatement();

describe("the tables the inputs statement reads are the tables carrying the handover-row triggers", () => {
  test("they agree: every table read marks the rows on insert, update and delete (repairs and tasks on update)", async () => {
    const named = await rolledBack((tx) => namedBy(tx, statement.query, statement.parameters));
    expect(named.relations).toContain("key_sets (r)");
    expect(named.relations).toContain("inspection_findings (r)");
    expect(problems(named, await triggered(db))).toEqual([]);
  });

  test("a table joined without triggers is caught, even one the planner would leave out of the plan", async () => {
    const joined = statement.query.replace(
      /from tenancies t\s+join units u/,
      "from tenancies t left join contacts x on x.workspace_id = t.workspace_id and x.id = t.id join units u",
    );
    const subquery = statement.query.replace(
      ") as inputs,",
      ") as inputs, (select count(*) from calendar_events e where e.workspace_id = t.workspace_id) as extra,",
    );
    expect(joined).not.toBe(statement.query);
    expect(subquery).not.toBe(statement.query);
    const triggers = await triggered(db);
    const named = await rolledBack((tx) => namedBy(tx, joined, statement.parameters));
    expect(problems(named, triggers)).toEqual([
      "contacts: read by the inputs statement, without handover-row triggers",
    ]);
    const scans = await rolledBack(async (tx) => {
      const [plan] = await tx.unsafe(`explain (format json) ${joined}`, statement.parameters as never[]);
      return JSON.stringify(plan);
    });
    expect(scans).not.toContain('"Relation Name":"contacts"'); // the planner removed the useless left join
    expect(problems(await rolledBack((tx) => namedBy(tx, subquery, statement.parameters)), triggers)).toEqual([
      "calendar_events: read by the inputs statement, without handover-row triggers",
    ]);
  });

  test("a trigger dropped or disabled is caught", async () => {
    const named = await rolledBack((tx) => namedBy(tx, statement.query, statement.parameters));
    const dropped = await rolledBack(async (tx) => {
      await tx`drop trigger key_sets_handover_rows_update on key_sets`;
      await tx`alter table units disable trigger units_handover_rows_insert`;
      await tx`drop trigger tasks_handover_rows_update on tasks`;
      return triggered(tx);
    });
    expect(problems(named, dropped)).toEqual([
      "key_sets: handover-row triggers on delete, insert, not on delete, insert, update",
      "tasks: read by the inputs statement, without handover-row triggers",
      "units: handover-row triggers on delete, update, not on delete, insert, update",
    ]);
  });

  test("a function the statement newly calls must be checked for the tables it reads", async () => {
    const named = await rolledBack((tx) => namedBy(tx, statement.query, statement.parameters));
    expect(named.functions).toEqual(valueFunctions);
    expect(problems({ ...named, functions: [...named.functions, "space_list"] }, await triggered(db))).toEqual([
      "space_list(): a function the statement calls; which tables does it read?",
    ]);
  });
});
