/** Rows the compliance tests need, written with SQL: blocks and their fact history (properties: test/support/rows.ts). */
import { ulid } from "ulid";
import type { Db } from "../../src/core/db.ts";
import type { TestWorkspace } from "../support/harness.ts";

/** Adds a block of a property. */
export async function addBlock(
  db: Db,
  ws: TestWorkspace,
  propertyId: string,
  options: {
    id?: string;
    facts?: object;
    revision?: number;
    policyVersion?: string;
    updatedAt?: string;
    updatedByUserId?: string;
  } = {},
): Promise<string> {
  const id = options.id ?? ulid();
  await db`
    insert into blocks (workspace_id, id, property_id, label, facts, revision, policy_version, updated_at, updated_by_user_id)
    values (${ws.id}, ${id}, ${propertyId}, ${`Block ${id}`}, ${db.json((options.facts ?? {}) as any)}, ${options.revision ?? 0},
            ${options.policyVersion ?? "block-facts-2025-1"}, ${options.updatedAt ?? null}, ${options.updatedByUserId ?? null})`;
  return id;
}

/** Adds a history entry to a block. */
export async function addHistory(
  db: Db,
  ws: TestWorkspace,
  blockId: string,
  entry: {
    id?: string;
    kind?: string;
    detail?: string;
    actorUserId?: string | null;
    policyVersion?: string;
    createdAt: string;
  },
): Promise<string> {
  const id = entry.id ?? ulid();
  await db`
    insert into block_fact_history (workspace_id, id, block_id, kind, detail, actor_user_id, policy_version, created_at)
    values (${ws.id}, ${id}, ${blockId}, ${entry.kind ?? "fact_set"}, ${entry.detail ?? "fireAlarm set to yes"},
            ${entry.actorUserId ?? null}, ${entry.policyVersion ?? "block-facts-2025-1"}, ${entry.createdAt})`;
  return id;
}
