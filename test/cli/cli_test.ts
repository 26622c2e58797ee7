/** The operator CLI (README, First setup), run as a subprocess against the test database. */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { allScopes } from "../../src/core/groups.ts";
import { harness } from "../support/harness.ts";
import { runCli, type CliRun } from "../support/service.ts";
import { createTestDatabase } from "../support/database.ts";
import { fullDocument, countRows } from "../workspace_import/fixtures.ts";

const h = await harness();
const scratch = mkdtempSync(join(tmpdir(), "lettings-cli-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs `bun src/cli.ts ...args` with DATABASE_URL pointing at this file's database (null: none). */
function cli(
  args: string[],
  options: { stdin?: string; databaseUrl?: string | null; env?: Record<string, string> } = {},
): Promise<CliRun> {
  return runCli(args, {
    ...options,
    databaseUrl: options.databaseUrl === undefined ? h.database.url : options.databaseUrl,
  });
}

/** A key made with `key create` for a workspace, holding one scope. */
async function keyFromCli(slug: string, scope: string): Promise<string> {
  const args = ["--workspace", slug, "--name", "k", "--scopes", scope, "--expires-in-days", "7"];
  return (await cli(["key", "create", ...args])).out.key;
}

/** Expects a refusal: exit 2, nothing on stdout, the tagged error on stderr. */
function refused(run: CliRun, tag: string) {
  expect(run.code).toBe(2);
  expect(run.stdout).toBe("");
  expect(run.err._tag).toBe(tag);
  return run.err;
}

let counter = 0;
/** A workspace made through the CLI. */
async function workspace() {
  const slug = `cli-${Date.now().toString(36)}-${counter++}`;
  const run = await cli([
    "workspace",
    "create",
    "--slug",
    slug,
    "--name",
    "Acme Lettings",
    "--owner-email",
    "boss@acme.test",
  ]);
  expect(run.code).toBe(0);
  return run.out as { id: string; slug: string; ownerUserId: string };
}

describe("the CLI", () => {
  test("workspace create prints the workspace, its id and its owner, as one JSON object", async () => {
    const ws = await workspace();
    expect(Object.keys(ws).sort()).toEqual(["id", "ownerUserId", "slug"]);
    expect(ws.id).toMatch(/^[0-9A-Z]{26}$/);
    expect(await h.database.db`select email, role from users where workspace_id = ${ws.id}`).toEqual([
      { email: "boss@acme.test", role: "owner" },
    ] as any);
    const again = await cli(["workspace", "create", "--slug", ws.slug, "--name", "Twice"]);
    expect(refused(again, "TenantCreateRejected")).toMatchObject({ field: "slug" });
  });

  const misuse: [string, string[]][] = [
    ["no command", []],
    ["an unknown command", ["frobnicate"]],
    ["an unknown subcommand", ["workspace", "delete", "--slug", "x"]],
    ["a missing option", ["workspace", "create", "--name", "No slug"]],
    ["an option without a value", ["workspace", "resume", "--slug"]],
    ["an unknown option", ["workspace", "resume", "--slug", "x", "--force", "yes"]],
    ["an unexpected argument", ["key", "list", "--workspace", "x", "extra"]],
    [
      "a bad expiry",
      ["key", "create", "--workspace", "x", "--name", "n", "--scopes", "tasks:read", "--expires-in-days", "14"],
    ],
    [
      "a bad budget",
      [
        "key",
        "create",
        "--workspace",
        "x",
        "--name",
        "n",
        "--scopes",
        "tasks:read",
        "--expires-in-days",
        "7",
        "--budget-per-minute",
        "lots",
      ],
    ],
    ["no scopes", ["key", "create", "--workspace", "x", "--name", "n", "--scopes", ",", "--expires-in-days", "7"]],
    ["import without a file", ["import", "--workspace", "x"]],
    ["import of a missing file", ["import", "--workspace", "x", join(scratch, "missing.json")]],
  ];
  test.each(misuse)("%s prints what is wrong and the usage as text on stderr, exit code 2", async (_name, args) => {
    const run = await cli(args);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    const [first, blank, ...rest] = run.stderr.split("\n");
    expect(first).toMatch(/^UsageError: \S/);
    expect(blank).toBe("");
    expect(rest[0]).toBe("usage: bun run cli <command> [options]");
    expect(rest).toContain("  key list --workspace S                     never prints a key's value");
    expect(run.stderr).not.toContain("\\n");
  });

  test("a missing option names the option", async () => {
    expect((await cli(["workspace", "create", "--name", "No slug"])).stderr).toStartWith(
      "UsageError: workspace create needs --slug\n",
    );
  });

  for (const help of [["--help"], ["-h"], ["help"], ["key", "create", "--help"]]) {
    test(`${help.join(" ")} prints the usage as plain text on stdout, exit code 0`, async () => {
      const run = await cli(help);
      expect(run.code).toBe(0);
      expect(run.stderr).toBe("");
      expect(run.out).toBeUndefined();
      const lines = run.stdout.split("\n");
      expect(lines[0]).toBe("usage: bun run cli <command> [options]");
      expect(lines.some((line) => line.startsWith("  import --workspace S FILE "))).toBe(true);
      expect(run.stdout).not.toContain("\\n");
    });
  }

  test("a bad environment value is one plain line on stderr, exit code 2", async () => {
    const run = await cli(["key", "list", "--workspace", "x"], { env: { LOG_LEVEL: "loud" } });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe('configuration: LOG_LEVEL must be one of debug, info, warn, error, silent, not "loud"\n');
  });

  test("an unknown scope is ScopeUnknown naming it and every valid scope", async () => {
    const ws = await workspace();
    const run = await cli([
      "key",
      "create",
      "--workspace",
      ws.slug,
      "--name",
      "n",
      "--scopes",
      "tasks:read,widgets:read",
      "--expires-in-days",
      "7",
    ]);
    expect(refused(run, "ScopeUnknown")).toEqual({
      _tag: "ScopeUnknown",
      scope: "widgets:read",
      known: [...allScopes],
    });
    expect(run.err.known).toContain("handovers:read");
    expect(run.err.known).toContain("maintenance-pro:write");
  });

  const unknownWorkspace: [string, string[]][] = [
    [
      "key create",
      ["key", "create", "--workspace", "nope", "--name", "n", "--scopes", "tasks:read", "--expires-in-days", "30"],
    ],
    ["key list", ["key", "list", "--workspace", "nope"]],
    ["workspace suspend", ["workspace", "suspend", "--slug", "nope", "--reason", "r"]],
    ["workspace entitle", ["workspace", "entitle", "--slug", "nope", "--module", "telephony"]],
  ];
  test.each(unknownWorkspace)("%s on an unknown workspace is TenantNotFound", async (_name, args) => {
    expect(refused(await cli(args), "TenantNotFound")).toEqual({ _tag: "TenantNotFound", slug: "nope" });
  });

  test("a created key works against the API, is listed without its value, and stops working once revoked", async () => {
    const ws = await workspace();
    const created = await cli([
      "key",
      "create",
      "--workspace",
      ws.slug,
      "--name",
      "Portal sync",
      "--scopes",
      "compliance:read,tasks:write",
      "--expires-in-days",
      "90",
      "--budget-per-minute",
      "120",
    ]);
    expect(created.code).toBe(0);
    const key = created.out;
    expect(Object.keys(key).sort()).toEqual(["expiresAt", "id", "key", "name", "scopes"]);
    expect(key).toMatchObject({ name: "Portal sync", scopes: ["compliance:read", "tasks:write"] });
    expect(key.key).toMatch(/^lk_/);
    const days = (Date.parse(key.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(89.9);
    expect(days).toBeLessThanOrEqual(90);

    const allowed = await h.request("GET", "/compliance/block-profiles", { key: key.key });
    expect([401, 402, 403]).not.toContain(allowed.status);
    expect(allowed.headers.get("ratelimit-policy")).toBe('"default";q=120;w=60');
    const outOfScope = await h.request("GET", "/calendar/agenda", { key: key.key });
    expect(outOfScope.body).toEqual({ _tag: "ScopeMissing", scope: "calendar:read" });

    const listed = await cli(["key", "list", "--workspace", ws.slug]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(key.key);
    expect(listed.stdout).not.toContain("lk_");
    expect(listed.stdout.toLowerCase()).not.toContain("hash");
    expect(listed.out.keys).toHaveLength(1);
    expect(listed.out.keys[0]).toMatchObject({
      id: key.id,
      name: "Portal sync",
      scopes: ["compliance:read", "tasks:write"],
      budgetPerMinute: 120,
      revokedAt: null,
      createdByUserId: ws.ownerUserId,
    });

    const revoked = await cli(["key", "revoke", "--id", key.id]);
    expect(revoked.code).toBe(0);
    expect(revoked.out).toMatchObject({ id: key.id });
    expect(revoked.out.revokedAt).toBeString();
    const refusedAfter = await h.request("GET", "/compliance/block-profiles", { key: key.key });
    expect(refusedAfter.status).toBe(401);
    expect(refusedAfter.body).toEqual({ _tag: "ApiKeyRejected" });
    const again = await cli(["key", "revoke", "--id", key.id]);
    expect(again.out).toEqual(revoked.out);
    expect((await cli(["key", "list", "--workspace", ws.slug])).out.keys[0].revokedAt).toBe(revoked.out.revokedAt);
  });

  test("revoking an unknown key is ApiKeyNotFound", async () => {
    expect(refused(await cli(["key", "revoke", "--id", "01NOSUCHKEY"]), "ApiKeyNotFound")).toEqual({
      _tag: "ApiKeyNotFound",
      id: "01NOSUCHKEY",
    });
  });

  test("--created-by makes the key another user's: owner-only operations then refuse it", async () => {
    const ws = await workspace();
    await h.rows(ws).user({ id: "staff-1", name: "Sam" });
    const staff = await cli([
      "key",
      "create",
      "--workspace",
      ws.slug,
      "--name",
      "s",
      "--scopes",
      "maintenance-pro:write",
      "--expires-in-days",
      "7",
      "--created-by",
      "staff-1",
    ]);
    expect(staff.code).toBe(0);
    await cli(["workspace", "entitle", "--slug", ws.slug, "--module", "maintenance-pro"]);
    const res = await h.request("PUT", "/maintenance-pro/hazard-settings", { key: staff.out.key, body: {} });
    expect(res.body).toEqual({ _tag: "WorkspaceOwnerRequired" });
    const owner = await cli([
      "key",
      "create",
      "--workspace",
      ws.slug,
      "--name",
      "o",
      "--scopes",
      "maintenance-pro:write",
      "--expires-in-days",
      "7",
      "--created-by",
      "owner",
    ]);
    const ownerRes = await h.request("PUT", "/maintenance-pro/hazard-settings", { key: owner.out.key, body: {} });
    expect(ownerRes.body._tag).not.toBe("WorkspaceOwnerRequired");
    const nobody = await cli([
      "key",
      "create",
      "--workspace",
      ws.slug,
      "--name",
      "x",
      "--scopes",
      "tasks:read",
      "--expires-in-days",
      "7",
      "--created-by",
      "usr-nobody",
    ]);
    expect(refused(nobody, "UserNotFound")).toEqual({ _tag: "UserNotFound", slug: ws.slug, userId: "usr-nobody" });
    const another = await workspace();
    const theirs = await cli([
      "key",
      "create",
      "--workspace",
      another.slug,
      "--name",
      "x",
      "--scopes",
      "tasks:read",
      "--expires-in-days",
      "7",
      "--created-by",
      "staff-1",
    ]);
    expect(refused(theirs, "UserNotFound")).toEqual({ _tag: "UserNotFound", slug: another.slug, userId: "staff-1" });
    expect((await cli(["key", "list", "--workspace", another.slug])).out.keys).toEqual([]);
  });

  test("suspend refuses every key of the workspace until resume", async () => {
    const ws = await workspace();
    const key = await keyFromCli(ws.slug, "compliance:read");
    const suspended = await cli(["workspace", "suspend", "--slug", ws.slug, "--reason", "Unpaid invoice"]);
    expect(suspended.out).toEqual({ id: ws.id, slug: ws.slug, suspended: true, reason: "Unpaid invoice" });
    expect((await h.request("GET", "/compliance/block-profiles", { key })).body).toEqual({
      _tag: "TenantSuspended",
      tenantId: ws.id,
      reason: "Unpaid invoice",
    });
    expect((await cli(["workspace", "resume", "--slug", ws.slug])).out).toEqual({
      id: ws.id,
      slug: ws.slug,
      suspended: false,
    });
    const resumed = await h.request("GET", "/compliance/block-profiles", { key });
    expect(resumed.status).toBe(200);
    expect(resumed.body).toEqual([]);
  });

  test("entitle and unentitle grant and withdraw a module; an unknown module is refused", async () => {
    const ws = await workspace();
    const key = await keyFromCli(ws.slug, "telephony:read");
    const before = await h.request("GET", "/telephony/sms/threads", { key });
    expect(before.body).toEqual({ _tag: "EntitlementMissing", tenantId: ws.id, moduleId: "telephony" });
    expect((await cli(["workspace", "entitle", "--slug", ws.slug, "--module", "telephony"])).out).toEqual({
      id: ws.id,
      slug: ws.slug,
      moduleId: "telephony",
      entitled: true,
    });
    const entitled = await h.request("GET", "/telephony/sms/threads", { key });
    expect(entitled.status).toBe(200);
    expect(entitled.body).toEqual([]);
    expect((await cli(["workspace", "unentitle", "--slug", ws.slug, "--module", "telephony"])).out.entitled).toBe(
      false,
    );
    expect((await h.request("GET", "/telephony/sms/threads", { key })).body._tag).toBe("EntitlementMissing");
    const unknown = refused(
      await cli(["workspace", "entitle", "--slug", ws.slug, "--module", "billing"]),
      "ModuleUnknown",
    );
    expect(unknown).toEqual({ _tag: "ModuleUnknown", moduleId: "billing", known: ["maintenance-pro", "telephony"] });
  });

  test("import loads a file and prints the counts per collection; stdin works too", async () => {
    const ws = await workspace();
    const file = join(scratch, "full.json");
    writeFileSync(file, JSON.stringify(fullDocument()));
    const run = await cli(["import", "--workspace", ws.slug, file]);
    expect(run.code).toBe(0);
    expect(run.out).toMatchObject({ users: 2, contacts: 4, contractorInvoices: 2, onboardingCheckouts: 1 });
    expect(await h.database.db`select count(*)::int as n from contacts where workspace_id = ${ws.id}`).toEqual([
      { n: 4 },
    ] as any);
    const piped = await cli(["import", "-", "--workspace", ws.slug], {
      stdin: JSON.stringify({ contacts: [{ id: "c-new", kind: "person", name: "Newcomer" }] }),
    });
    expect(piped.out.contacts).toBe(1);
    expect(await h.database.db`select count(*)::int as n from contacts where workspace_id = ${ws.id}`).toEqual([
      { n: 5 },
    ] as any);
  });

  test("a refused import prints ImportRejected with the path and writes nothing", async () => {
    const ws = await workspace();
    const doc = fullDocument();
    doc.tenancies[0]!.unitId = "un-404";
    const file = join(scratch, "broken.json");
    writeFileSync(file, JSON.stringify(doc));
    const before = await countRows(h.database.db);
    const run = await cli(["import", "--workspace", ws.slug, file]);
    expect(refused(run, "ImportRejected")).toEqual({
      _tag: "ImportRejected",
      path: "/tenancies/0/unitId",
      message: '"un-404" names no unit in the document or the workspace',
    });
    expect(await countRows(h.database.db)).toEqual(before);
    const notJson = join(scratch, "not.json");
    writeFileSync(notJson, "{ contacts: [");
    expect(refused(await cli(["import", "--workspace", ws.slug, notJson]), "ImportRejected")).toMatchObject({
      path: "",
    });
    expect(refused(await cli(["import", "--workspace", "nope", file]), "TenantNotFound")).toEqual({
      _tag: "TenantNotFound",
      slug: "nope",
    });
  });

  test("import-schema prints the document's JSON Schema with its rules", async () => {
    const run = await cli(["import-schema"]);
    expect(run.code).toBe(0);
    expect(run.out.additionalProperties).toBe(false);
    expect(Object.keys(run.out.properties)).toContain("contractorInvoices");
    expect(run.out.description).toContain("upserted by id");
  });

  test("migrate on a migrated database applies nothing", async () => {
    const run = await cli(["migrate"]);
    expect(run.code).toBe(0);
    expect(run.out).toEqual({ applied: [], checksumsRecorded: [], newerThanFiles: [] });
  });

  test("migrate refuses a database whose landed migration changed: MigrationChanged, exit 2", async () => {
    const changed = await createTestDatabase();
    try {
      await changed.db`update schema_migrations set checksum = ${"0".repeat(64)} where name = '0001_core.sql'`;
      for (const args of [["migrate"], ["workspace", "create", "--slug", "late", "--name", "Late"]]) {
        const run = await cli(args, { databaseUrl: changed.url });
        expect(refused(run, "MigrationChanged")).toMatchObject({
          migration: "0001_core.sql",
          appliedChecksum: "0".repeat(64),
          message: expect.stringMatching(/^migration 0001_core\.sql was changed after it was applied/),
        });
      }
      expect(await changed.db`select 1 from workspaces where slug = 'late'`).toHaveLength(0);
    } finally {
      await changed.drop();
    }
  });

  test("demo creates the demo workspace once and prints a fresh key each time, revoking the previous demo key", async () => {
    const first = await cli(["demo"]);
    const operatorKey = await cli([
      "key",
      "create",
      "--workspace",
      "demo",
      "--name",
      "demo integration",
      "--scopes",
      "handovers:read",
      "--expires-in-days",
      "30",
    ]);
    const second = await cli(["demo"]);
    expect(first.out).toMatchObject({ slug: "demo", created: true, revokedKeys: 0 });
    expect(second.out).toMatchObject({
      slug: "demo",
      created: false,
      workspaceId: first.out.workspaceId,
      revokedKeys: 1,
    });
    expect(first.out.key).toMatch(/^lk_/);
    expect(second.out.key).not.toBe(first.out.key);
    const path = "/handovers/tenancies/ten-ashby-2b";
    expect([401, 402, 403]).not.toContain((await h.request("GET", path, { key: second.out.key })).status);
    expect((await h.request("GET", path, { key: first.out.key })).body).toEqual({ _tag: "ApiKeyRejected" });
    // A key the operator made in the demo workspace is not a demo key: it stays.
    expect((await h.request("GET", path, { key: operatorKey.out.key })).status).toBe(200);
    const live = (await cli(["key", "list", "--workspace", "demo"])).out.keys.filter((k: any) => k.revokedAt === null);
    expect(live.map((k: any) => k.id).sort()).toEqual([operatorKey.out.id, second.out.keyId].sort());
  });

  test("an unreachable database is IntegrationUnavailable", async () => {
    const run = await cli(["key", "list", "--workspace", "x"], { databaseUrl: "postgres://postgres@127.0.0.1:1/none" });
    expect(refused(run, "IntegrationUnavailable")).toMatchObject({ integration: "database" });
  });

  test("a database or role that does not exist is IntegrationUnavailable, as in the API", async () => {
    const missing = new URL(h.database.url);
    missing.pathname = "/lettings_no_such_database";
    const run = await cli(["key", "list", "--workspace", "x"], { databaseUrl: missing.toString() });
    expect(refused(run, "IntegrationUnavailable")).toMatchObject({
      integration: "database",
      detail: expect.stringContaining("lettings_no_such_database"),
    });
    const role = new URL(h.database.url);
    role.username = "lettings_no_such_role";
    expect(
      refused(
        await cli(["key", "list", "--workspace", "x"], { databaseUrl: role.toString() }),
        "IntegrationUnavailable",
      ),
    ).toMatchObject({ integration: "database" });
  });

  test("an embedded Postgres that cannot start (no DATABASE_URL) is IntegrationUnavailable naming the folder", async () => {
    const blocker = join(scratch, "not-a-folder");
    writeFileSync(blocker, "");
    const run = await cli(["key", "list", "--workspace", "x"], { databaseUrl: null, env: { DATA_DIR: blocker } });
    const err = refused(run, "IntegrationUnavailable");
    expect(err.detail).toStartWith(
      `No DATABASE_URL is set and the embedded Postgres in ${join(blocker, "pg")} did not start: `,
    );
  });
});

describe("sms-number", () => {
  test("add, list, add again, remove: a number belongs to one workspace at most", async () => {
    const [ws, other] = [await workspace(), await workspace()];
    const number = "+441174960777";
    const add = (slug: string) => cli(["sms-number", "add", "--workspace", slug, "--number", number]);
    expect((await add(ws.slug)).out).toEqual({ workspace: ws.slug, number, added: true });
    expect((await add(ws.slug)).out).toEqual({ workspace: ws.slug, number, added: false });
    expect(refused(await add(other.slug), "SmsNumberTaken")).toEqual({ _tag: "SmsNumberTaken", number });
    const list = await cli(["sms-number", "list", "--workspace", ws.slug]);
    expect(list.out).toEqual({
      workspace: ws.slug,
      numbers: [{ number, source: "cli", createdAt: expect.any(String) }],
    });
    const remove = await cli(["sms-number", "remove", "--workspace", ws.slug, "--number", number]);
    expect(remove.out).toEqual({ workspace: ws.slug, number, removed: true });
    const again = await cli(["sms-number", "remove", "--workspace", ws.slug, "--number", number]);
    expect(refused(again, "SmsNumberNotFound")).toEqual({ _tag: "SmsNumberNotFound", number });
    // Free again: the other workspace may have it now.
    expect((await add(other.slug)).out.added).toBe(true);
  });

  test("an import's threads register their localNumber for the workspace (the first one to use it keeps it)", async () => {
    const [ws, other] = [await workspace(), await workspace()];
    const file = join(scratch, "sms.json");
    // A number no other test's import used (the first workspace to use a number keeps it).
    writeFileSync(file, JSON.stringify(fullDocument()).replaceAll("+441170000000", "+441170000042"));
    expect((await cli(["import", "--workspace", ws.slug, file])).code).toBe(0);
    expect((await cli(["import", "--workspace", other.slug, file])).code).toBe(0);
    const numbers = async (slug: string) =>
      (await cli(["sms-number", "list", "--workspace", slug])).out.numbers.map((n: any) => [n.number, n.source]);
    expect(await numbers(ws.slug)).toEqual([["+441170000042", "import"]]);
    expect(await numbers(other.slug)).toEqual([]);
  });

  test("a number that is not E.164, or an unknown workspace, is refused", async () => {
    const bad = await cli(["sms-number", "add", "--workspace", "x", "--number", "07700900123"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toStartWith('UsageError: --number is an E.164 number (+447700900123), not "07700900123"');
    const unknown = await cli(["sms-number", "list", "--workspace", "no-such-workspace"]);
    expect(refused(unknown, "TenantNotFound")).toEqual({ _tag: "TenantNotFound", slug: "no-such-workspace" });
  });
});
