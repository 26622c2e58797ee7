/**
 * `bun bench/replicas.ts`: the cost of the pooler hop and of replicas. On a fresh database of DATABASE_URL's server
 * (seeded at BENCH_SCALE, default 0.1), drives the stored-row read (64 connections) and company creation (32) with
 * wrk for BENCH_SECONDS (default 5) in four set-ups: one service direct, one through PgBouncer (transaction mode,
 * deploy/pgbouncer.ini), three behind HAProxy (deploy/haproxy.cfg) direct, and three through PgBouncer. Prints
 * req/s, p50 and p99 and non-2xx a set-up and scenario. Needs wrk, pgbouncer and haproxy (Debian's packages).
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ulid } from "ulid";
import { connect } from "../src/core/db.ts";
import { createApiKey } from "../src/core/api_keys.ts";
import { createWorkspace } from "../src/core/workspaces.ts";
import { allScopes } from "../src/core/groups.ts";
import { createBenchDatabase } from "./database.ts";
import { root, startService, type ServiceProcess } from "./service.ts";
import { loadPools, seedWorkspace } from "./seed.ts";
import { driveWrk } from "./wrk.ts";
import type { ScenarioName } from "./scenarios.ts";
import { startPgBouncer } from "../test/support/pgbouncer.ts";
import { startHaproxy } from "../test/support/haproxy.ts";

const server = process.env.DATABASE_URL;
if (!server) {
  console.error("DATABASE_URL must name the Postgres server to measure on");
  process.exit(2);
}
const seconds = Number(process.env.BENCH_SECONDS || 5);
const scale = Number(process.env.BENCH_SCALE || 0.1);
const workDir = join(root, ".data", "bench", `replicas-${ulid().toLowerCase()}`);
mkdirSync(workDir, { recursive: true });
const progress = (line: string) => process.stderr.write(`bench: ${line}\n`);

const database = await createBenchDatabase(server);
const bouncer = await startPgBouncer(server);
try {
  const db = connect(database.url, { max: 4 });
  // The first start migrates the empty database.
  const first = await startService({ databaseUrl: database.url, logFile: join(workDir, "service.log") });
  await first.stop();
  const ws = await createWorkspace(db, { slug: "bench", name: "Benchmark Lettings", ownerName: "Bench Owner" });
  progress(`seeding at scale ${scale}`);
  await seedWorkspace(db, { workspaceId: ws.id, ownerUserId: ws.ownerUserId, scale });
  const key = await createApiKey(db, {
    workspace: "bench",
    name: "Benchmark",
    scopes: [...allScopes],
    expiresInDays: 7,
    budgetPerMinute: 1_000_000,
  });
  const pools = await loadPools(db, ws.id);
  await db.end();
  const rows: string[] = [];
  const setups = [
    { name: "1 replica, direct", replicas: 1, pooled: false },
    { name: "1 replica, PgBouncer", replicas: 1, pooled: true },
    { name: "3 replicas + HAProxy, direct", replicas: 3, pooled: false },
    { name: "3 replicas + HAProxy, PgBouncer", replicas: 3, pooled: true },
  ];
  const scenarios: { name: ScenarioName; connections: number }[] = [
    { name: "handover", connections: 64 },
    { name: "createCompany", connections: 32 },
  ];
  for (const setup of setups) {
    const url = setup.pooled ? bouncer.urlFor(database.name) : database.url;
    const env: Record<string, string> = setup.pooled ? { DATABASE_DIRECT_URL: database.url } : {};
    const services: ServiceProcess[] = [];
    for (let i = 0; i < setup.replicas; i++) {
      services.push(await startService({ databaseUrl: url, logFile: join(workDir, "service.log"), env }));
    }
    const balancer =
      setup.replicas > 1 ? await startHaproxy(services.map((s) => Number(new URL(s.url).port))) : undefined;
    if (balancer) await Bun.sleep(2500); // HAProxy's checks take each replica for up (rise 2, 1 s apart)
    const base = balancer?.base ?? services[0]!.url;
    for (const scenario of scenarios) {
      progress(`${setup.name}: ${scenario.name}`);
      const spec = {
        url: base,
        apiKey: key.key,
        scenario: scenario.name,
        connections: scenario.connections,
        seconds,
        warmupSeconds: 0,
        runId: ulid().toLowerCase(),
        poolsFile: "",
        generator: "wrk" as const,
      };
      await driveWrk(spec, pools, 1, `${spec.runId}w`, workDir); // warm-up
      const r = await driveWrk(spec, pools, seconds, spec.runId, workDir);
      rows.push(
        `| ${setup.name} | ${scenario.name} | ${scenario.connections} | ${Math.round(r.requestsPerSecond)} | ` +
          `${r.p50Ms} | ${r.p99Ms} | ${r.non2xx} / ${r.errors} |`,
      );
    }
    await balancer?.stop();
    for (const s of services) await s.stop();
  }
  const table = [
    "| set-up | scenario | connections | req/s | p50 ms | p99 ms | non-2xx / socket errors |",
    "| --- | --- | ---: | ---: | ---: | ---: | ---: |",
    ...rows,
  ].join("\n");
  console.log(table);
  writeFileSync(join(root, ".data", "bench", `replicas-${new Date().toISOString()}.md`), `${table}\n`);
} finally {
  await bouncer.stop();
  await database.drop();
  rmSync(workDir, { recursive: true, force: true });
}
