/** POST /telephony/sms/threads/{id}/messages (the SMS send extension): queuing, refusals, replays, throttling. */
import { describe, expect, test } from "bun:test";
import { harness, type TestWorkspace } from "../support/harness.ts";
import { buildApp } from "../../src/app.ts";
import { queues } from "../../src/core/jobs.ts";
import { insertThread } from "./fixtures.ts";

const h = await harness();
const db = h.database.db;

const send = (key: string, threadId: string, body: unknown, app = h.app) =>
  app
    .handle(
      new Request(`http://localhost/telephony/sms/threads/${threadId}/messages`, {
        method: "POST",
        headers: { "x-api-key": key, "content-type": "application/json" },
        body: JSON.stringify(body),
      }),
    )
    .then(async (res) => ({
      status: res.status,
      headers: res.headers,
      text: await res.clone().text(),
      body: (await res.json()) as any,
    }));

async function messagesOf(workspaceId: string) {
  return [
    ...(await db`select id, thread_id, body, status, attempts, request_id from sms_messages where workspace_id = ${workspaceId} order by id`),
  ];
}

async function jobsFor(messageId: string) {
  const boss = await h.ctx.jobs.boss();
  return boss.findJobs(queues.smsSend, { data: { messageId } });
}

async function threadOf(workspaceId: string, id: string) {
  const [row] =
    await db`select revision, iso(last_message_at) as last_message_at, preview from sms_threads where workspace_id = ${workspaceId} and id = ${id}`;
  return row;
}

describe("queuing an SMS", () => {
  test("answers 202 with the queued message, moves the thread, and queues one job in the same transaction", async () => {
    const ws = await h.workspace();
    const thread = await insertThread(db, ws.id, { lastMessageAt: "2026-01-01T10:00:00Z", preview: "old" });
    const res = await send(ws.key, thread, { body: "Your viewing is confirmed for 10:00 tomorrow." });
    expect(res.status).toBe(202);
    expect(Object.keys(res.body).sort()).toEqual(["body", "createdAt", "id", "status", "threadId"]);
    expect(res.body).toMatchObject({
      threadId: thread,
      status: "queued",
      body: "Your viewing is confirmed for 10:00 tomorrow.",
    });
    expect(res.body.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(res.headers.get("idempotent-replayed")).toBeNull();
    expect(await threadOf(ws.id, thread)).toEqual({
      revision: 2,
      lastMessageAt: res.body.createdAt,
      preview: "Your viewing is confirmed for 10:00 tomorrow.",
    });
    expect(await messagesOf(ws.id)).toEqual([
      { id: res.body.id, threadId: thread, body: res.body.body, status: "queued", attempts: 0, requestId: null },
    ]);
    const jobs = await jobsFor(res.body.id);
    expect(jobs.map((j) => j.data)).toEqual([{ workspaceId: ws.id, messageId: res.body.id }]);
    const logged =
      await db`select action, detail from activity_log where workspace_id = ${ws.id} and subject_id = ${thread}`;
    expect([...logged]).toEqual([{ action: "telephony.sms_queued", detail: { messageId: res.body.id } }]);
  });

  test("the thread moves to the top of the thread list with a preview of at most 160 characters", async () => {
    const ws = await h.workspace();
    const quiet = await insertThread(db, ws.id, { lastMessageAt: "2020-01-01T10:00:00Z" });
    await insertThread(db, ws.id, { lastMessageAt: "2026-01-01T10:00:00Z" });
    const text = "x".repeat(300);
    expect((await send(ws.key, quiet, { body: text })).status).toBe(202);
    const listed = await h.request("GET", "/telephony/sms/threads", { key: ws.key });
    expect(listed.body[0]).toMatchObject({ id: quiet, preview: "x".repeat(160), revision: 2 });
  });

  test("a stopped thread is SmsStopped and nothing is queued", async () => {
    const ws = await h.workspace();
    const thread = await insertThread(db, ws.id, { stopped: true, lastMessageAt: "2026-01-01T10:00:00Z" });
    const res = await send(ws.key, thread, { body: "Hello" });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ _tag: "SmsStopped", threadId: thread });
    expect(await messagesOf(ws.id)).toEqual([]);
    expect(await threadOf(ws.id, thread)).toEqual({
      revision: 1,
      lastMessageAt: "2026-01-01T10:00:00.000Z",
      preview: null,
    });
  });

  test("an unknown thread, or another workspace's, is SmsThreadNotFound", async () => {
    const ws = await h.workspace();
    const other = await h.workspace();
    const theirs = await insertThread(db, other.id);
    for (const id of ["no-such-thread", theirs]) {
      const res = await send(ws.key, id, { body: "Hello" });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ _tag: "SmsThreadNotFound", threadId: id });
    }
    expect(await messagesOf(other.id)).toEqual([]);
  });

  test.each([
    ["an empty body", { body: "" }],
    ["a body of white space only", { body: "  \n " }],
    ["a body of 919 characters", { body: "a".repeat(919) }],
    ["a body field that is not a string", { body: 12 }],
    ["no body field", {}],
    ["an unknown field", { body: "Hi", to: "+447700900999" }],
    ["an empty requestId", { body: "Hi", requestId: "" }],
  ])("%s is RequestInvalid", async (_name, body) => {
    const ws = await h.workspace();
    const thread = await insertThread(db, ws.id);
    const res = await send(ws.key, thread, body);
    expect(res.status).toBe(400);
    expect(res.body._tag).toBe("RequestInvalid");
    expect(await messagesOf(ws.id)).toEqual([]);
  });

  test("a body of 918 characters is accepted", async () => {
    const ws = await h.workspace();
    const thread = await insertThread(db, ws.id);
    expect((await send(ws.key, thread, { body: "é".repeat(918) })).status).toBe(202);
  });
});

describe("requestId", () => {
  test("a retry with the same requestId replays the first answer byte for byte and queues nothing more", async () => {
    const ws = await h.workspace();
    const thread = await insertThread(db, ws.id);
    const first = await send(ws.key, thread, { body: "Rent reminder", requestId: "rem-1" });
    const again = await send(ws.key, thread, { body: "Rent reminder", requestId: "rem-1" });
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.text).toBe(first.text);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await messagesOf(ws.id)).toHaveLength(1);
    expect(await jobsFor(first.body.id)).toHaveLength(1);
    expect((await threadOf(ws.id, thread))!.revision).toBe(2);
  });

  test("the same requestId with another body or another thread is RequestIdReused", async () => {
    const ws = await h.workspace();
    const thread = await insertThread(db, ws.id);
    const second = await insertThread(db, ws.id);
    await send(ws.key, thread, { body: "Rent reminder", requestId: "rem-2" });
    const otherBody = await send(ws.key, thread, { body: "Something else", requestId: "rem-2" });
    expect(otherBody.status).toBe(422);
    expect(otherBody.body).toEqual({ _tag: "RequestIdReused", requestId: "rem-2" });
    const otherThread = await send(ws.key, second, { body: "Rent reminder", requestId: "rem-2" });
    expect(otherThread.status).toBe(422);
    expect(await messagesOf(ws.id)).toHaveLength(1);
  });

  test("ten concurrent sends with one requestId queue one message, and all answer the same", async () => {
    const ws = await h.workspace();
    const thread = await insertThread(db, ws.id);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => send(ws.key, thread, { body: "Once only", requestId: "dup" })),
    );
    expect(answers.every((a) => a.status === 202)).toBe(true);
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(answers.filter((a) => a.headers.get("idempotent-replayed") === "true")).toHaveLength(9);
    expect(await messagesOf(ws.id)).toHaveLength(1);
  });

  test("the same requestId in two workspaces is two messages", async () => {
    const a = await h.workspace();
    const b = await h.workspace();
    const ta = await insertThread(db, a.id);
    const tb = await insertThread(db, b.id);
    const ra = await send(a.key, ta, { body: "Hi", requestId: "shared" });
    const rb = await send(b.key, tb, { body: "Hi", requestId: "shared" });
    expect(rb.headers.get("idempotent-replayed")).toBeNull();
    expect(ra.body.id).not.toBe(rb.body.id);
    expect(await messagesOf(a.id)).toHaveLength(1);
    expect(await messagesOf(b.id)).toHaveLength(1);
  });

  test("a refused send does not burn its requestId: once the thread can be written to, the same requestId goes through", async () => {
    const ws = await h.workspace();
    const thread = await insertThread(db, ws.id, { stopped: true });
    expect((await send(ws.key, thread, { body: "Hi", requestId: "later" })).status).toBe(409);
    await db`update sms_threads set stopped = false where workspace_id = ${ws.id} and id = ${thread}`;
    const res = await send(ws.key, thread, { body: "Hi", requestId: "later" });
    expect(res.status).toBe(202);
    expect(res.headers.get("idempotent-replayed")).toBeNull();
  });
});

describe("the per-workspace SMS budget", () => {
  const throttled = buildApp({ ...h.ctx, config: { ...h.ctx.config, smsPerMinute: 3 } });

  async function burst(ws: TestWorkspace, thread: string, n: number) {
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: n }, (_, i) => send(ws.key, thread, { body: `Message ${i}` }, throttled)),
    );
    return { answers, elapsed: (performance.now() - started) / 1000 };
  }

  test("ten concurrent sends on a 3-a-minute budget queue exactly the budget; the rest are RateLimited with Retry-After", async () => {
    const ws = await h.workspace();
    const thread = await insertThread(db, ws.id);
    const { answers, elapsed } = await burst(ws, thread, 10);
    const admitted = answers.filter((a) => a.status === 202).length;
    expect(admitted).toBeGreaterThanOrEqual(3);
    expect(admitted).toBeLessThanOrEqual(3 + Math.floor((3 / 60) * elapsed));
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(10 - admitted);
    for (const r of refused) {
      expect(r.body).toMatchObject({ _tag: "RateLimited", key: `sms:${ws.id}` });
      expect(r.body.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(r.headers.get("retry-after")).toBe(String(r.body.retryAfterSeconds));
    }
    expect(await messagesOf(ws.id)).toHaveLength(admitted);
  });

  test("one workspace spending its budget leaves another's untouched", async () => {
    const busy = await h.workspace();
    const calm = await h.workspace();
    const busyThread = await insertThread(db, busy.id);
    const calmThread = await insertThread(db, calm.id);
    await burst(busy, busyThread, 5);
    expect((await send(busy.key, busyThread, { body: "more" }, throttled)).status).toBe(429);
    const res = await send(calm.key, calmThread, { body: "Hello" }, throttled);
    expect(res.status).toBe(202);
  });

  test("the budget is the workspace's, whatever the key", async () => {
    const ws = await h.workspace();
    const thread = await insertThread(db, ws.id);
    const other = await h.key(ws, ["telephony:write"]);
    await burst(ws, thread, 3);
    const res = await send(other, thread, { body: "from another key" }, throttled);
    expect(res.status).toBe(429);
    expect(res.body.key).toBe(`sms:${ws.id}`);
  });

  test("refused sends (stopped, unknown, invalid) spend no SMS budget", async () => {
    const ws = await h.workspace();
    const open = await insertThread(db, ws.id);
    const stopped = await insertThread(db, ws.id, { stopped: true });
    for (let i = 0; i < 4; i++) {
      expect((await send(ws.key, stopped, { body: "x" }, throttled)).status).toBe(409);
      expect((await send(ws.key, "nope", { body: "x" }, throttled)).status).toBe(404);
      expect((await send(ws.key, open, { body: "" }, throttled)).status).toBe(400);
    }
    const { answers } = await burst(ws, open, 3);
    expect(answers.map((a) => a.status)).toEqual([202, 202, 202]);
  });

  test("a replay spends no SMS budget", async () => {
    const ws = await h.workspace();
    const thread = await insertThread(db, ws.id);
    const first = await send(ws.key, thread, { body: "same", requestId: "r" }, throttled);
    for (let i = 0; i < 4; i++)
      expect((await send(ws.key, thread, { body: "same", requestId: "r" }, throttled)).text).toBe(first.text);
    const { answers } = await burst(ws, thread, 2);
    expect(answers.map((a) => a.status)).toEqual([202, 202]);
  });
});
