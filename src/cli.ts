/**
 * The operator's commands (CONTRACT.md §5): one JSON object on stdout; errors as JSON with a `_tag` on stderr, exit 2.
 * Help and usage mistakes are for people: the usage as plain text (help on stdout, exit 0; a mistake on stderr,
 * exit 2).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { Type } from "@sinclair/typebox";
import { loadConfig, ConfigError, type LogLevel } from "./config.ts";
import type { Logger } from "./core/log.ts";
import { EmbeddedPostgresFailed, migrateOn, openDatabase, type OpenDatabase } from "./core/db.ts";
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

/** The usage text. */
export const usage = `usage: bun run cli <command> [options]

commands:
  migrate                                    apply the pending migrations
  workspace create --slug S --name N [--owner-email E]
  workspace suspend --slug S --reason R      refuse every key of the workspace until resumed
  workspace resume --slug S
  workspace entitle --slug S --module M      modules: ${moduleIds.join(", ")}
  workspace unentitle --slug S --module M
  key create --workspace S --name N --scopes a:read,b:write --expires-in-days 7|30|90|365
             [--created-by owner|USER_ID] [--budget-per-minute K]
                                             prints the key's value, this once
  key revoke --id ID
  key list --workspace S                     never prints a key's value
  import --workspace S FILE                  load a workspace document (FILE - reads standard input)
  import-schema                              the import document's JSON Schema, its rules in descriptions
  demo                                       the demo workspace (made once), a fresh key, the previous one revoked
  portal revoke --workspace S --contact ID [--reason T]
                                             revoke a landlord's portal access; its links stop working
  sms-number add|remove --workspace S --number +44…
                                             give or take an SMS number (E.164; one workspace each) for inbound SMS
  sms-number list --workspace S
  webhook create --workspace S --url URL --events a,b|* [--description T]
                                             prints the subscription and its signing secret, this once
  webhook list --workspace S                 never prints a secret
  webhook disable --id ID | webhook enable --id ID
  webhook rotate-secret --id ID              a new secret; the previous one keeps signing for 24 hours
  webhook deliveries --id ID [--failed]      recent deliveries with their last attempt
  bank-holidays load FILE                    load GOV.UK's bank-holidays.json (FILE - reads standard input): its
                                             england-and-wales days replace those of the years it covers

Each command prints one JSON object on stdout. A refusal prints a JSON object with a _tag on stderr and exits 2.
The database is DATABASE_URL's, else the embedded Postgres under DATA_DIR (default ./.data).`;

/** A command-line mistake: unknown command, missing, unknown or bad option. Printed as text, with the usage. */
export class UsageError extends TaggedError("UsageError", 400, { message: Type.String() }) {}
/** What `--help` answers: text to print as it is. */
export class Help {
  readonly text = usage;
}
/** No API key with that id. */
export class ApiKeyNotFound extends TaggedError("ApiKeyNotFound", 404, { id: Type.String() }) {}
/** A module id the service does not know. */
export class ModuleUnknown extends TaggedError("ModuleUnknown", 400, {
  moduleId: Type.String(),
  known: Type.Array(Type.String()),
}) {}

const misuse = (message: string) => new UsageError({ message });

/** Splits argv into positionals and `--name value` (or `--name=value`) options. */
export function parseArgs(argv: string[]): { positional: string[]; options: Record<string, string> } {
  const positional: string[] = [];
  const options: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      const name = eq > 0 ? arg.slice(2, eq) : arg.slice(2);
      if (name in options) throw misuse(`--${name} is given twice`);
      if (eq > 0) options[name] = arg.slice(eq + 1);
      else {
        const value = argv[i + 1];
        if (value === undefined || value.startsWith("--")) throw misuse(`${arg} needs a value`);
        options[name] = value;
        i++;
      }
    } else positional.push(arg);
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
  // `--failed` is the one option without a value.
  const { positional, options } = parseArgs(argv.filter((a) => a !== "--failed"));
  if (argv.includes("--failed")) options.failed = "true";
  const [command, sub] = positional;
  const twoWords =
    command === "workspace" ||
    command === "key" ||
    command === "portal" ||
    command === "sms-number" ||
    command === "webhook" ||
    command === "bank-holidays";
  const name = twoWords ? `${command} ${sub ?? ""}`.trim() : command!;
  const args = positional.slice(twoWords ? 2 : 1);
  const allow = (names: string[], positionals = 0) => {
    for (const option of Object.keys(options))
      if (!names.includes(option)) throw misuse(`${name} takes no option --${option}`);
    if (args.length > positionals) throw misuse(`${name}: unexpected ${JSON.stringify(args[positionals])}`);
  };
  const need = (option: string) => {
    const value = options[option];
    if (value === undefined || value.trim() === "") throw misuse(`${name} needs --${option}`);
    return value;
  };
  const moduleOption = () => {
    const moduleId = need("module");
    if (!moduleIds.includes(moduleId)) throw new ModuleUnknown({ moduleId, known: [...moduleIds] });
    return moduleId;
  };
  const withDb = async <T>(f: (database: OpenDatabase) => Promise<T>, migrateFirst = true) => {
    const database = await open({ migrate: migrateFirst });
    try {
      return await f(database);
    } finally {
      await database.close();
    }
  };

  switch (name) {
    case "migrate":
      allow([]);
      return withDb(({ sessionUrl }) => migrateOn(sessionUrl), false);
    case "workspace create": {
      allow(["slug", "name", "owner-email"]);
      const input = { slug: need("slug"), name: need("name"), ownerEmail: options["owner-email"] };
      return withDb(({ db }) => createWorkspace(db, input));
    }
    case "workspace suspend": {
      allow(["slug", "reason"]);
      const [slug, reason] = [need("slug"), need("reason")];
      return withDb(({ db }) => suspendWorkspace(db, slug, reason));
    }
    case "workspace resume": {
      allow(["slug"]);
      const slug = need("slug");
      return withDb(({ db }) => resumeWorkspace(db, slug));
    }
    case "workspace entitle": {
      allow(["slug", "module"]);
      const [slug, moduleId] = [need("slug"), moduleOption()];
      return withDb(({ db }) => entitle(db, slug, moduleId));
    }
    case "workspace unentitle": {
      allow(["slug", "module"]);
      const [slug, moduleId] = [need("slug"), moduleOption()];
      return withDb(({ db }) => unentitle(db, slug, moduleId));
    }
    case "key create": {
      allow(["workspace", "name", "scopes", "expires-in-days", "created-by", "budget-per-minute"]);
      const workspace = need("workspace");
      const keyName = need("name");
      const scopes = need("scopes")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      if (!scopes.length) throw misuse("--scopes names at least one scope");
      const days = need("expires-in-days");
      if (!(expiryChoices as readonly number[]).map(String).includes(days)) {
        throw misuse(`--expires-in-days is one of ${expiryChoices.join(", ")}, not ${JSON.stringify(days)}`);
      }
      const budgetText = options["budget-per-minute"];
      const budget = budgetText === undefined ? undefined : Number(budgetText);
      if (budget !== undefined && !(/^\d+$/.test(budgetText!) && budget >= 1 && budget <= 1_000_000)) {
        throw misuse(`--budget-per-minute is a whole number from 1 to 1000000, not ${JSON.stringify(budgetText)}`);
      }
      return withDb(({ db }) =>
        createApiKey(db, {
          workspace,
          name: keyName,
          scopes,
          expiresInDays: Number(days),
          createdBy: options["created-by"],
          budgetPerMinute: budget,
        }),
      );
    }
    case "key revoke": {
      allow(["id"]);
      const id = need("id");
      return withDb(async ({ db }) => {
        const row = await revokeApiKey(db, id);
        if (!row) throw new ApiKeyNotFound({ id });
        return row;
      });
    }
    case "key list": {
      allow(["workspace"]);
      const workspace = need("workspace");
      return withDb(async ({ db }) => ({ keys: await listApiKeys(db, workspace) }));
    }
    case "import": {
      allow(["workspace"], 1);
      const workspace = need("workspace");
      const file = args[0];
      if (!file) throw misuse("import needs a FILE (or - for standard input)");
      let text: string;
      try {
        text = readFileSync(file === "-" ? 0 : file, "utf8");
      } catch (error) {
        throw misuse(`cannot read ${file}: ${(error as Error).message}`);
      }
      let doc: unknown;
      try {
        doc = JSON.parse(text);
      } catch (error) {
        throw new ImportRejected({ path: "", message: `The file is not JSON: ${(error as Error).message}` });
      }
      return withDb(async ({ db }) => importWorkspace(db, workspace, doc));
    }
    case "import-schema":
      allow([]);
      return WorkspaceDocument;
    case "demo":
      allow([]);
      return withDb(({ db }) => ensureDemo(db));
    case "portal revoke": {
      allow(["workspace", "contact", "reason"]);
      const [workspace, contactId] = [need("workspace"), need("contact")];
      const reason = options.reason?.trim() || null;
      return withDb(async ({ db }) =>
        revokePortalAccess(db, { workspaceId: await workspaceIdOf(db, workspace), contactId, reason }),
      );
    }
    case "sms-number add":
    case "sms-number remove": {
      allow(["workspace", "number"]);
      const [workspace, number] = [need("workspace"), need("number")];
      if (!e164.test(number))
        throw misuse(`--number is an E.164 number (+447700900123), not ${JSON.stringify(number)}`);
      return withDb<unknown>(({ db }) =>
        sub === "add" ? addNumber(db, workspace, number) : removeNumber(db, workspace, number),
      );
    }
    case "sms-number list": {
      allow(["workspace"]);
      const workspace = need("workspace");
      return withDb(({ db }) => listNumbers(db, workspace));
    }
    case "webhook create": {
      allow(["workspace", "url", "events", "description"]);
      const input = {
        workspace: need("workspace"),
        url: need("url"),
        events: need("events"),
        description: options.description,
      };
      const allowPrivate = loadConfig().webhooksAllowPrivate;
      return withDb(({ db }) => createSubscription(db, input, { allowPrivate }));
    }
    case "webhook list": {
      allow(["workspace"]);
      const workspace = need("workspace");
      return withDb(({ db }) => listSubscriptions(db, workspace));
    }
    case "webhook disable":
    case "webhook enable": {
      allow(["id"]);
      const id = need("id");
      return withDb(({ db }) => setSubscriptionActive(db, id, name === "webhook enable"));
    }
    case "webhook rotate-secret": {
      allow(["id"]);
      const id = need("id");
      return withDb(({ db }) => rotateSubscriptionSecret(db, id));
    }
    case "webhook deliveries": {
      allow(["id", "failed"]);
      const id = need("id");
      return withDb(({ db }) => subscriptionDeliveries(db, id, options.failed === "true"));
    }
    case "bank-holidays load": {
      allow([], 1);
      const file = args[0];
      if (!file) throw misuse("bank-holidays load needs a FILE (or - for standard input)");
      let text: string;
      try {
        text = readFileSync(file === "-" ? 0 : file, "utf8");
      } catch (error) {
        throw misuse(`cannot read ${file}: ${(error as Error).message}`);
      }
      const source = file === "-" ? "standard input" : resolve(file);
      return withDb(({ db }) => loadBankHolidays(db, text, source));
    }
    default:
      throw misuse(`unknown command: ${positional.join(" ")}`);
  }
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
