/**
 * The baseline: pgbench running the minimal per-request SQL of a naive service (look up the key by hash,
 * update its bucket row, select one row by primary key) on the same server, with the same connections.
 */
import { readdirSync, readFileSync, writeFileSync, rmSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Db } from "../src/core/db.ts";

/** What pgbench measured. */
export interface BaselineResult {
  command: string;
  script: string;
  connections: number;
  transactions: number;
  failed: number;
  seconds: number;
  transactionsPerSecond: number;
  p50Ms: number | null;
  p99Ms: number | null;
  meanMs: number | null;
  /** Each pgbench run's tps, when the figures combine several runs (before and after the scenarios). */
  runs?: number[];
}

/** One pgbench run: its figures and every transaction's latency (ms), to combine runs. */
export interface BaselineRun {
  result: BaselineResult;
  latenciesMs: Float64Array;
}

/** Several runs as one: transactions and time summed, percentiles over every transaction of all of them. */
export function combineBaselines(runs: BaselineRun[]): BaselineResult {
  const first = runs[0]!.result;
  const all = new Float64Array(runs.reduce((n, r) => n + r.latenciesMs.length, 0));
  let at = 0;
  for (const r of runs) {
    all.set(r.latenciesMs, at);
    at += r.latenciesMs.length;
  }
  all.sort();
  const transactions = runs.reduce((n, r) => n + r.result.transactions, 0);
  const seconds = runs.reduce((n, r) => n + r.result.seconds, 0);
  let sum = 0;
  for (const v of all) sum += v;
  return {
    ...first,
    transactions,
    failed: runs.reduce((n, r) => n + r.result.failed, 0),
    seconds,
    transactionsPerSecond:
      Math.round((runs.reduce((n, r) => n + r.result.transactionsPerSecond, 0) / runs.length) * 10) / 10,
    p50Ms: percentile(all, 50),
    p99Ms: percentile(all, 99),
    meanMs: all.length ? Math.round((sum / all.length) * 100) / 100 : null,
    runs: runs.map((r) => r.result.transactionsPerSecond),
  };
}

/** The pgbench script: one transaction = the three statements, each on its own (autocommit), like a naive request. */
export const baselineScript = `\\set t random(1, :tenancies)
SELECT id, workspace_id, scopes, created_by_user_id, budget_per_minute FROM api_keys
  WHERE key_hash = decode(:keyhash, 'hex') AND revoked_at IS NULL AND expires_at > now();
UPDATE rate_buckets SET tokens = greatest(tokens - 1, 0), updated_at = clock_timestamp() WHERE key_id = :keyid;
SELECT * FROM tenancies WHERE workspace_id = :ws AND id = :prefix::text || :t::text;
`;

/**
 * The agenda page's bare SQL (issue 19): the key check, then an indexed range read of the same rows as the service's
 * agenda scenario (a random week in the seeded ±60 days, one random member of staff, cancelled events left out, the
 * property, staff and contact names joined, at most 201 rows), each statement on its own.
 */
export const agendaBaselineScript = `\\set s random(1, :staff)
\\set d random(-60, 53)
SELECT id, workspace_id, scopes, created_by_user_id, budget_per_minute FROM api_keys
  WHERE key_hash = decode(:keyhash, 'hex') AND revoked_at IS NULL AND expires_at > now();
SELECT e.*, p.label, u.name AS staff_name, c.name AS contact_name FROM calendar_events e
  LEFT JOIN properties p ON p.workspace_id = e.workspace_id AND p.id = e.property_id
  LEFT JOIN users u ON u.workspace_id = e.workspace_id AND u.id = e.staff_user_id
  LEFT JOIN contacts c ON c.workspace_id = e.workspace_id AND c.id = e.contact_id
  WHERE e.workspace_id = :ws AND e.staff_user_id = 'staff-' || :s AND e.status <> 'cancelled'
    AND e.starts_at >= current_date + (:d)::int AND e.starts_at < current_date + (:d)::int + 7
  ORDER BY e.starts_at, e.id LIMIT 201;
`;

/**
 * The repairs due list's naive SQL (issue 31, point 4; tables from bench/repairs_due.ts): one statement that checks
 * the key and takes one from its budget in an UNLOGGED table, then one indexed range read of at most 50 repairs of
 * a denormalised copy in the list's order, before the scenario's dueBefore, from a random position of the list (a
 * fifth of the reads the first page; `lastfull` the last position a full page starts after), each statement on its
 * own. The position's three values are scalar subqueries (init plans), so the row comparison is an index condition
 * of the range read, as the service's cursor is (a join with the positions filtered every row from the list's start).
 */
export const repairsDueBaselineScript = `\\set p case when random(1, 5) = 1 then 0 else random(0, :lastfull) end
WITH k AS (SELECT id FROM api_keys
           WHERE key_hash = decode(:keyhash, 'hex') AND revoked_at IS NULL AND expires_at > now())
UPDATE bench_key_budgets b SET tokens = greatest(b.tokens - 1, 0), updated_at = clock_timestamp()
  FROM k WHERE b.key_id = k.id RETURNING b.tokens;
SELECT r.* FROM bench_repairs_due r
  WHERE r.workspace_id = :ws AND r.due < :duebefore::timestamptz
    AND (r.due, r.created_at, r.id) > ((SELECT due FROM bench_repair_positions WHERE n = :p),
                                       (SELECT created_at FROM bench_repair_positions WHERE n = :p),
                                       (SELECT id FROM bench_repair_positions WHERE n = :p))
  ORDER BY r.due, r.created_at, r.id LIMIT :limit;
`;

/**
 * The strong naive service's key check (issue 36): one statement that finds the key by its hash and takes one from its
 * budget in an UNLOGGED table (no WAL flush a request), as a CTE. Its two reads follow it.
 */
const strongKeyCheck = `WITH k AS (SELECT id FROM api_keys
           WHERE key_hash = decode(:keyhash, 'hex') AND revoked_at IS NULL AND expires_at > now())
UPDATE bench_strong_budgets b SET tokens = greatest(b.tokens - 1, 0), updated_at = clock_timestamp()
  FROM k WHERE b.key_id = k.id RETURNING b.tokens;`;

/** The strong naive hot read: the key check, then a stored JSON row by primary key (`bench_strong_rows`). */
export const strongBaselineScript = `\\set t random(1, :tenancies)
${strongKeyCheck}
SELECT body FROM bench_strong_rows WHERE workspace_id = :ws AND id = :prefix::text || :t::text;
`;

/**
 * The strong naive agenda page: the key check, then a range read on (workspace, staff, starts_at) of a denormalised
 * copy of the events holding the names (`bench_strong_events`), at most 200 rows, the week and member of staff drawn
 * as agendaBaselineScript draws them.
 */
export const strongAgendaBaselineScript = `\\set s random(1, :staff)
\\set d random(-60, 53)
${strongKeyCheck}
SELECT * FROM bench_strong_events e
  WHERE e.workspace_id = :ws AND e.staff_user_id = 'staff-' || :s AND e.status <> 'cancelled'
    AND e.starts_at >= current_date + (:d)::int AND e.starts_at < current_date + (:d)::int + 7
  ORDER BY e.starts_at, e.id LIMIT 200;
`;

/**
 * Makes the strong baseline's tables: `bench_strong_budgets` (UNLOGGED, the key's budget row),
 * `bench_strong_rows` (each tenancy's stored handover JSON: the service's stored row where the first reads stored
 * one, else the tenancy row as JSON) and `bench_strong_events` (the events with the property label and the staff and
 * contact names, indexed on (workspace_id, staff_user_id, starts_at, id)). Made once a run, before its first use.
 */
export async function prepareStrongBaseline(db: Db, input: { workspaceId: string; keyId: string }): Promise<void> {
  await db.unsafe(`
    drop table if exists bench_strong_budgets, bench_strong_rows, bench_strong_events;
    create unlogged table bench_strong_budgets (key_id text primary key, tokens bigint not null,
                                                updated_at timestamptz not null);
    create table bench_strong_rows (workspace_id text, id text, body text not null, primary key (workspace_id, id));
    create table bench_strong_events as
      select e.*, p.label as property_label, u.name as staff_name, c.name as contact_name
      from calendar_events e
      left join properties p on p.workspace_id = e.workspace_id and p.id = e.property_id
      left join users u on u.workspace_id = e.workspace_id and u.id = e.staff_user_id
      left join contacts c on c.workspace_id = e.workspace_id and c.id = e.contact_id;
    create index bench_strong_events_staff on bench_strong_events (workspace_id, staff_user_id, starts_at, id);`);
  await db.unsafe(`insert into bench_strong_budgets values ($1, 1000000000, now())`, [input.keyId]);
  await db.unsafe(
    `insert into bench_strong_rows
     select t.workspace_id, t.id, coalesce(h.row_json, to_jsonb(t)::text) from tenancies t
     left join handover_rows h on h.workspace_id = t.workspace_id and h.tenancy_id = t.id
     where t.workspace_id = $1`,
    [input.workspaceId],
  );
  await db.unsafe(`analyze bench_strong_budgets, bench_strong_rows, bench_strong_events`);
}

function percentile(sorted: Float64Array, p: number): number | null {
  if (sorted.length === 0) return null;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return Math.round(sorted[index]! * 100) / 100;
}

/**
 * Runs pgbench (-n -M prepared -c N -j 2 -T seconds) and reads its per-transaction log for percentiles.
 *
 * pgbench's `-T` clock starts before it opens its connections: when opening them takes longer than the duration (64
 * backends forked on a loaded machine, with the tiny test's 1 s), it runs no transaction, exits 0 and prints no `tps`
 * line. Such a run measured nothing: it is run again with twice the duration, up to `maxTries` runs, then refused.
 */
export async function runBaseline(input: {
  pgbench: string;
  databaseUrl: string;
  connections: number;
  seconds: number;
  workDir: string;
  workspaceId: string;
  keyId: string;
  keyHashHex: string;
  tenancies: number;
  tenancyPrefix: string;
  /** Another script than the baseline's (agendaBaselineScript), with its own variables (`-D name=value`). */
  other?: { script: string; defines: Record<string, string> };
  /** Runs at most, each twice as long as the one before, while a run processes no transaction (3). */
  maxTries?: number;
}): Promise<BaselineRun> {
  const maxTries = input.maxTries ?? 3;
  let seconds = input.seconds;
  for (let tries = 1; ; tries++) {
    const run = await pgbenchOnce({ ...input, seconds });
    if (run.result.transactions > 0) return run;
    if (tries >= maxTries) {
      throw new Error(
        `pgbench processed no transaction in ${tries} runs (the last of ${seconds} s): opening its ` +
          `${input.connections} connections took longer than the run (its -T clock starts before them)`,
      );
    }
    seconds *= 2;
  }
}

/** What pgbench printed, read: NaN for a figure it did not print (it prints none past the count after 0 transactions). */
export function readPgbenchOutput(out: string): {
  transactions: number;
  failed: number;
  tps: number;
  latencyAverageMs: number;
} {
  const number = (re: RegExp) => {
    const m = out.match(re);
    return m ? Number(m[1]) : NaN;
  };
  return {
    transactions: number(/number of transactions actually processed: (\d+)/),
    failed: number(/number of failed transactions: (\d+)/),
    tps: number(/^tps = ([\d.]+)/m),
    latencyAverageMs: number(/latency average = ([\d.]+) ms/),
  };
}

/** One pgbench run of `seconds`. */
async function pgbenchOnce(input: Parameters<typeof runBaseline>[0]): Promise<BaselineRun> {
  mkdirSync(input.workDir, { recursive: true });
  const script = join(input.workDir, "baseline.sql");
  writeFileSync(script, input.other?.script ?? baselineScript);
  const args = [
    "-n",
    "-M",
    "prepared",
    "-c",
    String(input.connections),
    "-j",
    "2",
    "-T",
    String(input.seconds),
    "-f",
    script,
    "-D",
    `tenancies=${input.tenancies}`,
    "-D",
    `keyhash=${input.keyHashHex}`,
    "-D",
    `keyid=${input.keyId}`,
    "-D",
    `ws=${input.workspaceId}`,
    "-D",
    `prefix=${input.tenancyPrefix}`,
    ...Object.entries(input.other?.defines ?? {}).flatMap(([name, value]) => ["-D", `${name}=${value}`]),
    "-l",
    `--log-prefix=${join(input.workDir, "pgbench_log")}`,
    input.databaseUrl,
  ];
  const proc = Bun.spawn([input.pgbench, ...args], { cwd: input.workDir, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`pgbench exited with ${code}: ${err.trim() || out.trim()}`);
  // Per-transaction log lines: client_id transaction_no time_us script_no epoch epoch_us; failures say "failed".
  const latencies: number[] = [];
  for (const file of readdirSync(input.workDir).filter((f) => f.startsWith("pgbench_log"))) {
    const path = join(input.workDir, file);
    for (const line of readFileSync(path, "utf8").split("\n")) {
      const us = Number(line.split(" ")[2]);
      if (line && Number.isFinite(us)) latencies.push(us / 1000);
    }
    rmSync(path, { force: true });
  }
  const sorted = Float64Array.from(latencies).sort();
  const read = readPgbenchOutput(out);
  const defines = Object.keys(input.other?.defines ?? {})
    .map((name) => ` -D ${name}=<…>`)
    .join("");
  const result: BaselineResult = {
    command:
      `pgbench -n -M prepared -c ${input.connections} -j 2 -T ${input.seconds} -f baseline.sql -D tenancies=${input.tenancies} ` +
      `-D keyhash=<sha256 of the baseline key> -D keyid=<its id> -D ws=<workspace id> -D prefix=${input.tenancyPrefix}` +
      `${defines} -l <database>`,
    script: input.other?.script ?? baselineScript,
    connections: input.connections,
    transactions: Number.isNaN(read.transactions) ? 0 : read.transactions,
    failed: Number.isNaN(read.failed) ? 0 : read.failed,
    seconds: input.seconds,
    transactionsPerSecond: Math.round(read.tps * 10) / 10,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    meanMs: Math.round(read.latencyAverageMs * 100) / 100,
  };
  return { result, latenciesMs: sorted };
}
