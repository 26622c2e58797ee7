/**
 * Duplicate-check latency on a workspace of 100,000 contacts: `bun bench/duplicate_check.ts`.
 * Uses DATABASE_URL's server, or the embedded Postgres under ./.data/bench-pg; creates a scratch database, seeds
 * the contacts as `bun run bench` does (bench/seed.ts), prints the query plan and the latencies (SQL alone and
 * through the whole HTTP pipeline), then drops it. Options (environment): CONTACTS (default 100000), PROBES
 * (default 1000), KEEP_DB=1.
 */
import { join } from "node:path";
import postgres from "postgres";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { connect, type Db } from "../src/core/db.ts";
import { migrate } from "../src/core/migrate.ts";
import { createLogger } from "../src/core/log.ts";
import { Jobs } from "../src/core/jobs.ts";
import { createWorkspace } from "../src/core/workspaces.ts";
import { createApiKey } from "../src/core/api_keys.ts";
import { contactNorms } from "../src/contacts/normalise.ts";
import { findDuplicates, type DuplicateProbe } from "../src/contacts/queries.ts";
import { createBenchDatabase, openServer } from "./database.ts";
import { countsFor, pick, seedContacts } from "./seed.ts";

const contactCount = Number(process.env.CONTACTS ?? 100_000);
const probeCount = Number(process.env.PROBES ?? 1000);

/** A seeded contact as the probes read it back. */
interface Seeded {
  kind: "person" | "company";
  name: string;
  email: string | null;
  mobile: string | null;
  addressPostcode: string | null;
  registrationNumber: string | null;
}

/** Seeds `count` contacts into a workspace with the benchmark's seed (the mix of people and companies of a scale). */
async function seed(db: Db, workspaceId: string, count: number): Promise<void> {
  const counts = { ...countsFor(count / 100_000), contacts: count };
  await db.begin((tx) => seedContacts(tx, workspaceId, counts));
}

/** Probe i: a seeded contact described the way a person might type it again (or someone new), with its label. */
function probeBody(i: number, pool: Seeded[]): { label: string; body: Record<string, string> } {
  for (let attempt = 0; ; attempt++) {
    const seed = i * 7919 + attempt * 104_729;
    const c = pool[pick(seed, pool.length)]!;
    const r = pick(seed + 1, 100) / 100;
    if (r < 0.15 && c.email) return { label: "email (other case)", body: { email: c.email.toUpperCase() } };
    if (r >= 0.15 && r < 0.25 && c.email?.endsWith("gmail.com"))
      return { label: "gmail variant", body: { email: c.email.replace("@", "+lettings@").replace(/\./, "") } };
    if (r >= 0.25 && r < 0.4 && c.mobile) {
      const national = `0${c.mobile.replace(/\D/g, "").replace(/^(44|0)/, "")}`;
      return { label: "mobile (+44 (0) form)", body: { mobile: `+44 (0)${national.slice(1)}` } };
    }
    if (r >= 0.4 && r < 0.5 && c.registrationNumber)
      return {
        label: "registration number",
        body: { registrationNumber: c.registrationNumber.toLowerCase(), kind: "company" },
      };
    if (r >= 0.5 && r < 0.7 && c.addressPostcode)
      return {
        label: "name + postcode",
        body: { name: c.name.toUpperCase(), addressPostcode: c.addressPostcode.replace(" ", "") },
      };
    if (r >= 0.7 && r < 0.85) {
      const body: Record<string, string> = { name: c.name };
      if (c.email) body.email = c.email;
      if (c.mobile) body.mobile = c.mobile;
      if (c.addressPostcode) body.addressPostcode = c.addressPostcode;
      if (c.registrationNumber) body.registrationNumber = c.registrationNumber;
      return { label: "every field", body };
    }
    if (r >= 0.85)
      return {
        label: "no match",
        body: {
          name: `Nobody Matches ${i}`,
          email: `nobody.${i}@nowhere.example`,
          mobile: `07999 ${String(i).padStart(6, "0")}`,
        },
      };
  }
}

function probeOf(body: Record<string, string>): DuplicateProbe {
  return { kind: (body.kind as DuplicateProbe["kind"]) ?? null, ...contactNorms(body) };
}

function stats(ms: number[]) {
  const s = [...ms].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  const f = (v: number) => v.toFixed(2);
  return `n=${s.length} mean=${f(mean)} ms p50=${f(at(0.5))} p95=${f(at(0.95))} p99=${f(at(0.99))} max=${f(s[s.length - 1]!)}`;
}

const server = await openServer(process.env.DATABASE_URL, join(import.meta.dir, "..", ".data", "bench-pg"));
const bench = await createBenchDatabase(server.url);
const db = connect(bench.url, { max: 20 });
const [{ version }] = await db<[{ version: string }]>`select current_setting('server_version') as version`;
console.log(
  `duplicate check benchmark: Postgres ${version} (${server.embedded ? "embedded" : "DATABASE_URL"}), database ${bench.name}`,
);

try {
  await migrate(db);
  const ws = await createWorkspace(db, { slug: "bench-duplicates", name: "Bench" });
  const neighbour = await createWorkspace(db, { slug: "bench-neighbour", name: "Neighbour" });
  let started = performance.now();
  await seed(db, ws.id, contactCount);
  await seed(db, neighbour.id, Math.floor(contactCount / 5));
  await db`analyze contacts`;
  const pool = await db<Seeded[]>`
    select kind, name, email, mobile, address_postcode, registration_number
    from contacts where workspace_id = ${ws.id} order by id`;
  console.log(
    `seeded ${pool.length} contacts in the workspace (+${Math.floor(contactCount / 5)} in a neighbour) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );

  // The plan of the very statement a check sending every field runs: captured from postgres.js, then explained.
  const everything = pool.find((c) => c.email && c.mobile && c.registrationNumber && c.addressPostcode) ?? pool[0]!;
  let captured: { text: string; params: unknown[] } | undefined;
  const spy = postgres(bench.url, {
    max: 1,
    transform: postgres.camel,
    debug: (_c, text, params) => (captured = { text, params }),
  }) as unknown as Db;
  await findDuplicates(
    spy,
    ws.id,
    probeOf({
      name: everything.name,
      email: everything.email!,
      mobile: everything.mobile!,
      addressPostcode: everything.addressPostcode!,
      registrationNumber: everything.registrationNumber!,
    }),
  );
  const plan = await spy.unsafe(`explain (analyze, costs off) ${captured!.text}`, captured!.params as never[]);
  await spy.end();
  const planText = plan.map((r) => Object.values(r)[0]).join("\n");
  console.log(
    `\nplan of a check sending name, email, mobile, postcode and registration number:\n${planText.replace(/^/gm, "  ")}`,
  );
  if (/Seq Scan on contacts/.test(planText)) console.log("WARNING: sequential scan on contacts");

  const bodies = Array.from({ length: probeCount }, (_, i) => probeBody(i, pool));
  // Warm up the connections and the statement cache.
  for (const { body } of bodies.slice(0, 50)) await findDuplicates(db, ws.id, probeOf(body));

  const sqlTimes: number[] = [];
  const byLabel = new Map<string, number[]>();
  let matched = 0;
  let truncated = 0;
  for (const { label, body } of bodies) {
    const t = performance.now();
    const result = await findDuplicates(db, ws.id, probeOf(body));
    const ms = performance.now() - t;
    sqlTimes.push(ms);
    byLabel.set(label, [...(byLabel.get(label) ?? []), ms]);
    if (result.totalMatched > 0) matched++;
    if (result.truncated) truncated++;
  }
  console.log(`\nSQL alone (findDuplicates, one statement), sequential: ${stats(sqlTimes)}`);
  for (const [label, times] of [...byLabel].sort()) console.log(`  ${label.padEnd(22)} ${stats(times)}`);
  console.log(`  probes with a match: ${matched}/${bodies.length}, truncated: ${truncated}`);

  const config = loadConfig({
    ...process.env,
    DATABASE_URL: bench.url,
    LOG_LEVEL: "silent",
    CHECK_RESPONSES: "false",
  });
  const log = createLogger("silent");
  const app = buildApp({ db, config, log, jobs: new Jobs(bench.url, log) });
  const key = await createApiKey(db, {
    workspace: "bench-duplicates",
    name: "bench",
    scopes: ["contacts:write"],
    expiresInDays: 7,
    budgetPerMinute: 1_000_000,
  });
  const call = async (body: Record<string, string>) => {
    const t = performance.now();
    const res = await app.handle(
      new Request("http://localhost/contacts/duplicate-check", {
        method: "POST",
        headers: { "x-api-key": key.key, "content-type": "application/json" },
        body: JSON.stringify(body),
      }),
    );
    await res.text();
    if (res.status !== 200) throw new Error(`status ${res.status}`);
    return performance.now() - t;
  };
  for (const { body } of bodies.slice(0, 50)) await call(body);
  const httpTimes: number[] = [];
  for (const { body } of bodies) httpTimes.push(await call(body));
  console.log(`HTTP pipeline (auth + budget + validation + query), sequential: ${stats(httpTimes)}`);

  for (const concurrency of [8, 16]) {
    const times: number[] = [];
    started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < bodies.length) times.push(await call(bodies[next++]!.body));
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `HTTP pipeline, ${concurrency} concurrent: ${stats(times)}; ${(bodies.length / seconds).toFixed(0)} checks/s`,
    );
  }
} finally {
  await db.end({ timeout: 5 });
  if (!process.env.KEEP_DB) await bench.drop();
  await server.embedded?.stop();
}
