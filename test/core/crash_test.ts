/**
 * A crash (src/main.ts's safety net): an error nothing catches, thrown from a timer as the driver's once was (issue 35),
 * is logged as one JSON line; the process stops taking requests, lets those in flight answer, and exits 1 for its
 * supervisor to start it again. Before, Bun printed the error and exited at once, cutting every request in flight.
 */
import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { harness } from "../support/harness.ts";
import { envWithout, eventually, spawnService } from "../support/service.ts";

const h = await harness();
afterAll(() => h.database.drop());

test("an uncaught error lets the requests in flight answer, logs one JSON line, and ends the process with exit code 1", async () => {
  const ws = await h.workspace();
  // A preload that, on SIGUSR1, throws from a timer: an error nothing catches.
  const preload = join(tmpdir(), `crash-preload-${process.pid}.ts`);
  await Bun.write(
    preload,
    `process.on("SIGUSR1", () => setImmediate(() => { throw new TypeError("null is not an object (evaluating 'socket.write')"); }));\n`,
  );
  const service = spawnService(["bun", "--preload", preload, "src/main.ts"], {
    env: envWithout(["DATABASE_URL", "LOG_LEVEL", "PORT", "HOST"], {
      DATABASE_URL: h.database.url,
      PORT: "0",
      HOST: "127.0.0.1",
      WORKERS: "false",
      LOG_LEVEL: "info",
    }),
  });
  // A creation held in flight: the test's own transaction locks the table it writes to.
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let locked!: () => void;
  const lockTaken = new Promise<void>((r) => (locked = r));
  const holder = h.database.db.begin(async (tx) => {
    await tx`lock table contacts in exclusive mode`;
    locked();
    await held;
  });
  try {
    const [, url] = (await service.waitFor(/"msg":"listening","url":"([^"]+)"/)) as RegExpMatchArray;
    await lockTaken;
    const creation = fetch(`${url}/companies`, {
      method: "POST",
      headers: { "x-api-key": ws.key, "content-type": "application/json" },
      body: JSON.stringify({ name: "Promised Ltd" }),
    }).then(
      async (res) => ({ status: res.status, body: (await res.json()) as { id?: string } }),
      (): { status: number; body: { id?: string } } => ({ status: 0, body: {} }),
    );
    // The creation waits for the lock.
    for (let waited = 0; ; waited += 50) {
      const [row] = await h.database.db<{ n: number }[]>`
        select count(*)::int as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock' and query like '%contacts%'`;
      if (row!.n > 0) break;
      if (waited > 10_000) throw new Error("the creation never waited for the lock");
      await Bun.sleep(50);
    }

    service.proc.kill("SIGUSR1");
    await eventually(() => service.stderr().includes('"msg":"crashed: an uncaught error; stopping"'), 10_000);
    const line = service
      .stderr()
      .split("\n")
      .find((l) => l.includes('"msg":"crashed'));
    expect(line).toBeString();
    expect(JSON.parse(line!)).toMatchObject({
      level: "error",
      kind: "uncaughtException",
      error: "TypeError: null is not an object (evaluating 'socket.write')",
    });
    // It takes no new request...
    expect(
      await fetch(`${url}/health`).then(
        (r) => r.status,
        () => "refused",
      ),
    ).toBe("refused");
    expect(service.proc.exitCode).toBeNull();
    // ...and the one in flight answers once the lock is gone: the company it promises is there.
    release();
    const answer = await creation;
    expect(answer.status).toBe(201);
    expect(await h.database.db`select 1 from contacts where id = ${answer.body.id!}`).toHaveLength(1);
    expect(await service.exited()).toBe(1);
    expect(service.stdout()).toContain('"msg":"stopped"');
  } finally {
    release();
    await holder.catch(() => {});
    service.proc.kill("SIGKILL");
    await service.exited();
    rmSync(preload, { force: true });
  }
}, 60_000);
