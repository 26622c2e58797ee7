/**
 * The operator's commands: one JSON object on stdout; errors as JSON with a `_tag` on stderr, exit 2. Help and usage
 * mistakes are for people: the usage as plain text (help on stdout, exit 0; a mistake on stderr, exit 2). Each
 * command is declared once in `commands`: its options (node:util's parseArgs configuration), the usage's line and
 * what it runs.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { Type } from "@sinclair/typebox";
import { loadConfig, ConfigError, type LogLevel, variables } from "./config.ts";
import type { Logger } from "./core/log.ts";
import { EmbeddedPostgresFailed } from "./core/embedded_postgres.ts";
import { migrateOn, openDatabase, type OpenDatabase } from "./core/open_database.ts";
import { databaseUnavailable } from "./core/startup_failure.ts";
import { AppError, IntegrationUnavailable, ScopeUnknown, TaggedError } from "./core/errors.ts";
import { allScopes } from "./core/groups.ts";
import {
  createWorkspace,
  suspendWorkspace,
  resumeWorkspace,
  entitle,
  unentitle,
  workspaceIdOf,
} from "./core/workspaces.ts";
import { createApiKey, revokeApiKey, listApiKeys, expiryChoices } from "./core/api_keys.ts";
import { ensureDemo } from "./workspace_import/demo.ts";
import { importWorkspace } from "./workspace_import/import.ts";
import { exportWorkspace } from "./workspace_export/export.ts";
import { ImportRejected } from "./workspace_import/errors.ts";
import { moduleIds, WorkspaceDocument } from "./workspace_import/schema.ts";
import { revokePortalAccess } from "./maintenance_pro/portal_access.ts";
import { loadBankHolidays } from "./maintenance_pro/bank_holidays.ts";
import { addNumber, e164, listNumbers, removeNumber } from "./telephony/numbers.ts";
import {
  createSubscription,
  listSubscriptions,
  rotateSubscriptionSecret,
  setSubscriptionActive,
  subscriptionDeliveries,
} from "./webhooks/subscriptions.ts";

/** A command-line mistake: unknown command, missing, unknown or bad option. Printed as text, with the usage. */
export class UsageError extends TaggedError("UsageError", 400, { message: Type.String() }) {}
/** No API key with that id. */
export class ApiKeyNotFound extends TaggedError("ApiKeyNotFound", 404, { id: Type.String() }) {}
/** A module id the service does not know. */
export class ModuleUnknown extends TaggedError("ModuleUnknown", 400, {
  moduleId: Type.String(),
  known: Type.Array(Type.String()),
}) {}

const misuse = (message: string) => new UsageError({ message });

/**
 * An option as parseArgs takes it, with what the usage shows: a string option's `value` names its value there, and
 * it is required unless `optional`. A boolean option is a switch, never required.
 */
export type Option = { type: "string"; value: string; optional?: true } | { type: "boolean" };

/** What a command's options hold: a required option's text (never blank), an optional one's if given, a switch. */
type Values<O extends Record<string, Option>> = {
  [K in keyof O]: O[K] extends { type: "boolean" }
    ? boolean
    : O[K] extends { optional: true }
      ? string | undefined
      : string;
};

/** Runs `f` on the database, opened (and migrated first, unless told not to) for it and closed after. */
type WithDb = <T>(f: (database: OpenDatabase) => Promise<T>, migrateFirst?: boolean) => Promise<T>;

/** One command: the words that name it, its options and positionals, its line in the usage and what it does. */
export interface Command<O extends Record<string, Option> = Record<string, Option>> {
  name: string;
  options: O;
  /** The names of its positional arguments (each needed: the command checks, with its own message). */
  positionals?: readonly string[];
  summary: string;
  run(input: { options: Values<O>; args: string[]; withDb: WithDb }): unknown;
}

const command = <const O extends Record<string, Option>>(c: Command<O>) => c as unknown as Command;

/** A required string option, its value named `value` in the usage. */
const required = <V extends string>(value: V) => ({ type: "string", value }) as const;
/** An optional string option. */
const optional = <V extends string>(value: V) => ({ type: "string", value, optional: true }) as const;
const slug = required("S");
const workspace = required("S");
const id = required("ID");
const moduleOption = { slug, module: required("M") };
const number = { workspace, number: required("+44…") };

function knownModule(moduleId: string): string {
  if (!moduleIds.includes(moduleId)) throw new ModuleUnknown({ moduleId, known: [...moduleIds] });
  return moduleId;
}

function e164Number(number: string): string {
  if (!e164.test(number)) throw misuse(`--number is an E.164 number (+447700900123), not ${JSON.stringify(number)}`);
  return number;
}

/** The text of a command's FILE (`-`: standard input). */
function readFileArg(name: string, file: string | undefined): string {
  if (!file) throw misuse(`${name} needs a FILE (or - for standard input)`);
  try {
    return readFileSync(file === "-" ? 0 : file, "utf8");
  } catch (error) {
    throw misuse(`cannot read ${file}: ${(error as Error).message}`);
  }
}

/** Every command, in the usage's order. */
export const commands: readonly Command[] = [
  command({
    name: "migrate",
    options: {},
    summary: "apply the pending migrations",
    run: ({ withDb }) => withDb(({ sessionUrl }) => migrateOn(sessionUrl), false),
  }),
  command({
    name: "workspace create",
    options: { slug, name: required("N"), "owner-email": optional("E") },
    summary: "a new workspace and its owner",
    run: ({ options: o, withDb }) =>
      withDb(({ db }) => createWorkspace(db, { slug: o.slug, name: o.name, ownerEmail: o["owner-email"] })),
  }),
  command({
    name: "workspace suspend",
    options: { slug, reason: required("R") },
    summary: "refuse every key of the workspace until resumed",
    run: ({ options: o, withDb }) => withDb(({ db }) => suspendWorkspace(db, o.slug, o.reason)),
  }),
  command({
    name: "workspace resume",
    options: { slug },
    summary: "its keys work again",
    run: ({ options: o, withDb }) => withDb(({ db }) => resumeWorkspace(db, o.slug)),
  }),
  command({
    name: "workspace entitle",
    options: moduleOption,
    summary: `modules: ${moduleIds.join(", ")}`,
    run: ({ options: o, withDb }) => {
      const moduleId = knownModule(o.module);
      return withDb(({ db }) => entitle(db, o.slug, moduleId));
    },
  }),
  command({
    name: "workspace unentitle",
    options: moduleOption,
    summary: "withdraw a module",
    run: ({ options: o, withDb }) => {
      const moduleId = knownModule(o.module);
      return withDb(({ db }) => unentitle(db, o.slug, moduleId));
    },
  }),
  command({
    name: "key create",
    options: {
      workspace,
      name: required("N"),
      scopes: required("a:read,b:write"),
      "expires-in-days": required(expiryChoices.join("|")),
      "created-by": optional("owner|USER_ID"),
      "budget-per-minute": optional("K"),
    },
    summary: "prints the key's value, this once",
    run: ({ options: o, withDb }) => {
      const scopes = o.scopes
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      if (!scopes.length) throw misuse("--scopes names at least one scope");
      const days = o["expires-in-days"];
      if (!(expiryChoices as readonly number[]).map(String).includes(days)) {
        throw misuse(`--expires-in-days is one of ${expiryChoices.join(", ")}, not ${JSON.stringify(days)}`);
      }
      const budgetText = o["budget-per-minute"];
      const budget = budgetText === undefined ? undefined : Number(budgetText);
      if (budget !== undefined && !(/^\d+$/.test(budgetText!) && budget >= 1 && budget <= 1_000_000)) {
        throw misuse(`--budget-per-minute is a whole number from 1 to 1000000, not ${JSON.stringify(budgetText)}`);
      }
      const input = { workspace: o.workspace, name: o.name, scopes, expiresInDays: Number(days) };
      return withDb(({ db }) => createApiKey(db, { ...input, createdBy: o["created-by"], budgetPerMinute: budget }));
    },
  }),
  command({
    name: "key revoke",
    options: { id },
    summary: "the key stops working at once",
    run: ({ options: o, withDb }) =>
      withDb(async ({ db }) => {
        const row = await revokeApiKey(db, o.id);
        if (!row) throw new ApiKeyNotFound({ id: o.id });
        return row;
      }),
  }),
  command({
    name: "key list",
    options: { workspace },
    summary: "never prints a key's value",
    run: ({ options: o, withDb }) => withDb(async ({ db }) => ({ keys: await listApiKeys(db, o.workspace) })),
  }),
  command({
    name: "import",
    options: { workspace },
    positionals: ["FILE"],
    summary: "load a workspace document (FILE - reads standard input)",
    run: ({ options: o, args, withDb }) => {
      const text = readFileArg("import", args[0]);
      let doc: unknown;
      try {
        doc = JSON.parse(text);
      } catch (error) {
        throw new ImportRejected({ path: "", message: `The file is not JSON: ${(error as Error).message}` });
      }
      return withDb(async ({ db }) => importWorkspace(db, o.workspace, doc));
    },
  }),
  command({
    name: "import-schema",
    options: {},
    summary: "the import document's JSON Schema, its rules in descriptions",
    run: () => WorkspaceDocument,
  }),
  command({
    name: "export",
    options: { workspace },
    summary: "the workspace's document as import takes it; computed fields (clocks, totals) left out",
    run: ({ options: o, withDb }) =>
      withDb(async ({ db }) => exportWorkspace(db, await workspaceIdOf(db, o.workspace))),
  }),
  command({
    name: "demo",
    options: {},
    summary: "the demo workspace (made once), a fresh key, the previous one revoked",
    run: ({ withDb }) => withDb(({ db }) => ensureDemo(db)),
  }),
  command({
    name: "portal revoke",
    options: { workspace, contact: required("ID"), reason: optional("T") },
    summary: "revoke a landlord's portal access; its links stop working",
    run: ({ options: o, withDb }) => {
      const reason = o.reason?.trim() || null;
      return withDb(async ({ db }) =>
        revokePortalAccess(db, { workspaceId: await workspaceIdOf(db, o.workspace), contactId: o.contact, reason }),
      );
    },
  }),
  command({
    name: "sms-number add",
    options: number,
    summary: "give the workspace a number for inbound SMS (E.164; one workspace each)",
    run: ({ options: o, withDb }) => {
      const given = e164Number(o.number);
      return withDb(({ db }) => addNumber(db, o.workspace, given));
    },
  }),
  command({
    name: "sms-number remove",
    options: number,
    summary: "take the number from the workspace",
    run: ({ options: o, withDb }) => {
      const given = e164Number(o.number);
      return withDb(({ db }) => removeNumber(db, o.workspace, given));
    },
  }),
  command({
    name: "sms-number list",
    options: { workspace },
    summary: "the workspace's SMS numbers",
    run: ({ options: o, withDb }) => withDb(({ db }) => listNumbers(db, o.workspace)),
  }),
  command({
    name: "webhook create",
    options: { workspace, url: required("URL"), events: required("a,b|*"), description: optional("T") },
    summary: "prints the subscription and its signing secret, this once",
    run: ({ options: o, withDb }) => {
      const input = { workspace: o.workspace, url: o.url, events: o.events, description: o.description };
      const allowPrivate = loadConfig().webhooksAllowPrivate;
      return withDb(({ db }) => createSubscription(db, input, { allowPrivate }));
    },
  }),
  command({
    name: "webhook list",
    options: { workspace },
    summary: "never prints a secret",
    run: ({ options: o, withDb }) => withDb(({ db }) => listSubscriptions(db, o.workspace)),
  }),
  command({
    name: "webhook disable",
    options: { id },
    summary: "no more deliveries until enabled",
    run: ({ options: o, withDb }) => withDb(({ db }) => setSubscriptionActive(db, o.id, false)),
  }),
  command({
    name: "webhook enable",
    options: { id },
    summary: "deliveries again, its failure clock cleared",
    run: ({ options: o, withDb }) => withDb(({ db }) => setSubscriptionActive(db, o.id, true)),
  }),
  command({
    name: "webhook rotate-secret",
    options: { id },
    summary: "a new secret; the previous one keeps signing for 24 hours",
    run: ({ options: o, withDb }) => withDb(({ db }) => rotateSubscriptionSecret(db, o.id)),
  }),
  command({
    name: "webhook deliveries",
    options: { id, failed: { type: "boolean" } },
    summary: "recent deliveries with their last attempt",
    run: ({ options: o, withDb }) => withDb(({ db }) => subscriptionDeliveries(db, o.id, o.failed)),
  }),
  command({
    name: "bank-holidays load",
    options: {},
    positionals: ["FILE"],
    summary:
      "load GOV.UK's bank-holidays.json (FILE - reads standard input): its england-and-wales days replace those " +
      "of the years it covers",
    run: ({ args, withDb }) => {
      const file = args[0];
      const text = readFileArg("bank-holidays load", file);
      const source = file === "-" ? "standard input" : resolve(file!);
      return withDb(({ db }) => loadBankHolidays(db, text, source));
    },
  }),
];

const byName = new Map(commands.map((c) => [c.name, c]));
/** First words shared by several commands (`workspace`, `key`, …): such a command is named by two words. */
const groups = new Set(commands.filter((c) => c.name.includes(" ")).map((c) => c.name.split(" ")[0]!));

/** Every option of every command, as parseArgs's configuration (an option name has one type in all commands). */
const knownOptions: Record<string, { type: "string" | "boolean" }> = {};
for (const c of commands) {
  for (const [name, option] of Object.entries(c.options)) {
    if (knownOptions[name] && knownOptions[name].type !== option.type) throw new Error(`--${name}: two types`);
    knownOptions[name] = { type: option.type };
  }
}

/** The usage's lines for one command: its synopsis, then its summary from column 45 (wrapped within 116). */
function usageLines(c: Command): string[] {
  const width = 116;
  const column = 45;
  const wrap = (words: string[], first: string, indent: string) => {
    const lines = [first];
    for (const word of words) {
      const last = lines[lines.length - 1]!;
      if (last.trim() !== "" && last.length + 1 + word.length > width) lines.push(indent + word);
      else lines[lines.length - 1] = last.length === first.length ? last + word : `${last} ${word}`;
    }
    return lines;
  };
  const options = Object.entries(c.options).map(([name, option]) => {
    const text = option.type === "boolean" ? `--${name}` : `--${name} ${option.value}`;
    return option.type === "boolean" || option.optional ? `[${text}]` : text;
  });
  const synopsis = wrap([c.name, ...options, ...(c.positionals ?? [])], "  ", " ".repeat(3 + c.name.length));
  const last = synopsis.pop()!;
  const fits = last.length < column - 1;
  const summary = wrap(c.summary.split(" "), fits ? last.padEnd(column) : " ".repeat(column), " ".repeat(column));
  return fits ? [...synopsis, ...summary] : [...synopsis, last, ...summary];
}

/** The usage text. */
export const usage = `usage: bun run cli <command> [options]

commands:
${commands.flatMap(usageLines).join("\n")}

Each command prints one JSON object on stdout. A refusal prints a JSON object with a _tag on stderr and exits 2.
The database is DATABASE_URL's, else the embedded Postgres under DATA_DIR (default ${variables.dataDir.default}).`;

/** What `--help` answers: text to print as it is. */
export class Help {
  readonly text = usage;
}

/**
 * Splits argv into positionals and options with parseArgs: `--name value` or `--name=value`, `--flag` for a boolean
 * option; an option no command takes still takes a value (the command then refuses it by name). Single-dash words
 * (`-`, `-x`) are positionals.
 */
export function parse(argv: string[]): { positional: string[]; options: Map<string, string | true> } {
  const config = { ...knownOptions };
  for (const arg of argv) {
    if (arg === "--") break;
    const name = arg.startsWith("--") ? arg.slice(2).split("=")[0]! : "";
    if (name !== "" && !Object.hasOwn(config, name)) config[name] = { type: "string" };
  }
  const { tokens } = parseArgs({ args: argv, options: config, strict: false, allowPositionals: true, tokens: true });
  const positional: string[] = [];
  const options = new Map<string, string | true>();
  let shortAt = -1;
  for (const token of tokens) {
    if (token.kind === "positional") positional.push(token.value);
    if (token.kind !== "option") continue;
    if (!token.rawName.startsWith("--")) {
      // `-x` (parseArgs reads `-xy` as two options at one index): the word itself.
      if (token.index !== shortAt) positional.push(argv[token.index]!);
      shortAt = token.index;
      continue;
    }
    const name = token.name;
    if (options.has(name)) throw misuse(`--${name} is given twice`);
    if (config[name]?.type === "boolean") {
      if (token.value !== undefined) throw misuse(`--${name} takes no value`);
      options.set(name, true);
    } else {
      if (token.value === undefined || (!token.inlineValue && token.value.startsWith("--"))) {
        throw misuse(`--${name} needs a value`);
      }
      options.set(name, token.value);
    }
  }
  return { positional, options };
}

/** Runs one command against a database opened on demand; returns what to print. */
export async function run(
  argv: string[],
  open: (options: { migrate: boolean }) => Promise<OpenDatabase>,
): Promise<unknown> {
  if (argv.includes("--help") || argv.includes("-h") || argv[0] === "help") return new Help();
  if (argv.length === 0) throw misuse("no command given");
  const { positional, options } = parse(argv);
  const [first = "", second] = positional;
  const words = groups.has(first) ? 2 : 1;
  const name = words === 2 ? `${first} ${second ?? ""}`.trim() : first;
  const command = byName.get(name);
  if (!command) throw misuse(`unknown command: ${positional.join(" ")}`);
  const args = positional.slice(words);
  for (const option of options.keys()) {
    if (!Object.hasOwn(command.options, option)) throw misuse(`${name} takes no option --${option}`);
  }
  const most = command.positionals?.length ?? 0;
  if (args.length > most) throw misuse(`${name}: unexpected ${JSON.stringify(args[most])}`);
  const values: Record<string, string | boolean | undefined> = {};
  for (const [option, spec] of Object.entries(command.options)) {
    const value = options.get(option);
    if (spec.type === "boolean") values[option] = value === true;
    else if (!spec.optional && (typeof value !== "string" || value.trim() === "")) {
      throw misuse(`${name} needs --${option}`);
    } else values[option] = value as string | undefined;
  }
  const withDb: WithDb = async (f, migrateFirst = true) => {
    const database = await open({ migrate: migrateFirst });
    try {
      return await f(database);
    } finally {
      await database.close();
    }
  };
  return command.run({ options: values as Values<Record<string, Option>>, args, withDb });
}

/** A logger for the CLI: every line goes to stderr, so stdout holds only the answer. */
function stderrLogger(level: LogLevel): Logger {
  const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };
  const write = (lvl: LogLevel) => (msg: string, fields?: Record<string, unknown>) => {
    if (order[lvl] >= order[level])
      process.stderr.write(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...fields }) + "\n");
  };
  return { debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error") };
}

/**
 * The error body printed on stderr: the tagged error (ScopeUnknown with the `known` scopes), with database trouble as
 * IntegrationUnavailable as in the API.
 */
export function errorBody(error: unknown): Record<string, unknown> {
  // The operator is told the valid scopes, as ModuleUnknown tells the modules.
  if (error instanceof ScopeUnknown) return { ...error.toBody(), known: [...allScopes] };
  if (error instanceof AppError) return error.toBody();
  if (error instanceof EmbeddedPostgresFailed) {
    const detail = `No DATABASE_URL is set and the embedded Postgres in ${error.dir} did not start: ${error.message}`;
    return new IntegrationUnavailable({ integration: "database", detail }).toBody();
  }
  if (databaseUnavailable(error)) {
    return new IntegrationUnavailable({
      integration: "database",
      detail: String((error as Error)?.message ?? error),
    }).toBody();
  }
  return { _tag: "InternalError", message: String((error as Error)?.message ?? error) };
}

/**
 * What a failed command prints on stderr: text for a mistake in the command line or environment, else the tagged JSON.
 */
export function errorText(error: unknown): string {
  if (error instanceof UsageError) return `UsageError: ${error.fields.message}\n\n${usage}\n`;
  if (error instanceof ConfigError) return `configuration: ${error.message}\n`;
  return JSON.stringify(errorBody(error)) + "\n";
}

function print(stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise((resolve) => stream.write(text, () => resolve()));
}

if (import.meta.main) {
  let code = 0;
  try {
    const config = loadConfig();
    const log = stderrLogger(process.env.LOG_LEVEL ? config.logLevel : "warn");
    const out = await run(process.argv.slice(2), (options) => openDatabase(config, log, options));
    await print(process.stdout, out instanceof Help ? out.text + "\n" : JSON.stringify(out, null, 2) + "\n");
  } catch (error) {
    await print(process.stderr, errorText(error));
    code = 2;
  }
  process.exit(code);
}
