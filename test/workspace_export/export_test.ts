/**
 * The workspace export (README, The import document): a document the import takes, carrying every collection, that
 * imports into another workspace as the same data and into its own workspace as no change; repairs without clocks;
 * nothing of another workspace; an unknown workspace refused as the other CLI commands refuse.
 */
import { describe, expect, test } from "bun:test";
import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { ulid } from "ulid";
import { exportWorkspace } from "../../src/workspace_export/export.ts";
import { demoDocument } from "../../src/workspace_import/demo_document.ts";
import { importWorkspace } from "../../src/workspace_import/import.ts";
import {
  collections,
  Repair,
  RepairAccessAttempt,
  RepairMilestone,
  WorkspaceDocument,
  type WorkspaceDoc,
} from "../../src/workspace_import/schema.ts";
import { validateDocument } from "../../src/workspace_import/validate.ts";
import { dumpWorkspace } from "../support/dump.ts";
import { harness } from "../support/harness.ts";
import { runCli } from "../support/service.ts";
import { fullDocument } from "../workspace_import/fixtures.ts";
import { expectStatus, fromNow, repairCalls, repairWorld } from "../maintenance_pro/repair_fixtures.ts";

const h = await harness();
const db = h.database.db;
const demo = demoDocument("2026-11-22", Date.parse("2026-11-22T10:00:00Z"));

/** A workspace with no user and no module, made as the demo's is: an import gives it everything it has. */
async function bareWorkspace(): Promise<{ id: string; slug: string }> {
  const id = ulid();
  const slug = `x-${id.toLowerCase()}`;
  await db`insert into workspaces (id, slug, name) values (${id}, ${slug}, 'Export test')`;
  return { id, slug };
}

/** A bare workspace holding `doc`. */
async function holding(doc: unknown): Promise<{ id: string; slug: string }> {
  const ws = await bareWorkspace();
  await importWorkspace(db, ws.slug, doc);
  return ws;
}

const cli = (args: string[], stdin?: string) => runCli(args, { databaseUrl: h.database.url, stdin });

/** How many records each collection of a document holds (a single object counts 1). */
function counts(doc: Partial<WorkspaceDoc>): Record<string, number> {
  return Object.fromEntries(
    collections.map((c) => {
      const value = doc[c];
      return [c, Array.isArray(value) ? value.length : value ? 1 : 0];
    }),
  );
}

/** Every object key anywhere in a value. */
function keysIn(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const v of value) keysIn(v, into);
  else if (value && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      into.add(k);
      keysIn(v, into);
    }
  }
  return into;
}

/**
 * The paths of the objects in `value` whose fields are not those `schema` declares, in its order: an export writes
 * every field the import takes (null when it has none; only a field that cannot be null, as a block fact, may be
 * left out), so a field the import gains must be exported too.
 */
function unlikeSchema(schema: TSchema, value: unknown, path = ""): string[] {
  if (value === null || value === undefined) return [];
  const s = schema as TSchema & {
    anyOf?: TSchema[];
    items?: TSchema;
    properties?: Record<string, TSchema>;
    required?: string[];
  };
  if (s.anyOf) return unlikeSchema(s.anyOf.find((b) => b.type !== "null") ?? s, value, path);
  if (s.items && Array.isArray(value)) return value.flatMap((v, i) => unlikeSchema(s.items!, v, `${path}/${i}`));
  if (!s.properties || typeof value !== "object") return [];
  const fields = value as Record<string, unknown>;
  const nullable = (p: TSchema) => (p.anyOf as TSchema[] | undefined)?.some((b) => b.type === "null") ?? false;
  const wanted = Object.entries(s.properties).filter(([k, p]) => k in fields || nullable(p) || s.required?.includes(k));
  const own = JSON.stringify(Object.keys(fields)) === JSON.stringify(wanted.map(([k]) => k)) ? [] : [path];
  return [...own, ...Object.entries(s.properties).flatMap(([k, p]) => unlikeSchema(p, fields[k], `${path}/${k}`))];
}

describe("export", () => {
  test("the demo's export validates, holds its records, imports into a new workspace as the same text", async () => {
    const a = await holding(demo);
    const run = await cli(["export", "--workspace", a.slug]);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    const exported = run.out as WorkspaceDoc;
    expect(Value.Check(WorkspaceDocument, exported)).toBe(true);
    expect(() => validateDocument(exported)).not.toThrow();
    expect(Object.keys(exported)).toEqual([...collections]);
    expect(unlikeSchema(WorkspaceDocument, exported)).toEqual([]);
    expect(counts(exported)).toEqual(counts(demo));
    for (const c of collections) {
      const listed = demo[c];
      if (!Array.isArray(listed) || c === "entitlements") continue;
      const idOf = (r: object) => ("id" in r ? r.id : "contactId" in r ? r.contactId : JSON.stringify(r));
      const ids = (rows: object[]) => rows.map(idOf).sort();
      expect(ids(exported[c] as object[])).toEqual(ids(listed as object[]));
    }
    expect(exported.entitlements).toEqual([...demo.entitlements!].sort());
    expect(exported.hazardSettings).toEqual({ regime: "social" });

    const b = await bareWorkspace();
    const imported = await cli(["import", "--workspace", b.slug, "-"], run.stdout);
    expect(imported.code).toBe(0);
    expect(imported.out).toEqual(counts(demo));
    const again = await cli(["export", "--workspace", b.slug]);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(run.stdout);
  });

  test("a document using every collection and nested list comes back the same from a second workspace", async () => {
    const doc = fullDocument();
    const a = await holding(doc);
    const exported = await exportWorkspace(db, a.id);
    expect(counts(exported)).toEqual(counts(doc as Partial<WorkspaceDoc>));
    expect(unlikeSchema(WorkspaceDocument, exported)).toEqual([]);
    const b = await holding(exported);
    expect(JSON.stringify(await exportWorkspace(db, b.id))).toBe(JSON.stringify(exported));
  });

  test("imported into its own workspace, an export changes nothing, not even a revision", async () => {
    const a = await h.workspace();
    await importWorkspace(db, a.slug, demo);
    const before = await dumpWorkspace(db, a.id);
    const exported = await exportWorkspace(db, a.id);
    await importWorkspace(db, a.slug, exported);
    expect(await dumpWorkspace(db, a.id)).toEqual(before);
  });

  test("two exports of unchanged data are the same text", async () => {
    const a = await holding(demo);
    expect(JSON.stringify(await exportWorkspace(db, a.id))).toBe(JSON.stringify(await exportWorkspace(db, a.id)));
  });
});

describe("the exported repairs", () => {
  test("carry their fields, milestones and access attempts as the import takes them, and no clock", async () => {
    const a = await holding(demo);
    const { repairs } = await exportWorkspace(db, a.id);
    expect(repairs!.length).toBe(demo.repairs!.length);
    for (const r of repairs!) expect(Object.keys(r)).toEqual(Object.keys(Repair.properties));
    const milestones = repairs!.flatMap((r) => r.milestones ?? []);
    const attempts = repairs!.flatMap((r) => r.accessAttempts ?? []);
    expect(milestones.length).toBeGreaterThan(0);
    expect(attempts.length).toBeGreaterThan(0);
    for (const m of milestones) expect(Object.keys(m)).toEqual(Object.keys(RepairMilestone.properties));
    for (const x of attempts) expect(Object.keys(x)).toEqual(Object.keys(RepairAccessAttempt.properties));
    expect([...keysIn(repairs)].filter((k) => /clock|due|revision|updated/i.test(k))).toEqual([]);

    // Each repair's milestones and attempts are the document's, the same instants, in the order the API keeps.
    type Timed = { kind?: string; id?: string; at: string };
    const pairs = (list: readonly Timed[] | null | undefined) =>
      (list ?? []).map((x): [string, number] => [x.kind ?? x.id ?? "", Date.parse(x.at)]);
    const inTime = (list: readonly Timed[] | null | undefined) => pairs(list).sort((p, q) => p[1] - q[1]);
    for (const given of demo.repairs!) {
      const r = repairs!.find((x) => x.id === given.id)!;
      expect(pairs(r.milestones)).toEqual(inTime(given.milestones));
      expect(pairs(r.accessAttempts)).toEqual(inTime(given.accessAttempts));
      expect([r.status, r.hazard, r.reference]).toEqual([
        given.status ?? null,
        given.hazard ?? null,
        given.reference ?? null,
      ]);
    }
  });
});

describe("a repair made through the API", () => {
  test("exports as the API answers it, without clocks, and comes back the same from a second workspace", async () => {
    const world = await repairWorld(h);
    const call = repairCalls(h, world);
    const day = 86_400_000;
    const made = expectStatus(await call.report({ awareAt: fromNow(-3 * day) }), 201);
    const triage = { expectedRevision: 1, hazard: "significant", hhsrsHazard: "damp_and_mould_growth" };
    expectStatus(await call.triage(made.id, triage), 200);
    expectStatus(await call.access(made.id, { at: fromNow(-2 * day), outcome: "no_answer", note: " Nobody in " }), 200);
    const investigated = { expectedRevision: 3, kind: "investigated", at: fromNow(-day), outcome: "hazard_confirmed" };
    expectStatus(await call.milestone(made.id, investigated), 200);
    const answer = expectStatus(await call.get(made.id), 200);
    expect(answer.clocks.length).toBeGreaterThan(0);

    const exported = await exportWorkspace(db, world.ws.id);
    expect(() => validateDocument(exported)).not.toThrow();
    const repair = exported.repairs!.find((r) => r.id === made.id)!;
    const same = (k: string, v: unknown) => (k.endsWith("At") && v ? Date.parse(v as string) : v);
    // Every field exported is one the API answers, with the same value (instants to the microsecond here).
    expect(Object.keys(repair).filter((k) => !(k in answer))).toEqual([]);
    for (const [k, v] of Object.entries(repair)) expect([k, same(k, v)]).toEqual([k, same(k, answer[k])]);
    expect(repair.milestones).toEqual(answer.milestones);
    expect(repair.accessAttempts).toEqual(answer.accessAttempts);
    expect("clocks" in repair).toBe(false);

    const b = await holding(exported);
    expect(JSON.stringify(await exportWorkspace(db, b.id))).toBe(JSON.stringify(exported));
  });
});

describe("a workspace's export", () => {
  test("holds nothing of another workspace, even one using the same ids", async () => {
    const a = await holding(demo);
    const before = JSON.stringify(await exportWorkspace(db, a.id));
    // Another workspace with every id of the demo (its dates and instants a year on) and records of its own.
    const other = await holding(demoDocument("2027-11-22", Date.parse("2027-11-22T10:00:00Z")));
    await importWorkspace(db, other.slug, fullDocument());
    const theirs = JSON.stringify(await exportWorkspace(db, other.id));
    expect(theirs).not.toBe(before);
    expect(JSON.stringify(await exportWorkspace(db, a.id))).toBe(before);
  });

  test("of an unknown workspace is refused: TenantNotFound on stderr, exit 2, nothing on stdout", async () => {
    const run = await cli(["export", "--workspace", "no-such-workspace"]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.err).toEqual({ _tag: "TenantNotFound", slug: "no-such-workspace" });
  });
});
