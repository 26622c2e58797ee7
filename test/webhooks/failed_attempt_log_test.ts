/**
 * Every failed delivery attempt writes a warning (issue 35, point 8): the dispatcher's first attempt and the worker's
 * retry alike, with the workspace, subscription, delivery, event, attempt, status, error and next attempt's time, and
 * never the URL's path or query, a secret or the body.
 */
import { afterAll, describe, expect, test } from "bun:test";
import type { AppContext } from "../../src/core/operation.ts";
import { attemptDeliveries, ensureDeliveryQueue } from "../../src/webhooks/deliver.ts";
import { dispatchOnce } from "../../src/webhooks/dispatcher.ts";
import { harness } from "../support/harness.ts";
import { recordingLog } from "../support/recording_log.ts";
import { startReceiver, subscribe, webhookContext } from "./receiver.ts";

const h = await harness();
const db = h.database.db;
const { log, lines } = recordingLog();
const ctx: AppContext = { ...webhookContext(h, "60,60"), log };
await ensureDeliveryQueue(ctx.jobs);
const r = startReceiver();
afterAll(() => r.stop());

describe("a failed attempt", () => {
  test("logs a warning with its delivery's keys, error and next attempt, and no URL path, query or secret", async () => {
    const ws = await h.workspace();
    r.fallback = 503;
    const sub = await subscribe(db, ws, `${r.url}/secret-path?token=sekret-123`);
    const res = await h.request("POST", "/companies", { key: ws.key, body: { name: "Acme" } });
    expect(res.status).toBe(201);
    for (;;) {
      const { events, late } = await dispatchOnce(ctx);
      await late;
      if (!events) break;
    }
    const [delivery] = await db<{ id: string; eventId: string }[]>`
      select id, event_id from event_deliveries where workspace_id = ${ws.id}`;
    const failed = () => lines.filter((l) => l.msg === "webhook delivery attempt failed");
    const line = (attempt: number, nextAttemptAt: unknown) => ({
      level: "warn",
      msg: "webhook delivery attempt failed",
      workspace: ws.id,
      subscription: sub.id,
      delivery: delivery!.id,
      event: delivery!.eventId,
      attempt,
      receiver: new URL(r.url).origin,
      status: 503,
      error: "answered 503",
      nextAttemptAt,
    });
    expect(failed()).toEqual([line(1, expect.any(String))]);
    const next = Date.parse(failed()[0]!.nextAttemptAt as string) - Date.now();
    expect(next).toBeGreaterThan(55_000);
    expect(next).toBeLessThanOrEqual(60_000);

    // The worker's retry, and its last: failed for good, no next attempt.
    await db`update event_deliveries set next_attempt_at = now() where id = ${delivery!.id}`;
    expect(await attemptDeliveries(ctx, [{ workspaceId: ws.id, id: delivery!.id }])).toEqual(["retry"]);
    await db`update event_deliveries set next_attempt_at = now() where id = ${delivery!.id}`;
    expect(await attemptDeliveries(ctx, [{ workspaceId: ws.id, id: delivery!.id }])).toEqual(["failed"]);
    expect(failed()).toEqual([line(1, expect.any(String)), line(2, expect.any(String)), line(3, null)]);
    const text = JSON.stringify(lines);
    for (const secretish of ["secret-path", "sekret-123", "whsec_", sub.secret]) expect(text).not.toContain(secretish);
  });
});
