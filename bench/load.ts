/**
 * The load generator, run as its own process: `bun bench/load.ts <spec.json>`. Drives one scenario with wrk
 * (bench/wrk.ts) or autocannon (one worker), as the spec says, and prints its figures as one JSON line on stdout.
 */
import autocannon from "autocannon";
import { readFileSync } from "node:fs";
import { dirname } from "node:path";
import { driveWrk } from "./wrk.ts";
import { cpuPerRequest, sampleCpu } from "./cpu.ts";
import { requestMaker, unexpectedAnswers, type ScenarioName } from "./scenarios.ts";
import type { LoadPools } from "./seed.ts";

/** What the parent asks for. */
export interface LoadSpec {
  url: string;
  apiKey: string;
  scenario: ScenarioName;
  connections: number;
  seconds: number;
  warmupSeconds: number;
  runId: string;
  poolsFile: string;
  /** Send exactly this many requests (then `seconds` is only an upper bound). */
  amount?: number;
  generator: LoadGenerator;
  /** The service's pid: the measured window's CPU a request is read from /proc (bench/cpu.ts). */
  servicePid?: number;
  /** The status every answer must have (the scenario's `expectStatus`); any 2xx when unset. */
  expectStatus?: number;
}

/** The load generators the benchmark can drive. */
export type LoadGenerator = "wrk" | "autocannon";

/** What one scenario measured: latencies over every answer, whatever its status. */
export interface LoadResult {
  generator: LoadGenerator;
  requests: number;
  seconds: number;
  requestsPerSecond: number;
  p50Ms: number | null;
  p99Ms: number | null;
  meanMs: number | null;
  non2xx: number;
  /** The status the scenario expects of every answer; null: any 2xx. */
  expectStatus: number | null;
  /** Answers with another status than the one expected: failures. */
  unexpected: number;
  status5xx: number;
  /** Socket errors and timeouts. */
  errors: number;
  statusCounts: Record<string, number>;
  /** CPU µs a request over the measured window: the service's and the Postgres server's (when its processes are on this machine). */
  cpu?: { serviceMicros: number | null; postgresMicros: number | null };
  /** CPU µs a request of the load generator's own process over its whole run (wrk only): its share of the cores. */
  generatorMicros?: number | null;
}

function percentile(sorted: Float64Array, p: number): number | null {
  if (sorted.length === 0) return null;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return Math.round(sorted[index]! * 100) / 100;
}

async function drive(spec: LoadSpec, pools: LoadPools, seconds: number, runId: string): Promise<LoadResult> {
  const next = requestMaker(spec.scenario, pools, runId);
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  const instance = autocannon({
    url: spec.url,
    connections: spec.connections,
    ...(spec.amount ? { amount: spec.amount } : { duration: seconds }),
    timeout: 30,
    headers: { "x-api-key": spec.apiKey, "content-type": "application/json" },
    requests: [
      {
        setupRequest: (request) => {
          const r = next();
          const headers = r.headers ? { ...request.headers, ...r.headers } : request.headers;
          return { ...request, method: r.method, path: r.path, body: r.body, headers };
        },
      },
    ],
  });
  instance.on("response", (_client, _status, _bytes, ms) => {
    if (count === latencies.length) {
      const grown = new Float64Array(latencies.length * 2);
      grown.set(latencies);
      latencies = grown;
    }
    latencies[count++] = ms;
  });
  const result = await instance;
  const sorted = latencies.subarray(0, count).sort();
  let sum = 0;
  for (const v of sorted) sum += v;
  const statusCounts = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([k, v]) => [k, v.count]));
  const total = Object.values(statusCounts).reduce((a, b) => a + b, 0);
  return {
    generator: "autocannon",
    requests: total,
    seconds: result.duration,
    requestsPerSecond: Math.round((total / result.duration) * 10) / 10,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    meanMs: count ? Math.round((sum / count) * 100) / 100 : null,
    non2xx: result.non2xx,
    expectStatus: spec.expectStatus ?? null,
    unexpected: unexpectedAnswers(statusCounts, spec.expectStatus),
    status5xx: result["5xx"],
    errors: result.errors + result.timeouts,
    statusCounts,
  };
}

if (import.meta.main) {
  const spec = JSON.parse(readFileSync(process.argv[2]!, "utf8")) as LoadSpec;
  const pools = JSON.parse(readFileSync(spec.poolsFile, "utf8")) as LoadPools;
  const workDir = dirname(process.argv[2]!);
  const run = (seconds: number, runId: string) =>
    spec.generator === "wrk" ? driveWrk(spec, pools, seconds, runId, workDir) : drive(spec, pools, seconds, runId);
  if (spec.warmupSeconds > 0) await run(spec.warmupSeconds, `${spec.runId}w`);
  const before = spec.servicePid ? sampleCpu(spec.servicePid) : undefined;
  const result = await run(spec.seconds, spec.runId);
  if (before) result.cpu = cpuPerRequest(before, sampleCpu(spec.servicePid!), result.requests);
  process.stdout.write(JSON.stringify(result) + "\n");
  process.exit(0);
}
