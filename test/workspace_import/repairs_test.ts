/**
 * Repairs in the workspace document: their fields imported and read back through the repairs API with the clocks
 * computed, idempotent loads, the reference count, refusals by JSON path, and one row whichever writer wrote it.
 */
import { describe, expect, test } from "bun:test";
import { harness, type TestWorkspace } from "../support/harness.ts";
import { dumpDatabase } from "../support/dump.ts";
import { importWorkspace } from "../../src/workspace_import/import.ts";
import { ImportRejected } from "../../src/workspace_import/errors.ts";
import { expectStatus, fromNow } from "../maintenance_pro/repair_fixtures.ts";

const h = await harness();
const db = h.database.db;
const hour = 3_600_000;
const policyVersion = "awaabs-law-2025-10-27";

/** The records repairs name: a property with two units, a tenancy of the first, its tenant, a member of staff. */
function places(extraUsers: { id: string; name: string; role: string }[] = []) {
  return {
    users: [{ id: "u-staff", name: "Sam Staff", role: "staff" }, ...extraUsers],
    contacts: [{ id: "c-ten", kind: "person", name: "Tom Tenant", roles: ["tenant"] }],
    properties: [{ id: "p-1", label: "4 Mill Lane" }],
    units: [
      { id: "un-1", propertyId: "p-1", label: "Flat 1" },
      { id: "un-2", propertyId: "p-1", label: "Flat 2" },
    ],
    tenancies: [{ id: "t-1", unitId: "un-1", status: "active", occupants: [{ contactId: "c-ten" }] }],
  };
}

/** Where a repair is, who reported it and how: the fields every reported repair has. */
const report = (title: string) => ({
  propertyId: "p-1",
  unitId: "un-1",
  tenancyId: "t-1",
  title,
  category: "damp_mould",
  reporter: { kind: "tenant", contactId: "c-ten", name: null },
  channel: "phone",
});
/** The fields of a triage by u-staff under the social regime. */
const triage = (hazard: string, hhsrsHazard: string | null, triagedAt: string) => ({
  hazard,
  hhsrsHazard,
  regime: "social",
  policyVersion,
  triagedAt,
  triagedByUserId: "u-staff",
});
const milestone = (kind: string, at: string, fields: Record<string, unknown> = {}) => ({
  kind,
  at,
  recordedByUserId: "u-staff",
  ...fields,
});

/** Records as the tests edit them. */
// biome-ignore lint/suspicious/noExplicitAny: the tests edit the document's records freely, as JSON
type Records = any[];

/** A repair in each of the five statuses, and a legacy record (instants near now as of the call). */
function repairsDocument(): { repairs: Records } & Record<string, unknown> {
  return {
    ...places(),
    repairs: [
      {
        id: "r-reported",
        reference: "R-1",
        status: "reported",
        ...report("  Dripping kitchen tap "),
        category: "leak",
        reporter: { kind: "tenant", contactId: "c-ten", name: " Tom Tenant " },
        awareAt: "2026-06-01T10:00:00+01:00",
      },
      {
        id: "r-triaged",
        reference: "R-2",
        status: "triaged",
        ...report("Sparking socket in the kitchen"),
        category: "electrical",
        awareAt: fromNow(-2 * hour),
        ...triage("emergency", "electrical_hazards", fromNow(-hour)),
        triageNote: "Tenant told to keep the circuit off.",
        accessAttempts: [{ id: "aa-1", at: fromNow(-hour / 2), outcome: "no_answer" }],
      },
      {
        id: "r-in-progress",
        reference: "R-3",
        status: "in_progress",
        ...report("Black mould on the bedroom wall"),
        description: "Behind the wardrobe, about a metre across.",
        location: "Bedroom",
        awareAt: "2026-06-01T09:00:00Z",
        ...triage("significant", "damp_and_mould_growth", "2026-06-01T10:00:00Z"),
        // Listed out of order: stored ordered by `at`.
        milestones: [
          milestone("summary_sent", "2026-06-04T09:00:00Z", { method: "email", recordedAt: "2026-06-04T09:05:00Z" }),
          milestone("investigated", "2026-06-03T10:00:00+01:00", { outcome: "hazard_confirmed", note: " Wet wall " }),
        ],
      },
      {
        id: "r-completed",
        reference: "R-4",
        status: "completed",
        ...report("Mould around the window"),
        awareAt: "2026-05-01T09:00:00Z",
        ...triage("significant", "damp_and_mould_growth", "2026-05-01T09:30:00Z"),
        milestones: [
          milestone("investigated", "2026-05-20T09:00:00Z", { outcome: "no_hazard" }),
          milestone("summary_sent", "2026-05-21T09:00:00Z", { method: "post" }),
          milestone("completed", "2026-05-22T09:00:00Z"),
        ],
      },
      {
        id: "r-cancelled",
        reference: "R-5",
        status: "cancelled",
        ...report("Damp patch by the door"),
        awareAt: fromNow(-24 * hour),
        ...triage("significant", "damp_and_mould_growth", fromNow(-23 * hour)),
        cancelReason: "Reported twice: the same as R-3.",
        cancelledAt: fromNow(-hour),
      },
      { id: "r-legacy", reference: "R-9", status: "awaiting_contractor", propertyId: "p-1", unitId: "un-2" },
    ],
  };
}

/** The error an import throws (fails the test when it succeeds). */
async function rejection(slug: string, doc: unknown): Promise<Record<string, unknown>> {
  try {
    await importWorkspace(db, slug, doc);
  } catch (error) {
    if (error instanceof ImportRejected) return error.toBody();
    throw error;
  }
  throw new Error("the import was accepted");
}

const get = (ws: TestWorkspace, id: string) => h.request("GET", `/maintenance-pro/repairs/${id}`, { key: ws.key });
const clocksOf = (repair: { clocks: { kind: string; status: string }[] }) =>
  repair.clocks.map((c) => `${c.kind} ${c.status}`);

describe("imported repairs, read through the API", () => {
  test("a repair in each status keeps its fields, stored as the API stores them, clocks computed", async () => {
    const ws = await h.workspace();
    await importWorkspace(db, ws.slug, repairsDocument());

    const reported = expectStatus(await get(ws, "r-reported"), 200);
    expect(reported).toMatchObject({
      reference: "R-1",
      status: "reported",
      title: "Dripping kitchen tap",
      reporter: { kind: "tenant", contactId: "c-ten", name: "Tom Tenant" },
      awareAt: "2026-06-01T09:00:00.000Z",
      hazard: null,
      milestones: [],
      accessAttempts: [],
      clocks: [],
      revision: 1,
    });

    const triaged = expectStatus(await get(ws, "r-triaged"), 200);
    expect(triaged).toMatchObject({
      status: "triaged",
      hazard: "emergency",
      regime: "social",
      triagedByUserId: "u-staff",
    });
    expect(triaged.accessAttempts).toEqual([
      { id: "aa-1", at: expect.any(String), outcome: "no_answer", note: null, recordedAt: expect.any(String) },
    ]);
    expect(clocksOf(triaged)).toEqual(["emergency_investigate running", "emergency_make_safe running"]);
    expect(triaged.clocks[0]).toMatchObject({ basis: "statutory", rule: `${policyVersion}/emergency_investigate` });

    const inProgress = expectStatus(await get(ws, "r-in-progress"), 200);
    expect(inProgress.milestones).toEqual([
      {
        kind: "investigated",
        at: "2026-06-03T09:00:00.000Z",
        outcome: "hazard_confirmed",
        method: null,
        note: "Wet wall",
        recordedAt: "2026-06-03T09:00:00.000Z",
        recordedByUserId: "u-staff",
      },
      {
        kind: "summary_sent",
        at: "2026-06-04T09:00:00.000Z",
        outcome: null,
        method: "email",
        note: null,
        recordedAt: "2026-06-04T09:05:00.000Z",
        recordedByUserId: "u-staff",
      },
    ]);
    expect(clocksOf(inProgress)).toEqual([
      "significant_investigate met",
      "written_summary met",
      "safety_work_start breached",
      "preventative_work_start breached",
    ]);

    expect(clocksOf(expectStatus(await get(ws, "r-completed"), 200))).toEqual([
      "significant_investigate met_late",
      "written_summary met",
    ]);
    const cancelled = expectStatus(await get(ws, "r-cancelled"), 200);
    expect(cancelled).toMatchObject({ status: "cancelled", cancelReason: "Reported twice: the same as R-3." });
    expect(cancelled.clocks).toMatchObject([
      { kind: "significant_investigate", status: "ceased", ceasedReason: "cancelled" },
    ]);

    const legacy = expectStatus(await get(ws, "r-legacy"), 200);
    expect(legacy).toMatchObject({
      status: "awaiting_contractor",
      unitId: "un-2",
      title: null,
      reporter: null,
      clocks: [],
    });
  });

  test("the repairs list orders imported repairs by their earliest open clock, then createdAt and id", async () => {
    const ws = await h.workspace();
    await importWorkspace(db, ws.slug, repairsDocument());
    const list = expectStatus(await h.request("GET", "/maintenance-pro/repairs", { key: ws.key }), 200);
    // Breached since June, then due within a day; none open (one import: one createdAt) by id.
    expect(list.map((r: { id: string }) => r.id)).toEqual([
      "r-in-progress",
      "r-triaged",
      "r-cancelled",
      "r-completed",
      "r-legacy",
      "r-reported",
    ]);
    const breached = expectStatus(
      await h.request("GET", "/maintenance-pro/repairs?clock=breached", { key: ws.key }),
      200,
    );
    expect(breached.map((r: { id: string }) => r.id)).toEqual(["r-in-progress"]);
  });

  test("loading the same document again changes nothing", async () => {
    const ws = await h.workspace();
    const doc = repairsDocument();
    await importWorkspace(db, ws.slug, doc);
    const before = await dumpDatabase(db);
    await importWorkspace(db, ws.slug, structuredClone(doc));
    expect(await dumpDatabase(db)).toEqual(before);
  });

  test("a changed repair is replaced as a whole, its revision up by one", async () => {
    const ws = await h.workspace();
    const doc = repairsDocument();
    await importWorkspace(db, ws.slug, doc);
    doc.repairs[1].accessAttempts = [];
    await importWorkspace(db, ws.slug, doc);
    expect(expectStatus(await get(ws, "r-triaged"), 200)).toMatchObject({ accessAttempts: [], revision: 2 });
    expect(expectStatus(await get(ws, "r-reported"), 200)).toMatchObject({ revision: 1 });
  });

  test("the workspace's reference count goes on above the highest imported R-<n>", async () => {
    const ws = await h.workspace();
    const doc = repairsDocument();
    doc.repairs[0].reference = "R-41";
    doc.repairs[1].reference = "OLD-99";
    await importWorkspace(db, ws.slug, doc);
    const body = { ...report("New leak"), category: "leak", reporter: { kind: "tenant" } };
    const made = await h.request("POST", "/maintenance-pro/repairs", { key: ws.key, body });
    expect(expectStatus(made, 201).reference).toBe("R-42");
  });
});

describe("refused repairs", () => {
  type Edit = (repairs: Records) => void;
  const refused: [string, Edit, string, RegExp][] = [
    ["an unknown tenancy", (r) => (r[2].tenancyId = "t-9"), "/repairs/2/tenancyId", /no tenancy/],
    ["a tenancy of another unit", (r) => (r[2].unitId = "un-2"), "/repairs/2/tenancyId", /tenancy of unit "un-2"/],
    ["a tenancy without its unit", (r) => delete r[2].unitId, "/repairs/2/unitId", /unitId/],
    ["an unknown reporter", (r) => (r[0].reporter.contactId = "c-9"), "/repairs/0/reporter/contactId", /no contact/],
    ["an unknown triager", (r) => (r[1].triagedByUserId = "u-9"), "/repairs/1/triagedByUserId", /no user/],
    [
      "an unknown recorder",
      (r) => (r[3].milestones[1].recordedByUserId = "u-9"),
      "/repairs/3/milestones/1/recordedByUserId",
      /no user/,
    ],
    ["an hhsrsHazard with hazard none", (r) => (r[1].hazard = "none"), "/repairs/1/hhsrsHazard", /none/],
    ["a hazard without its awareAt", (r) => (r[1].awareAt = null), "/repairs/1/awareAt", /needs its awareAt/],
    ["an unknown rule set", (r) => (r[1].policyVersion = "v0"), "/repairs/1/policyVersion", /rule set/],
    ["a reported repair with a hazard", (r) => (r[1].status = "reported"), "/repairs/1/hazard", /not triaged/],
    [
      "a summary before any investigation",
      (r) => r[3].milestones.shift(),
      "/repairs/3/milestones/0/kind",
      /needs an earlier investigated/,
    ],
    [
      "safety work after an investigation that found no hazard",
      (r) => r[3].milestones.push(milestone("safety_work_started", "2026-05-21T10:00:00Z")),
      "/repairs/3/milestones/3/kind",
      /hazard_confirmed/,
    ],
    ["a kind recorded twice", (r) => r[3].milestones.push(r[3].milestones[1]), "/repairs/3/milestones/3/kind", /twice/],
    [
      "an investigation without its outcome",
      (r) => delete r[3].milestones[0].outcome,
      "/repairs/3/milestones/0/outcome",
      /outcome/,
    ],
    [
      "a milestone before awareAt",
      (r) => (r[3].milestones[0].at = "2026-04-30T09:00:00Z"),
      "/repairs/3/milestones/0/at",
      /awareAt/,
    ],
    [
      "a completed repair without its milestone",
      (r) => r[3].milestones.pop(),
      "/repairs/3/status",
      /completed milestone/,
    ],
    ["a cancelled repair without cancelledAt", (r) => delete r[4].cancelledAt, "/repairs/4/cancelledAt", /cancelledAt/],
    ["cancelledAt on an open repair", (r) => (r[1].cancelledAt = fromNow(0)), "/repairs/1/cancelledAt", /cancelled/],
    ["milestones on a legacy record", (r) => (r[5].milestones = r[3].milestones), "/repairs/5/milestones", /legacy/],
    [
      "an access attempt before awareAt",
      (r) => (r[1].accessAttempts[0].at = "2026-01-01T00:00:00Z"),
      "/repairs/1/accessAttempts/0/at",
      /awareAt/,
    ],
    [
      "an access attempt listed twice",
      (r) => r[1].accessAttempts.push(r[1].accessAttempts[0]),
      "/repairs/1/accessAttempts/1",
      /Duplicate/,
    ],
  ];
  test.each(refused)(
    "a repair with %s is refused naming its path, and nothing is written",
    async (_name, edit, path, message) => {
      const ws = await h.workspace();
      const doc = repairsDocument();
      edit(doc.repairs);
      const before = await dumpDatabase(db);
      const error = await rejection(ws.slug, doc);
      expect(error).toMatchObject({ _tag: "ImportRejected", path });
      expect(error.message).toMatch(message);
      expect(await dumpDatabase(db)).toEqual(before);
    },
  );

  test("an old document's repair, with none of the new fields, still loads", async () => {
    const ws = await h.workspace();
    const old = { ...places(), repairs: [{ id: "r-old", reference: "REP-1", status: "completed", propertyId: "p-1" }] };
    await importWorkspace(db, ws.slug, old);
    expect(expectStatus(await get(ws, "r-old"), 200)).toMatchObject({ status: "completed", title: null, clocks: [] });
  });
});

describe("one way to write a row", () => {
  test("a repair reported and worked through the API and the same repair imported store identical rows", async () => {
    const api = await h.workspace();
    const imported = await h.workspace();
    await importWorkspace(db, api.slug, places());
    // The API's writes record the key's user (the owner of `api`): the other workspace has that user too.
    await importWorkspace(db, imported.slug, places([{ id: api.ownerUserId, name: "The API's user", role: "staff" }]));

    const call = (path: string, body: unknown) =>
      h.request("POST", `/maintenance-pro/repairs${path}`, { key: api.key, body });
    const body = {
      ...report("  Black mould behind the wardrobe "),
      description: "About a metre across. ",
      location: " Bedroom",
      reporter: { kind: "tenant", contactId: "c-ten", name: " Tom Tenant" },
      awareAt: "2026-06-01T10:00:00+01:00",
      hazard: "significant",
      hhsrsHazard: "damp_and_mould_growth",
    };
    let worked = expectStatus(await call("", body), 201);
    const steps: [string, Record<string, unknown>][] = [
      ["/access-attempts", { at: "2026-06-02T09:00:00Z", outcome: "no_answer", note: " Nobody in " }],
      ["/milestones", { kind: "investigated", at: "2026-06-03T09:00:00Z", outcome: "hazard_confirmed" }],
      ["/milestones", { kind: "summary_sent", at: "2026-06-04T09:00:00.5+01:00", method: "email", note: "Sent " }],
    ];
    for (const [path, step] of steps) {
      const expected = path === "/milestones" ? { expectedRevision: worked.revision } : {};
      worked = expectStatus(await call(`/${worked.id}${path}`, { ...expected, ...step }), 200);
    }
    let cancelled = expectStatus(await call("", { ...body, awareAt: fromNow(-hour) }), 201);
    cancelled = expectStatus(await call(`/${cancelled.id}/cancel`, { reason: " A duplicate " }), 200);

    // The document record is the repair as answered, less what is computed or counted here, and its photos (no
    // document carries photos: the rows compared have none).
    const record = ({ clocks, revision, updatedAt, photos, ...fields }: Record<string, unknown>) => fields;
    await importWorkspace(db, imported.slug, { repairs: [record(worked), record(cancelled)] });

    // `revision` counts this database's writes of the row: four through the API, one import.
    const rows = (workspaceId: string) => db`
      select to_jsonb(r) - 'workspace_id' - 'updated_at' - 'revision' as row
      from repairs r where workspace_id = ${workspaceId} order by id`;
    const written = await rows(api.id);
    expect(written).toHaveLength(2);
    expect(written[0]!.row).toMatchObject({ open_due_at: expect.any(String), milestones: expect.any(Array) });
    expect(await rows(imported.id)).toEqual(written);
  });
});
