/**
 * The whole path over HTTP: the real server (Elysia's listen) queues a message, the worker posts it to a fake
 * Twilio-shaped provider, which posts signed delivery receipts back to the server's webhook; STOP and START arrive
 * the same way.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { buildApp } from "../../src/app.ts";
import type { Config } from "../../src/config.ts";
import { Jobs, queues } from "../../src/core/jobs.ts";
import type { AppContext } from "../../src/core/operation.ts";
import { httpProvider } from "../../src/telephony/provider.ts";
import { deliverSms, startSmsWorker } from "../../src/telephony/worker.ts";
import { ulid } from "ulid";
import { harness } from "../support/harness.ts";
import { insertThread, postSigned, startFakeProvider, testAccountSid, until } from "./fixtures.ts";

const h = await harness();
const db = h.database.db;
const ws = await h.workspace();
const token = "receipts-test-auth-token-0000000";
const number = "+441174960100";

const config: Config = { ...h.ctx.config, smsAuthToken: token };
const app = buildApp({ ...h.ctx, config });
app.listen({ hostname: "127.0.0.1", port: 0 });
const base = `http://127.0.0.1:${app.server!.port}`;
// The provider signs the URL it posts to: here the server's own address is the public one.
config.publicBaseUrl = base;

const fake = startFakeProvider();
await h.ctx.jobs.ensureQueue(queues.smsSend, {
  retryLimit: 2,
  retryDelay: 1,
  retryBackoff: false,
  expireInSeconds: 5,
  deadLetter: `${queues.smsSend}-dead`,
});
const jobs = new Jobs(h.database.url, h.ctx.log, { superviseIntervalSeconds: 1, monitorIntervalSeconds: 1 });
const workerCtx: AppContext = { ...h.ctx, config, jobs };
await startSmsWorker(workerCtx, {
  provider: httpProvider({
    url: fake.url,
    accountSid: "AC0123",
    authToken: "provider-api-token",
    statusCallbackUrl: `${base}/webhooks/sms`,
  }),
});
afterAll(async () => {
  await jobs.stop(2000).catch(() => {});
  await app.stop(true);
  fake.stop();
});

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(base + path, {
    method,
    headers: { "x-api-key": ws.key, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** Sends a message on a new thread with the fake posting `statuses` back; the message once they are answered. */
async function sendWithReceipts(address: string, statuses: string[]) {
  const thread = await insertThread(db, ws.id, { localNumber: number, address });
  fake.receipts = { token, statuses };
  fake.receiptAnswers = [];
  const queued = await api("POST", `/telephony/sms/threads/${thread}/messages`, { body: `Hello ${address}` });
  expect(queued.status).toBe(202);
  await until(async () => (fake.receiptAnswers.length === statuses.length ? true : undefined), "the receipts");
  const list = await api("GET", `/telephony/sms/threads/${thread}/messages`);
  expect(list.status).toBe(200);
  const events = await db<{ status: string }[]>`
    select data->>'status' as status from events
    where workspace_id = ${ws.id} and type = 'sms.status_changed' and subject_id = ${queued.body.id}
    order by tx_id, id`;
  return {
    message: list.body[0],
    answers: fake.receiptAnswers.map((a) => a.answer),
    events: events.map((e) => e.status),
  };
}

describe("delivery receipts from the provider, over HTTP", () => {
  test("sent, then delivered: the message ends delivered", async () => {
    const { message, answers, events } = await sendWithReceipts("+447700900401", ["sent", "delivered"]);
    expect(answers).toEqual([200, 200]);
    expect(message).toMatchObject({ direction: "outbound", status: "delivered", errorCode: null });
    expect(message.sentAt).not.toBeNull();
    expect(message.deliveredAt).not.toBeNull();
    expect(events).toEqual(["sent", "delivered"]);
  });

  test("delivered before sent: the message ends delivered (a status never moves backwards)", async () => {
    const { message, answers, events } = await sendWithReceipts("+447700900402", ["delivered", "sent"]);
    expect(answers).toEqual([200, 200]);
    expect(message).toMatchObject({ status: "delivered", errorCode: null });
    // `sent` is the worker's (the provider accepted the message); the late `sent` receipt changes nothing.
    expect(events).toEqual(["sent", "delivered"]);
  });

  test("undelivered with the provider's ErrorCode; a late delivered does not revive it", async () => {
    const { message, events } = await sendWithReceipts("+447700900403", ["sent", "undelivered:30003", "delivered"]);
    expect(message).toMatchObject({ status: "undelivered", errorCode: "30003", deliveredAt: null });
    expect(events).toEqual(["sent", "undelivered"]);
  });

  test("the same receipt twice: 409 WebhookDuplicate the second time", async () => {
    const { message, answers } = await sendWithReceipts("+447700900404", ["sent", "delivered", "delivered"]);
    expect(answers).toEqual([200, 200, 409]);
    expect(message.status).toBe("delivered");
  });
});

describe("STOP and START over HTTP", () => {
  test("STOP, then a send is 409 SmsStopped and nothing reaches the provider; START sends again", async () => {
    fake.receipts = undefined;
    const address = "+447700900405";
    const thread = await insertThread(db, ws.id, { localNumber: number, address });
    const text = (body: string, sid: string) =>
      postSigned(`${base}/webhooks/sms`, token, {
        MessageSid: sid,
        AccountSid: testAccountSid,
        From: address,
        To: number,
        Body: body,
        NumMedia: "0",
      });
    const stop = await text("STOP", "SM00000000000000000000000000005709");
    expect([stop.status, await stop.text()]).toEqual([200, '<?xml version="1.0" encoding="UTF-8"?><Response/>']);
    const before = fake.requests.length;
    const refused = await api("POST", `/telephony/sms/threads/${thread}/messages`, { body: "Are you there?" });
    expect([refused.status, refused.body]).toEqual([409, { _tag: "SmsStopped", threadId: thread }]);
    expect(await db`select id from sms_messages where thread_id = ${thread} and direction = 'outbound'`).toHaveLength(
      0,
    );
    expect((await text("start", "SM000000000000000000000000000057a7")).status).toBe(200);
    const sent = await api("POST", `/telephony/sms/threads/${thread}/messages`, { body: "Welcome back" });
    expect(sent.status).toBe(202);
    await fake.received(before + 1);
    expect(fake.requests.slice(before).map((r) => [r.to, r.body])).toEqual([[address, "Welcome back"]]);
  });
});

describe("a message claimed before STOP arrived", () => {
  test("is failed with errorCode stopped when the worker holds it, and never reaches the provider", async () => {
    // The window: the worker claimed the message (queued → sending) and STOP committed before it locked the row.
    const thread = await insertThread(db, ws.id, { localNumber: number, address: "+447700900406", stopped: true });
    const id = ulid();
    await db`insert into sms_messages (workspace_id, id, thread_id, direction, body, status)
             values (${ws.id}, ${id}, ${thread}, 'outbound', 'Too late', 'queued')`;
    const before = fake.requests.length;
    const provider = httpProvider({ url: fake.url, accountSid: "AC0123", authToken: "provider-api-token" });
    const outcome = await deliverSms(workerCtx, provider, { workspaceId: ws.id, messageId: id }, { final: false });
    expect(outcome).toBe("stopped");
    expect(fake.requests.length).toBe(before);
    const [row] = await db`select status, error_code from sms_messages where workspace_id = ${ws.id} and id = ${id}`;
    expect(row).toEqual({ status: "failed", errorCode: "stopped" });
    const events = await db`select actor_kind, data->>'status' as status from events
      where workspace_id = ${ws.id} and subject_id = ${id}`;
    expect(events).toEqual([{ actorKind: "worker", status: "failed" }] as any);
  });
});
