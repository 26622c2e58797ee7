/**
 * First attempts made by the dispatcher itself, with no background worker in this file (each step run by hand): a
 * success is recorded in a run (no delivery row, no job) and listed by the CLI; a failure becomes a delivery retried
 * with the same webhook-id; a receiver slower than the hand-off is recorded when it answers and its job then finds it
 * done; a batch is bounded by deliveries; two dispatchers never POST one event to one subscription twice; a
 * dispatcher whose lease was taken over rolls back without moving the position.
 */
import { describe, expect, test } from "bun:test";
import { connect } from "../../src/core/db.ts";
import type { AppContext } from "../../src/core/operation.ts";
import { attemptDeliveries, ensureDeliveryQueue } from "../../src/webhooks/deliver.ts";
import { deliveriesPerBatch, DispatchLeaseLost, dispatchOnce } from "../../src/webhooks/dispatcher.ts";
import { subscriptionDeliveries } from "../../src/webhooks/subscriptions.ts";
import { throughPgBouncer } from "../support/database.ts";
import { harness, type TestWorkspace } from "../support/harness.ts";
import { runCli } from "../support/service.ts";
import { fileReceivers, subscribe as subscribeTo, webhookContext } from "./receiver.ts";

const h = await harness();
const db = h.database.db;
const base = webhookContext(h, "1,1,1");
const ctx: AppContext = { ...base, config: { ...base.config, webhookHandoffMs: 250 } };
await ensureDeliveryQueue(ctx.jobs);

const receiver = fileReceivers();

const subscribe = (ws: TestWorkspace, url: string, events = "*") => subscribeTo(db, ws, url, events);

async function createCompanies(ws: TestWorkspace, n: number) {
  for (let i = 0; i < n; i++) {
    const res = await h.request("POST", "/companies", { key: ws.key, body: { name: `Company ${i}` } });
    expect(res.status).toBe(201);
  }
}

/** Dispatches until nothing is left; answers each batch's counts. */
async function dispatchAll(c: AppContext = ctx) {
  const batches: { events: number; deliveries: number }[] = [];
  for (;;) {
    const { events, deliveries, late } = await dispatchOnce(c);
    await late;
    if (!events) return batches;
    batches.push({ events, deliveries });
  }
}

/** Brings the workspace's pending retries due now, as the clock would by their back-off. */
async function retryDueNow(workspaceId: string) {
  await db`update event_deliveries set next_attempt_at = now() where workspace_id = ${workspaceId} and status = 'pending'`;
}

async function position() {
  const [row] = await db<{ tx: string; id: string; leaseId: string | null }[]>`
    select tx_id::text as tx, event_id as id, lease_id from event_dispatch`;
  return row!;
}

async function jobsOf(workspaceId: string) {
  return db<{ deliveries: [string, string][]; startsIn: number }[]>`
    select data->'deliveries' as deliveries, extract(epoch from start_after - now())::float8 as starts_in
    from pgboss.job
    where name = 'webhook-deliver' and data->'deliveries'->0->>0 = ${workspaceId}
    order by created_on, id`;
}

describe("a first attempt that succeeds", () => {
  test("is recorded in a run (no delivery row, no job) and listed by the CLI as delivered", async () => {
    await dispatchAll();
    const ws = await h.workspace();
    const r = receiver();
    const sub = await subscribe(ws, r.url);
    await createCompanies(ws, 3);
    expect(await dispatchAll()).toEqual([{ events: 3, deliveries: 3 }]);
    expect(r.received.length).toBe(3);
    expect(await db`select 1 from event_deliveries where workspace_id = ${ws.id}`).toHaveLength(0);
    expect(await jobsOf(ws.id)).toHaveLength(0);
    const runs = await db<{ id: string; eventIds: string[]; responseStatuses: number[] }[]>`
      select id, event_ids, response_statuses from event_delivery_runs where subscription_id = ${sub.id}`;
    expect(runs).toHaveLength(1);
    const events = await db<{ id: string }[]>`select id from events where workspace_id = ${ws.id} order by id desc`;
    expect([...runs[0]!.eventIds].sort().reverse()).toEqual(events.map((e) => e.id));
    expect(runs[0]!.responseStatuses).toEqual([200, 200, 200]);
    expect(r.received.map((x) => x.id).sort()).toEqual([...runs[0]!.eventIds].sort());

    const listed = await runCli(["webhook", "deliveries", "--id", sub.id], { databaseUrl: h.database.url });
    expect(listed.code).toBe(0);
    expect(listed.out.deliveries).toEqual(
      events.map((e) => ({
        id: `${runs[0]!.id}-${e.id}`,
        eventId: e.id,
        eventType: "company.created",
        status: "delivered",
        attempts: 1,
        nextAttemptAt: null,
        createdAt: expect.any(String),
        finishedAt: expect.any(String),
        lastAttempt: {
          attempt: 1,
          startedAt: expect.any(String),
          responseStatus: 200,
          durationMs: expect.any(Number),
          error: null,
          responseBody: expect.stringMatching(/^answer 200 /),
        },
      })),
    );
    const failed = await runCli(["webhook", "deliveries", "--id", sub.id, "--failed"], {
      databaseUrl: h.database.url,
    });
    expect(failed.out).toEqual({ deliveries: [] });
  });

  test(`a batch takes whole events up to ${deliveriesPerBatch} deliveries`, async () => {
    await dispatchAll();
    const ws = await h.workspace();
    const r = receiver();
    await subscribe(ws, r.url);
    await subscribe(ws, r.url);
    const n = deliveriesPerBatch / 2 + 7;
    await createCompanies(ws, n);
    // A hand-off long enough for every POST to be made inline, however loaded the machine (16 at once to a receiver).
    const patient: AppContext = { ...ctx, config: { ...ctx.config, webhookHandoffMs: 120_000 } };
    expect(await dispatchAll(patient)).toEqual([
      { events: deliveriesPerBatch / 2, deliveries: deliveriesPerBatch },
      { events: 7, deliveries: 14 },
    ]);
    expect(r.received.length).toBe(2 * n);
  });

  test("many subscriptions to one receiver: at most 16 POSTs at once there, over at most 16 kept connections", async () => {
    await dispatchAll();
    const ws = await h.workspace();
    let inFlight = 0;
    let most = 0;
    const ports = new Set<number>();
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(request, srv) {
        ports.add(srv.requestIP(request)?.port ?? 0);
        most = Math.max(most, ++inFlight);
        await request.text();
        await Bun.sleep(20);
        inFlight--;
        return new Response(null, { status: 204 });
      },
    });
    try {
      for (let i = 0; i < 20; i++) await subscribe(ws, `http://127.0.0.1:${server.port}/hooks/${i}`);
      await createCompanies(ws, 3);
      expect(await dispatchAll()).toEqual([{ events: 3, deliveries: 60 }]);
      expect(most).toBe(16);
      expect(ports.size).toBeLessThanOrEqual(16);
      expect(await db`select 1 from event_deliveries where workspace_id = ${ws.id}`).toHaveLength(0);
    } finally {
      server.stop(true);
    }
  });
});

describe("a first attempt that fails or is slow", () => {
  test("500 then 200: a delivery with the attempt recorded, retried by its job with the same webhook-id", async () => {
    await dispatchAll();
    const ws = await h.workspace();
    const r = receiver();
    r.answers = [500];
    const sub = await subscribe(ws, r.url);
    await createCompanies(ws, 1);
    await dispatchAll();
    const [delivery] = await db<{ id: string; status: string; attempts: number; dueLater: boolean }[]>`
      select id, status, attempts, next_attempt_at > now() as due_later
      from event_deliveries where workspace_id = ${ws.id}`;
    expect(delivery).toMatchObject({ status: "pending", attempts: 1, dueLater: true });
    const [failing] = await db<{ failing: boolean }[]>`
      select failing_since is not null as failing from webhook_subscriptions where id = ${sub.id}`;
    expect(failing!.failing).toBe(true);
    const jobs = await jobsOf(ws.id);
    expect(jobs.map((j) => j.deliveries)).toEqual([[[ws.id, delivery!.id]]]);
    expect(jobs[0]!.startsIn).toBeGreaterThan(0);
    await retryDueNow(ws.id);
    expect(await attemptDeliveries(ctx, [{ workspaceId: ws.id, id: delivery!.id }])).toEqual(["delivered"]);
    expect(r.received.length).toBe(2);
    expect(r.received[1]!.id).toBe(r.received[0]!.id);
    const { deliveries } = await subscriptionDeliveries(db, sub.id, false);
    expect(deliveries).toEqual([
      expect.objectContaining({ id: delivery!.id, status: "delivered", attempts: 2, lastAttempt: expect.anything() }),
    ]);
    expect(deliveries[0]!.lastAttempt).toMatchObject({ attempt: 2, responseStatus: 200 });
    const [cleared] = await db<{ failing: boolean }[]>`
      select failing_since is not null as failing from webhook_subscriptions where id = ${sub.id}`;
    expect(cleared!.failing).toBe(false);
  });

  test("a retry whose event was purged meanwhile is abandoned, not POSTed; its sibling is delivered", async () => {
    await dispatchAll();
    const ws = await h.workspace();
    const r = receiver();
    r.answers = [500, 500];
    await subscribe(ws, r.url);
    await createCompanies(ws, 2);
    await dispatchAll();
    const pending = await db<{ id: string; eventId: string }[]>`
      select id, event_id from event_deliveries where workspace_id = ${ws.id} order by event_id`;
    expect(pending.length).toBe(2);
    await db`delete from events where workspace_id = ${ws.id} and id = ${pending[0]!.eventId}`;
    await retryDueNow(ws.id);
    const keys = pending.map((d) => ({ workspaceId: ws.id, id: d.id }));
    expect(await attemptDeliveries(ctx, keys)).toEqual(["abandoned", "delivered"]);
    expect(r.received.length).toBe(3);
    expect(r.received[2]!.id).toBe(pending[1]!.eventId);
    expect(JSON.parse(r.received[2]!.body)).toMatchObject({ id: pending[1]!.eventId, type: "company.created" });
    const states = await db<{ status: string; attempts: number }[]>`
      select status, attempts from event_deliveries where workspace_id = ${ws.id} order by event_id`;
    expect([...states]).toEqual([
      { status: "failed", attempts: 1 },
      { status: "delivered", attempts: 2 },
    ]);
  });

  test("a receiver slower than the hand-off: recorded when it answers, and the queued job finds it done", async () => {
    await dispatchAll();
    const ws = await h.workspace();
    const r = receiver({ delayMs: 700 });
    const sub = await subscribe(ws, r.url);
    await createCompanies(ws, 1);
    const started = performance.now();
    const batch = await dispatchOnce(ctx);
    expect(performance.now() - started).toBeLessThan(650);
    expect(batch).toMatchObject({ events: 1, deliveries: 1 });
    const [pending] = await db<{ id: string; status: string; attempts: number; held: boolean }[]>`
      select id, status, attempts, leased_until > now() + interval '10 seconds' as held
      from event_deliveries where workspace_id = ${ws.id}`;
    expect(pending).toMatchObject({ status: "pending", attempts: 1, held: true });
    const jobs = await jobsOf(ws.id);
    expect(jobs.map((j) => j.deliveries)).toEqual([[[ws.id, pending!.id]]]);
    // The job starts once the lease is over (a crash before the answer is recorded retries it).
    expect(jobs[0]!.startsIn).toBeGreaterThan(10);
    await batch.late;
    const [done] = await db<{ status: string; attempts: number; tries: number }[]>`
      select d.status, d.attempts, (select count(*)::int from event_delivery_attempts a
        where a.workspace_id = d.workspace_id and a.delivery_id = d.id) as tries
      from event_deliveries d where d.workspace_id = ${ws.id}`;
    expect(done).toEqual({ status: "delivered", attempts: 1, tries: 1 });
    expect(await attemptDeliveries(ctx, [{ workspaceId: ws.id, id: pending!.id }])).toEqual(["done_before"]);
    expect(r.received.length).toBe(1);
    const { deliveries } = await subscriptionDeliveries(db, sub.id, false);
    expect(deliveries).toEqual([expect.objectContaining({ id: pending!.id, status: "delivered", attempts: 1 })]);
  });
});

describe("a URL's first attempts", () => {
  test("go 16 at a time; those not started by the hand-off are left to a worker's job, unattempted", async () => {
    await dispatchAll();
    const ws = await h.workspace();
    const r = receiver({ delayMs: 400 });
    await subscribe(ws, r.url);
    await createCompanies(ws, 20);
    const quick: AppContext = { ...ctx, config: { ...ctx.config, webhookHandoffMs: 100 } };
    const batch = await dispatchOnce(quick);
    expect(batch).toMatchObject({ events: 20, deliveries: 20 });
    await batch.late;
    expect(r.received.length).toBe(16);
    expect(r.maxOverlap).toBe(1);
    const rows = await db<{ id: string; attempts: number; status: string }[]>`
      select id, attempts, status from event_deliveries where workspace_id = ${ws.id} order by id`;
    expect(rows.filter((d) => d.attempts === 1 && d.status === "delivered")).toHaveLength(16);
    const unstarted = rows.filter((d) => d.attempts === 0 && d.status === "pending");
    expect(unstarted).toHaveLength(4);
    const due = (await jobsOf(ws.id)).filter((j) => j.startsIn <= 1);
    expect(due.flatMap((j) => j.deliveries.map(([, id]) => id)).sort()).toEqual(unstarted.map((d) => d.id));
  });
});

describe("the position's lease", () => {
  test("two dispatchers never POST one event to one subscription twice", async () => {
    await dispatchAll();
    const other = connect(h.database.url, { max: 4, pooled: throughPgBouncer });
    const second: AppContext = { ...ctx, db: other };
    try {
      const ws = await h.workspace();
      const r = receiver({ delayMs: 20 });
      const sub = await subscribe(ws, r.url);
      let writing = true;
      const loop = async (c: AppContext) => {
        let busy = 0;
        while (writing || busy < 3) {
          const { events, late } = await dispatchOnce(c);
          await late;
          busy = events ? 0 : busy + 1;
          if (!events) await Bun.sleep(5);
        }
      };
      const dispatchers = [loop(ctx), loop(second), loop(ctx), loop(second)];
      await createCompanies(ws, 30);
      writing = false;
      await Promise.all(dispatchers);
      await dispatchAll();
      expect(r.received.length).toBe(30);
      expect(new Set(r.received.map((x) => x.id)).size).toBe(30);
      const { deliveries } = await subscriptionDeliveries(db, sub.id, false);
      expect(deliveries.length).toBe(30);
      expect(deliveries.every((d) => d.status === "delivered" && d.attempts === 1)).toBe(true);
    } finally {
      await other.end();
    }
  });

  test("a dispatcher whose lease was taken over rolls back: the position stays, the new holder delivers", async () => {
    await dispatchAll();
    const ws = await h.workspace();
    const r = receiver();
    const sub = await subscribe(ws, r.url);
    await createCompanies(ws, 2);
    const before = await position();
    const takeOver = async () => {
      await db`update event_dispatch set lease_id = 'another-process'`;
    };
    await expect(dispatchOnce(ctx, { beforeRecord: takeOver })).rejects.toBeInstanceOf(DispatchLeaseLost);
    expect(r.received.length).toBe(2);
    expect(await position()).toEqual({ ...before, leaseId: "another-process" });
    expect(await db`select 1 from event_delivery_runs where subscription_id = ${sub.id}`).toHaveLength(0);
    expect(await db`select 1 from event_deliveries where workspace_id = ${ws.id}`).toHaveLength(0);
    // While the other holds an unexpired lease, this process skips.
    expect((await dispatchOnce(ctx)).events).toBe(0);
    // The other's lease ends (or it dispatches): the batch is dispatched again, the receiver sees the same ids.
    await db`update event_dispatch set leased_until = now() - interval '1 second'`;
    expect(await dispatchAll()).toEqual([{ events: 2, deliveries: 2 }]);
    expect(r.received.length).toBe(4);
    expect(
      r.received
        .slice(2)
        .map((x) => x.id)
        .sort(),
    ).toEqual(
      r.received
        .slice(0, 2)
        .map((x) => x.id)
        .sort(),
    );
    expect((await subscriptionDeliveries(db, sub.id, false)).deliveries).toHaveLength(2);
    expect((await position()).leaseId).toBeNull();
  });
});
