/** The benchmark's printed table and the JSON it writes. */
import type { LoadResult } from "./load.ts";
import type { BaselineResult } from "./baseline.ts";
import type { RepairSeedSummary } from "./seed_repairs.ts";

/** One scenario's row. */
export interface ScenarioReport extends LoadResult {
  scenario: string;
  label: string;
  connections: number;
  /** VmHWM of the service process during this scenario (KiB), when the kernel lets us reset it. */
  peakRssKiB: number | null;
  /** Service figure / baseline figure: req/s over tps (higher is better), latencies over latencies (lower is better). */
  ratioToBaseline: { requestsPerSecond: number | null; p50: number | null; p99: number | null };
  /**
   * The same against the strong naive baseline (issue 36): the agenda's scenarios against its agenda SQL when that
   * ran, the others against its hot read. Absent in reports written before it.
   */
  ratioToStrongBaseline?: {
    against: "hotRead" | "agenda";
    requestsPerSecond: number | null;
    p50: number | null;
    p99: number | null;
  };
}

/** Everything one run measured. */
export interface BenchReport {
  startedAt: string;
  settings: {
    seconds: number;
    warmupSeconds: number;
    scale: number;
    server: "DATABASE_URL" | "embedded";
    database: string;
    loadGenerator: string;
  };
  machine: { cpus: number; bun: string; postgres: string };
  seed: {
    ms: number;
    counts: Record<string, number>;
    stepsMs: Record<string, number>;
    /** How the seeded repairs came out (bench/seed_repairs.ts); absent in reports written before them. */
    repairs?: RepairSeedSummary;
  };
  scenarios: ScenarioReport[];
  baseline: BaselineResult;
  /** The agenda page's bare SQL under pgbench (agendaBaselineScript), and the agenda's req/s over its tps. */
  agendaBaseline?: BaselineResult & { ratio: number | null };
  /** The strong naive hot read under pgbench (strongBaselineScript), run beside `baseline`. */
  strongBaseline?: BaselineResult;
  /** The strong naive agenda page under pgbench (strongAgendaBaselineScript), and the agenda's req/s over its tps. */
  strongAgendaBaseline?: BaselineResult & { ratio: number | null };
  /**
   * The due list the repairsDue scenario read: its dueBefore, page size, pages, the full pages it read among them
   * (bench/repairs_due.ts fullPages) and repairs over them all.
   */
  repairsDue?: { dueBefore: string; limit: number; pages: number; pagesRead?: number; rows: number };
  /** The due list's naive SQL under pgbench (repairsDueBaselineScript), and repairsDue's req/s over its tps. */
  repairsDueBaseline?: BaselineResult & { ratio: number | null };
  peakRssKiB: number | null;
  coldStart: { emptyDatabaseMs: number; migratedDatabaseMs: number };
  embeddedFirstStartMs: number | null;
}

/** a / b rounded to 2 decimals, or null. */
export function ratio(a: number | null, b: number | null): number | null {
  if (a === null || b === null || !Number.isFinite(a) || !Number.isFinite(b) || b === 0) return null;
  return Math.round((a / b) * 100) / 100;
}

const fmt = (v: number | null, digits = 0) =>
  v === null ? "-" : v.toLocaleString("en-GB", { maximumFractionDigits: digits, minimumFractionDigits: digits });
const cpu = (us: number | null | undefined) => (us === null || us === undefined ? "-" : `${us.toFixed(0)} µs`);
const mib = (kib: number | null) => (kib === null ? "-" : `${(kib / 1024).toFixed(0)} MiB`);

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(" | ")} |`;
  return [
    line(header),
    `|${widths.map((w, i) => (i === 0 ? "-".repeat(w + 2) : `${"-".repeat(w + 1)}:`)).join("|")}|`,
    ...rows.map(line),
  ].join("\n");
}

/** The conditional stored-row reads (304) beside the full ones, when both ran: what a poller saves. */
function conditionalLine(r: BenchReport): string[] {
  const full = r.scenarios.find((s) => s.scenario === "handover");
  const conditional = r.scenarios.find((s) => s.scenario === "handoverConditional");
  if (!full || !conditional) return [];
  const times = (a: number | null | undefined, b: number | null | undefined) =>
    `${ratio(a ?? null, b ?? null)?.toFixed(2) ?? "-"}×`;
  const rate = times(conditional.requestsPerSecond, full.requestsPerSecond);
  const service = times(conditional.cpu?.serviceMicros, full.cpu?.serviceMicros);
  const postgres = times(conditional.cpu?.postgresMicros, full.cpu?.postgresMicros);
  return [
    `If-None-Match (304) over full stored-row reads (200): req/s ${rate}, ` +
      `CPU a request service ${service}, Postgres ${postgres}`,
  ];
}

/** A scenario's ratio to the strong naive baseline; `a` when against its agenda SQL (a report says so below). */
function strongCell(s: ScenarioReport["ratioToStrongBaseline"]): string {
  if (!s || s.requestsPerSecond === null) return "-";
  return `${s.requestsPerSecond.toFixed(2)}×${s.against === "agenda" ? " a" : ""}`;
}

/** The report as text for stdout. */
export function renderReport(r: BenchReport): string {
  const rows = r.scenarios.map((s) => [
    s.generator === r.settings.loadGenerator ? s.label : `${s.label} (${s.generator})`,
    String(s.connections),
    fmt(s.requestsPerSecond),
    fmt(s.p50Ms, 2),
    fmt(s.p99Ms, 2),
    s.expectStatus === null ? "2xx" : String(s.expectStatus),
    fmt(s.unexpected),
    fmt(s.status5xx),
    fmt(s.errors),
    s.ratioToBaseline.requestsPerSecond === null ? "-" : `${s.ratioToBaseline.requestsPerSecond.toFixed(2)}×`,
    strongCell(s.ratioToStrongBaseline),
  ]);
  const b = r.baseline;
  const runs = b.runs && b.runs.length > 1 ? ` (mean of ${b.runs.map((t) => fmt(t)).join(" before, ")} after)` : "";
  rows.push([
    `baseline: pgbench key+bucket+row${runs}`,
    String(b.connections),
    fmt(b.transactionsPerSecond),
    fmt(b.p50Ms, 2),
    fmt(b.p99Ms, 2),
    "-",
    "-",
    "-",
    fmt(b.failed),
    "1.00×",
    "-",
  ]);
  const a = r.agendaBaseline;
  if (a) {
    const agenda = r.scenarios.find((s) => s.scenario === "agenda");
    rows.push([
      `agenda's bare SQL: pgbench key + range read (agenda ${a.ratio === null ? "-" : `${a.ratio.toFixed(2)}×`} of it)`,
      String(a.connections),
      fmt(a.transactionsPerSecond),
      fmt(a.p50Ms, 2),
      fmt(a.p99Ms, 2),
      "-",
      "-",
      "-",
      fmt(a.failed),
      agenda ? (ratio(a.transactionsPerSecond, b.transactionsPerSecond)?.toFixed(2) ?? "-") + "×" : "-",
      "-",
    ]);
  }
  const d = r.repairsDueBaseline;
  if (d) {
    rows.push([
      `due list's naive SQL: pgbench key+budget CTE + range read (repairsDue ${d.ratio === null ? "-" : `${d.ratio.toFixed(2)}×`} of it)`,
      String(d.connections),
      fmt(d.transactionsPerSecond),
      fmt(d.p50Ms, 2),
      fmt(d.p99Ms, 2),
      "-",
      "-",
      "-",
      fmt(d.failed),
      (ratio(d.transactionsPerSecond, b.transactionsPerSecond)?.toFixed(2) ?? "-") + "×",
      "-",
    ]);
  }
  const sb = r.strongBaseline;
  if (sb) {
    const runs =
      sb.runs && sb.runs.length > 1 ? ` (mean of ${sb.runs.map((t) => fmt(t)).join(" before, ")} after)` : "";
    rows.push([
      `strong baseline: pgbench key+unlogged budget CTE + stored JSON row${runs}`,
      String(sb.connections),
      fmt(sb.transactionsPerSecond),
      fmt(sb.p50Ms, 2),
      fmt(sb.p99Ms, 2),
      "-",
      "-",
      "-",
      fmt(sb.failed),
      (ratio(sb.transactionsPerSecond, b.transactionsPerSecond)?.toFixed(2) ?? "-") + "×",
      "1.00×",
    ]);
  }
  const sa = r.strongAgendaBaseline;
  if (sa) {
    rows.push([
      `strong agenda baseline: pgbench key+unlogged budget CTE + denormalised range read (agenda ${sa.ratio === null ? "-" : `${sa.ratio.toFixed(2)}×`} of it)`,
      String(sa.connections),
      fmt(sa.transactionsPerSecond),
      fmt(sa.p50Ms, 2),
      fmt(sa.p99Ms, 2),
      "-",
      "-",
      "-",
      fmt(sa.failed),
      (ratio(sa.transactionsPerSecond, b.transactionsPerSecond)?.toFixed(2) ?? "-") + "×",
      "-",
    ]);
  }
  const counts = Object.entries(r.seed.counts)
    .map(([k, v]) => `${k} ${v.toLocaleString("en-GB")}`)
    .join(", ");
  return [
    `Benchmark ${r.startedAt}: ${r.settings.seconds} s a scenario (+${r.settings.warmupSeconds} s warm-up), scale ${r.settings.scale}, ` +
      `${r.settings.server === "embedded" ? "embedded Postgres" : "DATABASE_URL's server"} (${r.machine.postgres}), ${r.machine.cpus} CPUs, Bun ${r.machine.bun}, ` +
      `load from ${r.settings.loadGenerator}`,
    `Seed: ${(r.seed.ms / 1000).toFixed(1)} s (${counts})`,
    ...(r.seed.repairs
      ? [
          `Repairs seeded: ${Object.entries(r.seed.repairs.byStatus)
            .map(([k, v]) => `${k} ${v.toLocaleString("en-GB")}`)
            .join(", ")}; ${r.seed.repairs.withOpenClock.toLocaleString("en-GB")} with an open clock, ` +
            `${r.seed.repairs.openBreached.toLocaleString("en-GB")} breached; ` +
            `${r.seed.repairs.momentsOwed.toLocaleString("en-GB")} clock moments owed`,
        ]
      : []),
    ...(r.repairsDue
      ? [
          `Due list (clock=open, dueBefore ${r.repairsDue.dueBefore}, limit ${r.repairsDue.limit}): ` +
            `${r.repairsDue.rows.toLocaleString("en-GB")} repairs over ${r.repairsDue.pages} pages, ` +
            `${r.repairsDue.pagesRead ?? "-"} of them (the full ones) read`,
        ]
      : []),
    "",
    table(
      [
        "scenario",
        "connections",
        "req/s",
        "p50 ms",
        "p99 ms",
        "expected",
        "unexpected",
        "5xx",
        "errors",
        "ratio to baseline",
        "ratio to strong",
      ],
      rows,
    ),
    "",
    `Status codes: ${r.scenarios
      .map(
        (s) =>
          `${s.scenario} ${
            Object.entries(s.statusCounts)
              .map(([k, v]) => `${k}×${v}`)
              .join(" ") || "none"
          }`,
      )
      .join("; ")}`,
    `CPU a request over each measured window, service / Postgres: ${r.scenarios.map((s) => `${s.scenario} ${cpu(s.cpu?.serviceMicros)} / ${cpu(s.cpu?.postgresMicros)}`).join(", ")}`,
    `CPU a request of the load generator (wrk, whole run): ${
      r.scenarios
        .filter((s) => s.generatorMicros != null)
        .map((s) => `${s.scenario} ${cpu(s.generatorMicros)}`)
        .join(", ") || "-"
    }`,
    ...conditionalLine(r),
    ...(r.strongBaseline
      ? [
          "Ratio to strong: req/s over the strong naive baseline's tps (issue 36): its hot read, or its agenda SQL " +
            "where marked `a`.",
        ]
      : []),
    `Peak RSS of the service: ${mib(r.peakRssKiB)} (per scenario: ${r.scenarios.map((s) => `${s.scenario} ${mib(s.peakRssKiB)}`).join(", ")})`,
    `Cold start (bun src/main.ts to first /health 200): ${fmt(r.coldStart.migratedDatabaseMs)} ms on a migrated database, ` +
      `${fmt(r.coldStart.emptyDatabaseMs)} ms on an empty one (migrations applied)`,
    `Embedded Postgres first start (initdb + start): ${r.embeddedFirstStartMs === null ? "-" : `${fmt(r.embeddedFirstStartMs)} ms`}`,
  ].join("\n");
}
