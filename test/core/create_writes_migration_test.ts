/**
 * sql/0021: the append-heavy tables a company creation fills (contacts, activity_log, events, idempotency_ledger) keep
 * no foreign key to workspaces, every other table keeps its own, rows made before stay; the ident domain's check is
 * written without a bounded repetition and admits exactly what the old rule admitted.
 */
import { expect, test } from "bun:test";
import { ulid } from "ulid";
import { databaseMigratedBefore } from "../support/migrated_before.ts";
import { harness } from "../support/harness.ts";
import type { Db } from "../../src/core/db.ts";
import { migrate } from "../../src/core/migrate.ts";
import { createWorkspace } from "../../src/core/workspaces.ts";

const h = await harness();
const db = h.database.db;

/** `table → referenced table` of every foreign key of the public schema to workspaces. */
async function workspaceKeys(on: Db): Promise<string[]> {
  const rows = await on<{ name: string }[]>`
    select conrelid::regclass::text as name from pg_constraint
    where contype = 'f' and confrelid = 'workspaces'::regclass order by 1`;
  return rows.map((r) => r.name);
}

test("sql/0021 drops the workspace keys of the four tables a creation fills, no other, keeping rows", async () => {
  const { db: fresh, drop } = await databaseMigratedBefore("0021");
  try {
    const ws = await createWorkspace(fresh, { slug: "before", name: "Before" });
    await fresh`insert into contacts (workspace_id, id, kind, name) values (${ws.id}, 'c-1', 'company', 'Acme')`;
    await fresh`insert into activity_log (workspace_id, id, action, subject_kind, subject_id)
                values (${ws.id}, 'a-1', 'contacts.created', 'contact', 'c-1')`;
    await fresh`insert into events (workspace_id, id, type, subject_kind, subject_id, data, actor_kind)
                values (${ws.id}, 'e-1', 'company.created', 'company', 'c-1', '{}', 'cli')`;
    await fresh`insert into idempotency_ledger (workspace_id, operation_id, request_id, fingerprint, status, body)
                values (${ws.id}, 'contacts.createCompany', 'r-1', 'f', 201, '{}')`;
    const keysBefore = await workspaceKeys(fresh);
    const dropped = ["activity_log", "contacts", "events", "idempotency_ledger"];
    for (const t of dropped) expect(keysBefore).toContain(t);

    expect((await migrate(fresh)).applied[0]).toBe("0021_create_writes.sql");
    // Tables of later migrations (repair_references, …) may add keys of their own: only the earlier ones are compared.
    const keysAfter = (await workspaceKeys(fresh)).filter((t) => keysBefore.includes(t));
    expect(keysAfter).toEqual(keysBefore.filter((t) => !dropped.includes(t)));
    const [counts] = await fresh`
      select (select count(*)::int from contacts) as contacts, (select count(*)::int from activity_log) as activity,
             (select count(*)::int from events) as events, (select count(*)::int from idempotency_ledger) as ledger`;
    expect(counts).toEqual({ contacts: 1, activity: 1, events: 1, ledger: 1 });
  } finally {
    await drop();
  }
});

test("the ident domain admits exactly the values of 1 to 64 characters of A-Z a-z 0-9 _ -, as before", async () => {
  const values = [
    "",
    "a",
    "-",
    "_",
    "A-z_09",
    ulid(),
    "x".repeat(63),
    "x".repeat(64),
    "x".repeat(65),
    "_".repeat(64),
    "x".repeat(1000),
    "a b",
    " a",
    "a.b",
    "a/b",
    "a\n",
    "\na",
    "abc\nd",
    "é",
    `${"x".repeat(63)}é`,
    "ﬁ",
  ];
  for (const value of values) {
    const [row] = await db<{ old: boolean }[]>`select ${value} ~ '^[A-Za-z0-9_-]{1,64}$' as old`;
    const admitted = await db`select ${value}::ident`.then(
      () => true,
      (e: { code?: string }) => {
        expect(e.code).toBe("23514");
        return false;
      },
    );
    expect({ value, admitted }).toEqual({ value, admitted: row!.old });
  }
  // Without the bounded repetition (the reason for the change; the rule itself is checked above).
  const checks = await db<{ def: string }[]>`
    select pg_get_constraintdef(oid) as def from pg_constraint where contypid = 'ident'::regtype`;
  expect(checks.length).toBe(1);
  expect(checks[0]!.def).not.toContain("{1,64}");
});

test("an ident value breaking the rule is still refused in the tables that lost their workspace key", async () => {
  const ws = await createWorkspace(db, { slug: `w-${ulid().toLowerCase()}`, name: "W" });
  const bad = db`insert into activity_log (workspace_id, id, action, subject_kind, subject_id)
                 values (${ws.id}, 'a b', 'contacts.created', 'contact', 'c-1')`;
  await expect(bad).rejects.toMatchObject({ code: "23514" });
});
