/**
 * A row the database refuses while the import COPYs it into its staging table: the import ends with ImportRejected
 * naming the table, writes nothing, and the CLI exits 2. Before the postgres.js patch (test/core/postgres_copy_test.ts)
 * such an import never answered, holding its transaction.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { harness } from "../support/harness.ts";
import { importWorkspace, loadPlan, prepareDocument } from "../../src/workspace_import/import.ts";
import { ImportRejected } from "../../src/workspace_import/errors.ts";
import { countRows, fullDocument } from "./fixtures.ts";

const h = await harness();
const db = h.database.db;
const root = join(import.meta.dir, "..", "..");
const scratch = mkdtempSync(join(tmpdir(), "lettings-copy-refused-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The outcome of a promise as a value: the tagged error's body, or "loaded". Never waits more than 20 s. */
async function outcome(promise: Promise<unknown>): Promise<unknown> {
  let timer: Timer;
  const pending = new Promise((r) => (timer = setTimeout(r, 20_000, "no answer after 20 s")));
  return Promise.race([
    promise.then(
      () => "loaded",
      (error) => (error instanceof ImportRejected ? error.toBody() : `failed: ${error}`),
    ),
    pending,
  ]).finally(() => clearTimeout(timer));
}

describe("validation bypassed: a planned row the database cannot take", () => {
  test("a date Postgres refuses ends the load with ImportRejected naming the table, line and column; nothing is written", async () => {
    const ws = await h.workspace();
    const before = await countRows(db);
    const plan = prepareDocument(fullDocument());
    plan.rows.tenancies![0]!.starts_on = "2026-02-30";
    expect(await outcome(db.begin((tx) => loadPlan(tx, ws.id, plan)))).toEqual({
      _tag: "ImportRejected",
      path: "",
      message: expect.stringMatching(
        /^The database refused the tenancies rows: .*"2026-02-30".* \(COPY import_tenancies, line 1, column starts_on/,
      ),
    });
    expect(await countRows(db)).toEqual(before);
  });

  test("a NUL character in a free-text field (the hang that was reported) is refused the same way", async () => {
    const ws = await h.workspace();
    const before = await countRows(db);
    const plan = prepareDocument(fullDocument());
    plan.rows.contacts![1]!.notes = "keys with\u0000the neighbour";
    expect(await outcome(db.begin((tx) => loadPlan(tx, ws.id, plan)))).toMatchObject({
      _tag: "ImportRejected",
      message: expect.stringMatching(/^The database refused the contacts rows: .*0x00/),
    });
    expect(await countRows(db)).toEqual(before);
  });
});

describe("a valid document whose COPY the server refuses", () => {
  // The server refuses what validation accepts: a constraint an event trigger adds to the import's staging table
  // of contacts as it is created (only in this file's database).
  const refusedName = "Refused By The Server";
  beforeAll(async () => {
    await db.unsafe(`
      create function refuse_in_import_contacts() returns event_trigger language plpgsql as $$
      begin
        if exists (select 1 from pg_event_trigger_ddl_commands() d join pg_class c on c.oid = d.objid
                   where d.object_type = 'table' and c.relname = 'import_contacts') then
          alter table pg_temp.import_contacts add constraint refused check (name <> '${refusedName}');
        end if;
      end $$;
      create event trigger refuse_in_import_contacts on ddl_command_end when tag in ('CREATE TABLE')
        execute function refuse_in_import_contacts();`);
  });
  afterAll(async () => {
    await db.unsafe(`drop event trigger refuse_in_import_contacts; drop function refuse_in_import_contacts();`);
  });

  /** The full document with the second contact named as the server refuses. */
  function refusedDocument() {
    const doc = fullDocument();
    doc.contacts[1]!.name = refusedName;
    return doc;
  }

  test("importWorkspace answers ImportRejected and writes nothing; the same document otherwise loads", async () => {
    const ws = await h.workspace();
    const before = await countRows(db);
    expect(await outcome(importWorkspace(db, ws.slug, refusedDocument()))).toMatchObject({
      _tag: "ImportRejected",
      message: expect.stringMatching(/^The database refused the contacts rows: .*"refused".*COPY import_contacts/),
    });
    expect(await countRows(db)).toEqual(before);
    expect(await outcome(importWorkspace(db, ws.slug, fullDocument()))).toBe("loaded");
  });

  test("bun run cli import prints ImportRejected and exits 2, writing nothing", async () => {
    const ws = await h.workspace();
    const before = await countRows(db);
    const file = join(scratch, "refused.json");
    writeFileSync(file, JSON.stringify(refusedDocument()));
    const proc = Bun.spawn([process.execPath, "src/cli.ts", "import", "--workspace", ws.slug, file], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: h.database.url, LOG_LEVEL: "silent" },
      stdout: "pipe",
      stderr: "pipe",
      timeout: 20_000, // a hang ends as a kill, not as exit code 2
    });
    const [stdout, stderr, code] = await Promise.all([
      new Response(proc.stdout).text(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    expect({ code, stdout, signal: proc.signalCode }).toEqual({ code: 2, stdout: "", signal: null });
    expect(JSON.parse(stderr)).toMatchObject({ _tag: "ImportRejected", path: "" });
    expect(await countRows(db)).toEqual(before);
  });
});
