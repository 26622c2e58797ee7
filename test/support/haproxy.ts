/**
 * Debian's HAProxy (`apt-get install haproxy`) started by a test with deploy/haproxy.cfg, its frontend on a free
 * port of 127.0.0.1 and its servers on the ports given (one `server` line each, the file's settings kept).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { root } from "./service.ts";
import { ExitedBeforeListening, onFreePort, waitForPort } from "./pgbouncer.ts";

/** Where Debian installs HAProxy. */
export const haproxyPath = "/usr/sbin/haproxy";

/** Whether HAProxy is installed; in CI a missing binary throws, elsewhere it warns and the caller skips. */
export function haveHaproxy(what: string): boolean {
  if (existsSync(haproxyPath)) return true;
  if (process.env.CI) throw new Error(`${haproxyPath} is missing: .ci/run installs it (apt-get install -y haproxy)`);
  console.warn(`SKIPPED ${what}: ${haproxyPath} is missing (apt-get install -y haproxy)`);
  return false;
}

/** A running HAProxy: its frontend's base URL and how to stop it. */
export interface Haproxy {
  base: string;
  stop(): Promise<void>;
}

/** Starts HAProxy with the shipped configuration in front of replicas on `ports` of 127.0.0.1. */
export function startHaproxy(ports: number[]): Promise<Haproxy> {
  return onFreePort((port) => startHaproxyOn(port, ports));
}

async function startHaproxyOn(port: number, ports: number[]): Promise<Haproxy> {
  const dir = mkdtempSync(join(tmpdir(), "haproxy-"));
  const shipped = readFileSync(join(root, "deploy", "haproxy.cfg"), "utf8");
  const servers = ports.map((p, i) => `    server replica${i + 1} 127.0.0.1:${p} check`).join("\n");
  const cfg = `${shipped
    .replace(/^(\s*bind) 127\.0\.0\.1:\d+$/m, `$1 127.0.0.1:${port}`)
    .replace(/^\s*server .*$\n?/gm, "")
    .trimEnd()}\n${servers}\n`;
  const file = join(dir, "haproxy.cfg");
  writeFileSync(file, cfg);
  // -db: stay in the foreground, no daemon.
  // setpriv (util-linux): HAProxy dies with this process however it ends (bun test runs no exit handlers).
  const proc = Bun.spawn(["setpriv", "--pdeathsig=KILL", haproxyPath, "-db", "-f", file], {
    stdout: "ignore",
    stderr: "pipe",
    stdin: "ignore",
  });
  const kill = () => proc.kill("SIGKILL");
  process.once("exit", kill);
  try {
    await Promise.race([
      waitForPort(port),
      proc.exited.then(async (code) => {
        throw new ExitedBeforeListening(`haproxy exited (${code}): ${await new Response(proc.stderr).text()}`);
      }),
    ]);
  } catch (error) {
    kill();
    process.removeListener("exit", kill);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    base: `http://127.0.0.1:${port}`,
    async stop() {
      process.removeListener("exit", kill);
      proc.kill("SIGTERM");
      await proc.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
