/**
 * The key-check read: a read an operation declares, evaluated inside the key check's own statement, so that
 * the request costs one statement instead of two. Its workspace scope is a value, not a convention: the read is
 * handed the key's workspace as SQL and must filter by it; the key check refuses a read that leaves it out.
 */
import type postgres from "postgres";
import type { Db } from "./db.ts";

declare const scope: unique symbol;

/** The workspace a read is confined to, as SQL: the key's (`k.workspace_id`) in the key check, else a bound id. */
export type WorkspaceScope = postgres.PendingQuery<postgres.Row[]> & { readonly [scope]: true };

/** The SQL of a read: a scalar subquery inside the key check's statement, or a statement of its own. */
export type ReadSql = postgres.PendingQuery<postgres.Row[]>;

/**
 * An operation's key-check read: its SQL given the workspace it must filter by, the path parameters and the query
 * (converted as step 9 converts it), or undefined for no read. It is made only when the parameters and the query
 * match the operation's schemas (the other checks come after the statement): bind them as text (`${x}::text`), never
 * splice them. What it finds reaches `run` only after every key check passed (src/core/api_description.ts); without
 * it (no read, invalid input, a read that threw as it was made, MCP) `run` reads for itself, with the same SQL.
 */
export type KeyCheckRead = (
  db: Db,
  workspace: WorkspaceScope,
  params: Record<string, string>,
  query: Record<string, unknown>,
) => ReadSql | undefined;

/** A workspace id bound as a value: the scope of a read made on its own, after the key check. */
export function workspaceScope(db: Db, workspaceId: string): WorkspaceScope {
  return db`${workspaceId}::text` as WorkspaceScope;
}

/** The key's workspace inside the key check's statement, whose key row is `k`. */
export function keyWorkspace(db: Db): WorkspaceScope {
  return db`k.workspace_id` as WorkspaceScope;
}

/**
 * The SQL an operation's key-check read makes, or undefined when making it throws. It is made before the key is
 * checked, from input the schemas accepted but no handler has read yet: a value it cannot take (a date whose
 * midnights it cannot compute) means no key-check read, and `run`, after every check, reads for itself. So a request
 * with an unknown key is refused as any other (401), never answered a fault logged with its stack.
 */
export function keyCheckReadSql(make: () => ReadSql | undefined): ReadSql | undefined {
  try {
    return make();
  } catch {
    return undefined;
  }
}

/** The read's SQL once it is seen to use its scope; a read that does not is a fault, and is never run. */
export function scopedRead(read: ReadSql, workspace: WorkspaceScope): ReadSql {
  if (!uses(read, workspace)) throw new Error("a key-check read must filter by the workspace it is given");
  return read;
}

/** Whether a query is, or nests (as a fragment, at any depth), a given fragment. */
function uses(query: unknown, part: unknown): boolean {
  if (query === part) return true;
  const args = (query as { args?: unknown } | null)?.args;
  return Array.isArray(args) && args.some((arg) => uses(arg, part));
}
