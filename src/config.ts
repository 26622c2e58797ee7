/** Environment → one typed, frozen configuration; a bad value stops start-up with a clear line. */
import { availableParallelism } from "node:os";
import { isDate } from "./core/dates.ts";

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

/** The service's configuration, read once from the environment. */
export interface Config {
  /** Postgres connection string; undefined runs an embedded Postgres under dataDir. */
  databaseUrl: string | undefined;
  /**
   * The Postgres server itself when DATABASE_URL names a transaction pooler (PgBouncer): what needs a session of its
   * own (the migration runner) connects here. Unset: DATABASE_URL.
   */
  databaseDirectUrl: string | undefined;
  host: string;
  port: number;
  /** Where the embedded Postgres, the email outbox and benchmark output live. */
  dataDir: string;
  logLevel: LogLevel;
  /** Connections in the request pool (default: twice the CPU cores, at least 4). */
  dbPoolMax: number;
  /**
   * Connections in the request pool when DATABASE_URL leads through a pooler (DB_POOL_MAX when set, else 16): each
   * carries one query at a time there, and a commit holds its connection until the WAL is flushed.
   */
  dbPoolMaxBehindPooler: number;
  /**
   * Milliseconds a request-pool connection with queries outstanding may receive nothing from the database before it
   * is taken for dead (a frozen server, a partition): its requests answer 503. 0 turns the bound off.
   */
  dbAnswerTimeoutMs: number;
  /** Base address of the landlord portal, used in invitation links (default: PUBLIC_BASE_URL's `/portal`). */
  portalBaseUrl: string;
  /** Requests a client address may make to the portal's public pages a minute (PORTAL_BUDGET_PER_MINUTE). */
  portalBudgetPerMinute: number;
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
  /** Milliseconds a request's whole body may take to arrive (REQUEST_BODY_TIMEOUT_MS) before 408 RequestTimeout. */
  bodyTimeoutMs: number;
  /**
   * The address the service is reached at from outside (PUBLIC_BASE_URL, no trailing slash): signed webhook URLs
   * and links in emails are made from it. Default: http://localhost:PORT.
   */
  publicBaseUrl: string;
  /** Whether PUBLIC_BASE_URL is set: the links answers carry (the next page) are then made from it, not from Host. */
  publicBaseUrlSet: boolean;
  /**
   * Proxies in front of the service that append the client's address to X-Forwarded-For (TRUSTED_PROXY_HOPS, 0 by
   * default: the connection's peer is the client). The public routes' budgets count by that address.
   */
  trustedProxyHops: number;
  /** Webhook posts one client address may make a minute, per integration (WEBHOOK_BUDGET_PER_MINUTE, 600). */
  webhookBudgetPerMinute: number;
  /** Check every response against its declared schema (on in tests). */
  checkResponses: boolean;
  /** Days events are kept (the feed and webhook deliveries) before the daily purge deletes them. */
  eventsRetentionDays: number;
  /** Lift the webhook URL rules (https only, no private address): tests and local development only. */
  webhooksAllowPrivate: boolean;
  /** Milliseconds a webhook delivery may take, answer included (10 s). */
  webhookTimeoutMs: number;
  /**
   * Milliseconds the dispatcher waits for a batch's first attempts before recording it (250 ms): a POST still in
   * flight then is recorded pending and settled when it answers (WEBHOOK_HANDOFF_MS).
   */
  webhookHandoffMs: number;
  /** Seconds between a delivery's failed attempts and its next: the Standard Webhooks schedule by default. */
  webhookRetryDelays: readonly number[];
  /**
   * Milliseconds a replica answers /health with 503 after SIGTERM, still serving requests, before it stops taking
   * connections: a load balancer's health check takes it out of rotation first (SHUTDOWN_DRAIN_MS).
   */
  shutdownDrainMs: number;
  /**
   * The date (YYYY-MM-DD) from which the private rented sector is bound by the hazard clocks' law (PRS_IN_FORCE_FROM):
   * a private agency's clocks are statutory for hazards it became aware of from 00:00 London that day. Unset: null
   * (no commencement date set in law yet; every private agency's clocks are policy).
   */
  prsInForceFrom: string | null;
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

/**
 * SMTP_URL as the README documents it: `smtp://` or `smtps://` with a host (nodemailer's own URL form). Anything else
 * (`http://x`, a bare host) would only fail at the first email, an hour of retries later: it stops start-up instead.
 * The refusal shows the value with its password as `***`.
 */
function smtpUrl(env: Record<string, string | undefined>) {
  const raw = env.SMTP_URL;
  if (raw === undefined || raw === "") return undefined;
  let parsed: URL | undefined;
  try {
    parsed = new URL(raw);
  } catch {}
  if (parsed && (parsed.protocol === "smtp:" || parsed.protocol === "smtps:") && parsed.hostname !== "") return raw;
  const shown = raw.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:@/]*):[^@/]*@/i, "$1:***@");
  throw new ConfigError(`SMTP_URL must be smtp://user:pass@host:587 or smtps://user:pass@host:465, not "${shown}"`);
}

function delays(env: Record<string, string | undefined>, name: string, fallback: number[]) {
  const raw = env[name];
  if (raw === undefined || raw === "") return Object.freeze(fallback);
  const values = raw.split(",").map((v) => Number(v.trim()));
  if (values.length > 20 || !values.every((v) => Number.isInteger(v) && v >= 0 && v <= 86_400)) {
    throw new ConfigError(`${name} must be up to 20 comma-separated whole seconds from 0 to 86400, not "${raw}"`);
  }
  return Object.freeze(values);
}

function date(env: Record<string, string | undefined>, name: string) {
  const raw = env[name];
  if (raw === undefined || raw === "") return null;
  if (!isDate(raw)) throw new ConfigError(`${name} must be a date YYYY-MM-DD, not "${raw}"`);
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
  if (env.DATABASE_DIRECT_URL && !env.DATABASE_URL) {
    throw new ConfigError("DATABASE_DIRECT_URL is set: DATABASE_URL (the pooler) is needed too");
  }
  const port = int(env, "PORT", 3000, 0, 65535);
  const publicBaseUrl = url(env, "PUBLIC_BASE_URL", `http://localhost:${port || 3000}`)!.replace(/\/+$/, "");
  return Object.freeze({
    databaseUrl: url(env, "DATABASE_URL"),
    databaseDirectUrl: url(env, "DATABASE_DIRECT_URL"),
    host: env.HOST || "0.0.0.0",
    port,
    dataDir: env.DATA_DIR || "./.data",
    logLevel,
    // Twice the cores, at least 4. Queries are pipelined, so a connection carries many reads at once, and fewer
    // connections batch more of them into each write: on 2 cores shared with Postgres, reads ran 5–15% faster
    // with 2 than with 4 (and 4 faster than 10 or 20). But a commit holds its connection until the disk has the
    // WAL: on a server with fsync on, POST /companies ran at ~330 a second with 2 and ~700 with 4.
    dbPoolMax: int(env, "DB_POOL_MAX", Math.max(4, 2 * availableParallelism()), 1, 200),
    dbPoolMaxBehindPooler: int(env, "DB_POOL_MAX", 16, 1, 200),
    dbAnswerTimeoutMs: int(env, "DB_ANSWER_TIMEOUT_MS", 5000, 0, 600_000),
    portalBaseUrl: url(env, "PORTAL_BASE_URL", `${publicBaseUrl}/portal`)!.replace(/\/+$/, ""),
    portalBudgetPerMinute: int(env, "PORTAL_BUDGET_PER_MINUTE", 30, 1, 100_000),
    smtpUrl: smtpUrl(env),
    emailFrom: env.EMAIL_FROM || "Lettings Service <no-reply@lettings.invalid>",
    smsProviderUrl: url(env, "SMS_PROVIDER_URL"),
    smsAccountSid: env.SMS_ACCOUNT_SID || undefined,
    smsAuthToken: env.SMS_AUTH_TOKEN || undefined,
    smsPerMinute: int(env, "SMS_PER_MINUTE", 60, 1, 100000),
    workers: flag(env, "WORKERS", true),
    bodyTimeoutMs: int(env, "REQUEST_BODY_TIMEOUT_MS", 10_000, 1, 600_000),
    publicBaseUrl,
    publicBaseUrlSet: !!env.PUBLIC_BASE_URL,
    trustedProxyHops: int(env, "TRUSTED_PROXY_HOPS", 0, 0, 10),
    webhookBudgetPerMinute: int(env, "WEBHOOK_BUDGET_PER_MINUTE", 600, 1, 1_000_000),
    checkResponses: flag(env, "CHECK_RESPONSES", false),
    eventsRetentionDays: int(env, "EVENTS_RETENTION_DAYS", 30, 1, 3650),
    webhooksAllowPrivate: flag(env, "WEBHOOKS_ALLOW_PRIVATE", false),
    webhookTimeoutMs: int(env, "WEBHOOK_TIMEOUT_MS", 10_000, 100, 60_000),
    webhookHandoffMs: int(env, "WEBHOOK_HANDOFF_MS", 250, 0, 10_000),
    webhookRetryDelays: delays(env, "WEBHOOK_RETRY_DELAYS", [5, 300, 1800, 7200, 18000, 36000, 36000]),
    shutdownDrainMs: int(env, "SHUTDOWN_DRAIN_MS", 5000, 0, 600_000),
    prsInForceFrom: date(env, "PRS_IN_FORCE_FROM"),
  });
}
