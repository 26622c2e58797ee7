/**
 * `bun run mcp`: the MCP server over stdio for desktop assistants. It authenticates with LETTINGS_API_KEY against the
 * service's database (DATABASE_URL, or the embedded one under DATA_DIR) and runs every call through the same pipeline
 * as REST. stdout carries only MCP messages; logs go to stderr.
 */
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { loadConfig, ConfigError, type Config, type LogLevel } from "../config.ts";
import { AppError, IntegrationUnavailable, Unauthenticated } from "../core/errors.ts";
import { checkKey } from "../core/execute.ts";
import { Jobs } from "../core/jobs.ts";
import type { Logger } from "../core/log.ts";
import type { AppContext } from "../core/operation.ts";
import { openDatabase } from "../core/open_database.ts";
import { operations } from "../operations.ts";
import { mcpServer } from "./server.ts";
import { toolsOf } from "./tools.ts";

const order: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** A logger writing one JSON object a line to stderr (stdout belongs to the protocol). */
function stderrLogger(level: LogLevel): Logger {
  const write = (lvl: LogLevel) => (msg: string, fields?: Record<string, unknown>) => {
    if (order[lvl] < order[level]) return;
    process.stderr.write(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...fields }) + "\n");
  };
  return { debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error") };
}

/** Refuses the connection: the tagged body on stderr, exit code 2 (as the CLI does). */
function refuse(error: AppError | { toBody(): unknown }): never {
  process.stderr.write(JSON.stringify(error.toBody()) + "\n");
  process.exit(2);
}

let config: Readonly<Config>;
try {
  config = loadConfig({ LOG_LEVEL: "warn", ...process.env });
} catch (error) {
  if (error instanceof ConfigError) refuse({ toBody: () => ({ _tag: "UsageError", message: error.message }) });
  throw error;
}
const apiKey = config.mcpApiKey?.trim() || null;
if (!apiKey) refuse(new Unauthenticated());

const log = stderrLogger(config.logLevel);
const database = await openDatabase(config, log, { answerTimeout: true }).catch((error: Error) =>
  refuse(
    new IntegrationUnavailable({ integration: "database", detail: `The database cannot be reached: ${error.message}` }),
  ),
);
const jobs = new Jobs(database.url, log);
const app: AppContext = { db: database.db, config, log, jobs };

let stopping = false;
async function shutdown(code: number) {
  if (stopping) return;
  stopping = true;
  await jobs.stop().catch(() => {});
  await database.close().catch(() => {});
  process.exit(code);
}

// A key that is unknown, revoked or expired refuses the connection before any MCP message is read (key checks 1
// and 2; X-Tenant, suspension and the budget are checked by each tools/list and tools/call).
// This check spends one request of the key's budget, as any authenticated request does.
const found = await checkKey(app, apiKey).catch(async (error: unknown) => {
  if (!(error instanceof AppError)) throw error;
  await database.close().catch(() => {});
  return refuse(error);
});

const tools = toolsOf(operations);
const origin = `http://localhost:${config.port}`;
const handle = serveStdio(() => mcpServer(app, tools, { apiKey, tenantHeader: null, origin }), {
  onerror: (error) => log.warn("mcp", { error: error.message }),
});
log.info("MCP server on stdio", {
  keyId: found.principal.keyId,
  workspace: found.principal.workspaceSlug,
  embeddedPostgres: database.embedded,
});

/** Closes the MCP connection, then stops the jobs and the database and exits (even when closing failed). */
async function closeAndExit() {
  try {
    await handle.close();
  } finally {
    await shutdown(0);
  }
}

// The client closing stdin ends the connection; the database pool would otherwise keep the process alive.
process.stdin.on("end", () => void closeAndExit());
process.stdin.on("close", () => void closeAndExit());
process.on("SIGTERM", () => void closeAndExit());
process.on("SIGINT", () => void closeAndExit());
