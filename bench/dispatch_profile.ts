/**
 * CPU a webhook delivery made by the dispatcher (`bun bench/dispatch_profile.ts`): N company.created events, each
 * in a transaction of its own, dispatched batch by batch (`dispatchOnce`, as the service's loop does) to one
 * subscription whose receiver runs in another process, against the same events with the subscription disabled. The
 * dispatcher's CPU (this process), its Postgres backends' (schedstat) and the receiver's are counted, so nothing else
 * on the machine is. N (20000), ROUNDS (3).
 */
import { join } from "node:path";
import { connect } from "../src/core/db.ts";
import { migrate } from "../src/core/migrate.ts";
import { createWorkspace } from "../src/core/workspaces.ts";
import { loadConfig } from "../src/config.ts";
import { createLogger } from "../src/core/log.ts";
import { Jobs } from "../src/core/jobs.ts";
import type { AppContext } from "../src/core/operation.ts";
import { dispatchOnce } from "../src/webhooks/dispatcher.ts";
import { ensureDeliveryQueue } from "../src/webhooks/deliver.ts";
import { createSubscription } from "../src/webhooks/subscriptions.ts";
import { backendCpuMicros, processCpuMicros } from "./cpu.ts";
import { createBenchDatabase, openServer } from "./database.ts";
import { spawnReceiver } from "./receiver.ts";

const n = Number(process.env.N ?? 20000);
const rounds = Number(process.env.ROUNDS ?? 3);
const server = await openServer(process.env.DATABASE_URL, join(import.meta.dir, "..", ".data", "bench-pg"));
const bench = await createBenchDatabase(server.url);
const pool = 4;
const db = connect(bench.url, { max: pool });
const receiver = await spawnReceiver();
try {
  const { port } = receiver;
  await migrate(db);
  const config = loadConfig({ DATABASE_URL: bench.url, LOG_LEVEL: "warn", WEBHOOKS_ALLOW_PRIVATE: "true" });
  const log = createLogger("warn");
  const ctx: AppContext = { db, config, log, jobs: new Jobs(bench.url, log) };
  await ensureDeliveryQueue(ctx.jobs);
  const ws = await createWorkspace(db, { slug: "dispatch", name: "Dispatch" });
  const sub = await createSubscription(
    db,
    { workspace: ws.slug, url: `http://127.0.0.1:${port}/hook`, events: "company.created" },
    { allowPrivate: true },
  );
  const data = {
    id: "01KAAAAAAAAAAAAAAAAAAAAAAA",
    name: "Company 1",
    type: null,
    email: null,
    phone: null,
    website: null,
    address: null,
    notes: null,
    createdAt: "2026-11-25T01:00:00.000Z",
    updatedAt: "2026-11-25T01:00:00.000Z",
  };
  const pids = [
    ...new Set(
      (await Promise.all(Array.from({ length: pool }, () => db`select pg_backend_pid() as pid, pg_sleep(0.05)`))).map(
        ([r]) => r!.pid as number,
      ),
    ),
  ];
  const postgresCpu = () => pids.reduce((sum, pid) => sum + backendCpuMicros(pid)!, 0);
  const write = async () => {
    let next = 0;
    await Promise.all(
      Array.from({ length: pool }, async () => {
        while (next < n) {
          const i = next++;
          await db`insert into events (workspace_id, id, type, subject_kind, subject_id, data, actor_kind, actor_id)
            values (${ws.id}, ${`01KB${String(Date.now()).padStart(14, "0")}${String(i).padStart(8, "0")}`},
              'company.created', 'company', ${`c${i}`}, ${db.json({ ...data, name: `Company ${i}` })}, 'key', 'k')`;
        }
      }),
    );
  };
  const dispatchAll = async () => {
    const cpu = process.cpuUsage();
    const pg = postgresCpu();
    const rx = processCpuMicros(receiver.pid) ?? 0;
    let batches = 0;
    for (;;) {
      const { events, late } = await dispatchOnce(ctx);
      await late;
      if (!events) break;
      batches++;
    }
    const used = process.cpuUsage(cpu);
    return {
      service: (used.user + used.system) / n,
      postgres: (postgresCpu() - pg) / n,
      receiver: ((processCpuMicros(receiver.pid) ?? 0) - rx) / n,
      batches,
    };
  };
  const fmt = (v: number) => Math.round(v * 10) / 10;
  await write();
  await dispatchAll(); // warm-up
  for (let round = 0; round < rounds; round++) {
    for (const status of ["disabled", "active"] as const) {
      await db`update webhook_subscriptions set status = ${status} where id = ${sub.id}`;
      await write();
      const r = await dispatchAll();
      console.log(
        JSON.stringify({
          subscription: status,
          serviceMicros: fmt(r.service),
          postgresMicros: fmt(r.postgres),
          receiverMicros: fmt(r.receiver),
          batches: r.batches,
        }),
      );
    }
  }
  await ctx.jobs.stop();
} finally {
  receiver.stop();
  await db.end();
  await bench.drop();
  await server.embedded?.stop();
  process.exit(0);
}
