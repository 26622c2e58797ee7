/** Another workspace's ids: every operation that names a record refuses them as unknown and changes nothing. */
import { describe, expect, test } from "bun:test";
import { harness } from "./support/harness.ts";
import { operations } from "../src/operations.ts";
import { ensureDemo } from "../src/workspace_import/demo.ts";
import { dumpDatabase } from "./workspace_import/fixtures.ts";

const h = await harness();
await ensureDemo(h.database.db);
const intruder = await h.workspace();
const db = h.database.db;
const [demo] = await db<{ id: string }[]>`select id from workspaces where slug = 'demo'`;
const one = async (rows: Promise<{ id: string }[]>) => (await rows)[0]!.id;

/** For each operation that takes an id: a record of the demo workspace it could name, and a body to send. */
const targets: Record<string, () => Promise<{ params: Record<string, string>; body?: unknown }>> = {
  "handovers.forTenancy": async () => ({ params: { tenancyId: await one(db`select id from tenancies where workspace_id = ${demo!.id} limit 1`) } }),
  "keys.setReports": async () => ({ params: { id: await one(db`select key_set_id as id from key_reports where workspace_id = ${demo!.id} limit 1`) } }),
  "contractorInvoices.correctPayment": async () => ({
    params: { id: await one(db`select id from contractor_payments where workspace_id = ${demo!.id} and corrected_at is null limit 1`) },
    body: { reason: "not ours" },
  }),
  "tasks.cancel": async () => ({ params: { id: await one(db`select id from tasks where workspace_id = ${demo!.id} and status = 'open' limit 1`) } }),
  "maintenancePro.inviteLandlord": async () => ({
    params: { contactId: await one(db`select id from contacts where workspace_id = ${demo!.id} and 'landlord' = any(roles) and email is not null limit 1`) },
  }),
  "telephony.sendSms": async () => ({
    params: { id: await one(db`select id from sms_threads where workspace_id = ${demo!.id} and not stopped limit 1`) },
    body: { body: "Hello from another workspace" },
  }),
};

describe("another workspace's ids", () => {
  test("every operation with a path id is covered here", () => {
    const withIds = operations.filter((o) => o.path.includes(":")).map((o) => o.id).sort();
    expect(Object.keys(targets).sort()).toEqual(withIds);
  });

  test.each(Object.keys(targets))("%s answers 404 and changes nothing", async (id) => {
    const op = operations.find((o) => o.id === id)!;
    const { params, body } = await targets[id]!();
    const path = op.path.replace(/:([A-Za-z]+)/g, (_, name) => encodeURIComponent(params[name]!));
    // The intruder's own bucket moves (it spends its own budget); nothing else may.
    const dump = async () => {
      const { rate_buckets: _, ...rest } = await dumpDatabase(db);
      return rest;
    };
    const before = await dump();
    const res = await h.request(op.method, path, { key: intruder.key, body: body ?? (op.method === "GET" ? undefined : {}) });
    expect(res.status).toBe(404);
    expect(Object.values(res.body).slice(1)).toContain(Object.values(params)[0]);
    expect(await dump()).toEqual(before);
  });
});
