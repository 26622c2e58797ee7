/**
 * CPU and bytes of each content coding on real answers (`bun bench/compression.ts`): an agenda page of 119 events
 * (~72–86 KB, read through app.handle from a database seeded by bench/seed.ts) and its first events, ~2 KB.
 * For gzip levels, brotli qualities and zstd levels: bytes out and CPU µs a compression (this process's user + system
 * time over repeated runs, so other processes on the machine do not count); then the service's own choice
 * (src/core/compression.ts) as it runs per answer, the cost of reading Accept-Encoding, and the service's CPU a
 * stored agenda page through app.handle per coding (N requests, 300). BENCH_SCALE (0.05: the page lists every
 * member of staff's events of a week, cut at 119), PROFILE_DB=<url> reuses a seeded database (with a workspace
 * `profile`, as bench/cpu_profile.ts's KEEP=1 leaves), MIN_MS (300: the least CPU time per figure).
 */
import { brotliCompressSync, constants } from "node:zlib";
import { join } from "node:path";
import { connect } from "../src/core/db.ts";
import { migrate } from "../src/core/migrate.ts";
import { createWorkspace } from "../src/core/workspaces.ts";
import { createApiKey } from "../src/core/api_keys.ts";
import { allScopes } from "../src/core/groups.ts";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { createLogger } from "../src/core/log.ts";
import { Jobs } from "../src/core/jobs.ts";
import { codingFor, codingLevels, compress, compressMinLength } from "../src/core/compression.ts";
import { createBenchDatabase, openServer } from "./database.ts";
import { seedWorkspace } from "./seed.ts";

const minMs = Number(process.env.MIN_MS ?? 300);
const reuse = process.env.PROFILE_DB;

/** What one request costs this process, one at a time through app.handle: CPU µs, and the bytes of the answer. */
type RequestCost = { acceptEncoding: string; coding: string; bytes: number; micros: number };

/** The service's CPU a request of `path`, without Accept-Encoding and with each coding alone, `N` requests each. */
async function requestCosts(app: { handle(r: Request): Promise<Response> }, key: string, path: string) {
  const count = Number(process.env.N ?? 300);
  const costs: RequestCost[] = [];
  // Twice over, interleaved: the first round's figures carry whatever warming up remains.
  for (const acceptEncoding of ["", "zstd", "gzip", "br", "", "zstd", "gzip", "br"]) {
    const headers: Record<string, string> = { "x-api-key": key };
    if (acceptEncoding) headers["accept-encoding"] = acceptEncoding;
    const send = async () => {
      const res = await app.handle(new Request(`http://localhost${path}`, { headers }));
      const bytes = (await res.arrayBuffer()).byteLength;
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
      return { bytes, coding: res.headers.get("content-encoding") ?? "identity" };
    };
    for (let i = 0; i < 50; i++) await send(); // warm-up (and the page's days stored)
    const before = process.cpuUsage();
    let last = await send();
    for (let i = 1; i < count; i++) last = await send();
    const used = process.cpuUsage(before);
    costs.push({ acceptEncoding: acceptEncoding || "(none)", ...last, micros: (used.user + used.system) / count });
  }
  return costs;
}

/**
 * The agenda page's text: a week from today of every member of staff, cut at 119 events (the 72 KB page);
 * and the service's CPU a request of a page served from stored days (every member of staff, 3 days), per coding.
 */
async function agendaPage(): Promise<{ page: string; stored: string; costs: RequestCost[] }> {
  const server = await openServer(process.env.DATABASE_URL, join(import.meta.dir, "..", ".data", "bench-pg"));
  const bench = reuse ? { url: reuse, drop: async () => {} } : await createBenchDatabase(server.url);
  const db = connect(bench.url, { max: 2 });
  try {
    await migrate(db);
    // A reused database has its workspace `profile` already.
    if (!reuse) {
      const ws = await createWorkspace(db, { slug: "profile", name: "Profile" });
      const scale = Number(process.env.BENCH_SCALE ?? 0.05);
      await seedWorkspace(db, { workspaceId: ws.id, ownerUserId: ws.ownerUserId, scale });
    }
    const key = await createApiKey(db, {
      workspace: "profile",
      name: "compression",
      scopes: [...allScopes],
      expiresInDays: 7,
      budgetPerMinute: 1_000_000,
    });
    const log = createLogger("warn");
    const app = buildApp({
      db,
      config: loadConfig({ DATABASE_URL: bench.url, LOG_LEVEL: "warn" }),
      log,
      jobs: new Jobs(bench.url, log),
    });
    const from = new Date().toISOString().slice(0, 10);
    const to = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);
    const res = await app.handle(
      new Request(`http://localhost/calendar/agenda?from=${from}&to=${to}&limit=119`, {
        headers: { "x-api-key": key.key },
      }),
    );
    const text = await res.text();
    if (res.status !== 200) throw new Error(`agenda answered ${res.status}: ${text.slice(0, 300)}`);
    const stored = `/calendar/agenda?from=${from}&to=${new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10)}`;
    return { page: text, stored, costs: await requestCosts(app, key.key, stored) };
  } finally {
    await db.end({ timeout: 5 });
    await bench.drop();
    await server.embedded?.stop();
  }
}

/** CPU µs of one run of `fn`: repeated until `minMs` of this process's CPU time has passed (at least 5 runs). */
function cpuMicros(fn: () => unknown): number {
  for (let i = 0; i < 3; i++) fn(); // warm-up
  const before = process.cpuUsage();
  let runs = 0;
  let used = 0;
  while (runs < 5 || used < minMs * 1000) {
    fn();
    runs += 1;
    const u = process.cpuUsage(before);
    used = u.user + u.system;
  }
  return used / runs;
}

type Row = { coding: string; level: number; bytes: number; ratio: number; micros: number; savedPerMicro: number };

/** Each coding and level on one body. */
function measure(text: string): Row[] {
  const identity = Buffer.byteLength(text);
  const rows: Row[] = [];
  const add = (coding: string, level: number, fn: () => Uint8Array) => {
    const bytes = fn().byteLength;
    const micros = cpuMicros(fn);
    rows.push({
      coding,
      level,
      bytes,
      ratio: Math.round((identity / bytes) * 10) / 10,
      micros: Math.round(micros * 10) / 10,
      savedPerMicro: Math.round(((identity - bytes) / micros) * 10) / 10,
    });
  };
  for (const level of [1, 2, 3, 4, 5, 6, 9] as const) add("gzip", level, () => Bun.gzipSync(text, { level }));
  for (const quality of [0, 1, 2, 3, 4, 5, 6, 9, 11]) {
    add("br", quality, () =>
      brotliCompressSync(text, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: quality,
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_SIZE_HINT]: text.length,
        },
      }),
    );
  }
  for (const level of [1, 2, 3, 4, 6, 9, 12, 19]) add("zstd", level, () => Bun.zstdCompressSync(text, { level }));
  return rows;
}

/** The figures of one body as a Markdown table. */
function table(name: string, text: string, rows: Row[]): string {
  const lines = [
    `${name}: ${Buffer.byteLength(text)} bytes identity`,
    "",
    "| coding | level | bytes | ratio | CPU µs | bytes saved / CPU µs |",
    "|---|---|---|---|---|---|",
    ...rows.map((r) => `| ${r.coding} | ${r.level} | ${r.bytes} | ${r.ratio}× | ${r.micros} | ${r.savedPerMicro} |`),
  ];
  return lines.join("\n");
}

const { page, stored, costs } = await agendaPage();
const events = JSON.parse(page) as unknown[];
// The first events of the page, as many as bring it nearest 2 KB.
let n = 1;
const off = (k: number) => Math.abs(JSON.stringify(events.slice(0, k)).length - 2048);
while (n < events.length && off(n + 1) < off(n)) n += 1;
const small = JSON.stringify(events.slice(0, n));

console.log(`Bun ${Bun.version}; ${events.length} events in the page, ${n} in the small body; MIN_MS ${minMs}\n`);
console.log(table("agenda page", page, measure(page)));
console.log();
console.log(table("small body", small, measure(small)));
console.log();
const header = "gzip, deflate, br, zstd";
const chosen = codingFor(header, page.length);
console.log(`The service's choice for "${header}": ${chosen}; levels ${JSON.stringify(codingLevels)}`);
console.log(`  threshold ${compressMinLength}: the small body goes out as ${codingFor(header, small.length)}`);
for (const coding of ["zstd", "br", "gzip"] as const) {
  const micros = cpuMicros(() => compress(page, coding));
  console.log(`  compress(page, ${coding}): ${compress(page, coding).byteLength} bytes, ${micros.toFixed(1)} µs`);
}
const perHeader = cpuMicros(() => {
  for (let i = 0; i < 1000; i++) codingFor(header, page.length);
});
console.log(`  codingFor("${header}"): ${(perHeader / 1000).toFixed(3)} µs`);
console.log(`\nThe service's CPU a request (this process, one at a time through app.handle): GET ${stored}`);
for (const c of costs) {
  console.log(`  Accept-Encoding ${c.acceptEncoding}: ${c.coding}, ${c.bytes} bytes, ${c.micros.toFixed(1)} µs`);
}
