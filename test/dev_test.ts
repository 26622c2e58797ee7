/**
 * `bun run dev` (package.json's script, run as it is) on a copy of the source tree: a --watch reload keeps the
 * embedded Postgres and reuses it, each start revokes the previous demo key, and Ctrl-C after a reload stops the
 * embedded Postgres and removes its port file.
 */
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { appendFileSync, chmodSync, cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { envWithout, eventually, postmasterPid, root, running, spawnService } from "./support/service.ts";

// Bun applies the preload's timeout to the first file only; this file talks to Postgres or subprocesses.
setDefaultTimeout(30_000);

// A copy, so that the reload can be made by editing a watched file without touching the repository.
const tree = mkdtempSync(join(tmpdir(), "lettings-dev-"));
chmodSync(tree, 0o755); // the postgres user (tests running as root) must reach the data folder
for (const part of ["src", "sql", "package.json", "tsconfig.json"])
  cpSync(join(root, part), join(tree, part), { recursive: true });
symlinkSync(join(root, "node_modules"), join(tree, "node_modules"));
const dataDir = join(tree, ".data");
const pgDir = join(dataDir, "pg");
afterAll(() => {
  const left = postmasterPid(pgDir); // only when the test failed half-way
  if (left && running(left)) process.kill(left, "SIGINT");
  rmSync(tree, { recursive: true, force: true });
});

const listening = /"msg":"listening","url":"(http:\/\/127\.0\.0\.1:\d+)","pid":(\d+)[^\n]*\n[\s\S]*?\n {4}(lk_\S+)\n/;

test("a reload reuses the embedded Postgres and revokes the previous demo key; Ctrl-C then stops the Postgres", async () => {
  const service = spawnService(["bun", "run", "dev"], {
    cwd: tree,
    env: envWithout(["DATABASE_URL", "LOG_LEVEL"], {
      DATA_DIR: dataDir,
      PORT: "0",
      HOST: "127.0.0.1",
      LOG_LEVEL: "info",
    }),
  });
  try {
    const first = await service.waitFor(listening);
    const [, base1, pid1, key1] = first;
    const postgres = postmasterPid(pgDir);
    expect(running(postgres)).toBe(true);
    expect((await fetch(`${base1}/handovers/tenancies/ten-ashby-2b`, { headers: { "x-api-key": key1! } })).status).toBe(
      200,
    );
    // The printed webhook line, run by the shell as a developer would: a signed reply arrives on Chloe's thread.
    const [, curlLine] = await service.waitFor(/\n {4}(curl -s -H 'x-twilio-signature[^\n]*)\n/);
    const runCurl = () => Bun.spawn(["sh", "-c", curlLine!], { stdout: "pipe" });
    expect(await new Response(runCurl().stdout).text()).toBe('<?xml version="1.0" encoding="UTF-8"?><Response/>');
    expect(JSON.parse(await new Response(runCurl().stdout).text())._tag).toBe("WebhookDuplicate");
    const thread = await fetch(`${base1}/telephony/sms/threads/sms-chloe-martin/messages`, {
      headers: { "x-api-key": key1! },
    });
    expect(((await thread.json()) as { body: string }[]).map((m) => m.body)).toEqual([
      "Thanks, Thursday morning works for the fan.",
    ]);

    appendFileSync(join(tree, "src", "main.ts"), "\n// edited: bun --watch reloads\n");
    const second = await service.waitFor(listening, first.index! + first[0].length);
    const [, base2, pid2, key2] = second;
    expect(pid2).toBe(pid1); // --watch re-executes the same process
    expect(postmasterPid(pgDir)).toBe(postgres); // the same server, reused
    expect(service.stdout()).toContain("The previous demo key was revoked.");
    const path = `${base2}/handovers/tenancies/ten-ashby-2b`;
    expect((await fetch(path, { headers: { "x-api-key": key2! } })).status).toBe(200);
    const old = await fetch(path, { headers: { "x-api-key": key1! } });
    expect({ status: old.status, body: await old.json() }).toEqual({ status: 401, body: { _tag: "ApiKeyRejected" } });

    // Ctrl-C reaches the service process (a terminal sends SIGINT to the whole group; this is the harder case).
    process.kill(Number(pid2), "SIGINT");
    expect(await service.exited()).toBe(0);
    expect(await eventually(() => !running(postgres))).toBe(true);
    expect(postmasterPid(pgDir)).toBe(0);
    expect(existsSync(join(dataDir, "pg.port"))).toBe(false);
  } finally {
    service.proc.kill("SIGKILL");
  }
}, 90_000);
