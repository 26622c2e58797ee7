/** Watching what a request sends to Postgres: the statements, and the scans their plans use. */
import { connect, type Db } from "../../src/core/db.ts";
import { expect } from "bun:test";
import { buildApp } from "../../src/app.ts";
import type { Harness } from "./harness.ts";
import { throughPgBouncer } from "./database.ts";

/**
 * How Postgres planned the statements a client prepared whose text matches `like` (a LIKE pattern): generic and
 * custom plans, a statement each.
 */
export async function preparedPlans(db: Db, like: string): Promise<{ genericPlans: number; customPlans: number }[]> {
  return (await db`
    select generic_plans::int, custom_plans::int from pg_prepared_statements
    where statement like ${like} and statement not like '%pg_prepared_statements%'`) as unknown as {
    genericPlans: number;
    customPlans: number;
  }[];
}

/** A one-connection client that records every statement it sends with its parameters (connected first). */
export async function countingClient(
  url: string,
): Promise<{ db: Db; statements: { query: string; parameters: unknown[] }[] }> {
  const db = connect(url, { max: 1, pooled: throughPgBouncer });
  await db`select 1`;
  const statements: { query: string; parameters: unknown[] }[] = [];
  (db.options as { debug: unknown }).debug = (_connection: number, query: string, parameters: unknown[]) =>
    statements.push({ query, parameters });
  return { db, statements };
}

/** The scans Postgres plans for a statement when it may not read a table from end to end. */
export async function plannedScans(db: Db, query: string, parameters: unknown[]): Promise<string[]> {
  return db.begin(async (tx) => {
    await tx`set local enable_seqscan = off`;
    const [row] = await tx.unsafe(`explain (format json) ${query}`, parameters as any[]);
    const found: string[] = [];
    const walk = (node: any) => {
      if (/Scan/.test(node["Node Type"]) && node["Relation Name"])
        found.push(`${node["Node Type"]} on ${node["Relation Name"]}`);
      for (const child of node.Plans ?? []) walk(child);
    };
    walk(Object.values(row as object)[0][0].Plan);
    return found;
  }) as Promise<string[]>;
}

/**
 * Sends a GET through an app on a counting client and checks it cost two statements (the key check and the page
 * on `table`); returns the Link header and the scans the page's plan uses.
 */
export async function measurePage(h: Harness, key: string, url: string, table: string) {
  const { db, statements } = await countingClient(h.database.url);
  const app = buildApp({ ...h.ctx, db });
  try {
    const res = await app.handle(new Request(url, { headers: { "x-api-key": key } }));
    expect(res.status).toBe(200);
    expect(statements).toHaveLength(2);
    const page = statements[1]!;
    expect(page.query).toContain(table);
    return { link: res.headers.get("link"), scans: await plannedScans(h.database.db, page.query, page.parameters) };
  } finally {
    await db.end();
  }
}
