/**
 * The environment, declared once: each variable's name, TypeBox type (range or format), default and meaning. The
 * Config type, loadConfig's reading and refusals, and the README's Configuration table all come from `variables`.
 * A bad value stops start-up with a clear line.
 */
import { availableParallelism } from "node:os";
import { Kind, type Static, type TSchema, Type } from "@sinclair/typebox";
import { isDate } from "./core/dates.ts";

/** What a declaration adds to its TypeBox schema (whose `default`, range and `format` say what is accepted). */
interface Declared {
  /** The environment variable. */
  env: string;
  /** Its meaning, one Markdown table cell (the README's Configuration table shows it). */
  description: string;
  /** The default as the README shows it, where `fallback` computes it. */
  shown?: string;
  /** The default, computed from the values declared before it. */
  fallback?: (earlier: Readonly<Record<string, unknown>>) => unknown;
  /** What a list's whole numbers count (its refusal names them). */
  unit?: string;
}

function variable<T extends TSchema>(
  env: string,
  schema: T,
  description: string,
  more: Omit<Declared, "env" | "description"> = {},
): T & Declared {
  return Object.assign(schema, { env, description }, more);
}

/** A variable without a default: undefined when unset. */
const optional = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Undefined()]);

/** DB_POOL_MAX's default behind a pooler, where each connection carries one query at a time. */
const poolMaxBehindPooler = 16;

/**
 * Every environment variable the service reads (an empty value counts as unset), in the README's order. Formats:
 * `uri` a URL; `base-url` an http(s) URL whose trailing slashes are dropped; `smtp-url` nodemailer's URL form; `date`
 * YYYY-MM-DD.
 */
export const variables = {
  databaseUrl: variable(
    "DATABASE_URL",
    optional(Type.String({ format: "uri" })),
    "Postgres connection string. Unset: an embedded Postgres under `DATA_DIR/pg`, kept between runs (as root it runs " +
      "as the `postgres` user), reached over its Unix socket (in `/tmp`). A Postgres on the same machine is best " +
      "reached over its socket too, named libpq's way: `postgres://user@localhost/lettings?host=/var/run/postgresql` " +
      "(a `host` parameter that is a directory; the URL's port names the socket). Company creations ran 10–22% " +
      "faster than over `127.0.0.1` " +
      "([figures](bench/README.md#a-unix-socket-instead-of-tcp-on-one-machine-2026-11-24))",
  ),
  databaseDirectUrl: variable(
    "DATABASE_DIRECT_URL",
    optional(Type.String({ format: "uri" })),
    "the Postgres server itself when `DATABASE_URL` names a pooler (PgBouncer): migrations run here. Unset: " +
      "`DATABASE_URL`. Needs `DATABASE_URL` ([Several replicas](#several-replicas))",
  ),
  shutdownDrainMs: variable(
    "SHUTDOWN_DRAIN_MS",
    Type.Integer({ minimum: 0, maximum: 600_000, default: 5000 }),
    "after SIGTERM, `/health` answers 503 `ShuttingDown` for this long while requests are still served, then the " +
      "port closes (`0`: at once). Longer than the load balancer needs to take the replica out. Ctrl-C (SIGINT) " +
      "stops at once",
  ),
  host: variable("HOST", Type.String({ default: "0.0.0.0" }), "the address to listen on"),
  port: variable(
    "PORT",
    Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
    "the port to listen on (`0` picks a free port)",
  ),
  dataDir: variable(
    "DATA_DIR",
    Type.String({ default: "./.data" }),
    "embedded Postgres, email outbox, benchmark output",
  ),
  logLevel: variable(
    "LOG_LEVEL",
    Type.Union(
      [
        Type.Literal("debug"),
        Type.Literal("info"),
        Type.Literal("warn"),
        Type.Literal("error"),
        Type.Literal("silent"),
      ],
      { default: "info" },
    ),
    "the least severe log lines written",
  ),
  dbAnswerTimeoutMs: variable(
    "DB_ANSWER_TIMEOUT_MS",
    Type.Integer({ minimum: 0, maximum: 600_000, default: 5000 }),
    "a request-pool connection with queries waiting that receives nothing from Postgres for this long is taken for " +
      "dead and its requests answer 503 (`0`: no bound). Longer than any statement a request runs",
  ),
  // Twice the cores, at least 4. Queries are pipelined, so a connection carries many reads at once, and fewer
  // connections batch more of them into each write: on 2 cores shared with Postgres, reads ran 5–15% faster
  // with 2 than with 4 (and 4 faster than 10 or 20). But a commit holds its connection until the disk has the
  // WAL: on a server with fsync on, POST /companies ran at ~330 a second with 2 and ~700 with 4.
  dbPoolMax: variable(
    "DB_POOL_MAX",
    Type.Integer({ minimum: 1, maximum: 200 }),
    "connections in the request pool; raise it for a database on its own larger machine or write-heavy loads " +
      "([why](bench/README.md#two-settings-the-benchmark-chose)). Through a pooler the default is " +
      `${poolMaxBehindPooler}: each carries one query at a time there, and company creations through PgBouncer ran ` +
      `~1.5× faster with ${poolMaxBehindPooler} than with 4`,
    { shown: "twice the CPU cores, at least 4", fallback: () => Math.max(4, 2 * availableParallelism()) },
  ),
  bodyTimeoutMs: variable(
    "REQUEST_BODY_TIMEOUT_MS",
    Type.Integer({ minimum: 1, maximum: 600_000, default: 10_000 }),
    "a request body must arrive whole within it, else 408 `RequestTimeout`",
  ),
  workers: variable(
    "WORKERS",
    Type.Boolean({ default: true }),
    "run the job workers (emails, SMS, webhooks, ledger and events purges, hazard clock events) in this process, " +
      "on a thread of their own (their own event loop and database pool beside the API's)",
  ),
  publicBaseUrl: variable(
    "PUBLIC_BASE_URL",
    Type.String({ format: "base-url" }),
    "the address the service is reached at from outside (behind a proxy, the proxy's `https://…`): signed webhook " +
      "URLs are checked against it, and it is the base of the `Link` next-page URLs. Unset, those links name the " +
      "address each request was sent to (its `Host` header): set it in production",
    { shown: "`http://localhost:PORT`", fallback: (earlier) => `http://localhost:${Number(earlier.port) || 3000}` },
  ),
  trustedProxyHops: variable(
    "TRUSTED_PROXY_HOPS",
    Type.Integer({ minimum: 0, maximum: 10, default: 0 }),
    "proxies in front that append the client's address to `X-Forwarded-For`; the public routes' per-address " +
      "budgets count by the address the outermost of them saw. `0`: the connection's peer",
  ),
  portalBaseUrl: variable(
    "PORTAL_BASE_URL",
    Type.String({ format: "base-url" }),
    "base of portal invitation links (`…/invitations/<token>`): by default the service's own invitation pages " +
      "(below); set it when another front end serves the portal",
    { shown: "`PUBLIC_BASE_URL/portal`", fallback: (earlier) => `${String(earlier.publicBaseUrl)}/portal` },
  ),
  portalBudgetPerMinute: variable(
    "PORTAL_BUDGET_PER_MINUTE",
    Type.Integer({ minimum: 1, maximum: 100_000, default: 30 }),
    "requests one client address may make to the invitation pages a minute; beyond it 429 with `Retry-After` " +
      "(a page for people)",
  ),
  smtpUrl: variable(
    "SMTP_URL",
    optional(Type.String({ format: "smtp-url" })),
    "the SMTP server (any other scheme stops start-up, rather than failing at the first email). Unset: each email " +
      "is written to `DATA_DIR/outbox/invitation-<id>.eml` and its path logged",
  ),
  emailFrom: variable(
    "EMAIL_FROM",
    Type.String({ default: "Lettings Service <no-reply@lettings.invalid>" }),
    "From address of outgoing email",
  ),
  smsProviderUrl: variable(
    "SMS_PROVIDER_URL",
    optional(Type.String({ format: "uri" })),
    "base URL of a Twilio-shaped Messages API (`…/2010-04-01/Accounts/{sid}/Messages.json`). Unset: messages stay " +
      "in the `sms_outbox` table and the log. Needs `SMS_ACCOUNT_SID` and `SMS_AUTH_TOKEN`",
  ),
  smsAccountSid: variable("SMS_ACCOUNT_SID", optional(Type.String()), "the provider's account (Basic auth user)"),
  smsAuthToken: variable(
    "SMS_AUTH_TOKEN",
    optional(Type.String()),
    "the provider's token (Basic auth password); it also checks the provider's webhook signatures: unset, every " +
      "webhook post is refused (`bun run dev` makes one up)",
  ),
  webhookBudgetPerMinute: variable(
    "WEBHOOK_BUDGET_PER_MINUTE",
    Type.Integer({ minimum: 1, maximum: 1_000_000, default: 600 }),
    "webhook posts one client address may make a minute to one integration (`webhooks/sms`); beyond that 429",
  ),
  smsPerMinute: variable(
    "SMS_PER_MINUTE",
    Type.Integer({ minimum: 1, maximum: 100_000, default: 60 }),
    "SMS a workspace may queue a minute, across its keys",
  ),
  checkResponses: variable(
    "CHECK_RESPONSES",
    Type.Boolean({ default: false }),
    "check every answer against its declared schema (the tests turn it on)",
  ),
  eventsRetentionDays: variable(
    "EVENTS_RETENTION_DAYS",
    Type.Integer({ minimum: 1, maximum: 3650, default: 30 }),
    "days events (and their webhook deliveries) are kept before the daily purge",
  ),
  webhooksAllowPrivate: variable(
    "WEBHOOKS_ALLOW_PRIVATE",
    Type.Boolean({ default: false }),
    "`true` accepts `http://` and webhook URLs whose addresses are not public (see Events and webhooks, Safety): " +
      "tests and local development only",
  ),
  webhookTimeoutMs: variable(
    "WEBHOOK_TIMEOUT_MS",
    Type.Integer({ minimum: 100, maximum: 60_000, default: 10_000 }),
    "a webhook attempt, answer included, must end within it",
  ),
  webhookHandoffMs: variable(
    "WEBHOOK_HANDOFF_MS",
    Type.Integer({ minimum: 0, maximum: 10_000, default: 250 }),
    "how long the dispatcher waits for a batch's first attempts before recording the batch; an attempt still " +
      "running then is recorded pending and settled when it answers",
  ),
  webhookRetryDelays: variable(
    "WEBHOOK_RETRY_DELAYS",
    Type.Readonly(
      Type.Array(Type.Integer({ minimum: 0, maximum: 86_400 }), {
        maxItems: 20,
        default: Object.freeze([5, 300, 1800, 7200, 18000, 36000, 36000]),
      }),
    ),
    "seconds before each retry of a failed delivery (the Standard Webhooks schedule by default)",
    { unit: "seconds" },
  ),
  prsInForceFrom: variable(
    "PRS_IN_FORCE_FROM",
    Type.Union([Type.String({ format: "date" }), Type.Null()], { default: null }),
    "the date from which the private rented sector is bound by the hazard clocks' law: a private agency's clocks " +
      "are statutory for hazards it became aware of from 00:00 London that day. Unset: no date is set in law yet, " +
      "and every private agency's clocks are policy. Every workspace's hazard settings show it (`prsInForceFrom`)",
  ),
  mcpApiKey: variable("LETTINGS_API_KEY", optional(Type.String()), "the key `bun run mcp` acts with"),
};

type Variables = typeof variables;

/** The service's configuration, read once from the environment: each variable's value, and two derived. */
export type Config = { [K in keyof Variables]: Static<Variables[K]> } & {
  /** Connections in the request pool when DATABASE_URL leads through a pooler: DB_POOL_MAX when set. */
  dbPoolMaxBehindPooler: number;
  /** Whether PUBLIC_BASE_URL is set: the links answers carry (the next page) are then made from it, not from Host. */
  publicBaseUrlSet: boolean;
};

export type LogLevel = Config["logLevel"];

/** A configuration value that cannot be used. */
export class ConfigError extends Error {}

type Declaration = TSchema & Declared;
const declarations = () => Object.entries(variables) as [keyof Variables, Declaration][];

/** The schema a set value must meet: a union's one member besides undefined or null, else the union (literals). */
function accepted(schema: TSchema): TSchema {
  if (schema[Kind] !== "Union") return schema;
  const members = (schema.anyOf as TSchema[]).filter((s) => s[Kind] !== "Undefined" && s[Kind] !== "Null");
  return members.length === 1 ? members[0]! : schema;
}

/**
 * What a variable's value must be, as the README says it (Markdown; its refusal says it without the backticks);
 * undefined when any text will do.
 */
function requirement(schema: TSchema & Partial<Declared>): string | undefined {
  const type = accepted(schema);
  switch (type[Kind]) {
    case "Integer":
      return `a whole number from ${type.minimum} to ${type.maximum}`;
    case "Boolean":
      return "`true` or `false`";
    case "Union":
      return `one of ${(type.anyOf as TSchema[]).map((s) => `\`${s.const}\``).join(", ")}`;
    case "Array":
      return (
        `up to ${type.maxItems} comma-separated whole ${schema.unit ?? "numbers"} ` +
        `from ${type.items.minimum} to ${type.items.maximum}`
      );
  }
  if (type.format === "uri") return "a URL";
  if (type.format === "base-url") return "an `http://` or `https://` URL";
  if (type.format === "smtp-url") return "`smtp://user:pass@host:587` or `smtps://user:pass@host:465`";
  if (type.format === "date") return "a date `YYYY-MM-DD`";
  return undefined;
}

const truthy = ["1", "true", "yes", "on"];
const falsy = ["0", "false", "no", "off"];

const urlFormats = ["uri", "base-url", "smtp-url"];
/** A URL as a refusal shows it: its password as `***`. */
const withoutPassword = (raw: string) => raw.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:@/]*):[^@/]*@/i, "$1:***@");

function isUrl(raw: string, protocols?: string[]): boolean {
  try {
    const url = new URL(raw);
    return !protocols || (protocols.includes(url.protocol) && url.hostname !== "");
  } catch {
    return false;
  }
}

/** A set value, read as its declaration says, or undefined if it is not one. */
function read(schema: Declaration, raw: string): unknown {
  const type = accepted(schema);
  switch (type[Kind]) {
    case "Integer": {
      const value = Number(raw);
      return Number.isInteger(value) && value >= type.minimum && value <= type.maximum ? value : undefined;
    }
    case "Boolean":
      return truthy.includes(raw.toLowerCase()) ? true : falsy.includes(raw.toLowerCase()) ? false : undefined;
    case "Union":
      return (type.anyOf as TSchema[]).some((s) => s.const === raw) ? raw : undefined;
    case "Array": {
      const values = raw.split(",").map((v) => Number(v.trim()));
      const { minimum, maximum } = type.items;
      const fits = values.every((v) => Number.isInteger(v) && v >= minimum && v <= maximum);
      return values.length <= type.maxItems && fits ? Object.freeze(values) : undefined;
    }
  }
  switch (type.format) {
    case "uri":
      return isUrl(raw) ? raw : undefined;
    // The base of links people open and of URLs integrators sign: a `javascript:` or `file:` base would be
    // written into every link as it is.
    case "base-url":
      return isUrl(raw, ["http:", "https:"]) ? raw.replace(/\/+$/, "") : undefined;
    // As the README documents it: `smtp://` or `smtps://` with a host (nodemailer's own URL form). Anything else
    // (`http://x`, a bare host) would only fail at the first email, an hour of retries later.
    case "smtp-url":
      return isUrl(raw, ["smtp:", "smtps:"]) ? raw : undefined;
    case "date":
      return isDate(raw) ? raw : undefined;
  }
  return raw;
}

/** Reads the configuration from an environment (process.env by default). */
export function loadConfig(env: Record<string, string | undefined> = process.env): Readonly<Config> {
  const config: Record<string, unknown> = {};
  const set = new Set<keyof Variables>();
  for (const [key, schema] of declarations()) {
    const raw = env[schema.env];
    if (raw === undefined || raw === "") {
      config[key] = schema.fallback ? schema.fallback(config) : schema.default;
      continue;
    }
    const value = read(schema, raw);
    if (value === undefined) {
      const shown = urlFormats.includes(accepted(schema).format) ? withoutPassword(raw) : raw;
      throw new ConfigError(`${schema.env} must be ${requirement(schema)!.replaceAll("`", "")}, not "${shown}"`);
    }
    config[key] = value;
    set.add(key);
  }
  if (set.has("smsProviderUrl") && (!set.has("smsAccountSid") || !set.has("smsAuthToken"))) {
    throw new ConfigError("SMS_PROVIDER_URL is set: SMS_ACCOUNT_SID and SMS_AUTH_TOKEN are needed too");
  }
  if (set.has("databaseDirectUrl") && !set.has("databaseUrl")) {
    throw new ConfigError("DATABASE_DIRECT_URL is set: DATABASE_URL (the pooler) is needed too");
  }
  config.dbPoolMaxBehindPooler = set.has("dbPoolMax") ? config.dbPoolMax : poolMaxBehindPooler;
  config.publicBaseUrlSet = set.has("publicBaseUrl");
  return Object.freeze(config as Config);
}

/** The README's Configuration table: a row a variable, in declaration order. */
export function configurationTable(): string {
  const shownDefault = (schema: Declaration) => {
    if (schema.shown) return schema.shown;
    if (schema.default === undefined || schema.default === null) return "unset";
    return `\`${Array.isArray(schema.default) ? schema.default.join(",") : schema.default}\``;
  };
  const rows = declarations().map(
    ([, schema]) =>
      `| \`${schema.env}\` | ${shownDefault(schema)} | ${requirement(schema) ?? "any text"} | ${schema.description} |`,
  );
  return ["| variable | default | accepts | meaning |", "|---|---|---|---|", ...rows].join("\n");
}
