/** Why the service could not start, as one line for the operator instead of a stack trace. */
import type { Config } from "../config.ts";
import { isConnectionError } from "./db.ts";
import { EmbeddedPostgresFailed } from "./embedded_postgres.ts";
import { MigrationChanged, MigrationFailed } from "./migrate.ts";

/** Error codes that mean the configured database cannot be used at all (beyond the connection faults of db.ts). */
const unusable = new Set([
  "3D000", // no such database
  "28000", // no such role, or pg_hba refuses
  "28P01", // wrong password
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "ECONNRESET",
]);

/** Whether an error means the database cannot be used as configured: unreachable, refusing us, or no such database. */
export function databaseUnavailable(error: unknown): boolean {
  if (isConnectionError(error)) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && (unusable.has(code) || code.startsWith("08"));
}

/** A connection string fit for a log line: its password replaced by `***`. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(unparsable URL)";
  }
}

function messageOf(error: unknown): string {
  return String((error as Error)?.message ?? error)
    .replace(/\s+/g, " ")
    .trim();
}

/** One line saying why the database could not be opened (DATABASE_URL's server, the embedded one, or a migration). */
export function databaseFailureLine(error: unknown, config: Pick<Config, "databaseUrl" | "dataDir">): string {
  if (error instanceof MigrationFailed) {
    return (
      `database: migration ${error.fields.migration} failed, so none of this run was applied: ` +
      `${error.fields.message}`
    );
  }
  if (error instanceof MigrationChanged) return `database: ${error.message}`;
  if (error instanceof EmbeddedPostgresFailed) {
    let hint = "set DATABASE_URL to use a Postgres server instead";
    if (/error while loading shared libraries/.test(error.message)) {
      hint =
        "the @embedded-postgres platform package was installed without its postinstall step (bun install " +
        "--ignore-scripts); reinstall without that flag, or " +
        hint;
    } else if (/EACCES|permission denied/i.test(error.message)) {
      hint = `DATA_DIR (${config.dataDir}) must be writable by this user, or ` + hint;
    }
    return (
      `database: no DATABASE_URL is set and the embedded Postgres in ${error.dir} did not start: ` +
      `${error.message} (${hint})`
    );
  }
  if (config.databaseUrl && databaseUnavailable(error)) {
    return `database: cannot use DATABASE_URL ${redactUrl(config.databaseUrl)}: ${messageOf(error)}`;
  }
  return `database: ${messageOf(error)}`;
}

/** One line saying why the server could not listen on HOST:PORT. */
export function listenFailureLine(error: unknown, config: Pick<Config, "host" | "port">): string {
  const code = (error as { code?: unknown } | null)?.code;
  const where = `${config.host}:${config.port}`;
  if (code === "EADDRINUSE")
    return (
      `listen: port ${config.port} is already in use on ${config.host}: stop what holds it, or set PORT to ` +
      `a free port`
    );
  if (code === "EACCES") return `listen: no permission to listen on ${where}: use a port above 1023, or set PORT`;
  if (code === "EADDRNOTAVAIL" || code === "EINVAL")
    return `listen: HOST ${config.host} is not an address of this machine: set HOST (0.0.0.0 listens on all)`;
  return `listen: cannot listen on ${where}: ${messageOf(error)}`;
}
