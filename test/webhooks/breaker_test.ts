/**
 * A receiver that keeps not answering is set aside (src/webhooks/breaker.ts, its state in `event_delivery_breakers`),
 * with no background worker in this file (each step run by hand): its deliveries are held back unattempted, due after
 * the cool-down, with their attempts and retry schedule unchanged; then one delivery probes it: no answer opens it
 * again for twice as long, an answer closes it and the held deliveries go. Another workspace's receivers and breakers
 * are its own.
 */
import { afterAll, describe, expect, test } from "bun:test";
import type { AppContext } from "../../src/core/operation.ts";
import { purgeEvents } from "../../src/events/queries.ts";
import { breakerRule } from "../../src/webhooks/breaker.ts";
import { attemptDeliveries, ensureDeliveryQueue } from "../../src/webhooks/deliver.ts";
import { dispatchOnce } from "../../src/webhooks/dispatcher.ts";
import { freePort } from "../support/pgbouncer.ts";
import { harness, type TestWorkspace } from "../support/harness.ts";
import { recordingLog } from "../support/recording_log.ts";
import { subscribe as subscribeTo, webhookContext } from "./receiver.ts";

const h = await harness();
const db = h.database.db;
const { log, lines } = recordingLog();
const ctx: AppContext = { ...webhookContext(h, "60,60,60"), log };
await ensureDeliveryQueue(ctx.jobs);

// Nothing listens on this port yet: a connection there is refused (no answer), until the test starts a receiver.
const port = freePort();
const origin = `http://127.0.0.1:${port}`;
let server: ReturnType<typeof Bun.serve> | undefined;
afterAll(() => server?.stop(true));

const subscribe = (ws: TestWorkspace, path: string) => subscribeTo(db, ws, `${origin}${path}`);

async function createCompanies(ws: TestWorkspace, n: number) {
  for (let i = 0; i < n; i++) {
    const res = await h.request("POST", "/companies", { key: ws.key, body: { name: `Company ${i}` } });
    expect(res.status).toBe(201);
  }
}

async function dispatchAll() {
  for (;;) {
    const { events, late } = await dispatchOnce(ctx);
    await late;
    if (!events) return;
  }
}

async function breaker(ws: TestWorkspace) {
  const [row] = await db<{ failures: number; opens: number; openForSeconds: number | null }[]>`
    select failures, opens, extract(epoch from open_until - now())::float8 as open_for_seconds
    from event_delivery_breakers where workspace_id = ${ws.id} and receiver = ${origin}`;
  return row;
}

/** The workspace's deliveries, by event: attempts made, status, seconds until due, and attempts recorded. */
async function deliveries(ws: TestWorkspace) {
  return db<{ id: string; status: string; attempts: number; dueInSeconds: number; tries: number }[]>`
    select d.id, d.status, d.attempts, extract(epoch from d.next_attempt_at - now())::float8 as due_in_seconds,
      (select count(*)::int from event_delivery_attempts a
       where a.workspace_id = d.workspace_id and a.delivery_id = d.id) as tries
    from event_deliveries d where d.workspace_id = ${ws.id} order by d.event_id, d.subscription_id`;
}

const dueNow = (ws: TestWorkspace) =>
  db`update event_deliveries set next_attempt_at = now() where workspace_id = ${ws.id} and status = 'pending'`;
const coolDownOver = (ws: TestWorkspace) =>
  db`update event_delivery_breakers set open_until = now() - interval '1 second' where workspace_id = ${ws.id}`;

describe("a receiver that does not answer", () => {
  const state: { ws?: TestWorkspace; other?: TestWorkspace } = {};

  test(`${breakerRule.failuresToOpen} times in a row: set aside, its deliveries held back unattempted until the cool-down's end`, async () => {
    await dispatchAll();
    const ws = await h.workspace();
    state.ws = ws;
    await subscribe(ws, "/hooks");
    await createCompanies(ws, 3);
    await dispatchAll();
    expect(await breaker(ws)).toEqual({ failures: 3, opens: 1, openForSeconds: expect.any(Number) });
    expect((await breaker(ws))!.openForSeconds).toBeGreaterThan(breakerRule.firstCoolDownSeconds - 5);
    expect((await breaker(ws))!.openForSeconds).toBeLessThanOrEqual(breakerRule.firstCoolDownSeconds);
    const setAside = lines.filter((l) => l.msg === "webhook receiver set aside");
    expect(setAside).toEqual([
      {
        level: "warn",
        msg: "webhook receiver set aside",
        workspace: ws.id,
        receiver: origin,
        failures: 3,
        until: expect.any(String),
      },
    ]);

    // A new subscription to the same receiver (not failing itself): the dispatcher holds its delivery back.
    await subscribe(ws, "/other");
    await createCompanies(ws, 1);
    await dispatchAll();
    const rows = await deliveries(ws);
    expect(rows).toHaveLength(3 + 2);
    expect(rows.map((d) => [d.status, d.attempts, d.tries])).toEqual([
      ["pending", 1, 1],
      ["pending", 1, 1],
      ["pending", 1, 1],
      ["pending", 0, 0], // the failing subscription's: the worker's, due now
      ["pending", 0, 0], // the other's: held back
    ]);
    expect(rows[3]!.dueInSeconds).toBeLessThan(1);
    expect(rows[4]!.dueInSeconds).toBeGreaterThan(breakerRule.firstCoolDownSeconds - 5);
    // The worker holds them back too, giving the claim's attempt back: due at the cool-down's end, with a job then.
    await dueNow(ws);
    const keys = rows.map((d) => ({ workspaceId: ws.id, id: d.id }));
    expect(await attemptDeliveries(ctx, keys)).toEqual(["held", "held", "held", "held", "held"]);
    const after = await deliveries(ws);
    expect(after.map((d) => [d.attempts, d.tries])).toEqual(rows.map((d) => [d.attempts, d.tries]));
    for (const d of after) expect(d.dueInSeconds).toBeGreaterThan(breakerRule.firstCoolDownSeconds - 5);
    const [job] = await db<{ startsIn: number }[]>`
      select extract(epoch from start_after - now())::float8 as starts_in from pgboss.job
      where name = 'webhook-deliver' and data->'deliveries'->0->>1 = ${rows[0]!.id}
      order by created_on desc limit 1`;
    expect(job!.startsIn).toBeGreaterThan(breakerRule.firstCoolDownSeconds - 5);
  });

  test("another workspace's breaker is its own: its first attempt to the same receiver is made", async () => {
    const other = await h.workspace();
    state.other = other;
    await subscribe(other, "/hooks");
    await createCompanies(other, 1);
    await dispatchAll();
    expect(await breaker(other)).toEqual({ failures: 1, opens: 0, openForSeconds: null });
    expect((await deliveries(other)).map((d) => d.tries)).toEqual([1]);
    // Below the threshold the breaker is closed: the retry is made, and the third failure in a row opens it.
    await dueNow(other);
    const [first] = await deliveries(other);
    expect(await attemptDeliveries(ctx, [{ workspaceId: other.id, id: first!.id }])).toEqual(["retry"]);
    expect(await breaker(other)).toEqual({ failures: 2, opens: 0, openForSeconds: null });
  });

  test("after the cool-down one delivery probes: no answer, set aside again for twice as long", async () => {
    const ws = state.ws!;
    const before = await deliveries(ws);
    await coolDownOver(ws);
    await dueNow(ws);
    const keys = before.map((d) => ({ workspaceId: ws.id, id: d.id }));
    const outcomes = await attemptDeliveries(ctx, keys);
    expect([...outcomes].sort()).toEqual(["held", "held", "held", "held", "retry"]);
    const b = (await breaker(ws))!;
    expect(b).toMatchObject({ failures: 4, opens: 2 });
    expect(b.openForSeconds).toBeGreaterThan(2 * breakerRule.firstCoolDownSeconds - 5);
    expect(b.openForSeconds).toBeLessThanOrEqual(2 * breakerRule.firstCoolDownSeconds);
    // The probe made one attempt more; the others none.
    const after = await deliveries(ws);
    const probe = outcomes.indexOf("retry");
    expect(after.map((d) => d.attempts)).toEqual(before.map((d, i) => d.attempts + (i === probe ? 1 : 0)));
  });

  test("an answer to the probe closes it; the held deliveries then go, each with the attempts it had", async () => {
    const ws = state.ws!;
    server = Bun.serve({ hostname: "127.0.0.1", port, fetch: () => new Response(null, { status: 204 }) });
    const before = await deliveries(ws);
    await coolDownOver(ws);
    await dueNow(ws);
    const keys = before.map((d) => ({ workspaceId: ws.id, id: d.id }));
    const outcomes = await attemptDeliveries(ctx, keys);
    expect([...outcomes].sort()).toEqual(["delivered", "held", "held", "held", "held"]);
    expect(await breaker(ws)).toBeUndefined();
    expect(lines.filter((l) => l.msg === "webhook receiver answers again")).toEqual([
      { level: "info", msg: "webhook receiver answers again", workspace: ws.id, receiver: origin },
    ]);
    await dueNow(ws);
    expect(await attemptDeliveries(ctx, keys)).toEqual(
      outcomes.map((o) => (o === "delivered" ? "done_before" : "delivered")),
    );
    const after = await deliveries(ws);
    expect(after.every((d) => d.status === "delivered")).toBe(true);
    // Held back was never an attempt: each made one attempt more than it had.
    expect(after.map((d) => d.attempts)).toEqual(before.map((d) => d.attempts + 1));
  });
});

describe("the daily events purge", () => {
  test("forgets breakers not touched for the retention, keeps the others", async () => {
    const ws = await h.workspace();
    await db`insert into event_delivery_breakers (workspace_id, receiver, failures, opens, open_until, updated_at)
             values (${ws.id}, 'https://old.example', 3, 9, now() + interval '1 hour', now() - interval '31 days'),
                    (${ws.id}, 'https://new.example', 3, 1, now() + interval '1 hour', now())`;
    await purgeEvents(db, 30);
    const left = await db<{ receiver: string }[]>`
      select receiver from event_delivery_breakers where workspace_id = ${ws.id}`;
    expect(left.map((r) => r.receiver)).toEqual(["https://new.example"]);
  });
});
