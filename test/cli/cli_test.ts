/** The operator CLI (CONTRACT.md §5), run as a subprocess against the test database. */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { harness } from "../support/harness.ts";
import { fullDocument, countRows } from "../workspace_import/fixtures.ts";

const h = await harness();
const root = join(import.meta.dir, "..", "..");
const scratch = mkdtempSync(join(tmpdir(), "lettings-cli-"));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed (it must be one JSON value, or nothing). */
  out: any;
  /** stderr parsed (it must be one JSON value, or nothing). */
  err: any;
}

/** Runs `bun src/cli.ts ...args` with DATABASE_URL pointing at this file's database. */
async function cli(args: string[], options: { stdin?: string; databaseUrl?: string } = {}): Promise<Run> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== "LOG_LEVEL") env[k] = v;
  env.DATABASE_URL = options.databaseUrl ?? h.database.url;
  const proc = Bun.spawn([process.execPath, "src/cli.ts", ...args], {
    cwd: root, env, stdin: options.stdin === undefined ? "ignore" : new Blob([options.stdin]), stdout: "pipe", stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const parse = (text: string) => (text.trim() === "" ? undefined : JSON.parse(text));
  return { code, stdout, stderr, out: parse(stdout), err: parse(stderr) };
}

/** Expects a refusal: exit 2, nothing on stdout, the tagged error on stderr. */
function refused(run: Run, tag: string) {
  expect(run.code).toBe(2);
  expect(run.stdout).toBe("");
  expect(run.err._tag).toBe(tag);
  return run.err;
}

let counter = 0;
/** A workspace made through the CLI. */
async function workspace() {
  const slug = `cli-${Date.now().toString(36)}-${counter++}`;
  const run = await cli(["workspace", "create", "--slug", slug, "--name", "Acme Lettings", "--owner-email", "boss@acme.test"]);
  expect(run.code).toBe(0);
  return run.out as { id: string; slug: string; ownerUserId: string };
}

describe("the CLI", () => {
  test("workspace create prints the workspace, its id and its owner, as one JSON object", async () => {
    const ws = await workspace();
    expect(Object.keys(ws).sort()).toEqual(["id", "ownerUserId", "slug"]);
    expect(ws.id).toMatch(/^[0-9A-Z]{26}$/);
    expect(await h.database.db`select email, role from users where workspace_id = ${ws.id}`).toEqual([{ email: "boss@acme.test", role: "owner" }] as any);
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
    ["a bad expiry", ["key", "create", "--workspace", "x", "--name", "n", "--scopes", "tasks:read", "--expires-in-days", "14"]],
    ["a bad budget", ["key", "create", "--workspace", "x", "--name", "n", "--scopes", "tasks:read", "--expires-in-days", "7", "--budget-per-minute", "lots"]],
    ["no scopes", ["key", "create", "--workspace", "x", "--name", "n", "--scopes", ",", "--expires-in-days", "7"]],
    ["import without a file", ["import", "--workspace", "x"]],
    ["import of a missing file", ["import", "--workspace", "x", join(scratch, "missing.json")]],
  ];
  test.each(misuse)("%s is a UsageError on stderr with exit code 2", async (_name, args) => {
    const err = refused(await cli(args), "UsageError");
    expect(err.message).toBeString();
    expect(err.usage).toContain("key create");
  });

  test("--help prints the usage on stdout", async () => {
    const run = await cli(["--help"]);
    expect(run.code).toBe(0);
    expect(run.out.usage).toContain("import --workspace S FILE");
  });

  test("an unknown scope is ScopeUnknown naming it", async () => {
    const ws = await workspace();
    const run = await cli(["key", "create", "--workspace", ws.slug, "--name", "n", "--scopes", "tasks:read,widgets:read", "--expires-in-days", "7"]);
    expect(refused(run, "ScopeUnknown")).toEqual({ _tag: "ScopeUnknown", scope: "widgets:read" });
  });

  const unknownWorkspace: [string, string[]][] = [
    ["key create", ["key", "create", "--workspace", "nope", "--name", "n", "--scopes", "tasks:read", "--expires-in-days", "30"]],
    ["key list", ["key", "list", "--workspace", "nope"]],
    ["workspace suspend", ["workspace", "suspend", "--slug", "nope", "--reason", "r"]],
    ["workspace entitle", ["workspace", "entitle", "--slug", "nope", "--module", "telephony"]],
  ];
  test.each(unknownWorkspace)("%s on an unknown workspace is TenantNotFound", async (_name, args) => {
    expect(refused(await cli(args), "TenantNotFound")).toEqual({ _tag: "TenantNotFound", slug: "nope" });
  });

  test("a created key works against the API, is listed without its value, and stops working once revoked", async () => {
    const ws = await workspace();
    const created = await cli(["key", "create", "--workspace", ws.slug, "--name", "Portal sync", "--scopes", "compliance:read,tasks:write", "--expires-in-days", "90", "--budget-per-minute", "120"]);
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
    expect(listed.out.keys[0]).toMatchObject({ id: key.id, name: "Portal sync", scopes: ["compliance:read", "tasks:write"], budgetPerMinute: 120, revokedAt: null, createdByUserId: ws.ownerUserId });

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
    expect(refused(await cli(["key", "revoke", "--id", "01NOSUCHKEY"]), "ApiKeyNotFound")).toEqual({ _tag: "ApiKeyNotFound", id: "01NOSUCHKEY" });
  });

  test("--created-by makes the key another user's: owner-only operations then refuse it", async () => {
    const ws = await workspace();
    await h.database.db`insert into users (workspace_id, id, name, role) values (${ws.id}, 'staff-1', 'Sam', 'staff')`;
    const staff = await cli(["key", "create", "--workspace", ws.slug, "--name", "s", "--scopes", "maintenance-pro:write", "--expires-in-days", "7", "--created-by", "staff-1"]);
    expect(staff.code).toBe(0);
    await cli(["workspace", "entitle", "--slug", ws.slug, "--module", "maintenance-pro"]);
    const res = await h.request("PUT", "/maintenance-pro/hazard-settings", { key: staff.out.key, body: {} });
    expect(res.body).toEqual({ _tag: "WorkspaceOwnerRequired" });
    const owner = await cli(["key", "create", "--workspace", ws.slug, "--name", "o", "--scopes", "maintenance-pro:write", "--expires-in-days", "7", "--created-by", "owner"]);
    const ownerRes = await h.request("PUT", "/maintenance-pro/hazard-settings", { key: owner.out.key, body: {} });
    expect(ownerRes.body._tag).not.toBe("WorkspaceOwnerRequired");
    const nobody = await cli(["key", "create", "--workspace", ws.slug, "--name", "x", "--scopes", "tasks:read", "--expires-in-days", "7", "--created-by", "ghost"]);
    expect(refused(nobody, "TenantCreateRejected")).toMatchObject({ field: "createdBy" });
  });

  test("suspend refuses every key of the workspace until resume", async () => {
    const ws = await workspace();
    const key = (await cli(["key", "create", "--workspace", ws.slug, "--name", "k", "--scopes", "compliance:read", "--expires-in-days", "7"])).out.key;
    const suspended = await cli(["workspace", "suspend", "--slug", ws.slug, "--reason", "Unpaid invoice"]);
    expect(suspended.out).toEqual({ id: ws.id, slug: ws.slug, suspended: true, reason: "Unpaid invoice" });
    expect((await h.request("GET", "/compliance/block-profiles", { key })).body).toEqual({ _tag: "TenantSuspended", tenantId: ws.id, reason: "Unpaid invoice" });
    expect((await cli(["workspace", "resume", "--slug", ws.slug])).out).toEqual({ id: ws.id, slug: ws.slug, suspended: false });
    expect((await h.request("GET", "/compliance/block-profiles", { key })).status).not.toBe(402);
  });

  test("entitle and unentitle grant and withdraw a module; an unknown module is refused", async () => {
    const ws = await workspace();
    const key = (await cli(["key", "create", "--workspace", ws.slug, "--name", "k", "--scopes", "telephony:read", "--expires-in-days", "7"])).out.key;
    const before = await h.request("GET", "/telephony/sms/threads", { key });
    expect(before.body).toEqual({ _tag: "EntitlementMissing", tenantId: ws.id, moduleId: "telephony" });
    expect((await cli(["workspace", "entitle", "--slug", ws.slug, "--module", "telephony"])).out).toEqual({ id: ws.id, slug: ws.slug, moduleId: "telephony", entitled: true });
    expect((await h.request("GET", "/telephony/sms/threads", { key })).status).not.toBe(403);
    expect((await cli(["workspace", "unentitle", "--slug", ws.slug, "--module", "telephony"])).out.entitled).toBe(false);
    expect((await h.request("GET", "/telephony/sms/threads", { key })).body._tag).toBe("EntitlementMissing");
    const unknown = refused(await cli(["workspace", "entitle", "--slug", ws.slug, "--module", "billing"]), "ModuleUnknown");
    expect(unknown).toEqual({ _tag: "ModuleUnknown", moduleId: "billing", known: ["maintenance-pro", "telephony"] });
  });

  test("import loads a file and prints the counts per collection; stdin works too", async () => {
    const ws = await workspace();
    const file = join(scratch, "full.json");
    writeFileSync(file, JSON.stringify(fullDocument()));
    const run = await cli(["import", "--workspace", ws.slug, file]);
    expect(run.code).toBe(0);
    expect(run.out).toMatchObject({ users: 2, contacts: 4, contractorInvoices: 2, onboardingCheckouts: 1 });
    expect(await h.database.db`select count(*)::int as n from contacts where workspace_id = ${ws.id}`).toEqual([{ n: 4 }] as any);
    const piped = await cli(["import", "-", "--workspace", ws.slug], { stdin: JSON.stringify({ contacts: [{ id: "c-new", kind: "person", name: "Newcomer" }] }) });
    expect(piped.out.contacts).toBe(1);
    expect(await h.database.db`select count(*)::int as n from contacts where workspace_id = ${ws.id}`).toEqual([{ n: 5 }] as any);
  });

  test("a refused import prints ImportRejected with the path and writes nothing", async () => {
    const ws = await workspace();
    const doc = fullDocument();
    doc.tenancies[0]!.unitId = "un-404";
    const file = join(scratch, "broken.json");
    writeFileSync(file, JSON.stringify(doc));
    const before = await countRows(h.database.db);
    const run = await cli(["import", "--workspace", ws.slug, file]);
    expect(refused(run, "ImportRejected")).toEqual({ _tag: "ImportRejected", path: "/tenancies/0/unitId", message: '"un-404" names no unit in the document or the workspace' });
    expect(await countRows(h.database.db)).toEqual(before);
    const notJson = join(scratch, "not.json");
    writeFileSync(notJson, "{ contacts: [");
    expect(refused(await cli(["import", "--workspace", ws.slug, notJson]), "ImportRejected")).toMatchObject({ path: "" });
    expect(refused(await cli(["import", "--workspace", "nope", file]), "TenantNotFound")).toEqual({ _tag: "TenantNotFound", slug: "nope" });
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
    expect(run.out).toEqual({ applied: [] });
  });

  test("demo creates the demo workspace once and prints a fresh key each time", async () => {
    const first = await cli(["demo"]);
    const second = await cli(["demo"]);
    expect(first.out).toMatchObject({ slug: "demo", created: true });
    expect(second.out).toMatchObject({ slug: "demo", created: false, workspaceId: first.out.workspaceId });
    expect(first.out.key).toMatch(/^lk_/);
    expect(second.out.key).not.toBe(first.out.key);
    const res = await h.request("GET", "/handovers/tenancies/ten-ashby-2b", { key: second.out.key });
    expect([401, 402, 403]).not.toContain(res.status);
  });

  test("an unreachable database is IntegrationUnavailable", async () => {
    const run = await cli(["key", "list", "--workspace", "x"], { databaseUrl: "postgres://postgres@127.0.0.1:1/none" });
    expect(refused(run, "IntegrationUnavailable")).toMatchObject({ integration: "database" });
  });
});
