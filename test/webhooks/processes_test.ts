/**
 * Deliveries across real service processes (`bun src/main.ts` with its workers): a kill -9 while an attempt is in
 * flight, then a restart, delivers with the same webhook-id; two processes never attempt one delivery at once.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createSubscription, subscriptionDeliveries } from "../../src/webhooks/subscriptions.ts";
import { harness, type TestWorkspace } from "../support/harness.ts";
import { startService, type RunningService } from "../support/service.ts";
import { until } from "../telephony/fixtures.ts";
import { startReceiver, type Receiver } from "./receiver.ts";

const h = await harness();
setDefaultTimeout(120_000);
const db = h.database.db;
const services: RunningService[] = [];
const receivers: Receiver[] = [];
afterAll(async () => {
  for (const s of services) {
    s.process.proc.kill(9);
    await s.process.proc.exited;
  }
  for (const r of receivers) r.stop();
});

async function service(): Promise<RunningService> {
  const s = await startService(h.database.url, {
    WORKERS: "true",
    WEBHOOKS_ALLOW_PRIVATE: "true",
    WEBHOOK_TIMEOUT_MS: "2000",
    WEBHOOK_RETRY_DELAYS: "1,1,1,1,1",
  });
  services.push(s);
  return s;
}

async function createCompany(s: RunningService, ws: TestWorkspace, name: string) {
  const res = await fetch(`${s.base}/companies`, {
    method: "POST",
    headers: { "x-api-key": ws.key, "content-type": "application/json" },
    body: JSON.stringify({ name }),
  });
  expect(res.status).toBe(201);
}

async function allSettled(subscriptionId: string, n: number, timeoutMs = 90_000) {
  return until(
    async () => {
      const { deliveries } = await subscriptionDeliveries(db, subscriptionId, false);
      return deliveries.length >= n && deliveries.every((d) => d.status !== "pending") ? deliveries : undefined;
    },
    "the deliveries to settle",
    timeoutMs,
  );
}

describe("deliveries across processes", () => {
  test("kill -9 while the attempt is in flight: after a restart the event is delivered, same webhook-id", async () => {
    const ws = await h.workspace();
    const r = startReceiver();
    receivers.push(r);
    r.answers = ["hang"];
    const sub = await createSubscription(db, { workspace: ws.slug, url: r.url, events: "*" }, { allowPrivate: true });
    const first = await service();
    await createCompany(first, ws, "Crash Ltd");
    await r.count(1);
    first.process.proc.kill(9);
    await first.process.proc.exited;
    await service();
    const [delivery] = await allSettled(sub.id, 1);
    expect(delivery!.status).toBe("delivered");
    expect(r.received.length).toBeGreaterThanOrEqual(2);
    expect(new Set(r.received.map((x) => x.id)).size).toBe(1);
  });

  test("two processes: every event delivered, each delivery attempted by one process at a time", async () => {
    const ws = await h.workspace();
    const r = startReceiver({ delayMs: 30 });
    receivers.push(r);
    const sub = await createSubscription(db, { workspace: ws.slug, url: r.url, events: "*" }, { allowPrivate: true });
    const [a, b] = [await service(), await service()];
    for (let i = 0; i < 40; i++) await createCompany(i % 2 ? a : b, ws, `Company ${i}`);
    const deliveries = await allSettled(sub.id, 40);
    expect(deliveries.every((d) => d.status === "delivered" && d.attempts === 1)).toBe(true);
    expect(r.received.length).toBe(40);
    expect(new Set(r.received.map((x) => x.id)).size).toBe(40);
    expect(r.maxOverlap).toBe(1);
  });
});
