/** Workspaces, their owner and their modules: the operator's side (CLI, import, tests). */
import { ulid } from "ulid";
import type { Db } from "./db.ts";
import { TenantCreateRejected, TenantNotFound } from "./errors.ts";

/** A created workspace. */
export interface CreatedWorkspace {
  id: string;
  slug: string;
  ownerUserId: string;
}

/** Creates a workspace with its owner user, in one transaction. */
export async function createWorkspace(
  db: Db,
  input: { slug: string; name: string; ownerEmail?: string; ownerName?: string },
): Promise<CreatedWorkspace> {
  if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(input.slug)) {
    throw new TenantCreateRejected({
      reason: "A slug is 1 to 63 characters of a-z, 0-9 and -, starting with a letter or digit.",
      field: "slug",
    });
  }
  if (!input.name || input.name.length > 200) {
    throw new TenantCreateRejected({ reason: "A name is 1 to 200 characters.", field: "name" });
  }
  const id = ulid();
  const ownerUserId = ulid();
  return db.begin(async (tx) => {
    const [made] = await tx`
      insert into workspaces (id, slug, name) values (${id}, ${input.slug}, ${input.name})
      on conflict (slug) do nothing returning id`;
    if (!made)
      throw new TenantCreateRejected({ reason: `A workspace with the slug "${input.slug}" exists.`, field: "slug" });
    await tx`
      insert into users (workspace_id, id, name, email, role)
      values (${id}, ${ownerUserId}, ${input.ownerName ?? "Owner"}, ${input.ownerEmail ?? null}, 'owner')`;
    return { id, slug: input.slug, ownerUserId };
  }) as Promise<CreatedWorkspace>;
}

/** The workspace id of a slug, or TenantNotFound. */
export async function workspaceIdOf(db: Db, slug: string): Promise<string> {
  const [row] = await db<{ id: string }[]>`select id from workspaces where slug = ${slug}`;
  if (!row) throw new TenantNotFound({ slug });
  return row.id;
}

/** Suspends a workspace: every key of it gets TenantSuspended until resumed. */
export async function suspendWorkspace(db: Db, slug: string, reason: string) {
  const [row] = await db<{ id: string }[]>`
    update workspaces set suspended_at = now(), suspension_reason = ${reason} where slug = ${slug} returning id`;
  if (!row) throw new TenantNotFound({ slug });
  return { id: row.id, slug, suspended: true, reason };
}

/** Lifts a suspension. */
export async function resumeWorkspace(db: Db, slug: string) {
  const [row] = await db<{ id: string }[]>`
    update workspaces set suspended_at = null, suspension_reason = null where slug = ${slug} returning id`;
  if (!row) throw new TenantNotFound({ slug });
  return { id: row.id, slug, suspended: false };
}

/** Grants a module to a workspace (idempotent). */
export async function entitle(db: Db, slug: string, moduleId: string) {
  const id = await workspaceIdOf(db, slug);
  await db`insert into workspace_modules (workspace_id, module_id) values (${id}, ${moduleId}) on conflict do nothing`;
  return { id, slug, moduleId, entitled: true };
}

/** Withdraws a module from a workspace (idempotent). */
export async function unentitle(db: Db, slug: string, moduleId: string) {
  const id = await workspaceIdOf(db, slug);
  await db`delete from workspace_modules where workspace_id = ${id} and module_id = ${moduleId}`;
  return { id, slug, moduleId, entitled: false };
}
