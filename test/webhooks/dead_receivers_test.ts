/**
 * One workspace's dead receivers do not delay another's webhooks (issue 35, point 5), with the real workers
 * (dispatcher and delivery worker in this process, a 1.5 s attempt timeout): receivers on 127.0.0.1 that accept a
 * connection and never answer count the connections they hold.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startWebhookWorkers } from "../../src/webhooks/deliver.ts";
import { postsPerWorkspace } from "../../src/webhooks/share.ts";
import { until } from "../telephony/fixtures.ts";
import { type DeadReceiver, deadReceiver } from "./dead_receiver.ts";
import { harness, type TestWorkspace } from "../support/harness.ts";
import { fileReceivers, subscribe, webhookContext } from "./receiver.ts";

const h = await harness();
const db = h.database.db;
const ctx = webhookContext(h, "1,1,1");
beforeAll(() => startWebhookWorkers(ctx));
const receiver = fileReceivers();

/** A receiver that accepts connections and never answers: how many it holds now, at most, and in all. */
const receivers: DeadReceiver[] = [];
afterAll(() => {
  for (const r of receivers) r.stop();
});

/** A dead receiver for the calling test, and its URL with this path. */
function deadAt(path: string): DeadReceiver & { url: string } {
  const r = deadReceiver();
  receivers.push(r);
  return Object.assign(r, { url: `http://127.0.0.1:${r.port}/${path}` });
}

async function createCompanies(ws: TestWorkspace, n: number) {
  for (let i = 0; i < n; i++) {
    const res = await h.request("POST", "/companies", { key: ws.key, body: { name: `Company ${i}` } });
    expect(res.status).toBe(201);
  }
}

/** Samples, every few milliseconds until stopped, the most connections the receivers held at once in all. */
function watch(receivers: DeadReceiver[]) {
  let most = 0;
  let watching = true;
  const done = (async () => {
    while (watching) {
      most = Math.max(
        most,
        receivers.reduce((n, r) => n + r.open, 0),
      );
      await Bun.sleep(2);
    }
  })();
  return async () => {
    watching = false;
    await done;
    return most;
  };
}

describe("dead receivers", () => {
  test("one receiver, 60 events: at most 16 connections to it at once, first attempts and the worker's together", async () => {
    const ws = await h.workspace();
    const dead = deadAt("hooks");
    await subscribe(db, ws, dead.url);
    await createCompanies(ws, 60);
    // The dispatcher's first attempts time out after 1.5 s; the deliveries it could not start are the worker's. Wait
    // until the receiver's breaker is open and its connections closed: no attempt is made for its 30 s cool-down, so
    // every attempt of the test's time has been counted.
    await until(async () => {
      const [open] =
        await db`select 1 from event_delivery_breakers where workspace_id = ${ws.id} and open_until > now()`;
      return open && dead.open === 0 ? true : undefined;
    }, "the receiver set aside, its connections closed");
    expect(dead.most).toBeLessThanOrEqual(16);
  });

  test("140 subscriptions to dead receivers, 20 events: another workspace's delivery arrives within 1 s", async () => {
    const a = await h.workspace();
    const b = await h.workspace();
    const dead = Array.from({ length: 140 }, (_, i) => deadAt(`hooks/${i}`));
    for (const r of dead) await subscribe(db, a, r.url);
    const healthy = receiver();
    await subscribe(db, b, healthy.url);
    const stop = watch(dead);
    await createCompanies(a, 20);
    await createCompanies(b, 1);
    const written = Date.now();
    await healthy.count(1, 20_000);
    const waitedMs = healthy.received[0]!.at - written;
    // On until the flood's first attempts have timed out and a second wave has connected.
    const accepted = () => dead.reduce((n, r) => n + r.accepted, 0);
    await until(async () => (accepted() > postsPerWorkspace ? true : undefined), "a second wave of attempts");
    const mostOpen = await stop();
    expect(waitedMs).toBeLessThan(1000);
    // The flooded workspace's share of this process: 32 POSTs in flight at most (it was 2,240 connections).
    expect(mostOpen).toBeLessThanOrEqual(32);
    expect(Math.max(...dead.map((r) => r.most))).toBeLessThanOrEqual(16);
  });
});
