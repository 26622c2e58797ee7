/** GET /events: commit order under racing writers, filters, pages, refusals, and the purge. */
import { describe, expect, test } from "bun:test";
import postgres from "postgres";
import { companyCreated } from "../../src/contacts/events.ts";
import { queues } from "../../src/core/jobs.ts";
import { eventsPurgeCron, startEventsPurge } from "../../src/events/purge.ts";
import { socketOf } from "../../src/core/db.ts";
import { recordEvent } from "../../src/events/record.ts";
import { harness, type TestWorkspace } from "../support/harness.ts";
import { runJobNow } from "../support/jobs.ts";
import { insertTask } from "../tasks/fixtures.ts";
import { createSubscription } from "../../src/webhooks/subscriptions.ts";

const h = await harness();
const db = h.database.db;

/**
 * Records one event in its own transaction, which stays open `holdMs` after the insert, or until `hold` settles
 * (`inserted` is called once the event is inserted).
 */
async function write(
  ws: TestWorkspace,
  subjectId: string,
  holdMs = 0,
  hold?: { until: Promise<void>; inserted: () => void },
): Promise<string> {
  return db.begin(async (tx) => {
    const id = await recordEvent(tx, companyCreated, {
      workspaceId: ws.id,
      subjectId,
      data: { name: subjectId } as never,
      requestId: null,
      actor: { kind: "worker", id: "test" },
    });
    hold?.inserted();
    if (holdMs) await tx`select pg_sleep(${holdMs / 1000})`;
    await hold?.until;
    return id;
  });
}

/** Follows the feed from `link` until an empty page; returns the events and the last link. */
async function follow(ws: TestWorkspace, link: string, key = ws.key): Promise<{ events: any[]; link: string }> {
  const events: any[] = [];
  for (;;) {
    const res = await h.request("GET", link.replace(/^http:\/\/localhost/, ""), { key });
    expect(res.status).toBe(200);
    const next = /^<([^>]+)>; rel="next"$/.exec(res.headers.get("link") ?? "")?.[1];
    expect(next).toBeDefined();
    link = next!;
    if (!res.body.length) return { events, link };
    events.push(...res.body);
  }
}

describe("the feed's order", () => {
  test("a transaction that commits after a later one is listed after it, never skipped", async () => {
    const ws = await h.workspace();
    let commit!: () => void;
    let inserted!: () => void;
    const slowInserted = new Promise<void>((resolve) => (inserted = resolve));
    const started = write(ws, "slow", 0, { until: new Promise<void>((resolve) => (commit = resolve)), inserted });
    await slowInserted;
    await write(ws, "fast");
    // "fast" committed, but "slow" started first and is still running: the feed waits for it.
    const first = await follow(ws, "/events?limit=1");
    expect(first.events).toEqual([]);
    commit();
    await started;
    const second = await follow(ws, first.link);
    expect(second.events.map((e) => e.subject.id)).toEqual(["slow", "fast"]);
  });

  test("a transaction running in another database of the server does not hold the feed back", async () => {
    const ws = await h.workspace();
    const url = new URL(h.database.url);
    url.pathname = "/postgres";
    const to = socketOf(url.toString());
    const other = postgres(to.url, { max: 1, onnotice: () => {}, ...(to.path ? { path: to.path } : {}) });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding!: () => void;
    const started = new Promise<void>((resolve) => (holding = resolve));
    const elsewhere = other.begin(async (tx) => {
      await tx`select pg_current_xact_id()`;
      holding();
      await held;
    });
    try {
      await started;
      await write(ws, "here");
      expect((await follow(ws, "/events")).events.map((e) => e.subject.id)).toEqual(["here"]);
    } finally {
      release();
      await elsewhere;
      await other.end();
    }
  });

  test("racing writers committing out of order: a reader paging with its cursor sees every event exactly once", async () => {
    const ws = await h.workspace();
    const committed: string[] = [];
    let writing = true;
    const writers = Array.from({ length: 8 }, async (_, w) => {
      for (let i = 0; i < 15; i++) {
        committed.push(await write(ws, `w${w}-${i}`, Math.random() * 40));
      }
    });
    const seen: any[] = [];
    // A key whose request budget the reader's polling cannot exhaust.
    const key = await h.key(ws, ["events:read"], { budgetPerMinute: 1_000_000 });
    const reader = (async () => {
      let link = "/events?limit=7";
      while (writing) {
        const page = await follow(ws, link, key);
        seen.push(...page.events);
        link = page.link;
        await Bun.sleep(5);
      }
      seen.push(...(await follow(ws, link, key)).events);
    })();
    await Promise.all(writers);
    writing = false;
    await reader;
    const ids = seen.map((e) => e.id);
    expect(ids.length).toBe(committed.length);
    expect(new Set(ids)).toEqual(new Set(committed));
    // The scenario is the hard one: the writers committed in an order other than their ids'.
    const [sorted] = [[...committed].sort()];
    expect(committed).not.toEqual(sorted);
  });
});

describe("filters, pages and refusals", () => {
  test("type and subjectId filter; every event has the envelope the webhooks send", async () => {
    const ws = await h.workspace();
    const taskId = await insertTask(db, ws.id);
    const created = await h.request("POST", "/companies", { key: ws.key, body: { name: "Acme" } });
    const cancelled = await h.request("POST", `/tasks/${taskId}/cancel`, { key: ws.key });
    const all = await h.request("GET", "/events", { key: ws.key });
    expect(all.body).toEqual([
      {
        id: expect.any(String),
        type: "company.created",
        occurredAt: expect.stringMatching(/Z$/),
        workspaceId: ws.id,
        subject: { kind: "company", id: created.body.id },
        data: created.body,
        requestId: created.headers.get("x-request-id"),
        actor: { kind: "key", id: ws.keyId },
      },
      expect.objectContaining({ type: "task.cancelled", data: cancelled.body }),
    ]);
    const byType = await h.request("GET", "/events?type=task.cancelled,sms.queued", { key: ws.key });
    expect(byType.body.map((e: any) => e.type)).toEqual(["task.cancelled"]);
    const repeated = await h.request("GET", "/events?type=task.cancelled&type=company.created", { key: ws.key });
    expect(repeated.body.length).toBe(2);
    const bySubject = await h.request("GET", `/events?subjectId=${taskId}`, { key: ws.key });
    expect(bySubject.body.map((e: any) => e.subject.id)).toEqual([taskId]);
  });

  test("another workspace's events are never listed", async () => {
    const ws = await h.workspace();
    const other = await h.workspace();
    await write(other, "theirs");
    expect((await h.request("GET", "/events", { key: ws.key })).body).toEqual([]);
  });

  test("an unknown type, a forged cursor and an unknown parameter are 400; a key without events:read is 403", async () => {
    const ws = await h.workspace();
    const bad = await h.request("GET", "/events?type=company.deleted", { key: ws.key });
    expect(bad.status).toBe(400);
    expect(bad.body._tag).toBe("RequestInvalid");
    expect((await h.request("GET", "/events?cursor=abc", { key: ws.key })).status).toBe(400);
    expect((await h.request("GET", "/events?since=1", { key: ws.key })).status).toBe(400);
    const key = await h.key(ws, ["contacts:read"]);
    const refused = await h.request("GET", "/events", { key });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ _tag: "ScopeMissing", scope: "events:read" });
  });
});

describe("the purge", () => {
  test("deletes events older than the retention, their webhook deliveries, attempts and runs with them, keeps the others, and is scheduled daily", async () => {
    const ws = await h.workspace();
    const old = await write(ws, "old");
    const recent = await write(ws, "new");
    await db`update events set occurred_at = now() - interval '31 days' where workspace_id = ${ws.id} and subject_id = 'old'`;
    const sub = await createSubscription(
      db,
      { workspace: ws.slug, url: "http://127.0.0.1:9/hooks", events: "*" },
      { allowPrivate: true },
    );
    for (const [id, eventId, age] of [
      ["PURGE-OLD", old, "31 days"],
      ["PURGE-NEW", recent, "0 days"],
    ] as const) {
      await db`insert into event_deliveries (id, workspace_id, event_id, subscription_id, created_at, status)
               values (${id}, ${ws.id}, ${eventId}, ${sub.id}, now() - ${age}::interval, 'delivered')`;
      await db`insert into event_delivery_attempts (workspace_id, delivery_id, attempt, started_at, duration_ms)
               values (${ws.id}, ${id}, 1, now() - ${age}::interval, 5)`;
      await db`insert into event_delivery_runs (workspace_id, subscription_id, id, started_at, event_ids,
                 response_statuses, durations_ms, response_bodies, errors)
               values (${ws.id}, ${sub.id}, ${`RUN-${id}`}, now() - ${age}::interval, ${[eventId]}::text[],
                 '{204}', '{5}', '{""}', '{NULL}')`;
    }
    await startEventsPurge(h.ctx);
    const boss = await h.ctx.jobs.boss();
    const schedules = await boss.getSchedules(queues.eventsPurge);
    expect(schedules.map((s: any) => [s.name, s.cron, s.timezone])).toEqual([
      [queues.eventsPurge, eventsPurgeCron, "Europe/London"],
    ]);
    await runJobNow(boss, queues.eventsPurge);
    const left = await db<{ subjectId: string }[]>`select subject_id from events where workspace_id = ${ws.id}`;
    expect(left.map((r) => r.subjectId)).toEqual(["new"]);
    const deliveries = await db<{ id: string; attempts: number }[]>`
      select d.id, (select count(*)::int from event_delivery_attempts a
                    where a.workspace_id = d.workspace_id and a.delivery_id = d.id) as attempts
      from event_deliveries d where d.workspace_id = ${ws.id}`;
    expect([...deliveries]).toEqual([{ id: "PURGE-NEW", attempts: 1 }]);
    const orphans =
      await db`select 1 from event_delivery_attempts where workspace_id = ${ws.id} and delivery_id = 'PURGE-OLD'`;
    expect(orphans.length).toBe(0);
    const runs = await db<{ id: string }[]>`select id from event_delivery_runs where workspace_id = ${ws.id}`;
    expect(runs.map((r) => r.id)).toEqual(["RUN-PURGE-NEW"]);
  });
});
