/** The SMS worker: the outbox, the HTTP provider, retries, refusals, and exactly once across stops and crashes. */
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { harness } from "../support/harness.ts";
import { Jobs, queues } from "../../src/core/jobs.ts";
import type { AppContext } from "../../src/core/operation.ts";
import { startSmsWorker } from "../../src/telephony/worker.ts";
import { insertThread, startFakeProvider, until, type FakeProvider } from "./fixtures.ts";

const h = await harness();
const db = h.database.db;
const ws = await h.workspace();

// This file's queue: short retry delays and a two-second expiry, so retries and crash recovery are quick to watch.
await h.ctx.jobs.ensureQueue(queues.smsSend, {
  retryLimit: 2,
  retryDelay: 1,
  retryBackoff: false,
  expireInSeconds: 2,
  deadLetter: `${queues.smsSend}-dead`,
});

const running: Jobs[] = [];
afterAll(async () => {
  for (const jobs of running) await jobs.stop(2000).catch(() => {});
});

/** Starts a worker in this process with its own pg-boss instance; `fake` makes it use the HTTP provider. */
async function worker(fake?: FakeProvider): Promise<Jobs> {
  const jobs = new Jobs(h.database.url, h.ctx.log, { superviseIntervalSeconds: 1, monitorIntervalSeconds: 1 });
  running.push(jobs);
  const config = fake
    ? { ...h.ctx.config, smsProviderUrl: fake.url, smsAccountSid: "AC0123", smsAuthToken: "secret-token" }
    : { ...h.ctx.config, smsProviderUrl: undefined };
  const ctx: AppContext = { ...h.ctx, config, jobs };
  await startSmsWorker(ctx);
  return jobs;
}

async function queue(thread: string, body: string): Promise<string> {
  const res = await h.request("POST", `/telephony/sms/threads/${thread}/messages`, { key: ws.key, body: { body } });
  expect(res.status).toBe(202);
  return res.body.id;
}

interface MessageRow {
  status: string;
  attempts: number;
  providerMessageId: string | null;
  error: string | null;
  sentAt: string | null;
  failedAt: string | null;
}

async function message(id: string): Promise<MessageRow> {
  const [row] = await db<MessageRow[]>`
    select status, attempts, provider_message_id, error, iso(sent_at) as sent_at, iso(failed_at) as failed_at
    from sms_messages where workspace_id = ${ws.id} and id = ${id}`;
  return row!;
}

const settled = (id: string) =>
  until(async () => {
    const m = await message(id);
    return m.status === "sent" || m.status === "failed" ? m : undefined;
  }, `message ${id} to be sent or failed`);

async function jobState(id: string) {
  const boss = await h.ctx.jobs.boss();
  const [job] = await boss.findJobs(queues.smsSend, { data: { messageId: id } });
  return job?.state;
}

describe("the outbox provider (no SMS_PROVIDER_URL)", () => {
  test("writes the message to the outbox once and marks it sent", async () => {
    const jobs = await worker();
    const thread = await insertThread(db, ws.id, { address: "+447700900555" });
    const id = await queue(thread, "Your keys are ready to collect.");
    const m = await settled(id);
    expect(m).toMatchObject({ status: "sent", attempts: 1, providerMessageId: `outbox:${id}`, error: null });
    const outbox =
      await db`select to_address, from_number, body from sms_outbox where workspace_id = ${ws.id} and message_id = ${id}`;
    expect([...outbox]).toEqual([
      { toAddress: "+447700900555", fromNumber: "+447700900001", body: "Your keys are ready to collect." },
    ]);
    await jobs.stop();
  });
});

describe("the HTTP provider", () => {
  test("posts Twilio's Messages shape with Basic auth and the message id as Idempotency-Key", async () => {
    const fake = startFakeProvider();
    const jobs = await worker(fake);
    const thread = await insertThread(db, ws.id, { address: "+447700900777" });
    const id = await queue(thread, "Inspection on Friday at 9.");
    const m = await settled(id);
    expect(fake.requests).toEqual([
      {
        path: "/2010-04-01/Accounts/AC0123/Messages.json",
        authorization: `Basic ${Buffer.from("AC0123:secret-token").toString("base64")}`,
        idempotencyKey: id,
        to: "+447700900777",
        from: "+447700900001",
        body: "Inspection on Friday at 9.",
        // Receipts come back to the webhook route at the public address.
        statusCallback: `${h.ctx.config.publicBaseUrl}/webhooks/sms`,
      },
    ]);
    expect(m).toMatchObject({ status: "sent", attempts: 1, providerMessageId: fake.created.get(id)!.sid, error: null });
    expect(m.sentAt).toMatch(/Z$/);
    expect(
      await until(async () => ((await jobState(id)) === "completed" ? true : undefined), "the job to complete"),
    ).toBe(true);
    await jobs.stop();
    fake.stop();
  });

  test("a failed attempt is retried with the same key and its error is kept", async () => {
    const fake = startFakeProvider();
    fake.answers.push({ status: 503, json: { code: 20500, message: "Service unavailable" } });
    const jobs = await worker(fake);
    const id = await queue(await insertThread(db, ws.id), "Retry me");
    const m = await settled(id);
    expect(m).toMatchObject({ status: "sent", attempts: 2, providerMessageId: fake.created.get(id)!.sid });
    expect(m.error).toContain("503 20500 Service unavailable");
    expect(fake.requests.map((r) => r.idempotencyKey)).toEqual([id, id]);
    expect(fake.created.size).toBe(1);
    await jobs.stop();
    fake.stop();
  });

  test("a permanent refusal fails the message at once, without retrying", async () => {
    const fake = startFakeProvider();
    fake.answers.push({ status: 400, json: { code: 21211, message: "Invalid 'To' Phone Number" } });
    const jobs = await worker(fake);
    const id = await queue(await insertThread(db, ws.id, { address: "+44" }), "Nobody there");
    const m = await settled(id);
    expect(m).toMatchObject({ status: "failed", attempts: 1, providerMessageId: null });
    expect(m.error).toBe("provider refused: 400 21211 Invalid 'To' Phone Number");
    expect(m.failedAt).toMatch(/Z$/);
    expect(
      await until(async () => ((await jobState(id)) === "completed" ? true : undefined), "the job to complete"),
    ).toBe(true);
    expect(fake.requests).toHaveLength(1);
    await jobs.stop();
    fake.stop();
  });

  test("after the last retry the message is failed with its last error", async () => {
    const fake = startFakeProvider();
    for (let i = 0; i < 3; i++) fake.answers.push({ status: 500, json: { message: `down ${i + 1}` } });
    const jobs = await worker(fake);
    const id = await queue(await insertThread(db, ws.id), "Never arrives");
    const m = await settled(id);
    expect(m).toMatchObject({ status: "failed", attempts: 3, error: "provider refused: 500 down 3" });
    expect(fake.requests).toHaveLength(3);
    expect(fake.created.size).toBe(0);
    expect(await until(async () => ((await jobState(id)) === "failed" ? true : undefined), "the job to fail")).toBe(
      true,
    );
    await jobs.stop();
    fake.stop();
  });
});

describe("exactly once", () => {
  test("two workers sharing the queue send each of 30 messages once", async () => {
    const fake = startFakeProvider();
    const a = await worker(fake);
    const b = await worker(fake);
    const thread = await insertThread(db, ws.id);
    const ids = [];
    for (let i = 0; i < 30; i++) ids.push(await queue(thread, `Bulk ${i}`));
    for (const id of ids) expect((await settled(id)).status).toBe("sent");
    expect(fake.requests).toHaveLength(30);
    expect(new Set(fake.requests.map((r) => r.idempotencyKey))).toEqual(new Set(ids));
    await Promise.all([a.stop(), b.stop()]);
    fake.stop();
  });

  test("a worker stopped mid-job finishes the message before it stops, and it is not sent again", async () => {
    const fake = startFakeProvider();
    fake.holdNext = true;
    const jobs = await worker(fake);
    const id = await queue(await insertThread(db, ws.id), "Sent while stopping");
    await fake.received(1);
    const stopping = jobs.stop(10_000);
    fake.release();
    await stopping;
    expect(await message(id)).toMatchObject({ status: "sent", attempts: 1 });
    expect(await jobState(id)).toBe("completed");
    const again = await worker(fake);
    const next = await queue(await insertThread(db, ws.id), "After the restart");
    expect((await settled(next)).status).toBe("sent");
    expect(fake.requests.filter((r) => r.idempotencyKey === id)).toHaveLength(1);
    await again.stop();
    fake.stop();
  });

  test("a worker process killed while the provider holds its request: the restarted worker completes it, sent once", async () => {
    const fake = startFakeProvider();
    fake.holdNext = true;
    const child = Bun.spawn(["bun", join(import.meta.dir, "worker_process.ts")], {
      env: {
        ...process.env,
        DATABASE_URL: h.database.url,
        SMS_PROVIDER_URL: fake.url,
        SMS_ACCOUNT_SID: "AC0123",
        SMS_AUTH_TOKEN: "secret-token",
        LOG_LEVEL: "silent",
      },
      stdout: "pipe",
      stderr: "inherit",
    });
    const id = await queue(await insertThread(db, ws.id), "Survives a crash");
    await fake.received(1);
    // The provider has accepted the message; the worker dies before hearing so.
    child.kill("SIGKILL");
    await child.exited;
    fake.release();
    expect(await message(id)).toMatchObject({ status: "sending", attempts: 1, providerMessageId: null });
    const restarted = await worker(fake);
    const m = await until(
      async () => {
        const row = await message(id);
        return row.status === "sent" ? row : undefined;
      },
      "the restarted worker to send the message",
      30_000,
    );
    expect(fake.created.size).toBe(1);
    expect(fake.requests.map((r) => r.idempotencyKey)).toEqual([id, id]);
    expect(m).toMatchObject({ status: "sent", attempts: 2, providerMessageId: fake.created.get(id)!.sid });
    await restarted.stop();
    fake.stop();
  }, 60_000);
});
