/** The SQL of the entitlements group. */
import type { Tx } from "../core/db.ts";

/** Marks every started checkout of the workspace abandoned; returns the ids this call changed. */
export async function abandonStartedCheckouts(tx: Tx, workspaceId: string): Promise<string[]> {
  // A concurrent caller waits on the row lock, then re-checks `status = 'started'` and changes nothing.
  const rows = await tx<{ id: string }[]>`
    update onboarding_checkouts set status = 'abandoned', abandoned_at = now()
    where workspace_id = ${workspaceId} and status = 'started'
    returning id`;
  return rows.map((r) => r.id);
}
