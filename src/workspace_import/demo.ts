/** The demo workspace: created once from the shipped document, with a fresh key each time it is asked for. */
import type { Db } from "../core/db.ts";
import { createApiKey } from "../core/api_keys.ts";
import { allScopes } from "../core/groups.ts";
import { createWorkspace, entitle } from "../core/workspaces.ts";

/** The slug of the demo workspace. */
export const demoSlug = "demo";

/** Creates the demo workspace if missing and returns a fresh all-scopes key for it. */
export async function ensureDemo(db: Db): Promise<{ slug: string; created: boolean; id: string; key: string; expiresAt: string }> {
  const [existing] = await db<{ id: string }[]>`select id from workspaces where slug = ${demoSlug}`;
  let created = false;
  if (!existing) {
    await createWorkspace(db, { slug: demoSlug, name: "Harbour Lettings (demo)", ownerEmail: "owner@harbour-lettings.example" });
    for (const m of ["maintenance-pro", "telephony"]) await entitle(db, demoSlug, m);
    created = true;
  }
  const key = await createApiKey(db, { workspace: demoSlug, name: `demo ${new Date().toISOString()}`, scopes: [...allScopes], expiresInDays: 7 });
  return { slug: demoSlug, created, id: key.id, key: key.key, expiresAt: key.expiresAt };
}
