/**
 * Deliveries in batches, with no background worker in this file: the dispatcher queues a failing subscription's new
 * deliveries as jobs of up to 50 (a subscription that is not failing gets its first attempts from the dispatcher
 * itself: inline_test.ts), and one job's deliveries are claimed, POSTed to a real local receiver and recorded
 * together, a failure retried by a job of its own, a delivery held by another worker left to it.
 */
import { afterAll, describe, expect, test } from "bun:test";
import type { AppContext } from "../../src/core/operation.ts";
import { attemptDeliveries, deliveriesPerJob, ensureDeliveryQueue } from "../../src/webhooks/deliver.ts";
import { dispatchOnce } from "../../src/webhooks/dispatcher.ts";
import { createSubscription } from "../../src/webhooks/subscriptions.ts";
import { harness, type TestWorkspace } from "../support/harness.ts";
import { startReceiver, webhookContext } from "./receiver.ts";

const h = await harness();
const db = h.database.db;
const ctx = webhookContext(h, "60,60,60");
const config = ctx.config;
await ensureDeliveryQueue(ctx.jobs);
const ok = startReceiver();
const failing = startReceiver();
failing.fallback = 500;
afterAll(() => {
  ok.stop();
  failing.stop();
});

async function createCompanies(ws: TestWorkspace, n: number) {
  for (let i = 0; i < n; i++) {
    const res = await h.request("POST", "/companies", { key: ws.key, body: { name: `Company ${i}` } });
    expect(res.status).toBe(201);
  }
}

/** The delivery jobs queued, oldest first: each one's deliveries as [workspaceId, id]. */
async function deliveryJobs() {
  const rows = await db<{ deliveries: [string, string][] }[]>`
    select data->'deliveries' as deliveries from pgboss.job where name = 'webhook-deliver' order by created_on, id`;
  return rows.map((r) => r.deliveries);
}

describe("the dispatcher", () => {
  test(`queues a failing subscription's new deliveries ${deliveriesPerJob} a job, each in exactly one job, unattempted`, async () => {
    const ws = await h.workspace();
    const sub = await createSubscription(db, { workspace: ws.slug, url: ok.url, events: "*" }, { allowPrivate: true });
    await db`update webhook_subscriptions set failing_since = now() - interval '1 hour' where id = ${sub.id}`;
    await createCompanies(ws, 2 * deliveriesPerJob + 7);
    const before = (await deliveryJobs()).length;
    const okBefore = ok.received.length;
    let dispatched = 0;
    for (;;) {
      const { events, deliveries } = await dispatchOnce(ctx);
      if (!events) break;
      dispatched += deliveries;
    }
    expect(dispatched).toBe(2 * deliveriesPerJob + 7);
    expect(ok.received.length).toBe(okBefore);
    const jobs = (await deliveryJobs()).slice(before);
    expect(jobs.map((j) => j.length).sort((a, b) => a - b)).toEqual([7, deliveriesPerJob, deliveriesPerJob]);
    const stored = await db<{ id: string; attempts: number; status: string }[]>`
      select id, attempts, status from event_deliveries where workspace_id = ${ws.id} order by id`;
    expect(stored.every((d) => d.attempts === 0 && d.status === "pending")).toBe(true);
    expect(
      jobs
        .flat()
        .map(([w, id]) => (w === ws.id ? id : "another workspace"))
        .sort(),
    ).toEqual(stored.map((d) => d.id));
  });
});

describe("one job's deliveries", () => {
  test("claimed together: successes recorded, a failure scheduled with a job of its own, a held one left alone", async () => {
    const ws = await h.workspace();
    // Subscribed to a type no write here makes: the deliveries below are made by hand.
    const good = await createSubscription(
      db,
      { workspace: ws.slug, url: ok.url, events: "task.cancelled" },
      { allowPrivate: true },
    );
    const bad = await createSubscription(
      db,
      { workspace: ws.slug, url: failing.url, events: "task.cancelled" },
      { allowPrivate: true },
    );
    await createCompanies(ws, 4);
    const events = await db<{ id: string }[]>`select id from events where workspace_id = ${ws.id} order by id`;
    const make = (id: string, eventId: string, subscriptionId: string) =>
      db`insert into event_deliveries (id, workspace_id, event_id, subscription_id)
         values (${id}, ${ws.id}, ${eventId}, ${subscriptionId})`;
    await make("B-OK-1", events[0]!.id, good.id);
    await make("B-OK-2", events[1]!.id, good.id);
    await make("B-FAIL", events[0]!.id, bad.id);
    await make("B-HELD", events[2]!.id, good.id);
    await make("B-DONE", events[3]!.id, good.id);
    await db`update event_deliveries set leased_until = now() + interval '1 minute' where id = 'B-HELD'`;
    await db`update event_deliveries set status = 'delivered', attempts = 1 where id = 'B-DONE'`;
    const keys = ["B-OK-1", "B-FAIL", "B-HELD", "B-OK-2", "B-DONE"].map((id) => ({ workspaceId: ws.id, id }));
    const okBefore = ok.received.length;
    const jobsBefore = (await deliveryJobs()).length;

    // The held one makes the job fail (pg-boss retries it) after the others are settled.
    await expect(attemptDeliveries(ctx, keys)).rejects.toThrow("B-HELD");
    const state = async () =>
      Object.fromEntries(
        (
          await db<{ id: string; status: string; attempts: number; tries: number; dueLater: boolean }[]>`
            select d.id, d.status, d.attempts, d.next_attempt_at > now() as due_later,
              (select count(*)::int from event_delivery_attempts a
               where a.workspace_id = d.workspace_id and a.delivery_id = d.id) as tries
            from event_deliveries d where d.workspace_id = ${ws.id}`
        ).map((d) => [d.id, { status: d.status, attempts: d.attempts, tries: d.tries, dueLater: d.dueLater }]),
      );
    expect(await state()).toEqual({
      "B-OK-1": { status: "delivered", attempts: 1, tries: 1, dueLater: false },
      "B-OK-2": { status: "delivered", attempts: 1, tries: 1, dueLater: false },
      "B-FAIL": { status: "pending", attempts: 1, tries: 1, dueLater: true },
      "B-HELD": { status: "pending", attempts: 0, tries: 0, dueLater: false },
      "B-DONE": { status: "delivered", attempts: 1, tries: 0, dueLater: false },
    });
    expect(ok.received.length - okBefore).toBe(2);
    // The failure's next attempt is a job of its own; nothing else was queued.
    expect((await deliveryJobs()).slice(jobsBefore)).toEqual([[[ws.id, "B-FAIL"]]]);

    // Once the lease is over, the job's retry attempts the held one and answers the others as done.
    await db`update event_deliveries set leased_until = now() - interval '1 second' where id = 'B-HELD'`;
    expect(await attemptDeliveries(ctx, keys)).toEqual([
      "done_before",
      "not_due",
      "delivered",
      "done_before",
      "done_before",
    ]);
    expect((await state())["B-HELD"]).toEqual({ status: "delivered", attempts: 1, tries: 1, dueLater: false });
  });

  test("a 2xx whose body cannot be read is delivered, the reading error kept with the attempt", async () => {
    const ws = await h.workspace();
    const r = startReceiver();
    r.answers = ["stall"];
    const sub = await createSubscription(
      db,
      { workspace: ws.slug, url: r.url, events: "task.cancelled" },
      { allowPrivate: true },
    );
    await createCompanies(ws, 1);
    const [event] = await db<{ id: string }[]>`select id from events where workspace_id = ${ws.id}`;
    await db`insert into event_deliveries (id, workspace_id, event_id, subscription_id)
             values ('B-STALL', ${ws.id}, ${event!.id}, ${sub.id})`;
    const slow: AppContext = { ...ctx, config: { ...config, webhookTimeoutMs: 300 } };
    try {
      expect(await attemptDeliveries(slow, [{ workspaceId: ws.id, id: "B-STALL" }])).toEqual(["delivered"]);
      const [attempt] = await db<{ responseStatus: number; responseBody: string | null; error: string }[]>`
        select response_status, response_body, error from event_delivery_attempts where delivery_id = 'B-STALL'`;
      expect(attempt).toEqual({
        responseStatus: 200,
        responseBody: null,
        error: "reading the answer: timed out after 300 ms",
      });
    } finally {
      r.stop();
    }
  });
});
