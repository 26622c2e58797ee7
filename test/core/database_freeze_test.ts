/**
 * A database that freezes with its connections open (issue 20: "never an unbounded wait"): a hung host or a network
 * partition, where the kernel keeps accepting connections and acknowledging what is sent and no answer comes. The
 * service, as its own process on a Postgres of the test's own, loaded by concurrent clients; every Postgres process is
 * stopped with SIGSTOP until more requests than there are clients, and two /health probes, were answered meanwhile
 * (3 to 4 s), then continued. While it is frozen, every request answers 503 IntegrationUnavailable
 * within about DB_ANSWER_TIMEOUT_MS (the connect timeout, 2 s, for connections opened meanwhile) and /health answers
 * 503; once it is thawed the service serves normally without a restart. The bounds are hang detectors; the measured
 * figures are printed.
 */
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { connect } from "../../src/core/db.ts";
import { migrate } from "../../src/core/migrate.ts";
import { createWorkspace } from "../../src/core/workspaces.ts";
import { createApiKey } from "../../src/core/api_keys.ts";
import { eventually, startService } from "../support/service.ts";
import { startPrivatePostgres } from "./private_postgres.ts";

// Bun applies the preload's timeout to the first file only; this file talks to Postgres or subprocesses.
setDefaultTimeout(30_000);

const clients = 16;
const answerTimeoutMs = 1500;
/** Longest the database stays frozen: it is thawed once the requests and probes made meanwhile were answered. */
const frozenMs = 20_000;
/** Longest a request may take before it counts as hung (without the bound, a frozen server holds it for ever). */
const hungMs = 10_000;

const pg = await startPrivatePostgres();
afterAll(() => pg.destroy());

interface Sample {
  start: number;
  end: number;
  status: number | "hung" | "failed";
  tag?: string;
}

async function request(url: string, key?: string): Promise<Sample> {
  const start = performance.now();
  try {
    const res = await fetch(url, { headers: key ? { "x-api-key": key } : {}, signal: AbortSignal.timeout(hungMs) });
    const text = await res.text();
    const tag = res.status === 200 ? undefined : (JSON.parse(text) as { _tag?: string })._tag;
    return { start, end: performance.now(), status: res.status, tag };
  } catch (error) {
    const status = (error as Error).name === "TimeoutError" ? "hung" : "failed";
    return { start, end: performance.now(), status, tag: String(error) };
  }
}

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor(p * (xs.length - 1))] ?? 0;

test("a database frozen with its connections open: 503 within the answer timeout while it lasts, served again once it thaws", async () => {
  const setup = connect(pg.url, { max: 1 });
  await migrate(setup);
  await createWorkspace(setup, { slug: "frozen", name: "Frozen", ownerEmail: "owner@frozen.test" });
  const { key } = await createApiKey(setup, {
    workspace: "frozen",
    name: "load",
    scopes: ["compliance:read"],
    expiresInDays: 30,
    budgetPerMinute: 1_000_000,
  });
  await setup.end();
  const service = await startService(pg.url, {
    LOG_LEVEL: "info",
    CHECK_RESPONSES: "false",
    DB_ANSWER_TIMEOUT_MS: String(answerTimeoutMs),
  });
  const route = `${service.base}/compliance/block-profiles`;
  try {
    const samples: Sample[] = [];
    let loading = true;
    const loops = Array.from({ length: clients }, async () => {
      while (loading) {
        const s = await request(route, key);
        samples.push(s);
        if (s.status !== 200) await Bun.sleep(20);
      }
    });
    // Served under load: two answers a client.
    expect(await eventually(() => samples.length >= 2 * clients, 20_000)).toBe(true);
    expect(samples.every((s) => s.status === 200)).toBe(true);

    pg.freeze();
    const frozen = performance.now();
    const probes: Sample[] = [];
    // Frozen until more requests than there are clients were answered meanwhile (each client waited out an answer
    // timeout, and a new connection's too), and two /health probes; at most `frozenMs` (it hangs).
    const answeredFrozen = () => samples.filter((s) => s.start >= frozen).length;
    while ((answeredFrozen() <= clients || probes.length < 2) && performance.now() - frozen < frozenMs) {
      probes.push(await request(`${service.base}/health`));
    }
    const thawing = performance.now();
    pg.thaw();
    let back: number | undefined;
    while (back === undefined && performance.now() - thawing < 30_000) {
      back = samples.find((s) => s.start >= thawing && s.status === 200)?.end;
      await Bun.sleep(50);
    }
    // Served again: two more answers a client.
    const servedAgain = () => samples.filter((s) => back !== undefined && s.start >= back).length >= 2 * clients;
    expect(await eventually(servedAgain, 10_000)).toBe(true);
    loading = false;
    await Promise.all(loops);

    // Requests made while it was frozen (and answered before the thaw) were refused, and none waited for ever.
    const during = samples.filter((s) => s.start >= frozen && s.end < thawing);
    const latencies = during.map((s) => s.end - s.start);
    console.log(
      `frozen ${Math.round(thawing - frozen)} ms: ${during.length} requests answered meanwhile, ` +
        `${during.filter((s) => s.status === 503).length} × 503; latency p50 ${Math.round(percentile(latencies, 0.5))} ms, ` +
        `max ${Math.round(Math.max(...latencies))} ms; /health probes ${probes.map((p) => p.status).join(",")}; ` +
        `served again ${back === undefined ? "never" : Math.round(back - thawing)} ms after the thaw`,
    );
    expect(during.length).toBeGreaterThan(clients);
    expect(during.filter((s) => s.status !== 503 || s.tag !== "IntegrationUnavailable")).toEqual([]);
    expect(samples.filter((s) => s.status === "hung" || s.status === "failed")).toEqual([]);
    expect(probes.filter((p) => p.status !== 503)).toEqual([]);
    // Refused once the answer timeout passes (plus the check's interval): never a wait much beyond 2 s.
    expect(Math.max(...latencies)).toBeLessThan(answerTimeoutMs + 1_500);
    expect(back).toBeDefined();
    expect(back! - thawing).toBeLessThan(5_000);
    expect(samples.filter((s) => s.start >= back! && s.status !== 200)).toEqual([]);
  } finally {
    pg.thaw();
    await service.stop();
  }
}, 90_000);
