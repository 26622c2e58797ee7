/**
 * Drives one scenario with wrk (Debian's package), when present: the requests are drawn up front into a file that
 * bench/wrk.lua sends in turn, 2 threads, the scenario's connections. wrk is C: on a 2-core machine it leaves more
 * of the CPU to the service than autocannon (a JavaScript process) does.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { requestMaker, unexpectedAnswers, type BenchRequest } from "./scenarios.ts";
import type { LoadPools } from "./seed.ts";
import type { LoadResult, LoadSpec } from "./load.ts";

/** wrk's path, when installed. */
export const wrkPath = (): string | null => Bun.which("wrk");

const threads = 2;

/**
 * One line of the requests file bench/wrk.lua reads: "METHOD<TAB>PATH<TAB>BODY", then one field a header,
 * "name: value". A request without headers is the three fields it always was.
 */
export function requestLine(r: BenchRequest): string {
  const fields = [r.method, r.path, r.body ?? ""];
  for (const [name, value] of Object.entries(r.headers ?? {})) fields.push(`${name}: ${value}`);
  for (const field of fields.slice(1)) {
    if (/[\t\r\n]/.test(field)) throw new Error(`a wrk request field cannot hold a tab or line break: ${field}`);
  }
  return fields.join("\t");
}

/** Runs wrk for `seconds` and reads its JSON line (wrk runs for a duration: a spec with `amount` needs autocannon). */
export async function driveWrk(
  spec: LoadSpec,
  pools: LoadPools,
  seconds: number,
  runId: string,
  workDir: string,
): Promise<LoadResult> {
  const next = requestMaker(spec.scenario, pools, runId);
  // Enough distinct requests that a run never repeats a fresh requestId (companies) nor cycles a short list.
  if (spec.amount) throw new Error("wrk runs for a duration; drive a fixed number of requests with autocannon");
  const count = Math.max(50_000, seconds * 8_000);
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const r = next();
    lines.push(requestLine(r));
  }
  const file = join(workDir, `${runId}.requests`);
  writeFileSync(file, lines.join("\n") + "\n");
  const proc = Bun.spawn(
    [
      wrkPath()!,
      "-t",
      String(threads),
      "-c",
      String(spec.connections),
      "-d",
      `${seconds}s`,
      "--timeout",
      "30s",
      "-s",
      join(import.meta.dir, "wrk.lua"),
      spec.url,
    ],
    {
      env: { ...process.env, BENCH_REQUESTS: file, BENCH_KEY: spec.apiKey, BENCH_THREADS: String(threads) },
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  const last = out
    .trim()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .pop();
  if (code !== 0 || !last) throw new Error(`wrk failed (exit ${code}): ${err.trim() || out.trim()}`);
  const w = JSON.parse(last) as {
    requests: number;
    durationUs: number;
    p50Us: number;
    p99Us: number;
    meanUs: number;
    statusCounts: Record<string, number>;
    socketErrors: number;
    timeouts: number;
  };
  const statuses = Object.entries(w.statusCounts);
  const answered = statuses.reduce((a, [, n]) => a + n, 0);
  const generatorCpu = proc.resourceUsage()?.cpuTime.total;
  const duration = w.durationUs / 1e6;
  const ms = (us: number) => Math.round(us / 10) / 100;
  return {
    generator: "wrk",
    requests: answered,
    seconds: Math.round(duration * 100) / 100,
    requestsPerSecond: Math.round((answered / duration) * 10) / 10,
    p50Ms: answered ? ms(w.p50Us) : null,
    p99Ms: answered ? ms(w.p99Us) : null,
    meanMs: answered ? ms(w.meanUs) : null,
    non2xx: statuses.filter(([s]) => !s.startsWith("2")).reduce((a, [, n]) => a + n, 0),
    expectStatus: spec.expectStatus ?? null,
    unexpected: unexpectedAnswers(w.statusCounts, spec.expectStatus),
    status5xx: statuses.filter(([s]) => s.startsWith("5")).reduce((a, [, n]) => a + n, 0),
    errors: w.socketErrors + w.timeouts,
    statusCounts: w.statusCounts,
    generatorMicros: answered && generatorCpu !== undefined ? Math.round(Number(generatorCpu) / answered) : null,
  };
}
