/**
 * The benchmark's own pieces: combining baseline runs, CPU a request, and whole `bun run bench` runs at a tiny
 * scale (seed, service, load, pgbench, report) that must answer every request with the status its scenario expects
 * (a 2xx; 304 to the conditional reads). Figures are never asserted: performance is read from the benchmark's
 * output, not from tests.
 */
import { expect, setDefaultTimeout, test } from "bun:test";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { combineBaselines, readPgbenchOutput, runBaseline, type BaselineRun } from "../../bench/baseline.ts";
import { cpuPerRequest, processCpuMicros, sampleCpu } from "../../bench/cpu.ts";
import { testServerUrl } from "../support/server.ts";
import { envWithout, runToEnd } from "../support/service.ts";

// Bun applies the preload's timeout to the first file only; this file talks to Postgres or subprocesses.
setDefaultTimeout(30_000);

const run = (tps: number, latencies: number[]): BaselineRun => ({
  result: {
    command: "pgbench",
    script: "",
    connections: 64,
    transactions: latencies.length,
    failed: 0,
    seconds: 10,
    transactionsPerSecond: tps,
    p50Ms: null,
    p99Ms: null,
    meanMs: null,
  },
  latenciesMs: Float64Array.from(latencies),
});

test("baseline runs combine as the mean of their rates, with percentiles over every transaction of both", () => {
  const combined = combineBaselines([run(1000, [1, 2, 3, 4]), run(3000, [5, 6, 7, 8, 9, 10])]);
  expect(combined.transactionsPerSecond).toBe(2000);
  expect(combined.runs).toEqual([1000, 3000]);
  expect(combined.transactions).toBe(10);
  expect(combined.seconds).toBe(20);
  expect(combined.p50Ms).toBe(5);
  expect(combined.p99Ms).toBe(10);
  expect(combined.meanMs).toBe(5.5);
});

const zeroTransactionsOutput = `pgbench (15.20 (Debian 15.20-0+deb12u1))
transaction type: baseline.sql
scaling factor: 1
query mode: prepared
number of clients: 64
number of threads: 2
maximum number of tries: 1
duration: 1 s
number of transactions actually processed: 0
number of failed transactions: 0 (NaN%)
`;

test("pgbench's output after no transaction reads as 0 transactions and no tps (it prints no tps line then)", () => {
  const read = readPgbenchOutput(zeroTransactionsOutput);
  expect(read.transactions).toBe(0);
  expect(read.failed).toBe(0);
  expect(read.tps).toBeNaN();
  const full = `${zeroTransactionsOutput.replace("processed: 0", "processed: 1200")}latency average = 52.1 ms
initial connection time = 610.2 ms
tps = 1203.5 (without initial connection time)
`;
  expect(readPgbenchOutput(full)).toEqual({ transactions: 1200, failed: 0, tps: 1203.5, latencyAverageMs: 52.1 });
});

test("a pgbench run that processed no transaction (its connections outlasted -T) runs again, twice as long", async () => {
  const dir = mkdtempSync(join(tmpdir(), "fake-pgbench-"));
  try {
    // A pgbench that processes nothing when given -T 1 (its connections took longer), and 1,200 transactions with a
    // longer run; it logs each -T it got.
    const fake = join(dir, "pgbench");
    writeFileSync(
      fake,
      `#!/bin/sh
while [ $# -gt 0 ]; do
  case "$1" in -T) shift; seconds="$1"; echo "$1" >> "${dir}/durations";; --log-prefix=*) prefix="\${1#--log-prefix=}";; esac
  shift
done
if [ "$seconds" -lt 2 ]; then
  printf '%s' '${zeroTransactionsOutput}'
else
  echo "0 0 1500 0 1 1" > "$prefix.1"
  printf 'number of transactions actually processed: 1200\\nnumber of failed transactions: 0 (0.000%%)\\nlatency average = 52.1 ms\\ntps = 600.0 (without initial connection time)\\n'
fi
`,
    );
    chmodSync(fake, 0o755);
    const input = {
      pgbench: fake,
      databaseUrl: "postgres://unused",
      connections: 64,
      seconds: 1,
      workDir: join(dir, "work"),
      workspaceId: "w",
      keyId: "k",
      keyHashHex: "00",
      tenancies: 1,
      tenancyPrefix: "ten-",
    };
    const { result, latenciesMs } = await runBaseline(input);
    expect(readFileSync(join(dir, "durations"), "utf8")).toBe("1\n2\n");
    expect({ seconds: result.seconds, tps: result.transactionsPerSecond, transactions: result.transactions }).toEqual({
      seconds: 2,
      tps: 600,
      transactions: 1200,
    });
    expect([...latenciesMs]).toEqual([1.5]);
    // Never a transaction: refused after maxTries runs, not reported as a figure.
    await expect(runBaseline({ ...input, maxTries: 1 })).rejects.toThrow(/no transaction in 1 runs/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("CPU a request: the service's growth and every Postgres process's, a process new at the second sample from zero", () => {
  const before = {
    service: 1_000,
    postgres: new Map([
      [10, 500],
      [11, 700],
    ]),
  };
  const after = {
    service: 4_000,
    postgres: new Map([
      [10, 1_500],
      [11, 700],
      [12, 300],
    ]),
  };
  expect(cpuPerRequest(before, after, 100)).toEqual({ serviceMicros: 30, postgresMicros: 13 });
  expect(cpuPerRequest(before, { service: null, postgres: new Map() }, 100)).toEqual({
    serviceMicros: null,
    postgresMicros: null,
  });
  expect(cpuPerRequest(before, after, 0)).toEqual({ serviceMicros: null, postgresMicros: null });
});

test("a process's CPU is read from /proc and only grows", () => {
  const first = processCpuMicros(process.pid)!;
  let x = 0;
  for (let i = 0; i < 3e7; i++) x += i % 7;
  expect(x).toBeGreaterThan(0);
  expect(processCpuMicros(process.pid)!).toBeGreaterThan(first);
  expect(processCpuMicros(2 ** 30)).toBeNull();
  expect(sampleCpu(process.pid).service).toBeGreaterThan(0);
});

const pgbench = process.env.PGBENCH || (existsSync("/usr/bin/pgbench") ? "/usr/bin/pgbench" : Bun.which("pgbench"));

/** Runs `bun run bench` at a tiny scale, 1 s a scenario, and returns its JSON report and what it printed. */
async function tinyBench(env: Record<string, string>): Promise<{ report: any; stdout: string }> {
  const bench = await runToEnd([process.execPath, "bench/run.ts"], {
    env: envWithout([], {
      DATABASE_URL: await testServerUrl(),
      BENCH_SECONDS: "1",
      BENCH_WARMUP_SECONDS: "0",
      BENCH_SCALE: "0.005",
      PGBENCH: pgbench!,
      ...env,
    }),
  });
  expect({ code: bench.code, err: bench.code === 0 ? "" : bench.stderr }).toEqual({ code: 0, err: "" });
  const file = bench.stdout.match(/JSON: (.+\.json)/)![1]!;
  const report = JSON.parse(readFileSync(file, "utf8"));
  rmSync(file);
  return { report, stdout: bench.stdout };
}

/** Every answer of the conditional scenario is a 304 (a 200 would mean the If-None-Match was not sent or wrong). */
function expectEvery304(s: any) {
  expect(s.requests).toBeGreaterThan(0);
  expect({
    expectStatus: s.expectStatus,
    unexpected: s.unexpected,
    errors: s.errors,
    statusCounts: s.statusCounts,
  }).toEqual({
    expectStatus: 304,
    unexpected: 0,
    errors: 0,
    statusCounts: { "304": s.requests },
  });
}

// pgbench ships with Postgres's client tools, not with the embedded server: without it the bench cannot run.
test.skipIf(!pgbench)(
  "bun run bench at a tiny scale answers every request of every scenario with its expected status (a 2xx; 304 " +
    "to If-None-Match) and writes its report",
  async () => {
    // Pages of 1 repair: the tiny seed's due list (a few repairs) spans several, so cursor pages are read too.
    const { report, stdout } = await tinyBench({ BENCH_LOADGEN: "autocannon", BENCH_REPAIRS_LIMIT: "1" });
    expect(report.scenarios.map((s: any) => s.scenario)).toEqual([
      "handoverFirst",
      "handover",
      "handoverConditional",
      "agendaFirst",
      "agenda",
      "agendaComputed",
      "agendaUtc",
      "duplicateCheck",
      "repairsDue",
      "createCompany",
      "createRepair",
    ]);
    for (const s of report.scenarios) {
      expect(s.requests).toBeGreaterThan(0);
      expect(s.cpu.serviceMicros).toBeGreaterThan(0);
      if (s.scenario === "handoverConditional") continue;
      expect({ scenario: s.scenario, non2xx: s.non2xx, unexpected: s.unexpected, errors: s.errors }).toEqual({
        scenario: s.scenario,
        non2xx: 0,
        unexpected: 0,
        errors: 0,
      });
    }
    expectEvery304(report.scenarios[2]);
    // Every tenancy read once, the first time.
    expect(report.scenarios[0].requests).toBe(report.seed.counts.tenancies);
    expect(report.baseline.transactionsPerSecond).toBeGreaterThan(0);
    expect(report.baseline.failed).toBe(0);
    // The due list: seeded repairs with open clocks, over more than one page, every answer a 200; its naive SQL ran.
    const due = report.scenarios.find((s: any) => s.scenario === "repairsDue");
    expect({ statusCounts: due.statusCounts, limit: report.repairsDue.limit }).toEqual({
      statusCounts: { "200": due.requests },
      limit: 1,
    });
    expect(report.repairsDue.pagesRead).toBeGreaterThan(1);
    expect(report.seed.counts.repairs).toBeGreaterThan(0);
    expect(report.repairsDueBaseline.transactionsPerSecond).toBeGreaterThan(0);
    expect(report.repairsDueBaseline.failed).toBe(0);
    const created = report.scenarios.find((s: any) => s.scenario === "createRepair");
    expect(created.statusCounts).toEqual({ "201": created.requests });
    expect(report.coldStart.migratedDatabaseMs).toBeGreaterThan(0);
    expect(stdout).toContain("ratio to baseline");
    // The strong naive baseline (issue 36): its hot read around the stored-row reads and its agenda SQL after the
    // agenda, both with transactions, and every scenario's ratio against one of them, in the JSON and the table.
    for (const b of [report.strongBaseline, report.strongAgendaBaseline]) {
      expect(b.transactions).toBeGreaterThan(0);
      expect(b.failed).toBe(0);
    }
    expect(report.strongBaseline.runs).toHaveLength(2);
    expect(report.strongAgendaBaseline.ratio).toBeGreaterThan(0);
    for (const s of report.scenarios) {
      expect({ scenario: s.scenario, against: s.ratioToStrongBaseline.against }).toEqual({
        scenario: s.scenario,
        against: s.scenario.startsWith("agenda") ? "agenda" : "hotRead",
      });
      // Its req/s over that baseline's tps, to two places (a slow first-reads scenario at this tiny scale may round
      // to 0 against a fast baseline).
      const b = s.scenario.startsWith("agenda") ? report.strongAgendaBaseline : report.strongBaseline;
      expect(b.transactionsPerSecond).toBeGreaterThan(0);
      expect(s.ratioToStrongBaseline.requestsPerSecond).toBe(
        Math.round((s.requestsPerSecond / b.transactionsPerSecond) * 100) / 100,
      );
    }
    expect(stdout).toContain("ratio to strong");
    expect(stdout).toContain("strong baseline: pgbench key+unlogged budget CTE + stored JSON row (mean of ");
    expect(stdout).toContain("strong agenda baseline: pgbench key+unlogged budget CTE + denormalised range read");
    expect(stdout).toContain("If-None-Match (304) over full stored-row reads (200)");
  },
  120_000,
);

/** Whether wrk is installed; in CI (.ci/run installs it) a missing one fails instead of skipping. */
function haveWrk(): boolean {
  if (Bun.which("wrk")) return true;
  if (process.env.CI) throw new Error("wrk is missing: .ci/run installs it (apt-get install -y wrk)");
  return false;
}

// wrk sends the requests from a file (bench/wrk.lua): the If-None-Match header must survive that format too.
test.skipIf(!pgbench || !haveWrk())(
  "bun run bench with wrk answers every If-None-Match request with a 304",
  async () => {
    const { report } = await tinyBench({ BENCH_LOADGEN: "wrk", BENCH_ONLY: "handoverFirst,handoverConditional" });
    expect(report.scenarios.map((s: any) => [s.scenario, s.generator])).toEqual([
      ["handoverFirst", "autocannon"],
      ["handoverConditional", "wrk"],
    ]);
    expectEvery304(report.scenarios[1]);
    // wrk's own CPU a request, read from its process once it exited: its share of the machine's cores.
    expect(report.scenarios[1].generatorMicros).toBeGreaterThan(0);
  },
  120_000,
);
