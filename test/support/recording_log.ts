/** A logger for tests that keeps every line it is given, each as the JSON log would print it (fields flattened). */
import type { Logger } from "../../src/core/log.ts";

/** A kept line: its level, its message and its fields. */
export type LogLine = { level: string; msg: string } & Record<string, unknown>;

/** A Logger and the lines it has kept, in order. */
export function recordingLog(): { log: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>) =>
    void lines.push({ level, msg, ...fields });
  return { log: { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") }, lines };
}
