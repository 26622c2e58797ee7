/** A large document loads in one set-based pass (the time is printed, never asserted). */
import { expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import { importWorkspace } from "../../src/workspace_import/import.ts";

const h = await harness();

test("a document of 100,000 contacts loads, and loads again without a change", async () => {
  const ws = await h.workspace();
  const note = "Line one\nline two\twith a tab and a \\ backslash";
  const contacts = Array.from({ length: 100_000 }, (_, i) => ({
    id: `c-${i}`,
    kind: i % 7 ? "person" : "company",
    name: `Contact ${i}${i % 7 ? "" : " Ltd"}`,
    email: `contact.${i}@example.test`,
    mobile: `07700 ${String(900000 + (i % 100000)).slice(-6)}`,
    addressLine1: `${i} High Street`,
    addressTown: "Leeds",
    addressPostcode: "ls6 3be",
    roles: [i % 3 ? "tenant" : "landlord"],
    notes: i % 10 ? null : note,
  }));
  let started = performance.now();
  expect(await importWorkspace(h.database.db, ws.slug, { contacts })).toMatchObject({ contacts: 100_000 });
  const first = performance.now() - started;
  started = performance.now();
  await importWorkspace(h.database.db, ws.slug, { contacts });
  const second = performance.now() - started;
  console.log(`100,000 contacts: first load ${Math.round(first)} ms, second (no change) ${Math.round(second)} ms`);
  const [row] = await h.database.db`
    select count(*)::int as n, max(revision) as revision, count(*) filter (where notes = ${note})::int as escaped
    from contacts where workspace_id = ${ws.id}`;
  expect(row).toEqual({ n: 100_000, revision: 1, escaped: 10_000 });
}, 180_000);
