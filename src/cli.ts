/** The operator's commands (CONTRACT.md §5): one JSON object on stdout; errors as JSON on stderr, exit 2. */
import { readFileSync } from "node:fs";
import { loadConfig, ConfigError } from "./config.ts";
import { createLogger } from "./core/log.ts";
import { openDatabase, type OpenDatabase } from "./core/runtime.ts";
import { AppError } from "./core/errors.ts";
import { createWorkspace, suspendWorkspace, resumeWorkspace, entitle, unentitle } from "./core/workspaces.ts";
import { createApiKey, revokeApiKey, listApiKeys } from "./core/api_keys.ts";
import { ensureDemo } from "./workspace_import/demo.ts";
import { importWorkspace } from "./workspace_import/import.ts";
import { migrate } from "./core/migrate.ts";

/** A command-line mistake: unknown command, missing or bad option. */
class UsageError extends Error {}

const usage = `usage: bun run cli <command>
  migrate
  workspace create --slug S --name N [--owner-email E]
  workspace suspend --slug S --reason R
  workspace resume --slug S
  workspace entitle --slug S --module M
  workspace unentitle --slug S --module M
  key create --workspace S --name N --scopes a:read,b:write --expires-in-days 7|30|90|365 [--created-by owner|USER_ID] [--budget-per-minute K]
  key revoke --id ID
  key list --workspace S
  import --workspace S FILE
  demo`;

/** Splits argv into positionals and --name value options. */
export function parseArgs(argv: string[]): { positional: string[]; options: Record<string, string> } {
  const positional: string[] = [];
  const options: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg.startsWith("--")) {
      const eq = arg.indexOf("=");
      if (eq > 0) options[arg.slice(2, eq)] = arg.slice(eq + 1);
      else {
        const value = argv[i + 1];
        if (value === undefined || value.startsWith("--")) throw new UsageError(`${arg} needs a value`);
        options[arg.slice(2)] = value;
        i++;
      }
    } else positional.push(arg);
  }
  return { positional, options };
}

function need(options: Record<string, string>, name: string): string {
  const value = options[name];
  if (value === undefined || value === "") throw new UsageError(`--${name} is required`);
  return value;
}

function known(options: Record<string, string>, names: string[]) {
  for (const name of Object.keys(options)) if (!names.includes(name)) throw new UsageError(`unknown option --${name}`);
}

/** Runs one command against an open database and returns what to print. */
export async function run(argv: string[], open: () => Promise<OpenDatabase>): Promise<unknown> {
  const { positional, options } = parseArgs(argv);
  const [command, sub, ...rest] = positional;
  const withDb = async <T>(f: (database: OpenDatabase) => Promise<T>) => {
    const database = await open();
    try {
      return await f(database);
    } finally {
      await database.close();
    }
  };
  switch (`${command} ${sub ?? ""}`.trim()) {
    case "migrate":
      return withDb(async ({ db }) => ({ applied: await migrate(db) }));
    case "workspace create":
      known(options, ["slug", "name", "owner-email"]);
      return withDb(({ db }) => createWorkspace(db, { slug: need(options, "slug"), name: need(options, "name"), ownerEmail: options["owner-email"] }));
    case "workspace suspend":
      known(options, ["slug", "reason"]);
      return withDb(({ db }) => suspendWorkspace(db, need(options, "slug"), need(options, "reason")));
    case "workspace resume":
      known(options, ["slug"]);
      return withDb(({ db }) => resumeWorkspace(db, need(options, "slug")));
    case "workspace entitle":
      known(options, ["slug", "module"]);
      return withDb(({ db }) => entitle(db, need(options, "slug"), need(options, "module")));
    case "workspace unentitle":
      known(options, ["slug", "module"]);
      return withDb(({ db }) => unentitle(db, need(options, "slug"), need(options, "module")));
    case "key create": {
      known(options, ["workspace", "name", "scopes", "expires-in-days", "created-by", "budget-per-minute"]);
      const days = Number(need(options, "expires-in-days"));
      const budget = options["budget-per-minute"] === undefined ? undefined : Number(options["budget-per-minute"]);
      const scopes = need(options, "scopes").split(",").map((s) => s.trim()).filter(Boolean);
      return withDb(({ db }) =>
        createApiKey(db, { workspace: need(options, "workspace"), name: need(options, "name"), scopes, expiresInDays: days, createdBy: options["created-by"], budgetPerMinute: budget }),
      );
    }
    case "key revoke":
      known(options, ["id"]);
      return withDb(async ({ db }) => {
        const row = await revokeApiKey(db, need(options, "id"));
        if (!row) throw new UsageError(`no key with id ${options.id}`);
        return row;
      });
    case "key list":
      known(options, ["workspace"]);
      return withDb(async ({ db }) => ({ keys: await listApiKeys(db, need(options, "workspace")) }));
    case "demo":
      return withDb(({ db }) => ensureDemo(db));
    default:
      if (command === "import") {
        known(options, ["workspace"]);
        const file = sub ?? rest[0];
        if (!file) throw new UsageError("import needs a FILE");
        let doc: unknown;
        try {
          doc = JSON.parse(readFileSync(file, "utf8"));
        } catch (error) {
          throw new UsageError(`cannot read ${file} as JSON: ${(error as Error).message}`);
        }
        return withDb(({ db }) => importWorkspace(db, need(options, "workspace"), doc));
      }
      throw new UsageError(command ? `unknown command: ${positional.join(" ")}` : "no command given");
  }
}

if (import.meta.main) {
  try {
    const config = loadConfig();
    const log = createLogger(process.env.LOG_LEVEL ? config.logLevel : "warn");
    const out = await run(process.argv.slice(2), () => openDatabase(config, log));
    process.stdout.write(JSON.stringify(out, null, 2) + "\n");
    process.exit(0);
  } catch (error) {
    const body =
      error instanceof AppError
        ? error.toBody()
        : error instanceof UsageError || error instanceof ConfigError
          ? { _tag: "UsageError", message: error.message, usage }
          : { _tag: "InternalError", message: String((error as Error)?.message ?? error) };
    process.stderr.write(JSON.stringify(body) + "\n");
    process.exit(2);
  }
}
