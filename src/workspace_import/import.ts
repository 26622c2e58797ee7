/** Loads a workspace document (CONTRACT.md §6) in one transaction. */
import type { Db } from "../core/db.ts";
import { NotImplemented } from "../core/errors.ts";

/** Imports a document into the workspace with that slug; returns counts per collection. */
export async function importWorkspace(_db: Db, _slug: string, _doc: unknown): Promise<Record<string, number>> {
  throw new NotImplemented({ operationId: "cli.import" });
}
