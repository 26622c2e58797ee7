/**
 * The key check reads a workspace's modules and owner from the workspace row (sql/0009): mirrors of
 * workspace_modules and users that triggers keep in the writing transaction; scopes and modules as the text
 * lists generated beside their arrays (sql/0010). They must equal the source after
 * every kind of write, also with concurrent writers, and the answers follow them from the next request on.
 */
import { expect, test } from "bun:test";
import { ulid } from "ulid";
import { databaseMigratedBefore } from "../support/migrated_before.ts";
import { harness } from "../support/harness.ts";
import type { Db } from "../../src/core/db.ts";
import { migrate } from "../../src/core/migrate.ts";
import { createWorkspace, entitle, unentitle } from "../../src/core/workspaces.ts";
import { allScopes } from "../../src/core/groups.ts";
import { createApiKey } from "../../src/core/api_keys.ts";

const h = await harness();
const db = h.database.db;

/** Workspaces whose mirrors differ from workspace_modules and users (none when the triggers are right). */
async function mismatches(on: Db = db): Promise<unknown[]> {
  const rows = await on`
    select w.id, w.module_ids, w.owner_user_id,
           (select coalesce(array_agg(m.module_id order by m.module_id), '{}') from workspace_modules m where m.workspace_id = w.id) as modules,
           (select u.id from users u where u.workspace_id = w.id and u.role = 'owner') as owner
    from workspaces w
    where (select array_agg(x order by x) from unnest(w.module_ids) x) is distinct from
          (select array_agg(m.module_id order by m.module_id) from workspace_modules m where m.workspace_id = w.id)
       or w.owner_user_id is distinct from (select u.id from users u where u.workspace_id = w.id and u.role = 'owner')
       or w.module_list is distinct from array_to_string(w.module_ids, ' ')
       or exists (select 1 from api_keys k where k.workspace_id = w.id and k.scope_list is distinct from array_to_string(k.scopes, ' '))`;
  return [...rows];
}

/** Waits (at most 10 s) until a statement of this database on `table` waits for a lock another transaction holds. */
async function untilWaitingForLock(table: string): Promise<void> {
  for (const deadline = performance.now() + 10_000; ; await Bun.sleep(5)) {
    const [row] = await db<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock' and query like ${`%${table}%`}`;
    if (row!.n > 0) return;
    if (performance.now() > deadline) throw new Error(`no statement on ${table} waited for a lock`);
  }
}

async function addUser(workspaceId: string, role: "owner" | "admin" | "staff", on: Db = db): Promise<string> {
  const id = `usr-${ulid().toLowerCase()}`;
  await on`insert into users (workspace_id, id, name, role) values (${workspaceId}, ${id}, 'Someone', ${role})`;
  return id;
}

async function mirrorOf(workspaceId: string) {
  const [row] = await db<{ moduleIds: string[]; ownerUserId: string | null }[]>`
    select module_ids, owner_user_id from workspaces where id = ${workspaceId}`;
  return { modules: [...row!.moduleIds].sort(), owner: row!.ownerUserId };
}

const hazard = "/maintenance-pro/hazard-settings";

test("a new workspace's mirrors hold its owner and the modules it is entitled to", async () => {
  const ws = await h.workspace({ modules: ["telephony", "maintenance-pro"] });
  expect(await mirrorOf(ws.id)).toEqual({ modules: ["maintenance-pro", "telephony"], owner: ws.ownerUserId });
  expect(await mismatches()).toEqual([]);
});

test("entitling and withdrawing a module changes the next request's answer, with leased tokens in hand", async () => {
  const ws = await h.workspace({ modules: [] });
  // The first request takes a lease: the following ones only read the key (the read path).
  expect((await h.request("GET", hazard, { key: ws.key })).body).toEqual({
    _tag: "EntitlementMissing",
    tenantId: ws.id,
    moduleId: "maintenance-pro",
  });
  await entitle(db, ws.slug, "maintenance-pro");
  expect((await h.request("GET", hazard, { key: ws.key })).status).toBe(200);
  await entitle(db, ws.slug, "maintenance-pro"); // idempotent: no second entry
  expect((await mirrorOf(ws.id)).modules).toEqual(["maintenance-pro"]);
  await unentitle(db, ws.slug, "maintenance-pro");
  expect((await h.request("GET", hazard, { key: ws.key })).body).toMatchObject({ _tag: "EntitlementMissing" });
  expect(await mismatches()).toEqual([]);
});

test("a module renamed in place and a rolled-back entitlement leave the mirror equal to the table", async () => {
  const ws = await h.workspace({ modules: ["telephony"] });
  await db`update workspace_modules set module_id = 'maintenance-pro' where workspace_id = ${ws.id} and module_id = 'telephony'`;
  expect((await mirrorOf(ws.id)).modules).toEqual(["maintenance-pro"]);
  await db
    .begin(async (tx) => {
      await tx`insert into workspace_modules (workspace_id, module_id) values (${ws.id}, 'telephony')`;
      throw new Error("roll back");
    })
    .catch(() => {});
  expect((await mirrorOf(ws.id)).modules).toEqual(["maintenance-pro"]);
  expect(await mismatches()).toEqual([]);
});

test("two transactions entitling different modules at once both land in the mirror", async () => {
  const ws = await h.workspace({ modules: [] });
  let releaseFirst!: () => void;
  const firstMayCommit = new Promise<void>((r) => (releaseFirst = r));
  let firstInserted!: () => void;
  const inserted = new Promise<void>((r) => (firstInserted = r));
  const first = db.begin(async (tx) => {
    await tx`insert into workspace_modules (workspace_id, module_id) values (${ws.id}, 'telephony')`;
    firstInserted();
    await firstMayCommit;
  });
  await inserted;
  // The second waits on the workspace row the first's trigger holds, then appends to what the first committed.
  const second = db.begin(async (tx) => {
    await tx`insert into workspace_modules (workspace_id, module_id) values (${ws.id}, 'maintenance-pro')`;
  });
  await untilWaitingForLock("workspace_modules");
  releaseFirst();
  await Promise.all([first, second]);
  expect((await mirrorOf(ws.id)).modules).toEqual(["maintenance-pro", "telephony"]);
  // And a withdrawal racing an entitlement.
  const [a, b] = [
    db.begin((tx) => tx`delete from workspace_modules where workspace_id = ${ws.id} and module_id = 'telephony'`),
    db.begin((tx) => tx`insert into workspace_modules (workspace_id, module_id) values (${ws.id}, 'extra-module')`),
  ];
  await Promise.all([a, b]);
  expect((await mirrorOf(ws.id)).modules).toEqual(["extra-module", "maintenance-pro"]);
  expect(await mismatches()).toEqual([]);
});

test("a change of owner, in either order within its transaction, moves the owner-only right with it", async () => {
  for (const order of ["one user a statement", "a statement over every user"] as const) {
    const ws = await h.workspace();
    const adminId = await addUser(ws.id, "admin");
    const adminKey = await h.key(ws, [...allScopes], { createdBy: adminId });
    const body = { expectedRevision: 0, regime: "social" };
    expect((await h.request("PUT", hazard, { key: adminKey, body })).body).toEqual({ _tag: "WorkspaceOwnerRequired" });
    await db.begin(async (tx) => {
      if (order === "one user a statement")
        await tx`update users set role = 'staff' where workspace_id = ${ws.id} and id = ${ws.ownerUserId}`;
      else {
        // The old owner stays (keys point at it): made staff by a statement that also touches another user.
        await tx`update users set role = case when id = ${ws.ownerUserId} then 'staff' else role end where workspace_id = ${ws.id}`;
      }
      await tx`update users set role = 'owner' where workspace_id = ${ws.id} and id = ${adminId}`;
    });
    expect(await mirrorOf(ws.id)).toMatchObject({ owner: adminId });
    expect((await h.request("PUT", hazard, { key: ws.key, body })).body).toEqual({ _tag: "WorkspaceOwnerRequired" });
    expect((await h.request("PUT", hazard, { key: adminKey, body })).status).toBe(200);
  }
  expect(await mismatches()).toEqual([]);
});

test("an owner demoted, deleted or renumbered leaves the mirror equal to users", async () => {
  const ws = await h.workspace();
  const other = await addUser(ws.id, "staff");
  await db.begin(async (tx) => {
    await tx`update users set role = 'admin' where workspace_id = ${ws.id} and id = ${ws.ownerUserId}`;
    await tx`update users set role = 'owner' where workspace_id = ${ws.id} and id = ${other}`;
  });
  expect((await mirrorOf(ws.id)).owner).toBe(other);
  await db`update users set id = ${other + "-b"} where workspace_id = ${ws.id} and id = ${other}`;
  expect((await mirrorOf(ws.id)).owner).toBe(other + "-b");
  await db`delete from users where workspace_id = ${ws.id} and id = ${other + "-b"}`;
  expect((await mirrorOf(ws.id)).owner).toBeNull();
  // No owner now: even the first owner's key (now an admin's) is not owner-created.
  expect(
    (await h.request("PUT", hazard, { key: ws.key, body: { expectedRevision: 0, regime: "social" } })).body,
  ).toEqual({ _tag: "WorkspaceOwnerRequired" });
  await db`update users set role = 'owner' where workspace_id = ${ws.id} and id = ${ws.ownerUserId}`;
  expect((await mirrorOf(ws.id)).owner).toBe(ws.ownerUserId);
  expect(await mismatches()).toEqual([]);
});

test("a workspace import that hands ownership to another user moves the mirror (the import's own statements)", async () => {
  const ws = await h.workspace();
  const staff = await addUser(ws.id, "staff");
  // What the import does (src/workspace_import/queries.ts): demote every other owner, then promote.
  await db.begin(async (tx) => {
    await tx`update users set role = 'admin' where workspace_id = ${ws.id} and role = 'owner' and id <> ${staff}`;
    await tx`update users set role = 'owner' where workspace_id = ${ws.id} and id = ${staff}`;
  });
  expect((await mirrorOf(ws.id)).owner).toBe(staff);
  expect(await mismatches()).toEqual([]);
});

// The migration fills the mirrors of workspaces made before it.
test("sql/0009 and sql/0010 fill the mirrors and lists of existing workspaces and keys", async () => {
  const { db: fresh, drop } = await databaseMigratedBefore("0009");
  try {
    const a = await createWorkspace(fresh, { slug: "before-a", name: "A" });
    const b = await createWorkspace(fresh, { slug: "before-b", name: "B" });
    await entitle(fresh, "before-a", "telephony");
    await entitle(fresh, "before-a", "maintenance-pro");
    await fresh`delete from users where workspace_id = ${b.id}`;
    const key = await createApiKey(fresh, {
      workspace: "before-a",
      name: "k",
      scopes: ["tasks:read", "keys:write"],
      expiresInDays: 7,
    });
    expect((await migrate(fresh)).applied.slice(0, 2)).toEqual([
      "0009_key_check_facts.sql",
      "0010_key_check_lists.sql",
    ]);
    const rows = await fresh<{ id: string; moduleIds: string[]; moduleList: string; ownerUserId: string | null }[]>`
      select id, module_ids, module_list, owner_user_id from workspaces order by slug`;
    expect([...rows]).toEqual([
      {
        id: a.id,
        moduleIds: ["maintenance-pro", "telephony"],
        moduleList: "maintenance-pro telephony",
        ownerUserId: a.ownerUserId,
      },
      { id: b.id, moduleIds: [], moduleList: "", ownerUserId: null },
    ]);
    expect([...(await fresh`select scope_list from api_keys where id = ${key.id}`)]).toEqual([
      { scopeList: "tasks:read keys:write" },
    ]);
    expect(await mismatches(fresh)).toEqual([]);
  } finally {
    await drop();
  }
});
