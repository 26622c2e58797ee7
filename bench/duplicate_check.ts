/**
 * Duplicate-check latency on a workspace of 100,000 contacts: `bun bench/duplicate_check.ts`.
 * Uses DATABASE_URL's server, or the embedded Postgres under ./.data/bench-pg; creates a scratch database,
 * seeds it, prints the query plan and the latencies (SQL alone and through the whole HTTP pipeline), then
 * drops it. Options (environment): CONTACTS (default 100000), PROBES (default 1000), KEEP_DB=1.
 */
import { join } from "node:path";
import postgres from "postgres";
import { ulid } from "ulid";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { connect, startEmbeddedPostgres, type Db } from "../src/core/db.ts";
import { migrate } from "../src/core/migrate.ts";
import { createLogger } from "../src/core/log.ts";
import { Jobs } from "../src/core/jobs.ts";
import { createWorkspace } from "../src/core/workspaces.ts";
import { createApiKey } from "../src/core/api_keys.ts";
import { contactNorms } from "../src/contacts/normalise.ts";
import { findDuplicates, type DuplicateProbe } from "../src/contacts/queries.ts";

const contactCount = Number(process.env.CONTACTS ?? 100_000);
const probeCount = Number(process.env.PROBES ?? 1000);

// A small deterministic PRNG, so every run seeds the same workspace.
let state = 0x9e3779b9;
function random(): number {
  state ^= state << 13;
  state ^= state >>> 17;
  state ^= state << 5;
  return (state >>> 0) / 0x1_0000_0000;
}
const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
const digits = (n: number) => Array.from({ length: n }, () => Math.floor(random() * 10)).join("");

const firstNames = "Oliver George Harry Jack Jacob Noah Charlie Muhammad Thomas Oscar William James Leo Alfie Henry Joshua Freddie Archie Ethan Isaac Alexander Joseph Edward Samuel Max Daniel Arthur Lucas Mohammed Logan Olivia Amelia Isla Ava Emily Isabella Mia Poppy Ella Lily Evie Sophia Grace Sophie Freya Chloe Ivy Jessica Ruby Daisy Florence Alice Charlotte Sienna Matilda Phoebe Zara Layla Evelyn Harper Aisha Priya Rohan Sanjay Niamh Siobhan Ciaran Aoife Rhys Gareth Bethan Dylan Eilidh Callum Fraser Morag Ewan Kirsty Hamish".split(" ");
const surnames = "Smith Jones Williams Taylor Brown Davies Evans Wilson Thomas Johnson Roberts Robinson Thompson Wright Walker White Edwards Hughes Green Hall Lewis Harris Clarke Patel Jackson Wood Turner Martin Cooper Hill Ward Morris Moore Clark Lee King Baker Harrison Morgan Allen James Scott Phillips Watson Davis Parker Price Bennett Young Griffiths Mitchell Kelly Cook Carter Richardson Bailey Collins Bell Shaw Murphy Miller Cox Richards Khan Marshall Anderson Simpson Ellis Adams Singh Begum Wilkinson Foster Chapman Powell Webb Rogers Gray Mason Ali Hunt Hussain Campbell Matthews Owen Palmer Holmes Mills Barnes Knight Lloyd Butler Russell Barker Fisher Stevens Jenkins Murray Dixon Harvey Graham Pearson Ahmed Fletcher Walsh Kaur Gibson Howard Andrews Stewart Elliott Reynolds Saunders Payne Fox Ford Pearce Day Brooks West Lawrence Cole Atkinson Bradley Spencer Gill Dawson Ball Burton O'Brien Watts Rose Booth Perry Ryan Grant Wells Armstrong Francis Rees Hayes Hart Hudson Newman Barrett Webster Hunter Gregory Carr Lowe Page Marsh Riley Dunn Woods Parsons Berry Stone Reid Holland Hawkins Harding Porter Robertson Newton Oliver Reed Kennedy Williamson Bird Gardner Shah Dean Lane Cooke Bates Henderson Parry Burgess Bishop Walton Burns Nicholson Shepherd Ross Cross Long Freeman Warren Nicholls Hamilton Byrne Sutton McDonald Yates Hodgson Robson Curtis Hopkins O'Connor Harper Coleman Watkins Moss McCarthy Chambers O'Neill Griffin Sharp Hardy Wheeler Potter Osborne Johnston Gordon Doyle Wallace George Jordan Hutchinson Rowe Burke May Pritchard Gilbert Willis Higgins Read Miles Stevenson Stephenson Hammond Arnold Buckley Walters Hewitt Barber Nelson Slater Austin Sullivan Whitehead Mann Frost Lambert Stephens Blake Akhtar Lynch Goodwin Barton Woodward Thomson Cunningham Quinn Barnett Baxter Bibi Clayton Nash Greenwood Jennings Holt Kemp Poole Gallagher Bond Stokes Tucker Davidson Fowler Heath Norman Middleton Lawson Banks French Stanley Jarvis Gibbs Ferguson Hayward Carroll Douglas Dickinson Todd Barlow Peters Lucas Knowles Hartley Miah Simmons Morton Alexander Field Morrison Norris Townsend Preston Hancock Thornton Baldwin Burrows Briggs Storey Pike Dale".split(" ");
const companyWords = "Acme Northern Southern Eastern Western Premier Royal City County Valley Harbour Bridge Castle Oak Elm Willow Cedar Maple Ivy Rose Thistle Heather Summit Crown Anchor Beacon Compass Keystone Cornerstone Sterling Regal Apex Pinnacle Horizon Meridian Riverside Lakeside Parkside Hillside Kingsway Queensway Abbey Priory Minster Grange Manor Court Lodge".split(" ");
const companyTrades = "Lettings Property Management Estates Homes Plumbing Electrical Roofing Builders Joinery Glazing Heating Gas Services Cleaning Maintenance Gardening Locksmiths Decorators Surveyors Developments Investments Holdings Housing".split(" ");
const suffixes = ["Ltd", "Limited", "Ltd.", "LLP", "PLC", ""];
const areas = "SW1A EC1A W1A M1 M2 M14 B33 B15 LS1 LS6 L1 L8 BS1 BS8 NE1 NE6 CF10 CF24 EH1 EH3 G1 G12 BT1 BT9 CB1 OX1 OX4 NG1 S1 S10 YO1 YO10 BN1 BN2 PO1 SO14 RG1 MK9 CR2 DN55 E1 E14 N1 N16 SE1 SE15 NW1 NW3".split(" ");
const domains = ["example.com", "example.co.uk", "mail.example", "lettings.example", "gmail.com", "gmail.com", "googlemail.com", "outlook.example"];

interface Seeded {
  id: string;
  kind: "person" | "company";
  name: string;
  email: string | null;
  mobile: string | null;
  addressPostcode: string | null;
  registrationNumber: string | null;
}

function contact(i: number): Seeded {
  const company = random() < 0.2;
  const name = company
    ? `${pick(companyWords)} ${pick(companyTrades)} ${pick(suffixes)}`.trim()
    : `${pick(firstNames)} ${pick(surnames)}`;
  const local = name.toLowerCase().replace(/[^a-z]+/g, ".").replace(/^\.|\.$/g, "");
  return {
    id: ulid(),
    kind: company ? "company" : "person",
    name,
    email: random() < 0.75 ? `${local}${i}@${pick(domains)}` : null,
    mobile: random() < 0.6 ? `07${digits(3)} ${digits(6)}` : null,
    addressPostcode: random() < 0.85 ? `${pick(areas)} ${Math.floor(random() * 10)}${pick("ABDEFGHJLNPQRSTUWXYZ".split(""))}${pick("ABDEFGHJLNPQRSTUWXYZ".split(""))}` : null,
    registrationNumber: company && random() < 0.8 ? (random() < 0.8 ? digits(8).replace(/^0+/, "") || "1" : `SC${digits(6)}`) : null,
  };
}

/** Seeds `count` contacts into a workspace, as a writer of contacts would (normalised columns included), in batches of columns. */
async function seed(db: Db, workspaceId: string, count: number): Promise<Seeded[]> {
  const all: Seeded[] = [];
  const batch = 10_000;
  for (let start = 0; start < count; start += batch) {
    const cols: Record<string, (string | null)[]> = {
      id: [], kind: [], name: [], email: [], mobile: [], postcode: [], registration: [], archived: [],
      nameNorm: [], emailNorm: [], emailCanon: [], mobileNorm: [], postcodeNorm: [], registrationNorm: [],
    };
    for (let i = start; i < Math.min(count, start + batch); i++) {
      const c = contact(i);
      all.push(c);
      const n = contactNorms(c);
      const values: Record<string, string | null> = {
        id: c.id, kind: c.kind, name: c.name, email: c.email, mobile: c.mobile, postcode: c.addressPostcode,
        registration: c.registrationNumber, archived: random() < 0.1 ? new Date(Date.now() - random() * 3e10).toISOString() : null,
        ...n,
      };
      for (const k of Object.keys(cols)) cols[k]!.push(values[k]!);
    }
    const a = (k: string) => cols[k] as never;
    await db`
      insert into contacts (workspace_id, id, kind, name, email, mobile, address_postcode, registration_number, archived_at,
                            name_norm, email_norm, email_canon, mobile_norm, postcode_norm, registration_norm)
      select ${workspaceId}, * from unnest(
        ${a("id")}::text[], ${a("kind")}::text[], ${a("name")}::text[], ${a("email")}::text[], ${a("mobile")}::text[],
        ${a("postcode")}::text[], ${a("registration")}::text[], ${a("archived")}::timestamptz[], ${a("nameNorm")}::text[],
        ${a("emailNorm")}::text[], ${a("emailCanon")}::text[], ${a("mobileNorm")}::text[], ${a("postcodeNorm")}::text[],
        ${a("registrationNorm")}::text[])`;
  }
  return all;
}

/** A request body describing a seeded contact the way a person might type it again (or someone new), with its label. */
function probeBody(pool: Seeded[]): { label: string; body: Record<string, string> } {
  for (;;) {
    const c = pick(pool);
    const r = random();
    if (r < 0.15 && c.email) return { label: "email (other case)", body: { email: c.email.toUpperCase() } };
    if (r >= 0.15 && r < 0.25 && c.email?.endsWith("gmail.com")) return { label: "gmail variant", body: { email: c.email.replace("@", "+lettings@").replace(/\./, "") } };
    if (r >= 0.25 && r < 0.4 && c.mobile) return { label: "mobile (+44 (0) form)", body: { mobile: `+44 (0)${c.mobile.slice(1)}` } };
    if (r >= 0.4 && r < 0.5 && c.registrationNumber) return { label: "registration number", body: { registrationNumber: c.registrationNumber.toLowerCase(), kind: "company" } };
    if (r >= 0.5 && r < 0.7 && c.addressPostcode) return { label: "name + postcode", body: { name: c.name.toUpperCase(), addressPostcode: c.addressPostcode.replace(" ", "") } };
    if (r >= 0.7 && r < 0.85) {
      const body: Record<string, string> = { name: c.name };
      if (c.email) body.email = c.email;
      if (c.mobile) body.mobile = c.mobile;
      if (c.addressPostcode) body.addressPostcode = c.addressPostcode;
      if (c.registrationNumber) body.registrationNumber = c.registrationNumber;
      return { label: "every field", body };
    }
    if (r >= 0.85) return { label: "no match", body: { name: `Nobody ${ulid()}`, email: `nobody.${ulid().toLowerCase()}@example.com`, mobile: `07${digits(9)}` } };
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

const withDatabase = (url: string, name: string) => {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
};

const embedded = process.env.DATABASE_URL ? undefined : await startEmbeddedPostgres(join(import.meta.dir, "..", ".data", "bench-pg"));
const serverUrl = process.env.DATABASE_URL ?? embedded!.url;
const dbName = `lettings_bench_dup_${ulid().toLowerCase()}`;
const admin = connect(serverUrl, { max: 1 });
await admin.unsafe(`create database "${dbName}"`);
const url = withDatabase(serverUrl, dbName);
const db = connect(url, { max: 20 });
const [{ version }] = await db<{ version: string }[]>`select current_setting('server_version') as version`;
console.log(`duplicate check benchmark: Postgres ${version} (${embedded ? "embedded" : "DATABASE_URL"}), database ${dbName}`);

try {
  await migrate(db);
  const ws = await createWorkspace(db, { slug: `bench-${ulid().toLowerCase()}`, name: "Bench" });
  const neighbour = await createWorkspace(db, { slug: `bench-n-${ulid().toLowerCase()}`, name: "Neighbour" });
  let started = performance.now();
  const pool = await seed(db, ws.id, contactCount);
  await seed(db, neighbour.id, Math.floor(contactCount / 5));
  await db`analyze contacts`;
  const [{ rows }] = await db<{ rows: number }[]>`select count(*)::int as rows from contacts where workspace_id = ${ws.id}`;
  console.log(`seeded ${rows} contacts in the workspace (+${Math.floor(contactCount / 5)} in a neighbour) in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  // The plan of the very statement a check sending every field runs: captured from postgres.js, then explained.
  const everything = pool.find((c) => c.email && c.mobile && c.registrationNumber && c.addressPostcode) ?? pool[0]!;
  let captured: { text: string; params: unknown[] } | undefined;
  const spy = postgres(url, { max: 1, transform: postgres.camel, debug: (_c, text, params) => (captured = { text, params }) }) as unknown as Db;
  await findDuplicates(spy, ws.id, probeOf({ name: everything.name, email: everything.email!, mobile: everything.mobile!, addressPostcode: everything.addressPostcode!, registrationNumber: everything.registrationNumber! }));
  const plan = await spy.unsafe(`explain (analyze, costs off) ${captured!.text}`, captured!.params as never[]);
  await spy.end();
  const planText = plan.map((r) => Object.values(r)[0]).join("\n");
  console.log(`\nplan of a check sending name, email, mobile, postcode and registration number:\n${planText.replace(/^/gm, "  ")}`);
  if (/Seq Scan on contacts/.test(planText)) console.log("WARNING: sequential scan on contacts");

  const bodies = Array.from({ length: probeCount }, () => probeBody(pool));
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

  const config = loadConfig({ ...process.env, DATABASE_URL: url, LOG_LEVEL: "silent", CHECK_RESPONSES: "false" });
  const log = createLogger("silent");
  const app = buildApp({ db, config, log, jobs: new Jobs(url, log) });
  const key = await createApiKey(db, { workspace: (await db<{ slug: string }[]>`select slug from workspaces where id = ${ws.id}`)[0]!.slug, name: "bench", scopes: ["contacts:write"], expiresInDays: 7, budgetPerMinute: 1_000_000 });
  const call = async (body: Record<string, string>) => {
    const t = performance.now();
    const res = await app.handle(new Request("http://localhost/contacts/duplicate-check", {
      method: "POST", headers: { "x-api-key": key.key, "content-type": "application/json" }, body: JSON.stringify(body),
    }));
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
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < bodies.length) times.push(await call(bodies[next++]!.body));
    }));
    const seconds = (performance.now() - started) / 1000;
    console.log(`HTTP pipeline, ${concurrency} concurrent: ${stats(times)}; ${(bodies.length / seconds).toFixed(0)} checks/s`);
  }
} finally {
  await db.end({ timeout: 5 });
  if (!process.env.KEEP_DB) await admin.unsafe(`drop database if exists "${dbName}" with (force)`);
  await admin.end();
  await embedded?.stop();
}
