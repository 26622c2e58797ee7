/**
 * The demo workspace: created once from the demo document, with a fresh
 * key each time it is asked for (the previous one revoked).
 */
import { ulid } from "ulid";
import type { Db, Tx } from "../core/db.ts";
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
  /** How many earlier demo keys this one replaced (revoked in its transaction). */
  revokedKeys: number;
}

/** The name of a demo key: `demo <when it was minted>`; only keys named so are replaced by the next one. */
const demoKeyName = () => `demo ${new Date().toISOString()}`;

/**
 * Creates the demo workspace if it does not exist (the workspace row and the whole document in one transaction, so a
 * failed or concurrent start never leaves half a demo), then returns a fresh 7-day key with every scope and revokes
 * the other demo keys, so restarts never pile up live keys. Keys made otherwise (`cli key create`) stay.
 */
export async function ensureDemo(db: Db): Promise<DemoKey> {
  const [existing] = await db<{ id: string }[]>`select id from workspaces where slug = ${demoSlug}`;
  let workspaceId = existing?.id;
  let created = false;
  if (!workspaceId) {
    const [row] = await db<{ today: string }[]>`select ymd(london_today()) as today`;
    const plan = prepareDocument(demoDocument(row!.today, Date.now()));
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
  let revokedKeys = 0;
  const key = await createApiKey(
    db,
    { workspace: demoSlug, name: demoKeyName(), scopes: [...allScopes], expiresInDays: 7 },
    async (tx, made) => (revokedKeys = await revokeOtherDemoKeys(tx, made.workspaceId, made.id)),
  );
  return {
    slug: demoSlug,
    workspaceId: workspaceId!,
    created,
    keyId: key.id,
    key: key.key,
    expiresAt: key.expiresAt,
    revokedKeys,
  };
}

/**
 * Revokes the live demo keys other than `keepId`, in the transaction that made it, after locking the workspace row:
 * calls at once take turns, and the last one sees (and revokes) every other committed key, so exactly one stays live.
 */
async function revokeOtherDemoKeys(tx: Tx, workspaceId: string, keepId: string): Promise<number> {
  // NO KEY UPDATE: the key's insert holds KEY SHARE on this row (its foreign key), which FOR UPDATE would wait on.
  await tx`select 1 from workspaces where id = ${workspaceId} for no key update`;
  const rows = await tx`
    update api_keys set revoked_at = now()
    where workspace_id = ${workspaceId} and revoked_at is null and id <> ${keepId}
      and name ~ '^demo [0-9]{4}-[0-9]{2}-[0-9]{2}T'
    returning id`;
  return rows.length;
}
