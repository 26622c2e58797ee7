/** The demo workspace: created once from the demo document, with a fresh key each time it is asked for. */
import { ulid } from "ulid";
import type { Db } from "../core/db.ts";
import { createApiKey } from "../core/api_keys.ts";
import { allScopes } from "../core/groups.ts";
import { demoDocument } from "./demo_document.ts";
import { loadPlan, prepareDocument } from "./import.ts";

/** The slug of the demo workspace. */
export const demoSlug = "demo";

/** What `ensureDemo` hands back: the workspace and a new all-scopes key (its value shown this once). */
export interface DemoKey {
  slug: string;
  workspaceId: string;
  created: boolean;
  keyId: string;
  key: string;
  expiresAt: string;
}

/**
 * Creates the demo workspace if it does not exist (the workspace row and the whole document in one transaction, so a
 * failed or concurrent start never leaves half a demo), then returns a fresh 7-day key with every scope.
 */
export async function ensureDemo(db: Db): Promise<DemoKey> {
  const [existing] = await db<{ id: string }[]>`select id from workspaces where slug = ${demoSlug}`;
  let workspaceId = existing?.id;
  let created = false;
  if (!workspaceId) {
    const [row] = await db<{ today: string }[]>`select ymd(london_today()) as today`;
    const plan = prepareDocument(demoDocument(row!.today));
    const id = ulid();
    created = await db.begin(async (tx) => {
      const [made] = await tx`
        insert into workspaces (id, slug, name) values (${id}, ${demoSlug}, 'Harbour Lettings (demo)')
        on conflict (slug) do nothing returning id`;
      if (!made) return false;
      await loadPlan(tx, id, plan);
      return true;
    });
    const [now] = await db<{ id: string }[]>`select id from workspaces where slug = ${demoSlug}`;
    workspaceId = now!.id;
  }
  const key = await createApiKey(db, { workspace: demoSlug, name: `demo ${new Date().toISOString()}`, scopes: [...allScopes], expiresInDays: 7 });
  return { slug: demoSlug, workspaceId: workspaceId!, created, keyId: key.id, key: key.key, expiresAt: key.expiresAt };
}
