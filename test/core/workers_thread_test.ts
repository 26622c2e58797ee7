/**
 * The job workers on a thread of their own (src/workers_thread.ts), seen from outside the real service
 * (`bun src/main.ts`, WORKERS=true): deliveries go on while the API's event loop is blocked; a thread that fails to
 * start stops start-up with one line and exit code 2; one that dies later stops the service with exit code 1; SIGTERM
 * stops both. Faults come from preloads: one blocks the main thread on SIGUSR1, one makes the workers' thread throw.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { harness } from "../support/harness.ts";
import { envWithout, root, spawnService, type Service } from "../support/service.ts";
import { threadPreload } from "../support/thread_preload.ts";
import { fileReceivers, subscribe } from "../webhooks/receiver.ts";

const h = await harness();
setDefaultTimeout(60_000);
const receiver = fileReceivers();
const dir = mkdtempSync(join(tmpdir(), "workers-thread-"));
const started: Service[] = [];
afterAll(async () => {
  for (const s of started) {
    s.proc.kill(9);
    await s.proc.exited;
  }
});

/**
 * A preload that blocks the main thread on SIGUSR1 (a long synchronous handler, as a runaway request) until the file
 * BLOCK_UNTIL exists (30 s at most).
 */
const blockMain = join(dir, "block_main.ts");
await Bun.write(
  blockMain,
  `import { existsSync, writeSync } from "node:fs";\n` +
    `process.on("SIGUSR1", () => { writeSync(1, "blocking the main thread\\n"); ` +
    `const end = performance.now() + 30_000; const pause = new Int32Array(new SharedArrayBuffer(4)); ` +
    `while (!existsSync(process.env.BLOCK_UNTIL) && performance.now() < end) Atomics.wait(pause, 0, 0, 5); });\n`,
);
function start(preload: string, env: Record<string, string> = {}): Service {
  const service = spawnService([process.execPath, "--preload", preload, "src/main.ts"], {
    cwd: root,
    env: envWithout(["LOG_LEVEL"], {
      DATABASE_URL: h.database.url,
      PORT: "0",
      HOST: "127.0.0.1",
      WORKERS: "true",
      WEBHOOKS_ALLOW_PRIVATE: "true",
      SHUTDOWN_DRAIN_MS: "0",
      LOG_LEVEL: "info",
      ...env,
    }),
  });
  started.push(service);
  return service;
}

describe("the workers run on a thread of their own", () => {
  test("an event recorded while the API's event loop is blocked is delivered before the block ends", async () => {
    const ws = await h.workspace();
    const r = receiver();
    await subscribe(h.database.db, ws, r.url);
    const release = join(dir, "release_main");
    const service = start(blockMain, { BLOCK_UNTIL: release });
    const [, base] = await service.waitFor(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/);
    await service.waitFor(/"msg":"worker started","queue":"webhook-deliver"/);

    service.proc.kill("SIGUSR1");
    await service.waitFor(/blocking the main thread/);
    let answeredAt: number | undefined;
    const health = fetch(`${base}/health`).then(() => (answeredAt = performance.now()));
    // A write made elsewhere (this process, the same database) records the event the service's dispatcher follows.
    const created = await h.request("POST", "/companies", { key: ws.key, body: { name: "Blocked Loop Ltd" } });
    expect(created.status).toBe(201);
    await r.count(1, 10_000);
    // Delivered while /health, asked before the write, has no answer: the main thread is still blocked.
    expect(answeredAt).toBeUndefined();
    const releasedAt = performance.now();
    await Bun.write(release, "");
    await health;

    // /health waited for the block to end; the delivery did not.
    expect(answeredAt!).toBeGreaterThan(releasedAt);
    expect(JSON.parse(r.received[0]!.body).data.name).toBe("Blocked Loop Ltd");
    service.proc.kill("SIGTERM");
    expect(await service.exited()).toBe(0);
    expect(service.stdout()).toContain(`"msg":"stopped"`);
  });

  test("a workers' thread that fails as it starts stops start-up with one line and exit code 2", async () => {
    const preload = await threadPreload("fail_at_start", `throw new Error("the thread could not start");\n`);
    const service = start(preload);
    expect(await service.exited()).toBe(2);
    expect(service.stderr()).toBe("workers: the thread could not start\n");
  });

  test("a workers' thread that dies after start stops the service with exit code 1, its port closed", async () => {
    // The thread throws once the test says so (a file appears), after the service answered.
    const die = join(dir, "die_now");
    const preload = await threadPreload(
      "die_later",
      `import { existsSync } from "node:fs";\n` +
        `setInterval(() => { if (existsSync(${JSON.stringify(die)})) throw new Error("a worker's bug"); }, 10);\n`,
    );
    const service = start(preload);
    const [, base] = await service.waitFor(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/);
    expect((await fetch(`${base}/health`)).status).toBe(200);
    await Bun.write(die, "");
    expect(await service.exited()).toBe(1);
    const crash = service
      .stderr()
      .split("\n")
      .filter((line) => line.includes("the workers' thread stopped"));
    expect(crash).toHaveLength(1);
    expect(JSON.parse(crash[0]!)).toMatchObject({ level: "error", error: "a worker's bug" });
    await expect(fetch(`${base}/health`)).rejects.toThrow();
  });
});
