/**
 * Start-up (`bun src/main.ts`): the database first, then the port, then the workers; a busy port, a database that
 * cannot be used or a failed migration ends start-up with one line on stderr and exit code 2, with nothing left
 * running (no workers started, the embedded Postgres stopped).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ulid } from "ulid";
import { harness } from "./support/harness.ts";
import { createTestDatabase } from "./support/database.ts";
import { envWithout, eventually, postmasterPid, root, running, spawnService } from "./support/service.ts";

const h = await harness();

/** Runs `bun src/main.ts` to its end with these settings. */
async function start(env: Record<string, string>, keep: string[] = []) {
  const service = spawnService(["bun", "src/main.ts"], {
    env: envWithout(["DATABASE_URL", "LOG_LEVEL", "PORT", "HOST", ...keep], {
      HOST: "127.0.0.1",
      LOG_LEVEL: "info",
      ...env,
    }),
  });
  const code = await service.exited();
  return { code, stdout: service.stdout(), stderr: service.stderr() };
}

/** Expects one line on stderr and exit code 2, and no job worker started. */
function oneLine(run: { code: number; stdout: string; stderr: string }, pattern: RegExp) {
  expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 2, stderr: expect.stringMatching(pattern) });
  expect(run.stderr.trimEnd().split("\n")).toHaveLength(1);
  expect(run.stderr).not.toMatch(/\n\s+at /);
  expect(run.stdout).not.toContain("worker started");
  expect(run.stdout).not.toContain('"listening"');
}

/** A TCP port held open by this process. */
function busyPort() {
  const holder = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  afterAll(() => holder.stop(true));
  return holder.port;
}

describe("start-up failures are one line and exit code 2", () => {
  test("a busy port, with workers on: nothing started before the port was bound", async () => {
    const port = busyPort();
    const run = await start({ DATABASE_URL: h.database.url, PORT: String(port), WORKERS: "true" });
    oneLine(
      run,
      new RegExp(
        `^listen: port ${port} is already in use on 127\\.0\\.0\\.1: stop what holds it, or set PORT to a free port\\n$`,
      ),
    );
    // pg-boss never started: it makes its schema on first start.
    expect(await h.database.db`select 1 from information_schema.schemata where schema_name = 'pgboss'`).toHaveLength(0);
  });

  test("an unreachable DATABASE_URL names it, its password hidden", async () => {
    const run = await start({ DATABASE_URL: "postgres://lettings:s3cret@127.0.0.1:1/lettings", PORT: "0" });
    oneLine(
      run,
      /^database: cannot use DATABASE_URL postgres:\/\/lettings:\*\*\*@127\.0\.0\.1:1\/lettings: .*ECONNREFUSED/,
    );
    expect(run.stderr).not.toContain("s3cret");
  });

  test("a database that does not exist", async () => {
    const url = new URL(h.database.url);
    url.pathname = "/lettings_no_such_database";
    const run = await start({ DATABASE_URL: url.toString(), PORT: "0" });
    oneLine(run, /^database: cannot use DATABASE_URL .*lettings_no_such_database.*does not exist/);
  });

  test("a failed migration names the migration and says nothing was applied", async () => {
    const broken = await createTestDatabase();
    afterAll(() => broken.drop());
    // Forget a migration: applying it again fails on what it made the first time (the runner applies it first).
    const forgotten = { name: "0010_key_check_lists.sql" };
    await broken.db`delete from schema_migrations where name = ${forgotten.name}`;
    const run = await start({ DATABASE_URL: broken.url, PORT: "0", WORKERS: "true" });
    oneLine(
      run,
      new RegExp(
        `^database: migration ${forgotten.name.replace(".", "\\.")} failed, so none of this run was applied: `,
      ),
    );
    expect(await broken.db`select 1 from schema_migrations where name = ${forgotten.name}`).toHaveLength(0);
  });

  test("a landed migration changed after it was applied names it, and nothing starts", async () => {
    const changed = await createTestDatabase();
    afterAll(() => changed.drop());
    // What the runner sees when the file changed: its checksum differs from the one recorded when it was applied.
    const recorded = "0".repeat(64);
    await changed.db`update schema_migrations set checksum = ${recorded} where name = '0007_tasks_calendar_sms.sql'`;
    const run = await start({ DATABASE_URL: changed.url, PORT: "0", WORKERS: "true" });
    oneLine(
      run,
      /^database: migration 0007_tasks_calendar_sms\.sql was changed after it was applied to this database \(sha256 000000000000… when applied, [0-9a-f]{12}… now\); a change is a new migration file\n$/,
    );
  });

  test("a bad setting, as before", async () => {
    oneLine(
      await start({ PORT: "http" }),
      /^configuration: PORT must be a whole number from 0 to 65535, not "http"\n$/,
    );
  });

  test("an SMTP_URL that is no smtp:// or smtps:// URL stops start-up, its password hidden", async () => {
    const run = await start({ DATABASE_URL: h.database.url, PORT: "0", SMTP_URL: "http://mail:s3cret@x" });
    oneLine(
      run,
      /^configuration: SMTP_URL must be smtp:\/\/user:pass@host:587 or smtps:\/\/user:pass@host:465, not "http:\/\/mail:\*\*\*@x"\n$/,
    );
    expect(run.stdout).toBe("");
  });

  test("DATABASE_DIRECT_URL without DATABASE_URL, and a bad SHUTDOWN_DRAIN_MS, stop start-up with one line", async () => {
    oneLine(
      await start({ DATABASE_DIRECT_URL: "postgres://postgres@127.0.0.1:5432/postgres" }),
      /^configuration: DATABASE_DIRECT_URL is set: DATABASE_URL \(the pooler\) is needed too\n$/,
    );
    oneLine(
      await start({ SHUTDOWN_DRAIN_MS: "soon" }),
      /^configuration: SHUTDOWN_DRAIN_MS must be a whole number from 0 to 600000, not "soon"\n$/,
    );
  });
});

describe("with the embedded Postgres (no DATABASE_URL)", () => {
  // Under the repository (not /tmp, whose private folders the postgres user cannot enter when tests run as root).
  const dataDir = join(root, ".data", `startup-${ulid().toLowerCase()}`);
  const pgDir = join(dataDir, "pg");
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  test("a busy port stops the embedded Postgres it started, and removes its port file", async () => {
    mkdirSync(dataDir, { recursive: true });
    const port = busyPort();
    const run = await start({ DATA_DIR: dataDir, PORT: String(port), WORKERS: "true" });
    oneLine(run, /^listen: port \d+ is already in use/);
    expect(run.stdout).toContain("no DATABASE_URL: using the embedded Postgres");
    expect(existsSync(join(pgDir, "PG_VERSION"))).toBe(true);
    expect(await eventually(() => postmasterPid(pgDir) === 0)).toBe(true);
    expect(existsSync(join(dataDir, "pg.port"))).toBe(false);
  });

  test("SIGTERM stops the embedded Postgres and removes its port file", async () => {
    const service = spawnService(["bun", "src/main.ts"], {
      env: envWithout(["DATABASE_URL", "LOG_LEVEL"], {
        DATA_DIR: dataDir,
        PORT: "0",
        HOST: "127.0.0.1",
        WORKERS: "true",
        LOG_LEVEL: "info",
      }),
    });
    await service.waitFor(/"msg":"listening"/);
    const pid = postmasterPid(pgDir);
    expect(running(pid)).toBe(true);
    expect(existsSync(join(dataDir, "pg.port"))).toBe(true);
    service.proc.kill("SIGTERM");
    expect(await service.exited()).toBe(0);
    expect(await eventually(() => !running(pid))).toBe(true);
    expect(postmasterPid(pgDir)).toBe(0);
    expect(existsSync(join(dataDir, "pg.port"))).toBe(false);
  });

  test("an uncaught error ends the process, and the embedded Postgres with it", async () => {
    // A preload that throws from a signal handler once the service runs: an error nothing catches.
    const crash = join(dataDir, "crash.ts");
    await Bun.write(crash, `process.on("SIGUSR1", () => { throw new Error("boom"); });\n`);
    const service = spawnService(["bun", "--preload", crash, "src/main.ts"], {
      env: envWithout(["DATABASE_URL", "LOG_LEVEL"], {
        DATA_DIR: dataDir,
        PORT: "0",
        HOST: "127.0.0.1",
        WORKERS: "false",
        LOG_LEVEL: "info",
      }),
    });
    await service.waitFor(/"msg":"listening"/);
    const pid = postmasterPid(pgDir);
    expect(running(pid)).toBe(true);
    service.proc.kill("SIGUSR1");
    expect(await service.exited()).not.toBe(0);
    expect(service.stderr()).toContain("boom");
    expect(await eventually(() => !running(pid))).toBe(true);
    expect(await eventually(() => postmasterPid(pgDir) === 0)).toBe(true);
    expect(existsSync(join(dataDir, "pg.port"))).toBe(false);
  });
});
