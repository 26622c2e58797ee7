/**
 * The job workers on a thread of their own (a Bun Worker) in the service process: their own event loop, database
 * pool and job queue, beside the API's. Deliveries, emails, SMS and purges then never wait in the API's event loop,
 * nor its requests behind them (bench/README.md, "Webhooks", fifth pass: during a burst of deliveries, /health's p99
 * 2.6-5.9 ms on the thread against 8-25 ms in one loop). A crash of either kills both: the process is one unit to run,
 * restart and `kill -9`. Messages: main → thread `start` then `stop`; thread → main `started`, `failed`, `stopped`.
 */
import type { Config } from "./config.ts";

/** What the main thread sends the workers' thread. */
export type ToWorkers =
  | { kind: "start"; config: Config; databaseUrl: string; pooled: boolean }
  | { kind: "stop"; timeoutMs: number };
/** What the workers' thread sends back. */
export type FromWorkers = { kind: "started" } | { kind: "failed"; error: string } | { kind: "stopped" };

/** The running workers' thread. */
export interface WorkersThread {
  /** Stops the workers (running jobs finish, within `timeoutMs`) and ends the thread. */
  stop(timeoutMs?: number): Promise<void>;
}

/**
 * Starts the workers on their thread over the database at `databaseUrl` (already migrated) and resolves once they run.
 * It rejects when they fail to start; `onCrash` is called when the thread ends later without being asked to.
 */
export function startWorkersThread(
  config: Readonly<Config>,
  database: { url: string; pooled: boolean },
  onCrash: (error: string) => void,
): Promise<WorkersThread> {
  let stopping = false;
  let started = false;
  let stopped: (() => void) | undefined;
  return new Promise((resolve, reject) => {
    // Inside the executor: a thread that cannot even be created (its file unreadable) rejects like one that fails.
    const worker = new Worker(new URL("./workers_entry.ts", import.meta.url).href, { name: "workers" });
    const fail = (error: string) => {
      if (stopping) return;
      stopping = true;
      if (started) onCrash(error);
      else reject(new Error(error));
      worker.terminate();
    };
    worker.addEventListener("message", (event: MessageEvent<FromWorkers>) => {
      const message = event.data;
      if (message.kind === "started") {
        started = true;
        resolve({
          stop: (timeoutMs = 10_000) => {
            if (stopping) return Promise.resolve();
            stopping = true;
            return new Promise<void>((done) => {
              stopped = done;
              worker.postMessage({ kind: "stop", timeoutMs } satisfies ToWorkers);
            });
          },
        });
      } else if (message.kind === "failed") fail(message.error);
      else if (message.kind === "stopped") {
        worker.terminate();
        stopped?.();
      }
    });
    // Logged once, by the caller: the start-up failure line or the crash's log line.
    worker.addEventListener("error", (event: ErrorEvent) => fail(uncaughtLine(event)));
    // A thread that ends while stopping (it died mid-stop) ends the stop too; one that ends unasked is a crash.
    worker.addEventListener("close", () => (stopping ? stopped?.() : fail("the workers' thread ended")));
    worker.postMessage({
      kind: "start",
      config: { ...config },
      databaseUrl: database.url,
      pooled: database.pooled,
    } satisfies ToWorkers);
  });
}

/**
 * An uncaught error's own words: Bun's `ErrorEvent.message` from a thread is the source excerpt, a caret and
 * `error: <message>` on lines of their own (no `error` object), and start-up failures must stay one line.
 */
export function uncaughtLine(event: ErrorEvent): string {
  const text = String(event.message ?? event);
  return text.match(/^error: (.+)$/m)?.[1] ?? text.split("\n").find((line) => line.trim()) ?? "an uncaught error";
}
