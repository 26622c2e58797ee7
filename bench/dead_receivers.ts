/**
 * `bun bench/dead_receivers.ts`: the dead-receiver flood of issue 35 (point 5) against the real service (`bun
 * src/main.ts`, workers on, the default 10 s attempt timeout). Receivers on 127.0.0.1 that accept a connection and
 * never answer, in this process, count the connections they hold.
 *
 * 1. Flood: workspace A subscribes BENCH_DEAD_SUBSCRIPTIONS (140) URLs on BENCH_DEAD_RECEIVERS (140) such receivers
 *    and writes BENCH_DEAD_EVENTS (20) events; then workspace B, subscribed to a healthy receiver, writes one. Reports
 *    how long B's delivery took to arrive (from B's write answered), the connections open to the dead receivers
 *    (peak, and at B's arrival) and the most open to one of them at once.
 * 2. One receiver: a workspace subscribes one dead receiver and writes BENCH_ONE_EVENTS (100, 400) events: the most
 *    connections open to it at once over BENCH_ONE_SECONDS (30 s, past the in-flight attempts' lease, when their
 *    jobs start).
 *
 * Runs on a fresh database of DATABASE_URL's server (else the embedded Postgres). Prints one JSON object.
 */
import { join } from "node:path";
import { mkdirSync } from "node:fs";
import { connect } from "../src/core/db.ts";
import { createApiKey } from "../src/core/api_keys.ts";
import { allScopes } from "../src/core/groups.ts";
import { createWorkspace } from "../src/core/workspaces.ts";
import { createSubscription } from "../src/webhooks/subscriptions.ts";
import { createBenchDatabase, openServer } from "./database.ts";
import { root, startService } from "./service.ts";
import { type DeadReceiver, deadReceiver } from "../test/webhooks/dead_receiver.ts";

const num = (name: string, fallback: number) => Number(process.env[name] || fallback);
const deadReceivers = num("BENCH_DEAD_RECEIVERS", 140);
const deadSubscriptions = num("BENCH_DEAD_SUBSCRIPTIONS", 140);
const deadEvents = num("BENCH_DEAD_EVENTS", 20);
const oneEvents = (process.env.BENCH_ONE_EVENTS || "100,400").split(",").map(Number);
const oneSeconds = num("BENCH_ONE_SECONDS", 30);
const floodWatchSeconds = num("BENCH_FLOOD_WATCH_SECONDS", 15);
const progress = (line: string) => process.stderr.write(`bench:dead_receivers: ${line}\n`);

const outDir = join(root, ".data", "bench");
mkdirSync(outDir, { recursive: true });
const server = await openServer(process.env.DATABASE_URL, join(root, ".data", "bench-pg-dead-receivers"));

/** A running service on a fresh database, and what a scenario needs of it. */
interface Setup {
  workspace(slug: string): Promise<{ slug: string; key: string }>;
  create(key: string, i: number): Promise<void>;
  subscribe(slug: string, url: string): Promise<unknown>;
}

/** Runs `scenario` against a service of its own on a database of its own (no scenario's retries in another's way). */
async function withService<T>(name: string, scenario: (s: Setup) => Promise<T>): Promise<T> {
  const database = await createBenchDatabase(server.url);
  const db = connect(database.url, { max: 4 });
  const service = await startService({
    databaseUrl: database.url,
    logFile: join(outDir, `dead-receivers-${name}.log`),
    env: { WORKERS: "true", WEBHOOKS_ALLOW_PRIVATE: "true" },
  });
  try {
    return await scenario({
      async workspace(slug) {
        const ws = await createWorkspace(db, { slug: `${slug}-${Date.now()}`, name: slug });
        const { key } = await createApiKey(db, {
          workspace: ws.slug,
          name: "bench",
          scopes: [...allScopes],
          expiresInDays: 7,
          createdBy: "owner",
          budgetPerMinute: 1_000_000,
        });
        return { slug: ws.slug, key };
      },
      async create(key, i) {
        const res = await fetch(`${service.url}/companies`, {
          method: "POST",
          headers: { "x-api-key": key, "content-type": "application/json" },
          body: JSON.stringify({ name: `Company ${i}` }),
        });
        await res.arrayBuffer();
        if (res.status !== 201) throw new Error(`POST /companies answered ${res.status}`);
      },
      subscribe: (slug, url) =>
        createSubscription(db, { workspace: slug, url, events: "company.created" }, { allowPrivate: true }),
    });
  } finally {
    await service.stop();
    await db.end();
    await database.drop();
  }
}

const openNow = (rs: DeadReceiver[]) => rs.reduce((n, r) => n + r.open, 0);

/** 1. The flood, then one healthy delivery. */
async function flood(s: Setup) {
  const dead = Array.from({ length: deadReceivers }, deadReceiver);
  let healthyArrivedAt: number | undefined;
  const healthy = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      await request.arrayBuffer();
      healthyArrivedAt ??= performance.now();
      return new Response(null, { status: 204 });
    },
  });
  try {
    const a = await s.workspace("flooded");
    const b = await s.workspace("healthy");
    for (let i = 0; i < deadSubscriptions; i++) {
      await s.subscribe(a.slug, `http://127.0.0.1:${dead[i % dead.length]!.port}/hooks/${i}`);
    }
    await s.subscribe(b.slug, `http://127.0.0.1:${healthy.port}/hooks`);
    progress(`flood: ${deadEvents} events to ${deadSubscriptions} subscriptions on ${deadReceivers} dead receivers`);
    let peakOpen = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        peakOpen = Math.max(peakOpen, openNow(dead));
        await Bun.sleep(10);
      }
    })();
    for (let i = 0; i < deadEvents; i++) await s.create(a.key, i);
    await s.create(b.key, 0);
    const healthyWritten = performance.now();
    while (healthyArrivedAt === undefined && performance.now() - healthyWritten < 60_000) await Bun.sleep(5);
    const openAtArrival = openNow(dead);
    // Watch on: the connections the flood holds once its first attempts time out and are retried.
    await Bun.sleep(floodWatchSeconds * 1000);
    sampling = false;
    await sampler;
    return {
      scenario:
        `${deadSubscriptions} subscriptions (workspace A) to ${deadReceivers} receivers that accept and never ` +
        `answer, ${deadEvents} events in A, then 1 in B to a healthy receiver; watched ${floodWatchSeconds} s more`,
      healthyDeliverySeconds:
        healthyArrivedAt === undefined ? null : Math.round(healthyArrivedAt - healthyWritten) / 1000,
      deadConnectionsOpenAtArrival: openAtArrival,
      deadConnectionsOpenPeak: peakOpen,
      deadConnectionsAccepted: dead.reduce((n, r) => n + r.accepted, 0),
      mostOpenToOneDeadReceiver: Math.max(...dead.map((r) => r.most)),
      deadConnectionsOpenAtEnd: openNow(dead),
    };
  } finally {
    for (const r of dead) r.stop();
    healthy.stop(true);
  }
}

/** 2. One dead receiver, `n` events. */
async function oneReceiver(s: Setup, n: number) {
  const r = deadReceiver();
  try {
    const c = await s.workspace(`single-${n}`);
    await s.subscribe(c.slug, `http://127.0.0.1:${r.port}/hooks`);
    progress(`one dead receiver: ${n} events, watched ${oneSeconds} s`);
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < n) await s.create(c.key, next++);
      }),
    );
    while (performance.now() - started < oneSeconds * 1000) await Bun.sleep(100);
    return { events: n, mostOpenAtOnce: r.most, accepted: r.accepted, openAtEnd: r.open };
  } finally {
    r.stop();
  }
}

try {
  const report = {
    flood: await withService("flood", flood),
    oneReceiver: [] as Awaited<ReturnType<typeof oneReceiver>>[],
  };
  progress(JSON.stringify(report.flood));
  for (const n of oneEvents) report.oneReceiver.push(await withService(`one-${n}`, (s) => oneReceiver(s, n)));
  console.log(JSON.stringify(report, null, 2));
} finally {
  await server.embedded?.stop();
}
