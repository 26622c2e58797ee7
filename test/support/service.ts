/** Runs the service (or any command) as a subprocess and reads its output as it comes. */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The repository's root folder. */
export const root = join(import.meta.dir, "..", "..");

/** A running subprocess whose stdout and stderr are collected. */
export interface Service {
  proc: ReturnType<typeof Bun.spawn>;
  /** Everything written to stdout so far. */
  stdout(): string;
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Waits until stdout matches (rejects when the process exits first); returns the match. */
  waitFor(pattern: RegExp, from?: number): Promise<RegExpMatchArray>;
  /** The exit code, once the process ended, with both streams read to their end. */
  exited(): Promise<number>;
}

/** The environment of this process without the keys given (DATABASE_URL, LOG_LEVEL, …), plus `extra`. */
export function envWithout(keys: string[], extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !keys.includes(k)) env[k] = v;
  return { ...env, ...extra };
}

/** Spawns `cmd` and collects its output; `stdin`, when given, is what it reads. */
export function spawnService(
  cmd: string[],
  options: { cwd?: string; env: Record<string, string>; stdin?: string },
): Service {
  const proc = Bun.spawn(cmd, {
    cwd: options.cwd ?? root,
    env: options.env,
    stdout: "pipe",
    stderr: "pipe",
    stdin: options.stdin === undefined ? "ignore" : new Blob([options.stdin]),
  });
  let out = "";
  let err = "";
  const pump = async (stream: ReadableStream<Uint8Array>, add: (text: string) => void) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) add(decoder.decode(chunk, { stream: true }));
  };
  const done = Promise.all([
    pump(proc.stdout as ReadableStream<Uint8Array>, (t) => (out += t)),
    pump(proc.stderr as ReadableStream<Uint8Array>, (t) => (err += t)),
  ]);
  let ended = false;
  void proc.exited.then(() => (ended = true));
  return {
    proc,
    stdout: () => out,
    stderr: () => err,
    async waitFor(pattern, from = 0) {
      for (;;) {
        const m = out.slice(from).match(pattern);
        if (m) return m;
        if (ended) {
          await done;
          const late = out.slice(from).match(pattern);
          if (late) return late;
          throw new Error(`exited (${proc.exitCode}) before printing ${pattern}:\n${out}\n${err}`);
        }
        await Bun.sleep(20);
      }
    },
    async exited() {
      const code = await proc.exited;
      await done;
      return code;
    },
  };
}

/** What a command printed, and its exit code. */
export interface Finished {
  stdout: string;
  stderr: string;
  code: number;
}

/** Runs `cmd` to its end (in the repository unless `cwd` says otherwise); `env` is its whole environment. */
export async function runToEnd(
  cmd: string[],
  options: { cwd?: string; env: Record<string, string>; stdin?: string },
): Promise<Finished> {
  const run = spawnService(cmd, options);
  const code = await run.exited();
  return { stdout: run.stdout(), stderr: run.stderr(), code };
}

/** The pid in a Postgres data folder's postmaster.pid, or 0 when the file is gone. */
export function postmasterPid(dataDir: string): number {
  const file = join(dataDir, "postmaster.pid");
  return existsSync(file) ? Number(readFileSync(file, "utf8").split("\n")[0]) || 0 : 0;
}

/** Whether a process runs (a zombie counts as ended). */
export function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return true;
  }
}

/** Waits until `check` holds (polling), for at most `ms`; returns whether it did. */
export async function eventually(check: () => boolean, ms = 15_000): Promise<boolean> {
  for (let waited = 0; waited < ms; waited += 50) {
    if (check()) return true;
    await Bun.sleep(50);
  }
  return check();
}

/** A running service: its base URL, its output so far, and how to stop it. */
export interface RunningService {
  base: string;
  /** The subprocess (stdout and stderr are read as they come, so its pipes never fill). */
  process: Service;
  /** Sends SIGTERM and waits for the process to end. */
  stop(): Promise<void>;
}

/**
 * Starts the real service (`bun src/main.ts`) on a database, without workers, on a free port of 127.0.0.1, checking
 * its responses against their schemas; waits until it listens. `env` adds to or overrides its environment.
 */
export async function startService(databaseUrl: string, env: Record<string, string> = {}): Promise<RunningService> {
  const service = spawnService([process.execPath, "src/main.ts"], {
    env: envWithout([], {
      DATABASE_URL: databaseUrl,
      PORT: "0",
      HOST: "127.0.0.1",
      WORKERS: "false",
      LOG_LEVEL: "info",
      CHECK_RESPONSES: "true",
      ...env,
    }),
  });
  const [, base] = await service.waitFor(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/);
  return {
    base: base!,
    process: service,
    async stop() {
      service.proc.kill("SIGTERM");
      await service.exited();
    },
  };
}

/** A CLI run: its exit code, its output, and each stream parsed when it is one JSON value. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read the CLI's JSON freely
  out: any;
  // biome-ignore lint/suspicious/noExplicitAny: tests read the CLI's JSON freely
  err: any;
}

/**
 * Runs `bun src/cli.ts ...args` against `databaseUrl` (none: no DATABASE_URL at all), without this process's
 * LOG_LEVEL, DATABASE_URL and the names in `drop`, plus `env`.
 */
export async function runCli(
  args: string[],
  options: { databaseUrl: string | null; env?: Record<string, string>; drop?: string[]; stdin?: string },
): Promise<CliRun> {
  const env = envWithout(["LOG_LEVEL", "DATABASE_URL", ...(options.drop ?? [])], options.env);
  if (options.databaseUrl !== null) env.DATABASE_URL = options.databaseUrl;
  const { stdout, stderr, code } = await runToEnd([process.execPath, "src/cli.ts", ...args], {
    env,
    stdin: options.stdin,
  });
  const parse = (text: string) => {
    try {
      return JSON.parse(text);
    } catch {
      return undefined;
    }
  };
  return { code, stdout, stderr, out: parse(stdout), err: parse(stderr) };
}
