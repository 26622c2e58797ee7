/**
 * Deliveries by the real workers (dispatcher and pg-boss delivery worker in this process) to a real local receiver;
 * signatures checked by the `standardwebhooks` package, an independent implementation.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import type { AppContext } from "../../src/core/operation.ts";
import { attemptDeliveries, startWebhookWorkers } from "../../src/webhooks/deliver.ts";
import { rotateSubscriptionSecret, subscriptionDeliveries } from "../../src/webhooks/subscriptions.ts";
import { until } from "../telephony/fixtures.ts";
import { harness, type TestWorkspace } from "../support/harness.ts";
import { insertTask } from "../tasks/fixtures.ts";
import { fileReceivers, subscribe as subscribeTo, webhookContext } from "./receiver.ts";

const h = await harness();
const db = h.database.db;
const ctx = webhookContext(h, "1,1,1");
const config = ctx.config;
beforeAll(() => startWebhookWorkers(ctx));

const receiver = fileReceivers();

const subscribe = (ws: TestWorkspace, url: string, events = "*") => subscribeTo(db, ws, url, events);

async function createCompany(ws: TestWorkspace, name = "Acme Lettings") {
  const res = await h.request("POST", "/companies", { key: ws.key, body: { name } });
  expect(res.status).toBe(201);
  return res.body;
}

async function settled(subscriptionId: string, n = 1) {
  return until(async () => {
    const { deliveries } = await subscriptionDeliveries(db, subscriptionId, false);
    return deliveries.length >= n && deliveries.every((d) => d.status !== "pending") ? deliveries : undefined;
  }, "the deliveries to settle");
}

describe("a delivery", () => {
  test("500, 500, 200: delivered on the third attempt, the same webhook-id and a valid signature each time", async () => {
    const ws = await h.workspace();
    const r = receiver();
    r.answers = [500, 500, 200];
    const sub = await subscribe(ws, r.url);
    const company = await createCompany(ws);
    const [delivery] = await settled(sub.id);
    expect(delivery).toMatchObject({ status: "delivered", attempts: 3, eventType: "company.created" });
    expect(delivery!.lastAttempt).toMatchObject({ attempt: 3, responseStatus: 200, error: null });
    expect(r.received.length).toBe(3);
    const [event] = (await h.request("GET", "/events", { key: ws.key })).body;
    const verifier = new Webhook(sub.secret);
    for (const got of r.received) {
      expect(got.id).toBe(event.id);
      const payload = verifier.verify(got.body, {
        "webhook-id": got.id,
        "webhook-timestamp": got.timestamp,
        "webhook-signature": got.signature,
      });
      expect(payload).toEqual(event);
      expect((payload as any).data).toEqual(company);
    }
    // Another secret does not verify: the oracle is not fooled.
    expect(() =>
      new Webhook(`whsec_${Buffer.alloc(32, 7).toString("base64")}`).verify(r.received[0]!.body, {
        "webhook-id": r.received[0]!.id,
        "webhook-timestamp": r.received[0]!.timestamp,
        "webhook-signature": r.received[0]!.signature,
      }),
    ).toThrow();
    // The receiver's answers are kept to their first 1 KiB, never broken mid-character.
    const [attempt] = await db<{ body: string }[]>`
      select response_body as body from event_delivery_attempts where delivery_id = ${delivery!.id} and attempt = 1`;
    expect(Buffer.byteLength(attempt!.body)).toBeLessThanOrEqual(1024);
    expect(attempt!.body.startsWith("answer 500 éé")).toBe(true);
  });

  test("a receiver that hangs: the attempt times out and the next one is delivered", async () => {
    const ws = await h.workspace();
    const r = receiver();
    r.answers = ["hang", 200];
    const sub = await subscribe(ws, r.url);
    await createCompany(ws);
    const [delivery] = await settled(sub.id);
    expect(delivery).toMatchObject({ status: "delivered", attempts: 2 });
    const attempts = await db<{ error: string | null; durationMs: number }[]>`
      select error, duration_ms from event_delivery_attempts where delivery_id = ${delivery!.id} order by attempt`;
    expect(attempts[0]!.error).toBe("timed out after 1500 ms");
    expect(attempts[0]!.durationMs).toBeGreaterThanOrEqual(1400);
    expect(r.received.map((x) => x.id)).toEqual([r.received[0]!.id, r.received[0]!.id]);
  });

  test("an endless, slow body is read to 1 KiB and dropped: the attempt ends at once, delivered", async () => {
    const ws = await h.workspace();
    const r = receiver();
    r.answers = ["endless"];
    const sub = await subscribe(ws, r.url);
    await createCompany(ws);
    const [delivery] = await settled(sub.id);
    expect(delivery).toMatchObject({ status: "delivered", attempts: 1 });
    expect(delivery!.lastAttempt!.responseBody!.length).toBe(1024);
  });

  test("every attempt failing: failed after the schedule, kept with its attempts", async () => {
    const ws = await h.workspace();
    const r = receiver();
    r.fallback = 503;
    const sub = await subscribe(ws, r.url);
    await createCompany(ws);
    const [delivery] = await settled(sub.id);
    expect(delivery).toMatchObject({ status: "failed", attempts: 4 });
    expect((await subscriptionDeliveries(db, sub.id, true)).deliveries.map((d) => d.id)).toEqual([delivery!.id]);
  });

  test("only the subscribed types are delivered, and only to the workspace's subscriptions", async () => {
    const ws = await h.workspace();
    const other = await h.workspace();
    const r = receiver();
    const sub = await subscribe(ws, r.url, "task.cancelled");
    const otherReceiver = receiver();
    const otherSub = await subscribe(other, otherReceiver.url);
    await createCompany(ws);
    const taskId = await insertTask(db, ws.id);
    await h.request("POST", `/tasks/${taskId}/cancel`, { key: ws.key });
    // The dispatcher follows all workspaces' events in commit order: once the other workspace's later event is
    // delivered, every delivery of the events before it has been made (each POST recorded, if only as pending).
    await createCompany(other, "Later");
    await settled(otherSub.id);
    await settled(sub.id);
    const types = async (id: string) =>
      (await subscriptionDeliveries(db, id, false)).deliveries.map((d) => d.eventType);
    expect(await types(sub.id)).toEqual(["task.cancelled"]);
    expect(await types(otherSub.id)).toEqual(["company.created"]);
    expect(r.received.map((x) => JSON.parse(x.body).type)).toEqual(["task.cancelled"]);
    expect(otherReceiver.received.map((x) => JSON.parse(x.body).data.name)).toEqual(["Later"]);
  });
});

describe("secrets and the subscription's health", () => {
  test("after a rotation each delivery carries two signatures, each verifying with its secret", async () => {
    const ws = await h.workspace();
    const r = receiver();
    const sub = await subscribe(ws, r.url);
    const rotated = await rotateSubscriptionSecret(db, sub.id);
    expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Date.parse(rotated.previousSecretsExpireAt) - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    await createCompany(ws);
    await settled(sub.id);
    const got = r.received[0]!;
    expect(got.signature.split(" ").length).toBe(2);
    const headers = { "webhook-id": got.id, "webhook-timestamp": got.timestamp, "webhook-signature": got.signature };
    expect(() => new Webhook(sub.secret).verify(got.body, headers)).not.toThrow();
    expect(() => new Webhook(rotated.secret).verify(got.body, headers)).not.toThrow();
    // Once the old secret expires, it no longer signs.
    await db`update webhook_secrets set expires_at = now() - interval '1 second'
             where subscription_id = ${sub.id} and expires_at is not null`;
    await createCompany(ws, "Second");
    await settled(sub.id, 2);
    const second = r.received[1]!;
    expect(second.signature.split(" ").length).toBe(1);
    const headers2 = {
      "webhook-id": second.id,
      "webhook-timestamp": second.timestamp,
      "webhook-signature": second.signature,
    };
    expect(() => new Webhook(sub.secret).verify(second.body, headers2)).toThrow();
    expect(() => new Webhook(rotated.secret).verify(second.body, headers2)).not.toThrow();
  });

  test("a subscription failing for 5 days is disabled, with the event webhook.disabled", async () => {
    const ws = await h.workspace();
    const r = receiver();
    r.fallback = 500;
    const sub = await subscribe(ws, r.url, "company.created");
    await db`update webhook_subscriptions set failing_since = now() - interval '5 days 1 minute' where id = ${sub.id}`;
    await createCompany(ws);
    const disabled = await until(async () => {
      const [row] = await db<{ status: string; reason: string }[]>`
        select status, disabled_reason as reason from webhook_subscriptions where id = ${sub.id}`;
      return row!.status === "disabled" ? row : undefined;
    }, "the subscription to be disabled");
    expect(disabled).toEqual({ status: "disabled", reason: "failing" });
    const events = (await h.request("GET", "/events?type=webhook.disabled", { key: ws.key })).body;
    expect(events).toEqual([
      expect.objectContaining({
        type: "webhook.disabled",
        subject: { kind: "webhook_subscription", id: sub.id },
        actor: { kind: "worker", id: "webhook-deliver" },
        data: expect.objectContaining({ id: sub.id, status: "disabled", disabledReason: "failing" }),
      }),
    ]);
  });

  test("a delivery to a private address is refused at delivery time when the allow flag is off", async () => {
    const ws = await h.workspace();
    const r = receiver();
    // Subscribed to another type, so the dispatcher never makes this delivery itself: the test makes it by hand.
    const sub = await subscribe(ws, r.url, "task.cancelled");
    const strict: AppContext = { ...ctx, config: { ...config, webhooksAllowPrivate: false } };
    await createCompany(ws);
    const [event] = await db<{ id: string }[]>`select id from events where workspace_id = ${ws.id}`;
    await db`insert into event_deliveries (id, workspace_id, event_id, subscription_id)
             values ('D-PRIVATE', ${ws.id}, ${event!.id}, ${sub.id})`;
    expect(await attemptDeliveries(strict, [{ workspaceId: ws.id, id: "D-PRIVATE" }])).toEqual(["retry"]);
    const [attempt] = await db<
      { error: string }[]
    >`select error from event_delivery_attempts where delivery_id = 'D-PRIVATE'`;
    expect(attempt!.error).toContain("refused: a webhook URL must start with https://");
    expect(r.received.length).toBe(0);
  });
});
