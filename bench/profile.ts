/** Times the phases of the handover request path, one request at a time, on a seeded database (`bun bench/profile.ts`; EXPLAIN=1 prints the plan). */
import { connect } from "../src/core/db.ts";
import { migrate } from "../src/core/migrate.ts";
import { authenticate } from "../src/core/execute.ts";
import { createWorkspace } from "../src/core/workspaces.ts";
import { createApiKey } from "../src/core/api_keys.ts";
import { allScopes } from "../src/core/groups.ts";
import { tenancyInputs } from "../src/handovers/queries.ts";
import { handoverRow } from "../src/handovers/row.ts";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { createLogger } from "../src/core/log.ts";
import { Jobs } from "../src/core/jobs.ts";
import { openServer, createBenchDatabase } from "./database.ts";
import { seedWorkspace } from "./seed.ts";
import { join } from "node:path";

const server = await openServer(process.env.DATABASE_URL, join(import.meta.dir, "..", ".data", "bench-pg"));
const bench = await createBenchDatabase(server.url);
const db = connect(bench.url, { max: 4 });
try {
  await migrate(db);
  const ws = await createWorkspace(db, { slug: "profile", name: "Profile" });
  await seedWorkspace(db, {
    workspaceId: ws.id,
    ownerUserId: ws.ownerUserId,
    scale: Number(process.env.BENCH_SCALE ?? 0.1),
  });
  const key = await createApiKey(db, {
    workspace: "profile",
    name: "p",
    scopes: [...allScopes],
    expiresInDays: 7,
    budgetPerMinute: 1_000_000,
  });
  const ids = (await db<{ id: string }[]>`select id from tenancies where workspace_id = ${ws.id} limit 500`).map(
    (r) => r.id,
  );
  const n = Number(process.env.N ?? 2000);
  if (process.env.EXPLAIN) {
    let captured: { text: string; params: unknown[] } | undefined;
    const spy = connect(bench.url, {
      max: 1,
      debug: (_c: number, text: string, params: unknown[]) => {
        if (text.includes("from tenancies t")) captured ??= { text, params };
      },
    } as any);
    await tenancyInputs(spy, ws.id, ids[0]!);
    const plan = await spy.unsafe(`explain (analyze, buffers, summary) ${captured!.text}`, captured!.params as any[]);
    console.log(plan.map((r: any) => r["QUERY PLAN"] ?? Object.values(r)[0]).join("\n"));
    await spy.end();
  }
  const time = async (label: string, f: (i: number) => Promise<unknown> | unknown) => {
    for (let i = 0; i < 50; i++) await f(i);
    const started = performance.now();
    for (let i = 0; i < n; i++) await f(i);
    const us = ((performance.now() - started) / n) * 1000;
    console.log(`${label.padEnd(44)} ${us.toFixed(0).padStart(6)} µs`);
  };
  await time("select 1", () => db`select 1`);
  await time("authenticate (key check; a lease write a 100)", () => authenticate(db, key.key));
  await time("tenancyInputs (the handover statement)", (i) => tenancyInputs(db, ws.id, ids[i % ids.length]!));
  const inputs = await Promise.all(ids.slice(0, 100).map((id) => tenancyInputs(db, ws.id, id)));
  await time("handoverRow (pure)", (i) => handoverRow(inputs[i % 100]!, { inspections: true, keys: true }));
  const rows = inputs.map((f) => handoverRow(f!, { inspections: true, keys: true }));
  await time("JSON.stringify of the row", (i) => JSON.stringify(rows[i % 100]));
  const config = loadConfig({ DATABASE_URL: bench.url, LOG_LEVEL: "warn" });
  const log = createLogger("warn");
  const app = buildApp({ db, config, log, jobs: new Jobs(bench.url, log) });
  // Every row read once: stored (sql/0008); the next line times reads of stored rows.
  for (const id of ids)
    await app
      .handle(new Request(`http://localhost/handovers/tenancies/${id}`, { headers: { "x-api-key": key.key } }))
      .then((r) => r.text());
  await time("app.handle GET handover, stored row", (i) =>
    app
      .handle(
        new Request(`http://localhost/handovers/tenancies/${ids[i % ids.length]}`, {
          headers: { "x-api-key": key.key },
        }),
      )
      .then((r) => r.text()),
  );
  await time("app.handle GET /health (select 1)", () =>
    app.handle(new Request("http://localhost/health")).then((r) => r.text()),
  );
  await time("app.handle handover, no key (no database)", (i) =>
    app.handle(new Request(`http://localhost/handovers/tenancies/${ids[i % ids.length]}`)).then((r) => r.text()),
  );
  await time("app.handle handover, unknown tenancy", () =>
    app
      .handle(new Request(`http://localhost/handovers/tenancies/nope`, { headers: { "x-api-key": key.key } }))
      .then((r) => r.text()),
  );
  console.log(`row size ~${JSON.stringify(rows[0]).length} bytes`);
} finally {
  await db.end();
  await bench.drop();
  await server.embedded?.stop();
}
