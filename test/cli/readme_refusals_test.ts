/**
 * The README's list of the CLI's refusals, checked against the CLI itself: each refusal it lists is printed by a real
 * command (exit 2, the tagged JSON on stderr) with exactly the fields the README names, and every refusal these
 * commands print is listed.
 */
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createTestDatabase } from "../support/database.ts";
import { harness } from "../support/harness.ts";
import { root, runCli } from "../support/service.ts";
import { addContact } from "../maintenance_pro/fixtures.ts";

const h = await harness();
// Each case runs the CLI as a subprocess (a second or more on a loaded 2-core machine).
setDefaultTimeout(60_000);

/** The README's refusals: each tag with the fields it lists, in the order listed. */
function readmeRefusals(): Map<string, string[]> {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const start = readme.indexOf("Refusals: ");
  const paragraph = readme.slice(start, readme.indexOf("\n\n", start));
  const listed = new Map<string, string[]>();
  for (const [, tag, fields] of paragraph.matchAll(/`([A-Z][A-Za-z]+)(?: \{([^}`]*)\})?`/g)) {
    listed.set(tag!, fields === undefined ? [] : fields.split(",").map((f) => f.trim()));
  }
  return listed;
}

const ws = await h.workspace();
const other = await h.workspace();
const stranger = await addContact(h.database.db, ws);
const cli = (args: string[], options: { stdin?: string; databaseUrl?: string } = {}) =>
  runCli(args, {
    databaseUrl: options.databaseUrl ?? h.database.url,
    stdin: options.stdin,
    drop: ["WEBHOOKS_ALLOW_PRIVATE"],
  });
/** A database of its own whose migration record is altered by `alter`. */
async function alteredDatabase(alter: (db: Awaited<ReturnType<typeof createTestDatabase>>["db"]) => Promise<unknown>) {
  const database = await createTestDatabase();
  afterAll(() => database.drop());
  await alter(database.db);
  return database.url;
}

/** A command that makes each refusal, as an operator would meet it. */
const cases: Record<string, () => Promise<Awaited<ReturnType<typeof cli>>>> = {
  ScopeUnknown: () =>
    cli(["key", "create", "--workspace", ws.slug, "--name", "n", "--scopes", "widgets:read", "--expires-in-days", "7"]),
  TenantNotFound: () => cli(["key", "list", "--workspace", "no-such-workspace"]),
  TenantCreateRejected: () => cli(["workspace", "create", "--slug", ws.slug, "--name", "Twice"]),
  UserNotFound: () =>
    cli([
      "key",
      "create",
      "--workspace",
      ws.slug,
      "--name",
      "n",
      "--scopes",
      "tasks:read",
      "--expires-in-days",
      "7",
      "--created-by",
      "nobody",
    ]),
  ApiKeyCreateRejected: () =>
    cli([
      "key",
      "create",
      "--workspace",
      ws.slug,
      "--name",
      "n".repeat(201),
      "--scopes",
      "tasks:read",
      "--expires-in-days",
      "7",
    ]),
  ApiKeyNotFound: () => cli(["key", "revoke", "--id", "NOPE"]),
  ModuleUnknown: () => cli(["workspace", "entitle", "--slug", ws.slug, "--module", "astrology"]),
  ContactNotFound: () => cli(["portal", "revoke", "--workspace", ws.slug, "--contact", "no-such-contact"]),
  PortalAccessNotFound: () => cli(["portal", "revoke", "--workspace", ws.slug, "--contact", stranger.id]),
  SmsNumberTaken: async () => {
    const first = await cli(["sms-number", "add", "--workspace", ws.slug, "--number", "+441174960111"]);
    expect(first.code).toBe(0);
    return cli(["sms-number", "add", "--workspace", other.slug, "--number", "+441174960111"]);
  },
  SmsNumberNotFound: () => cli(["sms-number", "remove", "--workspace", ws.slug, "--number", "+441174960999"]),
  ImportRejected: () => cli(["import", "--workspace", ws.slug, "-"], { stdin: '{"contacts": 5}' }),
  BankHolidaysRejected: () => cli(["bank-holidays", "load", "-"], { stdin: "not json" }),
  WebhookUrlRefused: () =>
    cli(["webhook", "create", "--workspace", ws.slug, "--url", "http://127.0.0.1/hook", "--events", "*"]),
  WebhookEventsUnknown: () =>
    cli([
      "webhook",
      "create",
      "--workspace",
      ws.slug,
      "--url",
      "https://example.com/hook",
      "--events",
      "company.exploded",
    ]),
  WebhookNotFound: () => cli(["webhook", "disable", "--id", "NOPE"]),
  MigrationFailed: async () => {
    // A forgotten migration is applied again, and fails on what it made the first time.
    const url = await alteredDatabase(
      (db) => db`delete from schema_migrations where name = '0010_key_check_lists.sql'`,
    );
    return cli(["migrate"], { databaseUrl: url });
  },
  MigrationChanged: async () => {
    const url = await alteredDatabase(
      (db) => db`update schema_migrations set checksum = ${"0".repeat(64)} where name = '0007_tasks_calendar_sms.sql'`,
    );
    return cli(["migrate"], { databaseUrl: url });
  },
  IntegrationUnavailable: () =>
    cli(["key", "list", "--workspace", ws.slug], { databaseUrl: "postgres://lettings@127.0.0.1:1/lettings" }),
};

describe("the README's CLI refusals", () => {
  const listed = readmeRefusals();

  test("the README lists the refusals these commands make, no more and no fewer", () => {
    expect([...listed.keys()].sort()).toEqual(Object.keys(cases).sort());
  });

  test.each(Object.keys(cases))("%s: printed by the CLI with the fields the README lists", async (tag) => {
    const run = await cases[tag]!();
    expect({ code: run.code, stdout: run.stdout, tag: run.err?._tag }).toEqual({ code: 2, stdout: "", tag });
    const { _tag, ...fields } = run.err;
    expect(Object.keys(fields).sort()).toEqual([...(listed.get(tag) ?? ["(not listed)"])].sort());
  });
});
