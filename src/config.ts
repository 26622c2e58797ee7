/** Environment → one typed, frozen configuration; a bad value stops start-up with a clear line. */
import { availableParallelism } from "node:os";

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

/** The service's configuration, read once from the environment. */
export interface Config {
  /** Postgres connection string; undefined runs an embedded Postgres under dataDir. */
  databaseUrl: string | undefined;
  host: string;
  port: number;
  /** Where the embedded Postgres, the email outbox and benchmark output live. */
  dataDir: string;
  logLevel: LogLevel;
  /** Connections in the request pool (default: twice the CPU cores, at least 4). */
  dbPoolMax: number;
  /** Base address of the landlord portal, used in invitation links. */
  portalBaseUrl: string;
  /** SMTP server URL (smtp://user:pass@host:port); unset writes emails to dataDir/outbox. */
  smtpUrl: string | undefined;
  /** The From address of outgoing email. */
  emailFrom: string;
  /** Twilio-style SMS provider: base URL, account and token; unset keeps messages in the outbox table. */
  smsProviderUrl: string | undefined;
  smsAccountSid: string | undefined;
  smsAuthToken: string | undefined;
  /** Outgoing SMS a workspace may send a minute. */
  smsPerMinute: number;
  /** Start the job workers in this process. */
  workers: boolean;
  /** Check every response against its declared schema (on in tests). */
  checkResponses: boolean;
}

/** A configuration value that cannot be used. */
export class ConfigError extends Error {}

function int(env: Record<string, string | undefined>, name: string, fallback: number, min: number, max: number) {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, not "${raw}"`);
  }
  return value;
}

function flag(env: Record<string, string | undefined>, name: string, fallback: boolean) {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (["1", "true", "yes", "on"].includes(raw.toLowerCase())) return true;
  if (["0", "false", "no", "off"].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`${name} must be true or false, not "${raw}"`);
}

function url(env: Record<string, string | undefined>, name: string, fallback?: string) {
  const raw = env[name] || fallback;
  if (raw === undefined) return undefined;
  try {
    new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL, not "${raw}"`);
  }
  return raw;
}

/** Reads the configuration from an environment (process.env by default). */
export function loadConfig(env: Record<string, string | undefined> = process.env): Readonly<Config> {
  const logLevel = (env.LOG_LEVEL || "info") as LogLevel;
  if (!["debug", "info", "warn", "error", "silent"].includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of debug, info, warn, error, silent, not "${logLevel}"`);
  }
  if (env.SMS_PROVIDER_URL && (!env.SMS_ACCOUNT_SID || !env.SMS_AUTH_TOKEN)) {
    throw new ConfigError("SMS_PROVIDER_URL is set: SMS_ACCOUNT_SID and SMS_AUTH_TOKEN are needed too");
  }
  return Object.freeze({
    databaseUrl: url(env, "DATABASE_URL"),
    host: env.HOST || "0.0.0.0",
    port: int(env, "PORT", 3000, 0, 65535),
    dataDir: env.DATA_DIR || "./.data",
    logLevel,
    // Twice the cores, at least 4. Queries are pipelined, so a connection carries many reads at once, and fewer
    // connections batch more of them into each write: on 2 cores shared with Postgres, reads ran 5–15% faster
    // with 2 than with 4 (and 4 faster than 10 or 20). But a commit holds its connection until the disk has the
    // WAL: on a server with fsync on, POST /companies ran at ~330 a second with 2 and ~700 with 4.
    dbPoolMax: int(env, "DB_POOL_MAX", Math.max(4, 2 * availableParallelism()), 1, 200),
    portalBaseUrl: url(env, "PORTAL_BASE_URL", "http://localhost:3000/portal")!.replace(/\/+$/, ""),
    smtpUrl: url(env, "SMTP_URL"),
    emailFrom: env.EMAIL_FROM || "Lettings Service <no-reply@lettings.invalid>",
    smsProviderUrl: url(env, "SMS_PROVIDER_URL"),
    smsAccountSid: env.SMS_ACCOUNT_SID || undefined,
    smsAuthToken: env.SMS_AUTH_TOKEN || undefined,
    smsPerMinute: int(env, "SMS_PER_MINUTE", 60, 1, 100000),
    workers: flag(env, "WORKERS", true),
    checkResponses: flag(env, "CHECK_RESPONSES", false),
  });
}
