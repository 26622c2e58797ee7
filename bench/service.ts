/** The service under test, as its own process: `bun src/main.ts`, timed to its first answered /health. */
import { openSync, closeSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The repository root (where src/main.ts is). */
export const root = join(import.meta.dir, "..");

/** A free TCP port on loopback. */
export function freePort(): number {
  const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = server.port;
  server.stop(true);
  return port;
}

/** A running service process. */
export interface ServiceProcess {
  pid: number;
  url: string;
  /** Milliseconds from spawning `bun src/main.ts` to its first /health 200. */
  coldStartMs: number;
  /** Peak resident set size (VmHWM) in KiB, since start or the last resetPeak(). */
  peakRssKiB(): number | null;
  /** Resets VmHWM to the current RSS (Linux clear_refs 5); false where the kernel refuses. */
  resetPeak(): boolean;
  /** SIGTERM, then SIGKILL after 15 s; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Starts the service on a database and waits for /health to answer 200. Output goes to `logFile`. */
export async function startService(input: {
  databaseUrl: string;
  logFile: string;
  env?: Record<string, string>;
}): Promise<ServiceProcess> {
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const fd = openSync(input.logFile, "a");
  const started = performance.now();
  // BENCH_PROFILE=<dir>: the service writes a CPU profile there (Markdown, as Bun's --cpu-prof-md) when it stops.
  const profile = process.env.BENCH_PROFILE ? ["--cpu-prof-md", `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  const proc = Bun.spawn([process.execPath, ...profile, "src/main.ts"], {
    cwd: root,
    env: {
      ...process.env,
      CHECK_RESPONSES: "false",
      // No load balancer to drain from: stop at once on SIGTERM.
      SHUTDOWN_DRAIN_MS: "0",
      ...input.env,
      DATABASE_URL: input.databaseUrl,
      HOST: "127.0.0.1",
      PORT: String(port),
      LOG_LEVEL: "warn",
    },
    stdin: "ignore",
    stdout: fd,
    stderr: fd,
  });
  closeSync(fd);
  let exited = false;
  void proc.exited.then(() => (exited = true));
  let coldStartMs: number | undefined;
  while (coldStartMs === undefined) {
    if (exited) throw new Error(`the service exited with code ${proc.exitCode} before answering; see ${input.logFile}`);
    if (performance.now() - started > 120_000) {
      proc.kill("SIGKILL");
      throw new Error(`the service did not answer /health within 120 s; see ${input.logFile}`);
    }
    try {
      const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) });
      await response.arrayBuffer();
      if (response.status === 200) coldStartMs = performance.now() - started;
    } catch {
      // not listening yet
    }
    if (coldStartMs === undefined) await Bun.sleep(5);
  }
  const pid = proc.pid;
  return {
    pid,
    url,
    coldStartMs: Math.round(coldStartMs),
    peakRssKiB() {
      try {
        const line = readFileSync(`/proc/${pid}/status`, "utf8")
          .split("\n")
          .find((l) => l.startsWith("VmHWM:"));
        return line ? Number(line.replace(/\D+/g, "")) : null;
      } catch {
        return null;
      }
    },
    resetPeak() {
      try {
        writeFileSync(`/proc/${pid}/clear_refs`, "5");
        return true;
      } catch {
        return false;
      }
    },
    async stop() {
      if (exited) return proc.exitCode;
      proc.kill("SIGTERM");
      const timer = setTimeout(() => proc.kill("SIGKILL"), 15_000);
      const code = await proc.exited;
      clearTimeout(timer);
      return code;
    },
  };
}
