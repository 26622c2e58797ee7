/**
 * The key-check read (src/core/key_check_read.ts): a read an operation declares, made in the key check's statement,
 * is handed the key's workspace and must filter by it; a read that leaves it out is refused before it runs.
 */
import { describe, expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import { recordingLog } from "../support/recording_log.ts";
import { buildApp } from "../../src/app.ts";
import { operation } from "../../src/core/operation.ts";
import { Strict, Id } from "../../src/core/schema.ts";
import { Type } from "@sinclair/typebox";
import { workspaceScope, type KeyCheckRead } from "../../src/core/key_check_read.ts";

const h = await harness();
const ws = await h.workspace();
const other = await h.workspace();

/** A workspace's name by its slug, read in the workspace it is handed. */
const nameInWorkspace: KeyCheckRead = (db, workspace, params) =>
  db`select w.name from workspaces w where w.id = ${workspace} and w.slug = ${params.slug ?? ""}::text`;
/** A read that cannot be made for some input the schema accepts: it throws for the slug `boom`. */
const throwsOnBoom: KeyCheckRead = (db, workspace, params) => {
  if (params.slug === "boom") throw new Error("a value this read cannot take");
  return nameInWorkspace(db, workspace, params, {});
};
/** The same read without the workspace it is handed: any workspace's name. */
const nameInAnyWorkspace: KeyCheckRead = (db, _workspace, params) =>
  db`select w.name from workspaces w where w.slug = ${params.slug ?? ""}::text`;

const ran: string[] = [];
/** A test operation answering a workspace's name, from its key-check read when there was one. */
function workspaceName(id: string, read: KeyCheckRead) {
  return operation({
    id,
    group: "tasks",
    method: "GET",
    path: `/test/${id}/:slug`,
    summary: "A workspace's name.",
    description: "Test only.",
    params: Strict({ slug: Id }),
    response: Strict({ name: Type.Union([Type.String(), Type.Null()]), from: Type.String() }),
    keyCheckRead: read,
    run: async ({ db, principal, params, keyCheckRead }) => {
      ran.push(id);
      if (keyCheckRead) return { name: keyCheckRead.value as string | null, from: "key check" };
      const [row] = await read(db, workspaceScope(db, principal.workspaceId), params, {})!;
      return { name: (row?.name as string | undefined) ?? null, from: "own read" };
    },
  });
}

const { log, lines } = recordingLog();
const app = buildApp(
  { ...h.ctx, log },
  {
    operations: [
      workspaceName("scoped", nameInWorkspace),
      workspaceName("unscoped", nameInAnyWorkspace),
      workspaceName("throwing", throwsOnBoom),
    ],
  },
);
const get = async (path: string, key: string) => {
  const res = await app.handle(new Request(`http://localhost${path}`, { headers: { "x-api-key": key } }));
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe("the key-check read", () => {
  test("is made in the key's workspace: its own record is found, another workspace's is not", async () => {
    expect(await get(`/test/scoped/${ws.slug}`, ws.key)).toEqual({
      status: 200,
      body: { name: `Workspace ${ws.slug}`, from: "key check" },
    });
    expect(await get(`/test/scoped/${other.slug}`, ws.key)).toEqual({
      status: 200,
      body: { name: null, from: "key check" },
    });
  });

  test("a read that leaves out the workspace it is handed is a fault: never run, nothing of it answered", async () => {
    ran.length = 0;
    lines.length = 0;
    const res = await get(`/test/unscoped/${other.slug}`, ws.key);
    expect(res.status).toBe(500);
    expect(res.body._tag).toBe("InternalError");
    expect(JSON.stringify(res.body)).not.toContain(`Workspace ${other.slug}`);
    expect(ran).toEqual([]);
    const fault = lines.find((l) => l.msg === "unexpected fault");
    expect(String(fault?.error)).toContain("a key-check read must filter by the workspace it is given");
  });

  test("a read that throws as it is made, with an unknown key, is no read: 401 ApiKeyRejected, no fault logged", async () => {
    ran.length = 0;
    lines.length = 0;
    const res = await get("/test/throwing/boom", `lk_${"A".repeat(43)}`);
    expect(res).toEqual({ status: 401, body: { _tag: "ApiKeyRejected" } });
    expect(ran).toEqual([]);
    expect(lines.filter((l) => l.level === "error")).toEqual([]);
  });

  test("a read that throws as it is made, with a valid key, is left to the handler, after every check", async () => {
    ran.length = 0;
    lines.length = 0;
    const res = await get("/test/throwing/boom", ws.key);
    expect(res.status).toBe(500);
    expect(ran).toEqual(["throwing"]);
    const fault = lines.find((l) => l.msg === "unexpected fault");
    expect(String(fault?.error)).toContain("a value this read cannot take");
    expect(await get(`/test/throwing/${ws.slug}`, ws.key)).toEqual({
      status: 200,
      body: { name: `Workspace ${ws.slug}`, from: "key check" },
    });
  });

  test("after the key check, the handler's own read uses the same SQL in the key's workspace", async () => {
    const db = h.database.db;
    const [own] = await nameInWorkspace(db, workspaceScope(db, ws.id), { slug: ws.slug }, {})!;
    const [foreign] = await nameInWorkspace(db, workspaceScope(db, ws.id), { slug: other.slug }, {})!;
    expect([own?.name, foreign]).toEqual([`Workspace ${ws.slug}`, undefined]);
  });
});
