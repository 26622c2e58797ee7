/** The daily purge of requestId ledger entries older than 30 days. */
import { describe, expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import { runJobNow } from "../support/jobs.ts";
import { queues } from "../../src/core/jobs.ts";
import { purgeLedger } from "../../src/core/idempotency.ts";
import { ledgerPurgeCron, startLedgerPurge } from "../../src/ledger_purge.ts";
import { workerStarters } from "../../src/workers.ts";

const h = await harness();
const db = h.database.db;

async function seedLedger(workspaceId: string, ages: Record<string, string>) {
  for (const [requestId, age] of Object.entries(ages)) {
    await db`
      insert into idempotency_ledger (workspace_id, operation_id, request_id, fingerprint, status, body, created_at)
      values (${workspaceId}, 'contacts.createCompany', ${requestId}, 'f', 201, '{}', now() - ${age}::interval)`;
  }
}

async function requestIds(workspaceId: string) {
  const rows = await db<
    { requestId: string }[]
  >`select request_id from idempotency_ledger where workspace_id = ${workspaceId} order by request_id`;
  return rows.map((r) => r.requestId);
}

describe("the ledger purge", () => {
  test("forgets entries older than 30 days and keeps the others", async () => {
    const ws = await h.workspace();
    await seedLedger(ws.id, { old: "31 days", ancient: "400 days", recent: "29 days 23 hours", fresh: "1 minute" });
    expect(await purgeLedger(db, 30)).toBeGreaterThanOrEqual(2);
    expect(await requestIds(ws.id)).toEqual(["fresh", "recent"]);
  });

  test("never keeps entries for less than 30 days, whatever it is asked", async () => {
    const ws = await h.workspace();
    await seedLedger(ws.id, { twenty: "20 days" });
    await purgeLedger(db, 1);
    expect(await requestIds(ws.id)).toEqual(["twenty"]);
  });

  test("after a purge the same requestId creates a new company", async () => {
    const ws = await h.workspace();
    const body = { requestId: "reused-later", name: "Later Co" };
    const first = await h.request("POST", "/companies", { key: ws.key, body });
    await db`update idempotency_ledger set created_at = now() - interval '31 days' where workspace_id = ${ws.id}`;
    await purgeLedger(db);
    const again = await h.request("POST", "/companies", { key: ws.key, body });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect(again.body.id).not.toBe(first.body.id);
  });

  test("is registered as a worker starter that schedules it daily and runs it", async () => {
    expect(workerStarters).toContain(startLedgerPurge);
    const ws = await h.workspace();
    await seedLedger(ws.id, { stale: "45 days", kept: "2 days" });
    await startLedgerPurge(h.ctx);
    const boss = await h.ctx.jobs.boss();
    const schedules = await boss.getSchedules(queues.ledgerPurge);
    expect(schedules.map((s) => [s.name, s.cron, s.timezone])).toEqual([
      [queues.ledgerPurge, ledgerPurgeCron, "Europe/London"],
    ]);
    // Run one occurrence now instead of waiting for 03:17.
    await runJobNow(boss, queues.ledgerPurge);
    expect(await requestIds(ws.id)).toEqual(["kept"]);
  });
});
