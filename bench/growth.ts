/**
 * Growth: `BENCH_SCALES=0.1,1,5 bun run bench` (or `bun run bench --scales 0.1,1,5`) runs the read scenarios once a
 * scale (BENCH_ONLY's instead when set: `BENCH_ONLY=repairsDue,createRepair`), each in a whole `bun run bench` of its
 * own (a fresh database seeded at that scale), and prints CPU a request, p99 and peak RSS per scale, with the largest
 * scale's figure over the smallest's. `bun bench/growth.ts <report.json>…` prints the same table from reports already
 * written (./.data/bench/*.json), for instance one scale run again.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { BenchReport } from "./report.ts";

/** The scenarios a growth run measures: every read (first reads store rows, which the stored-row reads then read). */
export const readScenarios = [
  "handoverFirst",
  "handover",
  "agendaFirst",
  "agenda",
  "agendaComputed",
  "agendaUtc",
  "duplicateCheck",
  "repairsDue",
] as const;

/** The scales asked for (`--scales a,b,c` or BENCH_SCALES), or undefined for a run at one scale. */
export function requestedScales(argv: string[], env: Record<string, string | undefined>): number[] | undefined {
  const flag = argv.indexOf("--scales");
  const raw = flag >= 0 ? argv[flag + 1] : env.BENCH_SCALES;
  if (raw === undefined || raw === "") return undefined;
  const scales = raw.split(",").map(Number);
  if (scales.some((s) => !Number.isFinite(s) || s < 0.001 || s > 10)) {
    throw new Error(`--scales / BENCH_SCALES must be numbers from 0.001 to 10 separated by commas, not "${raw}"`);
  }
  return scales;
}

/** The growth table: one row a scenario and figure, one column a scale, and the last scale over the first. */
export function renderGrowth(reports: BenchReport[]): string {
  const scales = reports.map((r) => r.settings.scale);
  const lines = [
    `| scenario | figure | ${scales.map((s) => `scale ${s}`).join(" | ")} | last / first |`,
    `|---|---|${scales.map(() => "--:").join("|")}|--:|`,
  ];
  const figures: [string, (s: BenchReport["scenarios"][number]) => number | null | undefined][] = [
    ["service µs a request", (s) => s.cpu?.serviceMicros],
    ["Postgres µs a request", (s) => s.cpu?.postgresMicros],
    ["p99 ms", (s) => s.p99Ms],
    ["req/s", (s) => s.requestsPerSecond],
    ["peak RSS MiB", (s) => (s.peakRssKiB === null ? null : s.peakRssKiB / 1024)],
  ];
  const names = [...new Set(reports.flatMap((r) => r.scenarios.map((s) => s.scenario)))];
  for (const name of names) {
    for (const [figure, read] of figures) {
      const values = reports.map((r) => {
        const s = r.scenarios.find((x) => x.scenario === name);
        return s ? (read(s) ?? null) : null;
      });
      const first = values[0];
      const last = values[values.length - 1];
      const ratio = first && last ? (last / first).toFixed(2) : "-";
      const cells = values.map((v) => (v === null ? "-" : v.toFixed(figure === "p99 ms" ? 1 : 0)));
      lines.push(`| ${name} | ${figure} | ${cells.join(" | ")} | ${ratio} |`);
    }
  }
  // The due list beside its own naive SQL, scale by scale.
  if (reports.some((r) => r.repairsDueBaseline)) {
    const cell = (r: BenchReport) =>
      r.repairsDueBaseline
        ? `${r.repairsDueBaseline.transactionsPerSecond.toFixed(0)} tps (repairsDue ${r.repairsDueBaseline.ratio?.toFixed(2) ?? "-"}×)`
        : "-";
    lines.push(`| repairsDue | its naive SQL | ${reports.map(cell).join(" | ")} | - |`);
  }
  const counts = reports.map((r) => `scale ${r.settings.scale}: ${JSON.stringify(r.seed.counts)}`);
  return [...lines, "", ...counts].join("\n");
}

/** Runs `bench/run.ts` once a scale with the read scenarios only, then prints the growth table. */
export async function runGrowth(scales: number[]): Promise<void> {
  const reports: BenchReport[] = [];
  for (const scale of scales) {
    process.stderr.write(`bench: growth, scale ${scale}\n`);
    const proc = Bun.spawn([process.execPath, join(import.meta.dir, "run.ts")], {
      env: {
        ...process.env,
        BENCH_SCALES: "",
        BENCH_SCALE: String(scale),
        BENCH_ONLY: process.env.BENCH_ONLY || readScenarios.join(","),
      },
      stdout: "pipe",
      stderr: "inherit",
    });
    const out = await new Response(proc.stdout).text();
    if ((await proc.exited) !== 0) throw new Error(`the run at scale ${scale} failed`);
    process.stdout.write(`${out}\n`);
    const file = /^JSON: (.+)$/m.exec(out)?.[1];
    if (!file) throw new Error(`the run at scale ${scale} printed no JSON file`);
    reports.push(JSON.parse(readFileSync(file, "utf8")) as BenchReport);
  }
  console.log(`\nGrowth (${scales.join(", ")}):\n\n${renderGrowth(reports)}`);
}

if (import.meta.main) {
  const files = process.argv.slice(2);
  const reports = files.map((f) => JSON.parse(readFileSync(f, "utf8")) as BenchReport);
  console.log(renderGrowth(reports.sort((a, b) => a.settings.scale - b.settings.scale)));
}
