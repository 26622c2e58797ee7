/**
 * `bun run bench:webhooks` (and the end of `bun run bench`): webhook deliveries a second to a local receiver in a
 * process of its own (64 subscriptions × POST /companies), and POST /companies throughput with no subscription vs
 * one active subscription (the outbox and delivery cost): a phase with the subscription lasts until its last delivery
 * is made. CPU a write is reported for the service, Postgres, the load (this process) and the receiver.
 * Runs the real service (`bun src/main.ts`, workers on) on a fresh database of DATABASE_URL's server (else the
 * embedded Postgres). Settings: BENCH_SECONDS (5, per write phase), BENCH_ROUNDS (3 pairs of phases),
 * BENCH_EVENTS (100 companies for the delivery run), BENCH_CONNECTIONS (16), BENCH_SPLIT (unset; 1: the API in one
 * process with WORKERS=false and the workers, the dispatcher with them, in a second one, as a deployment may run
 * them; the CPU of both is the service's). Prints one JSON object.
 */
import { join } from "node:path";
import { mkdirSync } from "node:fs";
import { connect } from "../src/core/db.ts";
import { createApiKey } from "../src/core/api_keys.ts";
import { allScopes } from "../src/core/groups.ts";
import { createWorkspace } from "../src/core/workspaces.ts";
import { createSubscription } from "../src/webhooks/subscriptions.ts";
import { cpuPerRequest, processCpuMicros, sampleCpu } from "./cpu.ts";
import { createBenchDatabase, openServer } from "./database.ts";
import { spawnReceiver } from "./receiver.ts";
import { root, startService } from "./service.ts";

const num = (name: string, fallback: number) => Number(process.env[name] || fallback);
const seconds = num("BENCH_SECONDS", 5);
const rounds = num("BENCH_ROUNDS", 3);
const eventsWanted = num("BENCH_EVENTS", 100);
const connections = num("BENCH_CONNECTIONS", 16);
const progress = (line: string) => process.stderr.write(`bench:webhooks: ${line}\n`);

const outDir = join(root, ".data", "bench");
mkdirSync(outDir, { recursive: true });
const server = await openServer(process.env.DATABASE_URL, join(root, ".data", "bench-pg-webhooks"));
const database = await createBenchDatabase(server.url);
const db = connect(database.url, { max: 4 });
/** The receiver runs in a process of its own, as an integrator's would: its CPU is counted apart from the load's. */
const receiver = await spawnReceiver();
const split = process.env.BENCH_SPLIT === "1";
const service = await startService({
  databaseUrl: database.url,
  logFile: join(outDir, "webhooks-service.log"),
  env: { WORKERS: split ? "false" : "true", WEBHOOKS_ALLOW_PRIVATE: "true" },
});
const workers = split
  ? await startService({
      databaseUrl: database.url,
      logFile: join(outDir, "webhooks-workers.log"),
      env: { WORKERS: "true", WEBHOOKS_ALLOW_PRIVATE: "true" },
    })
  : undefined;
/** The CPU of the service's processes (one, or the API's and the workers'), and of Postgres. */
const serviceCpu = () => {
  const sample = sampleCpu(service.pid);
  if (workers) {
    const other = sampleCpu(workers.pid).service;
    sample.service = sample.service === null || other === null ? null : sample.service + other;
  }
  return sample;
};

try {
  const ws = await createWorkspace(db, { slug: `bench-${Date.now()}`, name: "Bench" });
  const { key } = await createApiKey(db, {
    workspace: ws.slug,
    name: "bench",
    scopes: [...allScopes],
    expiresInDays: 7,
    createdBy: "owner",
    budgetPerMinute: 1_000_000,
  });
  const create = async (i: number) => {
    const res = await fetch(`${service.url}/companies`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ name: `Company ${i}` }),
    });
    await res.arrayBuffer();
    if (res.status !== 201) throw new Error(`POST /companies answered ${res.status}`);
  };
  /** POST /companies with `connections` loops for `seconds`; returns how many were created. */
  const writePhase = async () => {
    let done = 0;
    const end = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (performance.now() < end) await create(done++);
      }),
    );
    return done;
  };
  /**
   * Milliseconds until the dispatcher has passed every event and no delivery is pending (the workers caught up with
   * the writes; a first attempt the dispatcher makes itself leaves no row to wait for).
   */
  const drain = async () => {
    const started = performance.now();
    const behind = () => db`
      select 1 from events e, event_dispatch p where (e.tx_id, e.id) > (p.tx_id, p.event_id)
      union all select 1 from event_deliveries where status = 'pending'
      limit 1`;
    while ((await behind()).length) await Bun.sleep(20);
    return performance.now() - started;
  };
  const subscribe = (path: string, events = "company.created") =>
    createSubscription(
      db,
      { workspace: ws.slug, url: `http://127.0.0.1:${receiver.port}/${path}`, events },
      { allowPrivate: true },
    );

  progress("warm-up");
  await writePhase();
  // Alternate the two conditions so drift (caches, autovacuum) falls on both. A phase with a subscription lasts until
  // its last delivery is made: writes whose deliveries lag behind are not free, they are paid for after the phase.
  const none: number[] = [];
  const one: number[] = [];
  const backlogSeconds: number[] = [];
  /** CPU µs a write (the service, Postgres, this process (the load), and the receiver) in each arm, summed. */
  const cpu = {
    none: { service: 0, postgres: 0, bench: 0, receiver: 0, writes: 0 },
    one: { service: 0, postgres: 0, bench: 0, receiver: 0, writes: 0 },
  };
  const measured = async (arm: "none" | "one", phase: () => Promise<number>) => {
    const before = serviceCpu();
    const self = process.cpuUsage();
    const receiverBefore = processCpuMicros(receiver.pid) ?? 0;
    const writes = await phase();
    const used = cpuPerRequest(before, serviceCpu(), 1);
    const bench = process.cpuUsage(self);
    cpu[arm].service += used.serviceMicros ?? 0;
    cpu[arm].postgres += used.postgresMicros ?? 0;
    cpu[arm].bench += bench.user + bench.system;
    cpu[arm].receiver += (processCpuMicros(receiver.pid) ?? 0) - receiverBefore;
    cpu[arm].writes += writes;
    return writes;
  };
  const perWrite = (arm: "none" | "one") => {
    const c = cpu[arm];
    const micros = (v: number) => Math.round(v / c.writes);
    return {
      service: micros(c.service),
      postgres: micros(c.postgres),
      bench: micros(c.bench),
      receiver: micros(c.receiver),
    };
  };
  const single = await subscribe("one");
  for (let round = 0; round < rounds; round++) {
    await db`update webhook_subscriptions set status = 'disabled' where id = ${single.id}`;
    progress("writes with no active subscription");
    none.push(Math.round((await measured("none", writePhase)) / seconds));
    await db`update webhook_subscriptions set status = 'active' where id = ${single.id}`;
    progress("writes with one active subscription, until every delivery is made");
    let lag = 0;
    const written = await measured("one", async () => {
      const n = await writePhase();
      lag = await drain();
      return n;
    });
    backlogSeconds.push(Math.round(lag) / 1000);
    one.push(Math.round(written / (seconds + lag / 1000)));
  }
  await db`update webhook_subscriptions set status = 'disabled' where id = ${single.id}`;
  // How the one subscription's deliveries went: first attempts recorded a batch at a time (runs), or as delivery rows
  // (an attempt not started or not answered by the hand-off, or a failure: the slower path).
  const [paths] = await db<{ runs: number; inRuns: number; rows: number }[]>`
    select (select count(*)::int from event_delivery_runs where subscription_id = ${single.id}) as runs,
      (select coalesce(sum(cardinality(event_ids)), 0)::int from event_delivery_runs
        where subscription_id = ${single.id}) as "inRuns",
      (select count(*)::int from event_deliveries where subscription_id = ${single.id}) as rows`;

  progress(`deliveries: 64 subscriptions × ${eventsWanted} companies`);
  for (let i = 0; i < 64; i++) await subscribe(`s${i}`);
  const before = await receiver.received();
  const wanted = 64 * eventsWanted;
  const cpuBefore = serviceCpu();
  const started = performance.now();
  // While the deliveries are made, GET /health one after another: how long a request waits for the API's event loop.
  let delivering = true;
  const probes = (async () => {
    const ms: number[] = [];
    while (delivering) {
      const sent = performance.now();
      await (await fetch(`${service.url}/health`)).arrayBuffer();
      ms.push(performance.now() - sent);
    }
    return ms.sort((a, b) => a - b);
  })();
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(connections, eventsWanted) }, async () => {
      while (next < eventsWanted) await create(next++);
    }),
  );
  const writtenMs = performance.now() - started;
  const deadline = started + 600_000;
  let received = before;
  while (received - before < wanted && performance.now() < deadline) {
    await Bun.sleep(20);
    received = await receiver.received();
  }
  const deliveredMs = performance.now() - started;
  delivering = false;
  const waits = await probes;
  const at = (q: number) => Math.round(waits[Math.min(waits.length - 1, Math.floor(q * waits.length))]! * 10) / 10;
  // The service and Postgres CPU of the run, a delivery (the 50 writes' share is small beside 64 deliveries each).
  const cpuADelivery = cpuPerRequest(cpuBefore, serviceCpu(), received - before);
  const cpuCost = (parts: ("service" | "postgres" | "bench" | "receiver")[]) => {
    const total = (c: ReturnType<typeof perWrite>) => parts.reduce((sum, part) => sum + c[part], 0);
    return Math.round((total(perWrite("one")) / total(perWrite("none")) - 1) * 1000) / 10;
  };
  const mean = (xs: number[]) => Math.round(xs.reduce((a, b) => a + b, 0) / xs.length);
  const tenth = (v: number) => Math.round(v * 10) / 10;
  // Each pair of adjacent phases (none, then one) shares the machine's drift of its minute; the pairs' own costs, their
  // mean and its standard error say how far the run's cost can be trusted (single runs have swung by ±4 points).
  const pairCosts = none.map((n, i) => (1 - one[i]! / n) * 100);
  const pairMean = pairCosts.reduce((a, b) => a + b, 0) / pairCosts.length;
  const pairSd =
    pairCosts.length > 1
      ? Math.sqrt(pairCosts.reduce((a, c) => a + (c - pairMean) ** 2, 0) / (pairCosts.length - 1))
      : Number.NaN;
  const pairStandardError = pairSd / Math.sqrt(pairCosts.length);
  // Student's t, one-sided 95%, for the pairs' degrees of freedom (the Cornish-Fisher expansion: 1.796 at 11, 1.699 at
  // 29, within 0.01 of the tables from 5 on; at 2, three rounds, 2.76 for 2.92: too low, read few pairs loosely).
  const df = pairCosts.length - 1;
  const z = 1.645;
  const t95 = z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2);
  const report = {
    writes: {
      scenario: `POST /companies, ${connections} connections, ${seconds} s a phase, alternating${split ? ", API and workers in two processes" : ""}`,
      noSubscriptionPerSecond: none,
      oneSubscriptionPerSecond: one,
      backlogSecondsAfterPhase: backlogSeconds,
      deliveries: paths,
      cpuMicrosAWrite: { noSubscription: perWrite("none"), oneSubscription: perWrite("one") },
      costPercent: Math.round((1 - mean(one) / mean(none)) * 1000) / 10,
      pairCostsPercent: pairCosts.map(tenth),
      pairCostMeanPercent: tenth(pairMean),
      pairCostStandardError: tenth(pairStandardError),
      /** One-sided 95% upper bound of the pairs' mean cost (Student's t). */
      pairCostUpper95Percent: tenth(pairMean + t95 * pairStandardError),
      // The same cost read from CPU (service, Postgres, the load and the receiver a write), steadier than req/s on a
      // busy host; and the service's and Postgres's alone (what the outbox and its deliveries cost our side).
      cpuCostPercent: cpuCost(["service", "postgres", "bench", "receiver"]),
      serviceCpuCostPercent: cpuCost(["service", "postgres"]),
    },
    deliveries: {
      scenario: `64 subscriptions × ${eventsWanted} POST /companies, receiver answering 204 on 127.0.0.1`,
      delivered: received - before,
      wanted,
      writesSeconds: Math.round(writtenMs) / 1000,
      allDeliveredSeconds: Math.round(deliveredMs) / 1000,
      deliveredPerSecond: Math.round(((received - before) * 1000) / deliveredMs),
      cpuMicrosADelivery: { service: cpuADelivery.serviceMicros, postgres: cpuADelivery.postgresMicros },
      healthMsMeanwhile: { requests: waits.length, p50: at(0.5), p99: at(0.99), max: at(1) },
    },
  };
  console.log(JSON.stringify(report, null, 2));
} finally {
  await workers?.stop();
  await service.stop();
  receiver.stop();
  await db.end();
  await database.drop();
  await server.embedded?.stop();
}
