/** GET and PUT /maintenance-pro/hazard-settings. */
import { describe, expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import { allScopes } from "../../src/core/groups.ts";
import { buildApp } from "../../src/app.ts";
import { ConfigError, loadConfig } from "../../src/config.ts";

const h = await harness();
const db = h.database.db;
const path = "/maintenance-pro/hazard-settings";

async function changes(workspaceId: string) {
  const rows = await db<{ actorKeyId: string; detail: { from: string; to: string; revision: number } }[]>`
    select actor_key_id, detail from activity_log
    where workspace_id = ${workspaceId} and action = 'maintenance-pro.hazard_settings_changed' order by id`;
  return [...rows];
}

describe("reading hazard settings", () => {
  test("a new workspace is private at revision 0 under Awaab's Law with no private-sector date yet", async () => {
    const ws = await h.workspace();
    const res = await h.request("GET", path, { key: ws.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      regime: "private",
      revision: 0,
      policyVersion: "awaabs-law-2025-10-27",
      prsInForceFrom: null,
    });
  });

  test("any key with maintenance-pro:read reads them, whoever created it", async () => {
    const ws = await h.workspace();
    const key = await h.key(ws, ["maintenance-pro:read"], {
      createdBy: await h.rows(ws).user({ name: "staff", role: "staff" }),
    });
    const res = await h.request("GET", path, { key });
    expect(res.status).toBe(200);
    expect(res.body.regime).toBe("private");
  });

  test("a workspace without the maintenance-pro module is EntitlementMissing for both methods", async () => {
    const ws = await h.workspace({ modules: ["telephony"] });
    for (const [method, body] of [
      ["GET", undefined],
      ["PUT", { expectedRevision: 0, regime: "social" }],
    ] as const) {
      const res = await h.request(method, path, { key: ws.key, body });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ _tag: "EntitlementMissing", tenantId: ws.id, moduleId: "maintenance-pro" });
    }
    expect(await db`select 1 from hazard_settings where workspace_id = ${ws.id}`).toHaveLength(0);
  });
});

describe("changing hazard settings", () => {
  test("the owner's key changes the regime; the revision goes up by one and the change is logged with the key", async () => {
    const ws = await h.workspace();
    const first = await h.request("PUT", path, { key: ws.key, body: { expectedRevision: 0, regime: "social" } });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      regime: "social",
      revision: 1,
      policyVersion: "awaabs-law-2025-10-27",
      prsInForceFrom: null,
    });
    const second = await h.request("PUT", path, { key: ws.key, body: { expectedRevision: 1, regime: "private" } });
    expect(second.body).toMatchObject({ regime: "private", revision: 2 });
    const read = await h.request("GET", path, { key: ws.key });
    expect(read.body).toMatchObject({ regime: "private", revision: 2 });
    expect(await changes(ws.id)).toEqual([
      { actorKeyId: ws.keyId, detail: { from: "private", to: "social", revision: 1 } },
      { actorKeyId: ws.keyId, detail: { from: "social", to: "private", revision: 2 } },
    ]);
  });

  test("keys created by an admin or by staff are WorkspaceOwnerRequired and change nothing", async () => {
    const ws = await h.workspace();
    for (const role of ["admin", "staff"] as const) {
      const key = await h.key(ws, [...allScopes], { createdBy: await h.rows(ws).user({ name: role, role }) });
      const res = await h.request("PUT", path, { key, body: { expectedRevision: 0, regime: "social" } });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ _tag: "WorkspaceOwnerRequired" });
    }
    expect((await h.request("GET", path, { key: ws.key })).body).toMatchObject({ regime: "private", revision: 0 });
    expect(await changes(ws.id)).toEqual([]);
  });

  test("ownership is checked at each request: the former owner's key is refused, the new owner's earlier key accepted", async () => {
    const ws = await h.workspace();
    const adminId = await h.rows(ws).user({ name: "admin", role: "admin" });
    const adminKey = await h.key(ws, ["maintenance-pro:write"], { createdBy: adminId });
    await db.begin(async (tx) => {
      await tx`update users set role = 'admin' where workspace_id = ${ws.id} and id = ${ws.ownerUserId}`;
      await tx`update users set role = 'owner' where workspace_id = ${ws.id} and id = ${adminId}`;
    });
    const former = await h.request("PUT", path, { key: ws.key, body: { expectedRevision: 0, regime: "social" } });
    expect(former.body).toEqual({ _tag: "WorkspaceOwnerRequired" });
    const current = await h.request("PUT", path, { key: adminKey, body: { expectedRevision: 0, regime: "social" } });
    expect(current.status).toBe(200);
    expect(current.body.revision).toBe(1);
  });

  test("a stale expectedRevision is RevisionConflict with both revisions, even when the regime sent is the current one", async () => {
    const ws = await h.workspace();
    await h.request("PUT", path, { key: ws.key, body: { expectedRevision: 0, regime: "social" } });
    for (const regime of ["private", "social"]) {
      const res = await h.request("PUT", path, { key: ws.key, body: { expectedRevision: 0, regime } });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ _tag: "RevisionConflict", expectedRevision: 0, currentRevision: 1 });
    }
    const ahead = await h.request("PUT", path, { key: ws.key, body: { expectedRevision: 7, regime: "private" } });
    expect(ahead.body).toEqual({ _tag: "RevisionConflict", expectedRevision: 7, currentRevision: 1 });
    expect((await h.request("GET", path, { key: ws.key })).body).toMatchObject({ regime: "social", revision: 1 });
  });

  test("of concurrent writers with the same revision exactly one wins, on a new workspace and on a changed one", async () => {
    const ws = await h.workspace();
    for (const [expectedRevision, regime] of [
      [0, "social"],
      [1, "private"],
    ] as const) {
      const answers = await Promise.all(
        Array.from({ length: 12 }, () => h.request("PUT", path, { key: ws.key, body: { expectedRevision, regime } })),
      );
      const winners = answers.filter((a) => a.status === 200);
      expect(winners).toHaveLength(1);
      expect(winners[0]!.body).toMatchObject({ regime, revision: expectedRevision + 1 });
      const losers = answers.filter((a) => a.status === 409);
      expect(losers).toHaveLength(11);
      for (const l of losers) {
        expect(l.body).toEqual({ _tag: "RevisionConflict", expectedRevision, currentRevision: expectedRevision + 1 });
      }
    }
    expect(await changes(ws.id)).toHaveLength(2);
  });

  test("a write that changes nothing answers 200, keeps the revision and logs nothing", async () => {
    const ws = await h.workspace();
    const fresh = await h.request("PUT", path, { key: ws.key, body: { expectedRevision: 0, regime: "private" } });
    expect(fresh.status).toBe(200);
    expect(fresh.body).toMatchObject({ regime: "private", revision: 0 });
    await h.request("PUT", path, { key: ws.key, body: { expectedRevision: 0, regime: "social" } });
    const again = await h.request("PUT", path, { key: ws.key, body: { expectedRevision: 1, regime: "social" } });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ regime: "social", revision: 1 });
    expect(await changes(ws.id)).toHaveLength(1);
  });

  test("a body with an unknown field, a missing regime, another regime or a fractional revision is RequestInvalid", async () => {
    const ws = await h.workspace();
    for (const body of [
      { expectedRevision: 0, regime: "social", revision: 3 },
      { expectedRevision: 0 },
      { expectedRevision: 0, regime: "council" },
      { expectedRevision: 0.5, regime: "social" },
      { regime: "social" },
    ]) {
      const res = await h.request("PUT", path, { key: ws.key, body });
      expect(res.status).toBe(400);
      expect(res.body._tag).toBe("RequestInvalid");
    }
    expect((await h.request("GET", path, { key: ws.key })).body.revision).toBe(0);
  });

  test("workspaces do not see or change each other's settings", async () => {
    const a = await h.workspace();
    const b = await h.workspace();
    await h.request("PUT", path, { key: a.key, body: { expectedRevision: 0, regime: "social" } });
    expect((await h.request("GET", path, { key: b.key })).body).toMatchObject({ regime: "private", revision: 0 });
  });
});

describe("the private rented sector's date (PRS_IN_FORCE_FROM)", () => {
  test("unset or empty is null; a date is taken; anything else stops start-up with a configuration error", () => {
    expect(loadConfig({}).prsInForceFrom).toBeNull();
    expect(loadConfig({ PRS_IN_FORCE_FROM: "" }).prsInForceFrom).toBeNull();
    expect(loadConfig({ PRS_IN_FORCE_FROM: "2027-04-01" }).prsInForceFrom).toBe("2027-04-01");
    for (const value of ["1 April 2027", "2027-02-30", "2027-04-01T00:00:00Z"]) {
      expect(() => loadConfig({ PRS_IN_FORCE_FROM: value })).toThrow(
        new ConfigError(`PRS_IN_FORCE_FROM must be a date YYYY-MM-DD, not "${value}"`),
      );
    }
  });

  test("every workspace's hazard settings show the operator's date, read and written alike", async () => {
    const app = buildApp({ ...h.ctx, config: { ...h.ctx.config, prsInForceFrom: "2027-04-01" } });
    const ask = async (ws: { key: string }, method: string, body?: unknown) => {
      const res = await app.handle(
        new Request(`http://localhost${path}`, {
          method,
          headers: { "x-api-key": ws.key, "content-type": "application/json" },
          body: body === undefined ? undefined : JSON.stringify(body),
        }),
      );
      return res.json();
    };
    for (const ws of [await h.workspace(), await h.workspace()]) {
      expect(await ask(ws, "GET")).toMatchObject({ regime: "private", prsInForceFrom: "2027-04-01" });
      expect(await ask(ws, "PUT", { expectedRevision: 0, regime: "social" })).toMatchObject({
        regime: "social",
        revision: 1,
        prsInForceFrom: "2027-04-01",
      });
    }
  });
});
