/**
 * `bun run bench`: starts the service on a fresh database, seeds one workspace at scale, drives it over loopback
 * from a separate load-generator process, runs the pgbench baseline on the same server, and prints the figures
 * (JSON under ./.data/bench/). Settings: BENCH_SECONDS (10), BENCH_SCALE (1), BENCH_WARMUP_SECONDS (2), PGBENCH,
 * BENCH_LOADGEN (wrk when installed, else autocannon); BENCH_ONLY (scenario names, comma-separated); growth over
 * several scales: --scales 0.1,1,5 or BENCH_SCALES (bench/growth.ts).
 */
import { ulid } from "ulid";
import { existsSync, mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { connect } from "../src/core/db.ts";
import { hashKey } from "../src/core/auth.ts";
import { createApiKey } from "../src/core/api_keys.ts";
import { createWorkspace, entitle } from "../src/core/workspaces.ts";
import { allScopes } from "../src/core/groups.ts";
import { createBenchDatabase, openServer, timeEmbeddedFirstStart } from "./database.ts";
import { root, startService, type ServiceProcess } from "./service.ts";
import { loadPools, seedWorkspace, verifySeed } from "./seed.ts";
import { scenarios } from "./scenarios.ts";
import { collectHandoverEtags } from "./etags.ts";
import {
  agendaBaselineScript,
  combineBaselines,
  prepareStrongBaseline,
  repairsDueBaselineScript,
  runBaseline,
  strongAgendaBaselineScript,
  strongBaselineScript,
  type BaselineRun,
} from "./baseline.ts";
import { collectRepairsDuePages, fullPages, prepareRepairsDueBaseline, repairsDueLimit } from "./repairs_due.ts";
import { ratio, renderReport, type BenchReport, type ScenarioReport } from "./report.ts";
import type { LoadGenerator, LoadResult, LoadSpec } from "./load.ts";
import { wrkPath } from "./wrk.ts";
import { requestedScales, runGrowth } from "./growth.ts";

// Growth (bench/growth.ts): --scales / BENCH_SCALES runs this script once a scale, with the read scenarios only.
const growthScales = requestedScales(process.argv, process.env);
if (growthScales) {
  await runGrowth(growthScales);
  process.exit(0);
}
const only = process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(",") : undefined;

function setting(name: string, fallback: number, min: number, max: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max) {
    console.error(`${name} must be a number from ${min} to ${max}, not "${raw}"`);
    process.exit(2);
  }
  return value;
}

const seconds = Math.round(setting("BENCH_SECONDS", 10, 1, 3600));
const repairsLimit = repairsDueLimit();
const scale = setting("BENCH_SCALE", 1, 0.001, 10);
const warmupSeconds = Math.round(setting("BENCH_WARMUP_SECONDS", Math.min(2, seconds), 0, 600));
const pgbench = process.env.PGBENCH || (existsSync("/usr/bin/pgbench") ? "/usr/bin/pgbench" : Bun.which("pgbench"));
if (!pgbench) {
  console.error("pgbench not found: install it with Postgres's client tools, or set PGBENCH to its path");
  process.exit(2);
}

const requested = process.env.BENCH_LOADGEN || (wrkPath() ? "wrk" : "autocannon");
if (requested !== "wrk" && requested !== "autocannon") {
  console.error(`BENCH_LOADGEN must be wrk or autocannon, not "${requested}"`);
  process.exit(2);
}
if (requested === "wrk" && !wrkPath()) {
  console.error("BENCH_LOADGEN=wrk but wrk is not installed (apt-get install wrk)");
  process.exit(2);
}
const generator: LoadGenerator = requested;

const progress = (line: string) => process.stderr.write(`bench: ${line}\n`);
const outDir = join(root, ".data", "bench");
const startedAt = new Date();
const stamp = startedAt.toISOString().replace(/[:.]/g, "-");
const runId = ulid().toLowerCase();
const workDir = join(outDir, `work-${stamp}`);
const serviceLog = join(outDir, `${stamp}-service.log`);
mkdirSync(workDir, { recursive: true });

const cleanups: (() => Promise<unknown>)[] = [];
let cleaning: Promise<void> | undefined;
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    while (cleanups.length) {
      try {
        await cleanups.pop()!();
      } catch (error) {
        progress(`cleanup: ${(error as Error).message ?? error}`);
      }
    }
    rmSync(workDir, { recursive: true, force: true });
    // The service logs at warn: keep its log only when it said something.
    if (existsSync(serviceLog) && statSync(serviceLog).size === 0) rmSync(serviceLog, { force: true });
    else if (existsSync(serviceLog)) progress(`the service logged warnings or errors: ${serviceLog}`);
  })();
  return cleaning;
}
process.on("SIGINT", () => void cleanup().finally(() => process.exit(130)));
process.on("SIGTERM", () => void cleanup().finally(() => process.exit(143)));

/** Runs one scenario in a load-generator process and returns its figures. */
async function runScenario(spec: LoadSpec): Promise<LoadResult> {
  const specFile = join(workDir, `${spec.scenario}.json`);
  writeFileSync(specFile, JSON.stringify(spec));
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "load.ts"), specFile], {
    cwd: root,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  const last = out.trim().split("\n").pop() ?? "";
  if (code !== 0 || !last.startsWith("{"))
    throw new Error(`load generator for ${spec.scenario} failed (exit ${code}): ${err.trim() || out.trim()}`);
  return JSON.parse(last) as LoadResult;
}

try {
  const server = await openServer(process.env.DATABASE_URL, join(root, ".data", "bench-pg"));
  if (server.embedded) cleanups.push(() => server.embedded!.stop());
  const database = await createBenchDatabase(server.url);
  // BENCH_KEEP=1 keeps the database for a look afterwards (its name is printed); it is dropped otherwise.
  if (!process.env.BENCH_KEEP) cleanups.push(() => database.drop());
  progress(`database ${database.name} on ${server.embedded ? "the embedded Postgres" : "DATABASE_URL's server"}`);

  // The first start migrates the empty database; the second is the cold start on a migrated one.
  const first = await startService({ databaseUrl: database.url, logFile: serviceLog });
  const emptyDatabaseMs = first.coldStartMs;
  await first.stop();

  const db = connect(database.url, { max: 4 });
  cleanups.push(() => db.end({ timeout: 5 }));
  const [{ version }] = (await db`select current_setting('server_version') as version`) as unknown as [
    { version: string },
  ];
  const workspace = await createWorkspace(db, { slug: "bench", name: "Benchmark Lettings", ownerName: "Bench Owner" });
  await entitle(db, "bench", "maintenance-pro");
  await entitle(db, "bench", "telephony");
  progress(`seeding at scale ${scale}`);
  const seedStarted = performance.now();
  const {
    counts,
    timings: seedSteps,
    repairs: repairsSeeded,
  } = await seedWorkspace(db, {
    workspaceId: workspace.id,
    ownerUserId: workspace.ownerUserId,
    scale,
  });
  const seedMs = Math.round(performance.now() - seedStarted);
  progress(`seeded in ${(seedMs / 1000).toFixed(1)} s`);
  await verifySeed(db, workspace.id);
  const key = await createApiKey(db, {
    workspace: "bench",
    name: "Benchmark",
    scopes: [...allScopes],
    expiresInDays: 7,
    budgetPerMinute: 1_000_000,
  });
  const baselineKey = await createApiKey(db, {
    workspace: "bench",
    name: "Baseline",
    scopes: [...allScopes],
    expiresInDays: 7,
    budgetPerMinute: 1_000_000,
  });
  const pools = await loadPools(db, workspace.id);
  const poolsFile = join(workDir, "pools.json");
  writeFileSync(poolsFile, JSON.stringify(pools));

  // The baseline runs right before and right after the stored-row handover scenario (the service idle), and
  // counts as their mean: a shared machine drifts over the minutes of a run, so the ratio of that scenario
  // compares figures taken within seconds of each other.
  const baselineRuns: BaselineRun[] = [];
  // The strong naive baseline (issue 36, bench/baseline.ts) runs beside it, each time: its tables made at its first run
  // (after the first reads stored the handover rows it copies).
  const strongRuns: BaselineRun[] = [];
  let strongPrepared = false;
  const prepareStrong = async () => {
    if (strongPrepared) return;
    await prepareStrongBaseline(db, { workspaceId: workspace.id, keyId: baselineKey.id });
    strongPrepared = true;
  };
  const pgbenchRun = (connections: number, dir: string, other?: { script: string; defines: Record<string, string> }) =>
    runBaseline({
      pgbench,
      databaseUrl: database.url,
      connections,
      seconds,
      workDir: join(workDir, dir),
      workspaceId: workspace.id,
      keyId: baselineKey.id,
      keyHashHex: hashKey(baselineKey.key).toString("hex"),
      tenancies: counts.tenancies,
      tenancyPrefix: "ten-",
      ...(other ? { other } : {}),
    });
  const baselineRun = async (when: string) => {
    progress(`baseline (${when}): pgbench, 64 connections, ${seconds} s`);
    baselineRuns.push(await pgbenchRun(64, `pgbench-${when}`));
    await prepareStrong();
    progress(`strong naive baseline (${when}): pgbench, 64 connections, ${seconds} s`);
    strongRuns.push(await pgbenchRun(64, `pgbench-strong-${when}`, { script: strongBaselineScript, defines: {} }));
  };
  const service: ServiceProcess = await startService({ databaseUrl: database.url, logFile: serviceLog });
  cleanups.push(() => service.stop());
  progress(`service pid ${service.pid} answered /health ${service.coldStartMs} ms after spawning`);
  let peakRssKiB = service.peakRssKiB();
  const results: {
    scenario: (typeof scenarios)[number];
    connections: number;
    load: LoadResult;
    peakRssKiB: number | null;
  }[] = [];
  let agendaBaseline: BenchReport["agendaBaseline"];
  let strongAgendaBaseline: BenchReport["strongAgendaBaseline"];
  let repairsDueBaseline: BenchReport["repairsDueBaseline"];
  for (const scenario of scenarios.filter((s) => !only || only.includes(s.name))) {
    // A fixed number of requests is sent over at most as many connections (autocannon refuses more: tiny scales).
    const amount = scenario.once?.(pools);
    const connections = amount !== undefined ? Math.min(scenario.connections, amount) : scenario.connections;
    if (scenario.conditional && !pools.handoverEtags) {
      // After the first reads stored the rows: the tags the conditional requests name (bench/etags.ts).
      progress(`collecting the ETags of ${pools.tenancyIds.length} tenancies' handover rows`);
      pools.handoverEtags = await collectHandoverEtags(service.url, key.key, pools.tenancyIds);
      writeFileSync(poolsFile, JSON.stringify(pools));
    }
    if (scenario.repairsDuePages && !pools.repairsDue) {
      // The due list a week ahead, walked once through the service: the first page and every cursor page.
      const dueBefore = new Date(Date.now() + 7 * 86_400_000).toISOString();
      pools.repairsDue = await collectRepairsDuePages(
        (path) => fetch(`${service.url}${path}`, { headers: { "x-api-key": key.key } }),
        { dueBefore, limit: repairsLimit },
      );
      progress(
        `the due list before ${dueBefore}: ${pools.repairsDue.rows} repairs, ${pools.repairsDue.paths.length} pages ` +
          `(${fullPages(pools.repairsDue).length} read)`,
      );
      writeFileSync(poolsFile, JSON.stringify(pools));
    }
    progress(`${scenario.label}: ${connections} connections, ${warmupSeconds} s warm-up + ${seconds} s`);
    if (scenario.baselineAround) await baselineRun("before");
    service.resetPeak();
    const load = await runScenario({
      url: service.url,
      apiKey: key.key,
      scenario: scenario.name,
      connections,
      seconds,
      warmupSeconds: amount !== undefined ? 0 : warmupSeconds,
      runId: `${runId}-${scenario.name}`,
      poolsFile,
      servicePid: service.pid,
      ...(scenario.expectStatus ? { expectStatus: scenario.expectStatus } : {}),
      // wrk only runs for a duration: each request once, exactly, is autocannon's `amount`.
      ...(amount !== undefined ? { amount, generator: "autocannon" as const } : { generator }),
    });
    const peak = service.peakRssKiB();
    if (peak !== null) peakRssKiB = Math.max(peakRssKiB ?? 0, peak);
    results.push({ scenario, connections, load, peakRssKiB: peak });
    // What first reads stored is analysed and flushed before the next scenario. Analysed, as autovacuum would within
    // its minute: the service's statements cached their plans while the stored tables were near empty (a scan of
    // agenda_days read every stored day at every page), and ANALYZE makes Postgres plan them again. Flushed, so that
    // the checkpoint's work (writing the pages the first reads dirtied) is not counted in the reads that follow.
    if (amount !== undefined) await db`analyze`;
    if (amount !== undefined) await db`checkpoint`;
    if (scenario.baselineAround) await baselineRun("after");
    // The agenda page's bare SQL under pgbench, right after the agenda scenario, at the same concurrency.
    if (scenario.name === "agenda") {
      progress(`agenda's bare SQL: pgbench, ${connections} connections, ${seconds} s`);
      const run = await runBaseline({
        pgbench,
        databaseUrl: database.url,
        connections,
        seconds,
        workDir: join(workDir, "pgbench-agenda"),
        workspaceId: workspace.id,
        keyId: baselineKey.id,
        keyHashHex: hashKey(baselineKey.key).toString("hex"),
        tenancies: counts.tenancies,
        tenancyPrefix: "ten-",
        other: { script: agendaBaselineScript, defines: { staff: String(pools.staffIds.length) } },
      });
      agendaBaseline = { ...run.result, ratio: ratio(load.requestsPerSecond, run.result.transactionsPerSecond) };
      await prepareStrong();
      progress(`agenda's strong naive SQL: pgbench, ${connections} connections, ${seconds} s`);
      const strong = await pgbenchRun(connections, "pgbench-strong-agenda", {
        script: strongAgendaBaselineScript,
        defines: { staff: String(pools.staffIds.length) },
      });
      strongAgendaBaseline = {
        ...strong.result,
        ratio: ratio(load.requestsPerSecond, strong.result.transactionsPerSecond),
      };
    }
    // The due list's naive SQL under pgbench (bench/repairs_due.ts), right after the scenario, at its concurrency.
    if (scenario.name === "repairsDue" && pools.repairsDue) {
      const tables = await prepareRepairsDueBaseline(db, {
        workspaceId: workspace.id,
        keyId: baselineKey.id,
        dueBefore: pools.repairsDue.dueBefore,
        limit: repairsLimit,
      });
      progress(`the due list's naive SQL: pgbench, ${connections} connections, ${seconds} s`);
      const run = await runBaseline({
        pgbench,
        databaseUrl: database.url,
        connections,
        seconds,
        workDir: join(workDir, "pgbench-repairs-due"),
        workspaceId: workspace.id,
        keyId: baselineKey.id,
        keyHashHex: hashKey(baselineKey.key).toString("hex"),
        tenancies: counts.tenancies,
        tenancyPrefix: "ten-",
        other: {
          script: repairsDueBaselineScript,
          defines: {
            lastfull: String(tables.lastFullStart),
            duebefore: pools.repairsDue.dueBefore,
            limit: String(repairsLimit),
          },
        },
      });
      repairsDueBaseline = { ...run.result, ratio: ratio(load.requestsPerSecond, run.result.transactionsPerSecond) };
    }
  }
  await service.stop();
  // BENCH_ONLY without the stored-row scenario: the baseline runs once, after the scenarios.
  if (baselineRuns.length === 0) await baselineRun("after");

  const baseline = combineBaselines(baselineRuns);
  const strongBaseline = combineBaselines(strongRuns);

  progress("embedded Postgres first start (initdb + start)");
  let embeddedFirstStartMs: number | null = null;
  try {
    embeddedFirstStartMs = await timeEmbeddedFirstStart();
  } catch (error) {
    progress(`embedded first start failed: ${(error as Error).message}`);
  }

  /** A scenario against the strong naive baseline: the agenda's pages against its agenda SQL, the rest its hot read. */
  function strongRatio(name: string, load: LoadResult): ScenarioReport["ratioToStrongBaseline"] {
    const against = name.startsWith("agenda") && strongAgendaBaseline ? "agenda" : "hotRead";
    const b = against === "agenda" ? strongAgendaBaseline! : strongBaseline;
    return {
      against,
      requestsPerSecond: ratio(load.requestsPerSecond, b.transactionsPerSecond),
      p50: ratio(load.p50Ms, b.p50Ms),
      p99: ratio(load.p99Ms, b.p99Ms),
    };
  }
  const scenarioReports: ScenarioReport[] = results.map(({ scenario, connections, load, peakRssKiB }) => ({
    scenario: scenario.name,
    label: scenario.label,
    connections,
    ...load,
    peakRssKiB,
    ratioToBaseline: {
      requestsPerSecond: ratio(load.requestsPerSecond, baseline.transactionsPerSecond),
      p50: ratio(load.p50Ms, baseline.p50Ms),
      p99: ratio(load.p99Ms, baseline.p99Ms),
    },
    ratioToStrongBaseline: strongRatio(scenario.name, load),
  }));
  const report: BenchReport = {
    startedAt: startedAt.toISOString(),
    settings: {
      seconds,
      warmupSeconds,
      scale,
      server: server.embedded ? "embedded" : "DATABASE_URL",
      database: database.name,
      loadGenerator: generator,
    },
    machine: { cpus: cpus().length, bun: Bun.version, postgres: version },
    seed: { ms: seedMs, counts: { ...counts }, stepsMs: seedSteps, repairs: repairsSeeded },
    scenarios: scenarioReports,
    baseline,
    agendaBaseline,
    strongBaseline,
    strongAgendaBaseline,
    ...(pools.repairsDue
      ? {
          repairsDue: {
            dueBefore: pools.repairsDue.dueBefore,
            limit: pools.repairsDue.limit,
            pages: pools.repairsDue.paths.length,
            pagesRead: fullPages(pools.repairsDue).length,
            rows: pools.repairsDue.rows,
          },
        }
      : {}),
    repairsDueBaseline,
    peakRssKiB,
    coldStart: { emptyDatabaseMs, migratedDatabaseMs: service.coldStartMs },
    embeddedFirstStartMs,
  };
  const jsonFile = join(outDir, `${stamp}.json`);
  writeFileSync(jsonFile, JSON.stringify(report, null, 2) + "\n");
  console.log(renderReport(report));
  console.log(`\nJSON: ${jsonFile}`);
  // Webhooks (bench/webhooks.ts): on the same server, in a database of its own, with the service's workers on.
  progress("webhooks: deliveries a second, and writes with one active subscription vs none");
  const webhooks = Bun.spawn([process.execPath, join(root, "bench", "webhooks.ts")], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: server.url,
      BENCH_SECONDS: String(Math.min(seconds, 5)),
      BENCH_EVENTS: String(Math.max(5, Math.round(100 * scale))),
    },
    stdout: "inherit",
    stderr: "inherit",
  });
  if ((await webhooks.exited) !== 0) throw new Error("bench/webhooks.ts failed");
} catch (error) {
  progress(`failed: ${(error as Error).stack ?? error}`);
  process.exitCode = 1;
} finally {
  await cleanup();
}
