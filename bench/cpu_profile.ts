/**
 * CPU a request of one scenario, one request at a time through app.handle on a seeded database
 * (`bun bench/cpu_profile.ts`): the service's CPU (this process) and the Postgres backend's (the pool's one
 * connection, read from /proc/<pid>/schedstat), so other processes on the machine do not count. PROFILE: agenda
 * (default), agendaStored (20 such pages over and over: each served from stored days), agendaComputed (pages with
 * includeCancelled=true, a filter no stored day holds: computed), agendaUtc (weeks from UTC midnights: cut from the
 * stored days), agendaFirst (each member of staff's weeks once: computed and stored), agendaOne (the same with limit=1: the fixed cost), hazard (GET hazard settings: a small read), handover
 * (stored rows), handoverFirst (computing and storing rows), createCompany, repairsDue (the due list's pages, walked
 * first: bench/repairs_due.ts), createRepair. BENCH_SCALE (1), N (400). KEEP=1 keeps
 * the seeded database (its URL is printed); PROFILE_DB=<that URL> reuses it instead of seeding. CONCURRENCY=C (1)
 * sends C requests at a time over a pool of C connections and counts the CPU of all C backends: contention between
 * concurrent requests (locks, multixacts) shows only so.
 */
import { connect } from "../src/core/db.ts";
import { migrate } from "../src/core/migrate.ts";
import { createWorkspace, entitle } from "../src/core/workspaces.ts";
import { createApiKey } from "../src/core/api_keys.ts";
import { allScopes } from "../src/core/groups.ts";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { createLogger } from "../src/core/log.ts";
import { Jobs } from "../src/core/jobs.ts";
import { openServer, createBenchDatabase } from "./database.ts";
import { loadPools, seedWorkspace } from "./seed.ts";
import { backendCpuMicros } from "./cpu.ts";
import { requestMaker, type BenchRequest } from "./scenarios.ts";
import { collectRepairsDuePages, repairsDueLimit } from "./repairs_due.ts";
import { join } from "node:path";

const profile = process.env.PROFILE ?? "agenda";
const reuse = process.env.PROFILE_DB;
const server = await openServer(process.env.DATABASE_URL, join(import.meta.dir, "..", ".data", "bench-pg"));
const bench = reuse ? { url: reuse, drop: async () => {} } : await createBenchDatabase(server.url);
const seedDb = connect(bench.url, { max: 4 });
const concurrency = Math.max(1, Number(process.env.CONCURRENCY ?? 1));
const db = connect(bench.url, { max: concurrency });
try {
  const runId = `profile-${Date.now().toString(36)}`;
  let workspaceId: string;
  if (reuse) {
    // Migrations a branch added since the database was seeded apply here.
    await migrate(seedDb);
    [{ workspaceId }] = (await seedDb`select id as workspace_id from workspaces where slug = 'profile'`) as any;
  } else {
    await migrate(seedDb);
    const ws = await createWorkspace(seedDb, { slug: "profile", name: "Profile" });
    workspaceId = ws.id;
    const scale = Number(process.env.BENCH_SCALE ?? 1);
    await seedWorkspace(seedDb, { workspaceId, ownerUserId: ws.ownerUserId, scale });
  }
  await entitle(seedDb, "profile", "maintenance-pro");
  // First reads compute every row again.
  if (profile === "handoverFirst") await seedDb`delete from handover_rows`;
  if (profile === "agendaFirst") await seedDb`delete from agenda_days`;
  const key = await createApiKey(seedDb, {
    workspace: "profile",
    name: "p",
    scopes: [...allScopes],
    expiresInDays: 7,
    budgetPerMinute: 1_000_000,
  });
  const pools = await loadPools(seedDb, workspaceId);
  // C queries at once open the pool's C connections: their backends' pids.
  const pids = [
    ...new Set(
      (
        await Promise.all(
          Array.from(
            { length: concurrency },
            () => db<{ pid: number }[]>`select pg_backend_pid() as pid, pg_sleep(0.05)`,
          ),
        )
      ).map(([r]) => r!.pid),
    ),
  ];
  const postgresCpu = () => pids.reduce((sum, pid) => sum + backendCpuMicros(pid)!, 0);
  const config = loadConfig({ DATABASE_URL: bench.url, LOG_LEVEL: "warn" });
  const log = createLogger("warn");
  const app = buildApp({ db, config, log, jobs: new Jobs(bench.url, log) });
  if (profile === "repairsDue") {
    pools.repairsDue = await collectRepairsDuePages(
      (path) => app.handle(new Request(`http://localhost${path}`, { headers: { "x-api-key": key.key } })),
      { dueBefore: new Date(Date.now() + 7 * 86_400_000).toISOString(), limit: repairsDueLimit() },
    );
  }
  const next: () => BenchRequest =
    profile === "agendaOne"
      ? ((agenda) => () => {
          const r = agenda();
          return { ...r, path: `${r.path}&limit=1` };
        })(requestMaker("agenda", pools, runId))
      : profile === "hazard"
        ? () => ({ method: "GET", path: "/maintenance-pro/hazard-settings" })
        : profile === "agendaStored"
          ? ((agenda) => {
              // 20 pages, over and over: after the warm-up every one is served from stored days.
              const pages = Array.from({ length: 20 }, agenda);
              let i = 0;
              return () => pages[i++ % pages.length]!;
            })(requestMaker("agenda", pools, runId))
          : requestMaker(profile as "agenda", pools, runId);
  const n = Number(process.env.N ?? 400);
  let rows = 0;
  const send = async () => {
    const r = next();
    const res = await app.handle(
      new Request(`http://localhost${r.path}`, {
        method: r.method,
        headers: { "x-api-key": key.key, ...(r.body ? { "content-type": "application/json" } : {}) },
        body: r.body,
      }),
    );
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${res.status} ${text}`);
    return text;
  };
  // C senders at a time until `count` requests were sent (C = 1: one after the other).
  const sendAll = async (count: number, each: (text: string) => void = () => {}) => {
    let sent = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (sent < count) {
          sent += 1;
          each(await send());
        }
      }),
    );
  };
  // The warm-up runs on every connection, so each has its statements prepared before the measured window.
  const warm = Math.max(profile === "handoverFirst" || profile === "agendaFirst" ? 20 : 50, 10 * concurrency);
  await sendAll(warm, (text) => {
    const body = JSON.parse(text) as unknown;
    rows += Array.isArray(body) ? body.length : 1;
  });
  const pgBefore = postgresCpu();
  const before = process.cpuUsage();
  const started = performance.now();
  await sendAll(n);
  const wall = (performance.now() - started) / n;
  const used = process.cpuUsage(before);
  const pg = (postgresCpu() - pgBefore) / n;
  const service = (used.user + used.system) / n;
  console.log(
    JSON.stringify({
      profile,
      requests: n,
      concurrency,
      backends: pids.length,
      rowsPerAnswer: Math.round(rows / warm),
      wallMicros: Math.round(wall * 1000),
      serviceMicros: Math.round(service),
      postgresMicros: Math.round(pg),
    }),
  );
} finally {
  await db.end();
  await seedDb.end();
  if (process.env.KEEP && !reuse) console.log(`kept ${bench.url}`);
  else if (!reuse) await bench.drop();
  await server.embedded?.stop();
}
