/**
 * Each write records its event in its own transaction: with the API's answer as data, only when it commits, and
 * never on an idempotent replay or a write that changes nothing.
 */
import { describe, expect, test } from "bun:test";
import { ulid } from "ulid";
import { importWorkspace } from "../../src/workspace_import/import.ts";
import { eventTypes } from "../../src/event_types.ts";
import { harness, type TestResponse } from "../support/harness.ts";
import { refusedCommits } from "./refused_commits.ts";
import { seedInvoice } from "../contractor_invoices/fixtures.ts";
import { insertCheckout } from "../entitlements/fixtures.ts";
import { addContact } from "../maintenance_pro/fixtures.ts";
import { insertTask } from "../tasks/fixtures.ts";
import { insertThread } from "../telephony/fixtures.ts";
import { fullDocument } from "../workspace_import/fixtures.ts";

const h = await harness();
const db = h.database.db;

interface StoredEvent {
  type: string;
  subjectKind: string;
  subjectId: string;
  data: unknown;
  requestId: string | null;
  actorKind: string;
  actorId: string | null;
}

async function eventsOf(workspaceId: string): Promise<StoredEvent[]> {
  return [
    ...(await db<StoredEvent[]>`
      select type, subject_kind, subject_id, data, request_id, actor_kind, actor_id from events
      where workspace_id = ${workspaceId} order by tx_id, id`),
  ];
}

const commits = refusedCommits(db);

/** Makes the commit of every write recording `type` fail. */
const refuseCommit = commits.refuse;

/** Runs a write whose commit fails, checks it answered 500 and recorded nothing; then runs it for real. */
async function failsThenSucceeds(
  workspaceId: string,
  type: string,
  write: () => Promise<TestResponse>,
  unchanged: () => Promise<unknown>,
): Promise<TestResponse> {
  const before = await unchanged();
  await refuseCommit(type);
  const failed = await write();
  expect(failed.status).toBe(500);
  expect(await unchanged()).toEqual(before);
  expect(await eventsOf(workspaceId)).toEqual([]);
  await commits.allow();
  const res = await write();
  expect(res.status).toBeLessThan(300);
  return res;
}

function byKey(ws: { keyId: string }, res: TestResponse) {
  return { requestId: res.headers.get("x-request-id"), actorKind: "key", actorId: ws.keyId };
}

describe("each write records its event, with the API's answer as data", () => {
  test("every declared type has a unique name", () => {
    const names = eventTypes.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
  });

  test("company.created: the company as answered; a replay of its requestId records nothing", async () => {
    const ws = await h.workspace();
    const body = { name: "Acme Lettings Ltd", requestId: ulid() };
    const create = () => h.request("POST", "/companies", { key: ws.key, body });
    const companies = () => db`select count(*)::int as n from contacts where workspace_id = ${ws.id}`;
    const res = await failsThenSucceeds(ws.id, "company.created", create, companies);
    expect(res.status).toBe(201);
    const replay = await create();
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(await eventsOf(ws.id)).toEqual([
      { type: "company.created", subjectKind: "company", subjectId: res.body.id, data: res.body, ...byKey(ws, res) },
    ]);
  });

  test("contractor_payment.corrected: the recomputed invoice; a second correction is refused and records nothing", async () => {
    const ws = await h.workspace();
    const seeded = await seedInvoice(db, ws.id, {
      lines: [{ netMinor: 10000, vatMinor: 2000 }],
      payments: [{ amountMinor: 5000 }],
    });
    const paymentId = seeded.paymentIds[0]!;
    const correct = () =>
      h.request("POST", `/contractor-payments/${paymentId}/correct`, { key: ws.key, body: { reason: "Typo" } });
    const state = () => db`select corrected_at from contractor_payments where workspace_id = ${ws.id}`;
    const res = await failsThenSucceeds(ws.id, "contractor_payment.corrected", correct, state);
    expect((await correct()).status).toBe(409);
    expect(await eventsOf(ws.id)).toEqual([
      {
        type: "contractor_payment.corrected",
        subjectKind: "contractor_payment",
        subjectId: paymentId,
        data: res.body,
        ...byKey(ws, res),
      },
    ]);
  });

  test("hazard_settings.updated: the settings after the change; a write that changes nothing records nothing", async () => {
    const ws = await h.workspace();
    const put = (regime: string, expectedRevision: number) =>
      h.request("PUT", "/maintenance-pro/hazard-settings", { key: ws.key, body: { regime, expectedRevision } });
    const state = () => h.request("GET", "/maintenance-pro/hazard-settings", { key: ws.key }).then((r) => r.body);
    const res = await failsThenSucceeds(ws.id, "hazard_settings.updated", () => put("social", 0), state);
    expect((await put("social", 1)).status).toBe(200);
    expect((await put("private", 0)).status).toBe(409);
    expect(await eventsOf(ws.id)).toEqual([
      {
        type: "hazard_settings.updated",
        subjectKind: "hazard_settings",
        subjectId: ws.id,
        data: res.body,
        ...byKey(ws, res),
      },
    ]);
  });

  test("task.cancelled: the task after cancelling; cancelling again records nothing", async () => {
    const ws = await h.workspace();
    const taskId = await insertTask(db, ws.id);
    const cancel = () => h.request("POST", `/tasks/${taskId}/cancel`, { key: ws.key });
    const state = () => db`select status, revision from tasks where workspace_id = ${ws.id}`;
    const res = await failsThenSucceeds(ws.id, "task.cancelled", cancel, state);
    expect((await cancel()).status).toBe(200);
    expect(await eventsOf(ws.id)).toEqual([
      { type: "task.cancelled", subjectKind: "task", subjectId: taskId, data: res.body, ...byKey(ws, res) },
    ]);
  });

  test("portal_access.invited: the access record; a refused invitation records nothing", async () => {
    const ws = await h.workspace();
    const landlord = await addContact(db, ws);
    const noEmail = await addContact(db, ws, { email: null });
    const invite = (id: string) => h.request("POST", `/maintenance-pro/landlords/${id}/portal-access/invite`, ws);
    const state = () => db`select status from landlord_portal_access where workspace_id = ${ws.id}`;
    const res = await failsThenSucceeds(ws.id, "portal_access.invited", () => invite(landlord.id), state);
    expect((await invite(noEmail.id)).status).toBe(409);
    expect(await eventsOf(ws.id)).toEqual([
      {
        type: "portal_access.invited",
        subjectKind: "portal_access",
        subjectId: landlord.id,
        data: res.body,
        ...byKey(ws, res),
      },
    ]);
  });

  test("sms.queued: the message as queued; a replay records nothing, nor does a send to a stopped thread", async () => {
    const ws = await h.workspace();
    const thread = await insertThread(db, ws.id);
    const stopped = await insertThread(db, ws.id, { stopped: true, address: "+447700900999" });
    const body = { body: "Your viewing is at 10:00", requestId: ulid() };
    const send = (id = thread, sent: object = body) =>
      h.request("POST", `/telephony/sms/threads/${id}/messages`, { key: ws.key, body: sent });
    const state = () => db`select count(*)::int as n from sms_messages where workspace_id = ${ws.id}`;
    const res = await failsThenSucceeds(ws.id, "sms.queued", send, state);
    expect((await send()).headers.get("idempotent-replayed")).toBe("true");
    expect((await send(stopped, { body: "Hello" })).status).toBe(409);
    expect(await eventsOf(ws.id)).toEqual([
      { type: "sms.queued", subjectKind: "sms", subjectId: res.body.id, data: res.body, ...byKey(ws, res) },
    ]);
  });

  test("onboarding.abandoned: one event a checkout abandoned; a second call records nothing", async () => {
    const ws = await h.workspace();
    const checkout = await insertCheckout(db, ws.id, "started");
    await insertCheckout(db, ws.id, "paid");
    const abandon = () => h.request("POST", "/entitlements/onboarding/abandon", { key: ws.key });
    const state = () => db`select status from onboarding_checkouts where workspace_id = ${ws.id} order by id`;
    const res = await failsThenSucceeds(ws.id, "onboarding.abandoned", abandon, state);
    expect((await abandon()).body).toEqual({ abandoned: false });
    expect(await eventsOf(ws.id)).toEqual([
      {
        type: "onboarding.abandoned",
        subjectKind: "onboarding_checkout",
        subjectId: checkout,
        data: { abandoned: true },
        ...byKey(ws, res),
      },
    ]);
  });

  test("workspace.imported: the counts, actor cli; a refused import, or one that changes nothing, records nothing", async () => {
    const ws = await h.workspace();
    await refuseCommit("workspace.imported");
    await expect(importWorkspace(db, ws.slug, fullDocument())).rejects.toThrow("commit refused");
    expect(await eventsOf(ws.id)).toEqual([]);
    await commits.allow();
    const counts = await importWorkspace(db, ws.slug, fullDocument());
    await importWorkspace(db, ws.slug, fullDocument());
    const recorded = await eventsOf(ws.id);
    expect(recorded).toEqual([
      {
        type: "workspace.imported",
        subjectKind: "workspace",
        subjectId: ws.id,
        data: counts,
        requestId: null,
        actorKind: "cli",
        actorId: null,
      },
    ]);
  });
});
