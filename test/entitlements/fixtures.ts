/** Onboarding checkouts for the entitlements tests. */
import { ulid } from "ulid";
import type { Db } from "../../src/core/db.ts";

/** Inserts a checkout in the given status and returns its id. */
export async function insertCheckout(
  db: Db,
  workspaceId: string,
  status: "started" | "paid" | "abandoned",
  moduleId = "maintenance-pro",
): Promise<string> {
  const id = ulid();
  await db`insert into onboarding_checkouts (workspace_id, id, module_id, status) values (${workspaceId}, ${id}, ${moduleId}, ${status})`;
  return id;
}

/** The status of every checkout of a workspace, by id. */
export async function checkoutStatuses(db: Db, workspaceId: string): Promise<Record<string, string>> {
  const rows = await db<
    { id: string; status: string }[]
  >`select id, status from onboarding_checkouts where workspace_id = ${workspaceId}`;
  return Object.fromEntries(rows.map((r) => [r.id, r.status]));
}
