/** Watching what a request sends to Postgres: the statements, and the scans their plans use. */
import { connect, type Db } from "../../src/core/db.ts";

/** A one-connection client that records every statement it sends with its parameters (connected first). */
export async function countingClient(url: string): Promise<{ db: Db; statements: { query: string; parameters: unknown[] }[] }> {
  const db = connect(url, { max: 1 });
  await db`select 1`;
  const statements: { query: string; parameters: unknown[] }[] = [];
  (db.options as { debug: unknown }).debug = (_connection: number, query: string, parameters: unknown[]) => statements.push({ query, parameters });
  return { db, statements };
}

/** The scans Postgres plans for a statement when it may not read a table from end to end. */
export async function plannedScans(db: Db, query: string, parameters: unknown[]): Promise<string[]> {
  return db.begin(async (tx) => {
    await tx`set local enable_seqscan = off`;
    const [row] = await tx.unsafe(`explain (format json) ${query}`, parameters as any[]);
    const found: string[] = [];
    const walk = (node: any) => {
      if (/Scan/.test(node["Node Type"]) && node["Relation Name"]) found.push(`${node["Node Type"]} on ${node["Relation Name"]}`);
      for (const child of node.Plans ?? []) walk(child);
    };
    walk(Object.values(row as object)[0][0].Plan);
    return found;
  }) as Promise<string[]>;
}
