/** Structured one-line JSON logs at a configurable level. */
import type { LogLevel } from "../config.ts";

const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** A logger writing one JSON object a line. */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** Whether the process's output streams ignore their write errors yet (`createLogger` sets it up once). */
let streamsGuarded = false;

/**
 * A logger that drops lines below `level`; errors go to stderr, the rest to stdout. A stream nobody reads any more (a
 * pipe whose reader closed: EPIPE) loses its lines, and the caller (a request, the shutdown) goes on: the write's
 * error, reported by the stream after the call, is ignored. Losing logs must not stop the service.
 */
export function createLogger(level: LogLevel): Logger {
  if (!streamsGuarded) {
    streamsGuarded = true;
    for (const stream of [process.stdout, process.stderr]) stream.on("error", () => {});
  }
  const write = (lvl: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (order[lvl] < order[level]) return;
    const line = JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...fields });
    if (lvl === "error" || lvl === "warn") process.stderr.write(line + "\n");
    else process.stdout.write(line + "\n");
  };
  return {
    debug: (m, f) => write("debug", m, f),
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
  };
}
