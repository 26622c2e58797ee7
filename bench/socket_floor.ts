/**
 * The floor of an answer's bytes on the socket (`bun bench/socket_floor.ts`): a bare Bun.serve process that answers
 * every GET with the same BYTES (73,728: an agenda page's 72 KB) of JSON-like text, driven by wrk as `bun run bench`
 * drives the service (bench/wrk.lua, 2 threads, CONNECTIONS 64, DURATION 10 seconds). Prints req/s, p99 and the CPU
 * a request of the server process and of wrk: what HTTP and the socket cost for those bytes on this machine, with
 * none of the service's own work, to read beside a scenario's service CPU a request.
 *
 * ANSWER says when and how the server answers: `turn` (default: in the handler's own turn, as Bun corks it), `await`
 * (after an await, as every answer that reads the database: Bun 1.4 sends a large one a header piece at a time) or
 * `stream` (after an await, the body as a stream of one chunk, as src/core/one_write_body.ts sends it). HEADERS=service
 * adds the headers an API answer carries (bench/README.md, "One write an answer").
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processCpuMicros } from "./cpu.ts";
import { wrkPath } from "./wrk.ts";

const bytes = Number(process.env.BYTES ?? 73_728);
const connections = Number(process.env.CONNECTIONS ?? 64);
const seconds = Number(process.env.DURATION ?? 10);
const answer = process.env.ANSWER ?? "turn";
if (!["turn", "await", "stream"].includes(answer)) throw new Error(`ANSWER is turn, await or stream, not ${answer}`);
const serviceHeaders = process.env.HEADERS === "service";
const wrk = wrkPath();
if (!wrk) throw new Error("wrk is missing (apt-get install -y wrk)");

/** The headers of an API answer (src/core/json_response.ts and the request id and budget fields), as sent. */
const apiHeaders = {
  "content-type": "application/json; charset=utf-8",
  "x-content-type-options": "nosniff",
  "cache-control": "no-store",
  vary: "accept-encoding",
  "x-request-id": "01M8JXCR6F1ZQTCG1MQ7AQVB02",
  "ratelimit-policy": '"default";q=1000000;w=60',
  ratelimit: '"default";r=999999;t=1',
};

const server = Bun.spawn(
  [
    process.execPath,
    "-e",
    `const body = '[' + '{"a":"' + 'x'.repeat(${Math.max(0, bytes - 9)}) + '"}' + ']';
     const headers = ${JSON.stringify(serviceHeaders ? apiHeaders : { "content-type": "application/json" })};
     const answer = ${JSON.stringify(answer)};
     const s = Bun.serve({ port: 0, hostname: "127.0.0.1",
       fetch: async () => {
         if (answer === "turn") return new Response(body, { headers });
         await new Promise((resolve) => setImmediate(resolve));
         if (answer === "await") return new Response(body, { headers });
         return new Response(new ReadableStream({ start(c) { c.enqueue(body); c.close(); } }), { headers });
       } });
     console.log(s.port);`,
  ],
  { stdout: "pipe", stderr: "inherit" },
);
const reader = server.stdout.getReader();
const port = Number(new TextDecoder().decode((await reader.read()).value).trim());
const work = mkdtempSync(join(tmpdir(), "socket-floor-"));
try {
  const file = join(work, "requests");
  writeFileSync(file, "GET\t/page\t\n".repeat(1000));
  const before = processCpuMicros(server.pid)!;
  const args = ["-t", "2", "-c", String(connections), "-d", `${seconds}s`, "-s", join(import.meta.dir, "wrk.lua")];
  const proc = Bun.spawn([wrk, ...args, `http://127.0.0.1:${port}`], {
    env: { ...process.env, BENCH_REQUESTS: file, BENCH_KEY: "-", BENCH_THREADS: "2" },
    stdout: "pipe",
    stderr: "inherit",
  });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  const served = processCpuMicros(server.pid)! - before;
  const w = JSON.parse(
    out
      .trim()
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .pop()!,
  ) as {
    durationUs: number;
    p99Us: number;
    statusCounts: Record<string, number>;
  };
  const answered = Object.values(w.statusCounts).reduce((a, n) => a + n, 0);
  const wrkCpu = Number(proc.resourceUsage()?.cpuTime.total ?? 0);
  console.log(
    JSON.stringify({
      bytes,
      answer,
      headers: serviceHeaders ? "service" : "content-type",
      connections,
      requestsPerSecond: Math.round(answered / (w.durationUs / 1e6)),
      p99Ms: Math.round(w.p99Us / 100) / 10,
      serverMicros: Math.round(served / answered),
      wrkMicros: Math.round(wrkCpu / answered),
    }),
  );
} finally {
  server.kill();
  rmSync(work, { recursive: true, force: true });
}
