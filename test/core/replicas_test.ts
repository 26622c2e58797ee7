/**
 * Three replicas of the service (`bun src/main.ts`, workers on) behind Debian's HAProxy with deploy/haproxy.cfg,
 * all on one database through Debian's PgBouncer in transaction mode with deploy/pgbouncer.ini (migrations on
 * DATABASE_DIRECT_URL), on 127.0.0.1 only: the budget's bound holds across the three (README, Several replicas), each
 * invitation email and each SMS is sent once (a real SMTP server and a Twilio-shaped provider count them), a revoked
 * key is refused by every replica from the next request, and a rolling restart (SIGTERM one replica at a time,
 * each answering /health 503 while HAProxy drains it) under load fails no request; each webhook delivery is made once,
 * by one replica at a time (a real receiver counts them). Skips with a line saying so only outside CI when PgBouncer or HAProxy is not installed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import { havePgBouncer, startPgBouncer, type PgBouncer } from "../support/pgbouncer.ts";
import { haveHaproxy, startHaproxy, type Haproxy } from "../support/haproxy.ts";
import { startService, type RunningService } from "../support/service.ts";
import { testServerUrl } from "../support/server.ts";
import { startSmtpServer, type TestSmtp } from "../email/smtp.ts";
import { insertThread, startFakeProvider, type FakeProvider } from "../telephony/fixtures.ts";
import { addContact } from "../maintenance_pro/fixtures.ts";
import { allScopes } from "../../src/core/groups.ts";
import { queues } from "../../src/core/jobs.ts";
import { revokeApiKey } from "../../src/core/api_keys.ts";
import { createApiKey } from "../../src/core/api_keys.ts";
import { createSubscription, subscriptionDeliveries } from "../../src/webhooks/subscriptions.ts";
import { startReceiver, type Receiver } from "../webhooks/receiver.ts";

const h = await harness();
const db = h.database.db;
const present = havePgBouncer("three replicas behind HAProxy") && haveHaproxy("three replicas behind HAProxy");
/** Longer than HAProxy needs to take a replica out (two failed checks a second apart). */
const drainMs = 3500;

describe.skipIf(!present)("three replicas behind HAProxy and PgBouncer", () => {
  let bouncer: PgBouncer;
  let balancer: Haproxy;
  let smtp: TestSmtp;
  let provider: FakeProvider;
  let receiver: Receiver;
  /** The replicas' ports: each first listens on one the system chose (no port picked early for another to take). */
  let ports: number[] = [];
  const replicas: RunningService[] = [];
  let env: Record<string, string>;

  const start = (port: number) => startService(env.DATABASE_URL!, { ...env, PORT: String(port) });

  beforeAll(async () => {
    bouncer = await startPgBouncer(await testServerUrl());
    smtp = await startSmtpServer();
    provider = startFakeProvider();
    receiver = startReceiver({ delayMs: 30 });
    const direct = new URL(await testServerUrl());
    direct.pathname = `/${h.database.name}`;
    env = {
      DATABASE_URL: bouncer.urlFor(h.database.name),
      DATABASE_DIRECT_URL: direct.toString(),
      WORKERS: "true",
      CHECK_RESPONSES: "false",
      SHUTDOWN_DRAIN_MS: String(drainMs),
      SMTP_URL: smtp.url,
      SMS_PROVIDER_URL: provider.url,
      SMS_ACCOUNT_SID: "AC0123",
      SMS_AUTH_TOKEN: "token",
      // The webhook receiver listens on 127.0.0.1.
      WEBHOOKS_ALLOW_PRIVATE: "true",
    };
    replicas.push(...(await Promise.all([0, 0, 0].map(start))));
    ports = replicas.map((r) => Number(new URL(r.base).port));
    balancer = await startHaproxy(ports);
    await waitAllUp();
  }, 60_000);

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await balancer?.stop();
    await bouncer?.stop();
    await smtp?.close();
    provider?.stop();
    receiver?.stop();
  });

  /** Until HAProxy has sent a request to each of the three (round robin over the servers it takes for up). */
  async function waitAllUp() {
    for (let i = 0; i < 200; i++) {
      const seen = new Set<string>();
      for (let j = 0; j < 6; j++) {
        const res = await fetch(`${balancer.base}/health`).catch(() => null);
        if (res?.status === 200) seen.add(res.headers.get("x-served-by") ?? String(j));
        await res?.arrayBuffer();
      }
      if (seen.size >= 3) return;
      await Bun.sleep(100);
    }
  }

  /** Waits (at most 30 s) until no job of the queues is created, retrying or active (and, unless `none`, some were). */
  async function untilJobsSettled(names: string[], options: { none?: boolean } = {}) {
    for (const deadline = performance.now() + 30_000; ; await Bun.sleep(50)) {
      const jobs = await db<{ name: string; state: string }[]>`
        select name, state::text from pgboss.job where name = any(${names}::text[])`;
      const open = jobs.filter((j) => !["completed", "cancelled", "failed"].includes(j.state));
      if ((jobs.length || options.none) && !open.length) return;
      if (performance.now() > deadline) throw new Error(`jobs still open after 30 s: ${JSON.stringify(open)}`);
    }
  }

  /** Calls through the balancer. */
  const call = (key: string, method: string, path: string, body?: unknown) =>
    fetch(`${balancer.base}${path}`, {
      method,
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });

  test("the budget holds its bound across the three", async () => {
    const ws = await h.workspace();
    const perMinute = 600;
    const k = await createApiKey(db, {
      workspace: ws.slug,
      name: "budget",
      scopes: [...allScopes],
      expiresInDays: 7,
      budgetPerMinute: perMinute,
    });
    const statuses = new Map<number, number>();
    const started = performance.now();
    // At least 3 s, and until the budget was spent and refused (a loaded machine needs longer), at most 40 s.
    const done = () => {
      const spent = performance.now() - started;
      const proven = (statuses.get(200) ?? 0) >= perMinute && (statuses.get(429) ?? 0) > 0;
      return spent >= 40_000 || (spent >= 3000 && proven);
    };
    await Promise.all(
      Array.from({ length: 24 }, async () => {
        while (!done()) {
          const res = await call(k.key, "GET", "/compliance/block-profiles");
          await res.arrayBuffer();
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        }
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    const admitted = statuses.get(200) ?? 0;
    expect([...statuses.keys()].filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(admitted).toBeGreaterThanOrEqual(perMinute);
    expect(admitted).toBeLessThanOrEqual(perMinute + (perMinute / 60) * elapsed);
    expect(statuses.get(429) ?? 0).toBeGreaterThan(0);
  }, 70_000);

  test("each invitation email and each SMS is sent once, whichever replica's worker takes it", async () => {
    const ws = await h.workspace();
    const thread = await insertThread(db, ws.id);
    const landlords = await Promise.all(Array.from({ length: 9 }, () => addContact(db, ws)));
    for (const l of landlords) {
      const res = await call(ws.key, "POST", `/maintenance-pro/landlords/${l.id}/portal-access/invite`);
      expect(res.status).toBe(200);
    }
    const sms = await Promise.all(
      Array.from({ length: 9 }, async (_, i) => {
        const res = await call(ws.key, "POST", `/telephony/sms/threads/${thread}/messages`, { body: `Hello ${i}` });
        expect(res.status).toBe(202);
        return ((await res.json()) as { id: string }).id;
      }),
    );
    const deadline = performance.now() + 40_000;
    const emailed = () => landlords.filter((l) => smtp.to(l.email!).length > 0).length;
    while ((emailed() < landlords.length || provider.created.size < sms.length) && performance.now() < deadline) {
      await Bun.sleep(200);
    }
    // Until no job of theirs is left waiting, retrying or running: nothing is left to send anything again.
    await untilJobsSettled([queues.inviteEmail, queues.smsSend]);
    expect(landlords.map((l) => smtp.to(l.email!).length)).toEqual(landlords.map(() => 1));
    expect(provider.requests.length).toBe(sms.length);
    expect(provider.created.size).toBe(sms.length);
    const [{ n }] = (await db`
      select count(*)::int as n from sms_messages where workspace_id = ${ws.id} and status = 'sent'`) as any;
    expect(n).toBe(sms.length);
  }, 60_000);

  test("each webhook delivery is made once, by one replica at a time, whichever replica's worker takes it", async () => {
    const ws = await h.workspace();
    const sub = await createSubscription(
      db,
      { workspace: ws.slug, url: receiver.url, events: "company.created" },
      { allowPrivate: true },
    );
    const n = 24;
    for (let i = 0; i < n; i++) {
      const res = await call(ws.key, "POST", "/companies", { name: `Replica Company ${i}` });
      expect(res.status).toBe(201);
    }
    const deadline = performance.now() + 45_000;
    let settled = false;
    while (!settled && performance.now() < deadline) {
      const { deliveries } = await subscriptionDeliveries(db, sub.id, false);
      settled = deliveries.length >= n && deliveries.every((d) => d.status === "delivered");
      if (!settled) await Bun.sleep(200);
    }
    // A later event delivered and recorded: the dispatcher went past every batch before it (it makes first attempts itself, in
    // commit order). And no delivery job (a retry, a held delivery's) is left waiting or running: nothing is left to
    // make a second attempt.
    const marker = await call(ws.key, "POST", "/companies", { name: "Replica Company marker" });
    expect(marker.status).toBe(201);
    const markerRecorded = async () => {
      const { deliveries } = await subscriptionDeliveries(db, sub.id, false);
      return deliveries.length > n && deliveries.every((d) => d.status === "delivered");
    };
    for (const giveUp = performance.now() + 30_000; !(await markerRecorded()) && performance.now() < giveUp; ) {
      await Bun.sleep(50);
    }
    expect(receiver.received.some((r) => r.body.includes('"Replica Company marker"'))).toBe(true);
    await untilJobsSettled([queues.webhookDeliver], { none: true });
    const { deliveries } = await subscriptionDeliveries(db, sub.id, false);
    expect(deliveries.length).toBe(n + 1);
    expect(deliveries.every((d) => d.status === "delivered" && d.attempts === 1)).toBe(true);
    expect(receiver.received.length).toBe(n + 1);
    expect(new Set(receiver.received.map((r) => r.id)).size).toBe(n + 1);
    expect(receiver.maxOverlap).toBe(1);
  }, 60_000);

  test("a revoked key is refused by every replica from the next request", async () => {
    const ws = await h.workspace();
    const k = await createApiKey(db, {
      workspace: ws.slug,
      name: "revoked",
      scopes: [...allScopes],
      expiresInDays: 7,
      budgetPerMinute: 100_000,
    });
    const direct = (port: number) =>
      fetch(`http://127.0.0.1:${port}/compliance/block-profiles`, { headers: { "x-api-key": k.key } });
    // Each replica has used the key (and leased from its budget) before it is revoked.
    for (const port of ports) expect((await direct(port)).status).toBe(200);
    await revokeApiKey(db, k.id);
    for (const port of ports) {
      const res = await direct(port);
      expect(res.status).toBe(401);
      expect(((await res.json()) as { _tag: string })._tag).toBe("ApiKeyRejected");
    }
  });

  test("a rolling restart under load fails no request: each stopping replica is drained first", async () => {
    const ws = await h.workspace();
    const key = await h.key(ws, [...allScopes], { budgetPerMinute: 1_000_000 });
    const tenancy = await h.rows(ws).tenancy();
    const statuses = new Map<string, number>();
    let stop = false;
    const load = Promise.all(
      Array.from({ length: 8 }, async (_, c) => {
        let n = 0;
        while (!stop) {
          n += 1;
          try {
            const res =
              c % 4 === 0
                ? await call(key, "POST", "/companies", { requestId: `roll-${c}-${n}`, name: `Rolling ${c} ${n}` })
                : await call(key, "GET", `/handovers/tenancies/${tenancy}`);
            await res.arrayBuffer();
            statuses.set(String(res.status), (statuses.get(String(res.status)) ?? 0) + 1);
          } catch (error) {
            statuses.set((error as Error).name, (statuses.get((error as Error).name) ?? 0) + 1);
          }
        }
      }),
    );
    const drained: number[] = [];
    for (let i = 0; i < replicas.length; i++) {
      const old = replicas[i]!;
      old.process.proc.kill("SIGTERM");
      // While it drains, it still answers, but /health says 503 ShuttingDown.
      await old.process.waitFor(/"msg":"draining/);
      const health = await fetch(`http://127.0.0.1:${ports[i]}/health`).catch(() => null);
      drained.push(health?.status ?? 0);
      await health?.arrayBuffer();
      await old.process.exited();
      replicas[i] = await start(ports[i]!);
      await waitAllUp();
    }
    stop = true;
    await load;
    expect(drained).toEqual([503, 503, 503]);
    const failed = [...statuses].filter(([s]) => s !== "200" && s !== "201");
    expect(failed).toEqual([]);
    expect((statuses.get("200") ?? 0) + (statuses.get("201") ?? 0)).toBeGreaterThan(100);
  }, 90_000);
});
