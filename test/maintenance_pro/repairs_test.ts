/** Repairs through REST (README, Repairs and hazard clocks). Report, read, triage, milestones, access attempts, cancel. */
import { describe, expect, test } from "bun:test";
import { ulid } from "ulid";
import { harness } from "../support/harness.ts";
import { importWorkspace } from "../../src/workspace_import/import.ts";
import { expectStatus, fromNow, repairCalls, repairWorld, reportBody } from "./repair_fixtures.ts";

const h = await harness();
const db = h.database.db;
const world = await repairWorld(h);
const call = repairCalls(h, world);
const { ws } = world;

/** A reported repair (not triaged) of the shared world. */
async function reported(fields: Record<string, unknown> = {}) {
  return expectStatus(await call.report(fields), 201);
}

/** A repair triaged at its report: significant damp and mould, aware on 1 June 2026. */
async function triaged(fields: Record<string, unknown> = {}) {
  return reported({
    awareAt: "2026-06-01T09:00:00Z",
    hazard: "significant",
    hhsrsHazard: "damp_and_mould_growth",
    ...fields,
  });
}

const investigated = (expectedRevision: number, outcome = "hazard_confirmed", at = "2026-06-03T10:00:00Z") => ({
  expectedRevision,
  kind: "investigated",
  at,
  outcome,
});

async function activityOf(repairId: string) {
  const rows = await db<{ action: string; actorKeyId: string; actorUserId: string; detail: Record<string, unknown> }[]>`
    select action, actor_key_id, actor_user_id, detail from activity_log
    where workspace_id = ${ws.id} and subject_kind = 'repair' and subject_id = ${repairId} order by id`;
  return [...rows];
}

async function eventsOf(repairId: string) {
  return db<{ type: string; data: Record<string, unknown>; actorKind: string; actorId: string }[]>`
    select type, data, actor_kind, actor_id from events
    where workspace_id = ${ws.id} and subject_kind = 'repair' and subject_id = ${repairId} order by id`;
}

/** A legacy record as an import leaves it: its own status, the other fields null. */
async function legacy(status: string | null = "Awaiting parts") {
  const id = `legacy-${ulid()}`;
  await db`
    insert into repairs (workspace_id, id, reference, status, property_id)
    values (${ws.id}, ${id}, ${`OLD-${id.slice(-4)}`}, ${status}, ${world.propertyId})`;
  return id;
}

describe("reporting a repair", () => {
  test("answers 201 with every field of the repair, reported at revision 1 with no clocks", async () => {
    const before = Date.now();
    const res = await call.report({ description: "  Behind the wardrobe  ", location: "Back bedroom" });
    const repair = expectStatus(res, 201);
    expect(repair).toEqual({
      id: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/),
      reference: expect.stringMatching(/^R-\d+$/),
      propertyId: world.propertyId,
      unitId: world.unitId,
      tenancyId: world.tenancyId,
      title: "Black mould on the bedroom wall",
      description: "Behind the wardrobe",
      location: "Back bedroom",
      category: "damp_mould",
      reporter: { kind: "tenant", contactId: world.tenantId, name: null },
      channel: "phone",
      awareAt: repair.createdAt,
      status: "reported",
      hazard: null,
      hhsrsHazard: null,
      regime: null,
      policyVersion: null,
      triagedAt: null,
      triagedByUserId: null,
      milestones: [],
      triageNote: null,
      accessAttempts: [],
      photos: [],
      clocks: [],
      cancelReason: null,
      cancelledAt: null,
      revision: 1,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updatedAt: repair.createdAt,
    });
    expect(Date.parse(repair.createdAt)).toBeGreaterThanOrEqual(before - 1);
    expect(expectStatus(await call.get(repair.id), 200)).toEqual(repair);
  });

  test("awareAt may be earlier, in any offset, and is answered in UTC with milliseconds", async () => {
    const repair = await reported({ awareAt: "2026-06-01T10:00:00.1234+01:00" });
    expect(repair.awareAt).toBe("2026-06-01T09:00:00.123Z");
  });

  test("awareAt up to 60 s ahead is taken; further ahead is RepairRejected aware_in_future, and writes nothing", async () => {
    await reported({ awareAt: fromNow(30_000) });
    const res = await call.report({ awareAt: fromNow(120_000) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ _tag: "RepairRejected", reason: "aware_in_future", field: "awareAt" });
  });

  test("a hazard sent at creation triages at once by the key's user: still revision 1, both events recorded", async () => {
    const repair = await triaged();
    expect(repair).toMatchObject({
      status: "triaged",
      hazard: "significant",
      hhsrsHazard: "damp_and_mould_growth",
      regime: "private",
      policyVersion: "awaabs-law-2025-10-27",
      triagedAt: repair.createdAt,
      triagedByUserId: ws.ownerUserId,
      revision: 1,
    });
    expect(repair.clocks).toEqual([
      {
        kind: "significant_investigate",
        basis: "policy",
        rule: "awaabs-law-2025-10-27/significant_investigate",
        startsAt: "2026-06-01T09:00:00.000Z",
        dueAt: "2026-06-15T22:59:59.999Z",
        status: "breached",
        metAt: null,
        ceasedReason: null,
        explanation: "10 working days after Mon 1 Jun 2026: due by the end of Mon 15 Jun 2026",
      },
    ]);
    const events = await eventsOf(repair.id);
    expect(events.map((e) => e.type)).toEqual(["repair.reported", "repair.triaged"]);
    expect(events[1]!.data).toEqual(repair);
    expect(events[0]).toMatchObject({ actorKind: "key", actorId: ws.keyId });
    expect(await activityOf(repair.id)).toEqual([
      {
        action: "maintenance-pro.repair_reported",
        actorKeyId: ws.keyId,
        actorUserId: ws.ownerUserId,
        detail: { reference: repair.reference, revision: 1, requestId: null, hazard: "significant" },
      },
    ]);
  });

  test("a tenancyId without unitId takes the tenancy's unit", async () => {
    const repair = await reported({ unitId: undefined });
    expect(repair).toMatchObject({ unitId: world.unitId, tenancyId: world.tenancyId });
  });

  test("unit, tenancy and reporter contact are optional; a reporter's name is kept trimmed", async () => {
    const repair = await reported({
      unitId: undefined,
      tenancyId: undefined,
      reporter: { kind: "staff", name: " Sam Staff " },
      channel: "inspection",
    });
    expect(repair).toMatchObject({
      unitId: null,
      tenancyId: null,
      reporter: { kind: "staff", contactId: null, name: "Sam Staff" },
    });
  });
});

describe("refusing a report", () => {
  const invalid = async (fields: Record<string, unknown>, path: string) => {
    const res = await call.report(fields);
    expect(res.status).toBe(400);
    expect(res.body._tag).toBe("RequestInvalid");
    expect(res.body.issues.map((i: { path: string }) => i.path)).toContain(path);
  };

  test("the body's schema: title, category, channel, reporter kind, unknown fields", async () => {
    await invalid({ title: " " }, "/body/title");
    await invalid({ title: "x".repeat(201) }, "/body/title");
    await invalid({ category: "roof" }, "/body/category");
    await invalid({ channel: "fax" }, "/body/channel");
    await invalid({ reporter: { name: "No kind" } }, "/body/reporter/kind");
    await invalid({ revision: 3 }, "/body/revision");
    await invalid({ awareAt: "yesterday" }, "/body/awareAt");
  });

  test("hhsrsHazard without hazard, with hazard none, and missing for a significant or emergency hazard", async () => {
    await invalid({ hhsrsHazard: "fire" }, "/body/hhsrsHazard");
    await invalid({ hazard: "none", hhsrsHazard: "fire" }, "/body/hhsrsHazard");
    await invalid({ hazard: "significant" }, "/body/hhsrsHazard");
    await invalid({ hazard: "emergency" }, "/body/hhsrsHazard");
    await invalid({ hazard: "emergency", hhsrsHazard: "roof" }, "/body/hhsrsHazard");
  });

  test("a hazard of none needs no HHSRS hazard: triaged with no clocks", async () => {
    const repair = await reported({ hazard: "none" });
    expect(repair).toMatchObject({ status: "triaged", hazard: "none", hhsrsHazard: null, clocks: [] });
  });

  test("an unknown property, or one of another workspace, is PropertyNotFound", async () => {
    const other = await repairWorld(h);
    for (const propertyId of ["nope", other.propertyId]) {
      const res = await call.report({ propertyId, unitId: undefined, tenancyId: undefined });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ _tag: "PropertyNotFound", propertyId });
    }
  });

  test("a unit unknown or of another property is unit_not_in_property", async () => {
    const otherUnit = await h.rows(ws).unit();
    for (const unitId of ["nope", otherUnit]) {
      const res = await call.report({ unitId, tenancyId: undefined });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ _tag: "RepairRejected", reason: "unit_not_in_property", field: "unitId" });
    }
  });

  test("a tenancy unknown, of another unit, or without unitId of another property's unit is tenancy_not_in_unit", async () => {
    const secondUnit = await h.rows(ws).unit({ propertyId: world.propertyId, label: "Flat 3" });
    const elsewhere = await h.rows(ws).tenancy();
    for (const fields of [
      { tenancyId: "nope" },
      { unitId: secondUnit, tenancyId: world.tenancyId },
      { unitId: undefined, tenancyId: elsewhere },
    ]) {
      const res = await call.report(fields);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ _tag: "RepairRejected", reason: "tenancy_not_in_unit", field: "tenancyId" });
    }
  });

  test("an unknown reporter contact is contact_unknown", async () => {
    const other = await repairWorld(h);
    for (const contactId of ["nope", other.tenantId]) {
      const res = await call.report({ reporter: { kind: "tenant", contactId } });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ _tag: "RepairRejected", reason: "contact_unknown", field: "reporter.contactId" });
    }
  });

  test("refusals come in order: schema, property, unit, tenancy, contact, awareAt", async () => {
    const bad = {
      propertyId: "nope",
      unitId: "nope",
      tenancyId: "nope",
      reporter: { kind: "tenant", contactId: "nope" },
      awareAt: fromNow(3_600_000),
    };
    expect((await call.report({ ...bad, title: "" })).body._tag).toBe("RequestInvalid");
    expect((await call.report(bad)).body._tag).toBe("PropertyNotFound");
    const steps = [
      [{ propertyId: world.propertyId }, "unit_not_in_property"],
      [{ unitId: world.unitId }, "tenancy_not_in_unit"],
      [{ tenancyId: world.tenancyId }, "contact_unknown"],
      [{ reporter: { kind: "tenant" } }, "aware_in_future"],
    ] as const;
    let body: Record<string, unknown> = bad;
    for (const [fix, reason] of steps) {
      body = { ...body, ...fix };
      expect((await call.report(body)).body.reason).toBe(reason);
    }
  });
});

describe("references", () => {
  test("count up per workspace from R-1; a refused report takes no number", async () => {
    const fresh = await repairWorld(h);
    const c = repairCalls(h, fresh);
    expect(expectStatus(await c.report(), 201).reference).toBe("R-1");
    expect((await c.report({ tenancyId: "nope" })).status).toBe(400);
    expect((await c.report({ propertyId: "nope" })).status).toBe(404);
    expect(expectStatus(await c.report(), 201).reference).toBe("R-2");
  });

  test("50 concurrent reports take R-1 to R-50 with no gap, refused ones among them taking none", async () => {
    const fresh = await repairWorld(h);
    const c = repairCalls(h, fresh);
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) => c.report(i % 6 === 3 ? { unitId: "nope" } : { title: `Leak ${i}` })),
    );
    expect(answers.filter((a) => a.status === 400)).toHaveLength(10);
    const references = answers
      .filter((a) => a.status === 201)
      .map((a) => Number(a.body.reference.slice(2)))
      .sort((a, b) => a - b);
    expect(references).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(expectStatus(await c.report(), 201).reference).toBe("R-51");
  });

  test("after an import the count goes on above the highest imported R-<n>", async () => {
    const fresh = await repairWorld(h);
    const c = repairCalls(h, fresh);
    expect(expectStatus(await c.report(), 201).reference).toBe("R-1");
    await importWorkspace(db, fresh.ws.slug, {
      properties: [{ id: "p-imported", label: "1 Old Road" }],
      repairs: [
        { id: "r-a", reference: "R-41", status: "Job complete", propertyId: "p-imported" },
        { id: "r-b", reference: "R-7", status: "open", propertyId: "p-imported" },
        { id: "r-c", reference: "JOB-99", status: null, propertyId: "p-imported" },
      ],
    });
    expect(expectStatus(await c.report(), 201).reference).toBe("R-42");
    // A repair imported again with a higher reference moves the count on too.
    await importWorkspace(db, fresh.ws.slug, {
      repairs: [{ id: "r-b", reference: "R-90", status: "open", propertyId: "p-imported" }],
    });
    expect(expectStatus(await c.report(), 201).reference).toBe("R-91");
  });
});

describe("idempotent reports", () => {
  test("the same requestId and body replays the first answer byte for byte, with Idempotent-Replayed", async () => {
    const body = reportBody(world, { requestId: `req-${ulid()}` });
    const first = await h.request("POST", "/maintenance-pro/repairs", { key: ws.key, body });
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await h.request("POST", "/maintenance-pro/repairs", {
      key: ws.key,
      body: Object.fromEntries(Object.entries(body).reverse()),
    });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.text).toBe(first.text);
    expect((await eventsOf(first.body.id)).map((e) => e.type)).toEqual(["repair.reported"]);
    expect(
      await db`select 1 from repairs where workspace_id = ${ws.id} and title = ${first.body.title}
                    and id <> ${first.body.id} and created_at > ${first.body.createdAt}`,
    ).toHaveLength(0);
  });

  test("the same requestId with another body is RequestIdReused and writes nothing", async () => {
    const requestId = `req-${ulid()}`;
    expectStatus(await call.report({ requestId }), 201);
    const [{ n: before }] = await db<
      [{ n: number }]
    >`select count(*)::int as n from repairs where workspace_id = ${ws.id}`;
    const res = await call.report({ requestId, title: "Another title" });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ _tag: "RequestIdReused", requestId });
    const [{ n: after }] = await db<
      [{ n: number }]
    >`select count(*)::int as n from repairs where workspace_id = ${ws.id}`;
    expect(after).toBe(before);
  });

  test("concurrent duplicates make one repair: one answer is the creation, the others replay it", async () => {
    const body = reportBody(world, { requestId: `req-${ulid()}` });
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => h.request("POST", "/maintenance-pro/repairs", { key: ws.key, body })),
    );
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(answers.filter((a) => a.headers.get("idempotent-replayed") === "true")).toHaveLength(4);
  });

  test("a requestId refused once (404) may be used again: nothing was remembered", async () => {
    const requestId = `req-${ulid()}`;
    expect((await call.report({ requestId, propertyId: "nope", unitId: undefined, tenancyId: undefined })).status).toBe(
      404,
    );
    expect((await call.report({ requestId })).status).toBe(201);
  });

  test("the same requestId in two workspaces is two repairs", async () => {
    const other = await repairWorld(h);
    const requestId = `req-${ulid()}`;
    const a = expectStatus(await call.report({ requestId }), 201);
    const b = expectStatus(await repairCalls(h, other).report({ requestId }), 201);
    expect(a.id).not.toBe(b.id);
  });
});

describe("reading a repair", () => {
  test("an unknown repair, or one of another workspace, is RepairNotFound", async () => {
    const other = await repairWorld(h);
    const theirs = expectStatus(await repairCalls(h, other).report(), 201);
    for (const id of ["nope", theirs.id]) {
      const res = await call.get(id);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ _tag: "RepairNotFound", repairId: id });
    }
  });

  test("a legacy record keeps its own status and fields and has no clocks", async () => {
    const id = await legacy();
    const repair = expectStatus(await call.get(id), 200);
    expect(repair).toMatchObject({
      id,
      status: "Awaiting parts",
      propertyId: world.propertyId,
      title: null,
      reporter: null,
      awareAt: null,
      milestones: [],
      accessAttempts: [],
      clocks: [],
      revision: 1,
    });
  });
});

describe("triage", () => {
  test("sets the hazard and clocks at the workspace's settings; the note is kept; revision up by one", async () => {
    const repair = await reported({ awareAt: "2026-06-01T09:00:00Z" });
    const res = await call.triage(repair.id, {
      expectedRevision: 1,
      hazard: "emergency",
      hhsrsHazard: "electrical_hazards",
      note: " Exposed wiring ",
    });
    const after = expectStatus(res, 200);
    expect(after).toMatchObject({
      status: "triaged",
      hazard: "emergency",
      hhsrsHazard: "electrical_hazards",
      regime: "private",
      triageNote: "Exposed wiring",
      triagedByUserId: ws.ownerUserId,
      revision: 2,
    });
    expect(after.clocks.map((c: { kind: string; dueAt: string }) => [c.kind, c.dueAt])).toEqual([
      ["emergency_investigate", "2026-06-02T09:00:00.000Z"],
      ["emergency_make_safe", "2026-06-02T09:00:00.000Z"],
    ]);
    expect(after.updatedAt).toBe(after.triagedAt);
    expect((await eventsOf(repair.id)).map((e) => e.type)).toEqual(["repair.reported", "repair.triaged"]);
    expect((await activityOf(repair.id)).map((a) => a.action)).toEqual([
      "maintenance-pro.repair_reported",
      "maintenance-pro.repair_triaged",
    ]);
  });

  test("re-triage replaces the clocks and takes the settings of its moment; a settings change alone moves nothing", async () => {
    const fresh = await repairWorld(h);
    const c = repairCalls(h, fresh);
    const repair = expectStatus(
      await c.report({ awareAt: "2026-06-01T09:00:00Z", hazard: "significant", hhsrsHazard: "damp_and_mould_growth" }),
      201,
    );
    expect(repair.clocks.map((k: { basis: string }) => k.basis)).toEqual(["policy"]);
    const settings = await h.request("PUT", "/maintenance-pro/hazard-settings", {
      key: fresh.ws.key,
      body: { expectedRevision: 0, regime: "social" },
    });
    expect(settings.status).toBe(200);
    const unchanged = expectStatus(await c.get(repair.id), 200);
    expect(unchanged).toMatchObject({ regime: "private", revision: 1 });
    expect(unchanged.clocks.map((k: { basis: string }) => k.basis)).toEqual(["policy"]);
    const again = expectStatus(
      await c.triage(repair.id, { expectedRevision: 1, hazard: "emergency", hhsrsHazard: "damp_and_mould_growth" }),
      200,
    );
    expect(again).toMatchObject({ regime: "social", hazard: "emergency", triageNote: null, revision: 2 });
    expect(again.clocks.map((k: { kind: string; basis: string }) => [k.kind, k.basis])).toEqual([
      ["emergency_investigate", "statutory"],
      ["emergency_make_safe", "statutory"],
    ]);
    const none = expectStatus(await c.triage(repair.id, { expectedRevision: 2, hazard: "none" }), 200);
    expect(none).toMatchObject({ hazard: "none", hhsrsHazard: null, clocks: [], revision: 3 });
  });

  test("hhsrsHazard is required unless none and refused with none (RequestInvalid)", async () => {
    const repair = await reported();
    for (const body of [
      { expectedRevision: 1, hazard: "significant" },
      { expectedRevision: 1, hazard: "none", hhsrsHazard: "fire" },
    ]) {
      const res = await call.triage(repair.id, body);
      expect(res.status).toBe(400);
      expect(res.body.issues[0].path).toBe("/body/hhsrsHazard");
    }
  });

  test("an unknown repair is RepairNotFound", async () => {
    const res = await call.triage("nope", { expectedRevision: 1, hazard: "none" });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ _tag: "RepairNotFound", repairId: "nope" });
  });

  test("a stale expectedRevision is RevisionConflict and changes nothing", async () => {
    const repair = await reported();
    const res = await call.triage(repair.id, { expectedRevision: 2, hazard: "none" });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ _tag: "RevisionConflict", expectedRevision: 2, currentRevision: 1 });
    expect(expectStatus(await call.get(repair.id), 200)).toEqual(repair);
  });

  test("of two concurrent triages at the same revision exactly one wins", async () => {
    const repair = await reported();
    const answers = await Promise.all([
      call.triage(repair.id, { expectedRevision: 1, hazard: "significant", hhsrsHazard: "excess_cold" }),
      call.triage(repair.id, { expectedRevision: 1, hazard: "emergency", hhsrsHazard: "fire" }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    const lost = answers.find((a) => a.status === 409)!;
    expect(lost.body).toEqual({ _tag: "RevisionConflict", expectedRevision: 1, currentRevision: 2 });
    const won = answers.find((a) => a.status === 200)!;
    expect(expectStatus(await call.get(repair.id), 200)).toMatchObject({ hazard: won.body.hazard, revision: 2 });
  });

  test("a completed or cancelled repair is RepairClosed, after the revision check", async () => {
    const done = await triaged();
    expectStatus(await call.milestone(done.id, { expectedRevision: 1, kind: "completed", at: fromNow(0) }), 200);
    const cancelled = await reported();
    expectStatus(await call.cancel(cancelled.id, { reason: "Duplicate" }), 200);
    for (const [id, status] of [
      [done.id, "completed"],
      [cancelled.id, "cancelled"],
    ]) {
      expect((await call.triage(id!, { expectedRevision: 1, hazard: "none" })).body._tag).toBe("RevisionConflict");
      const res = await call.triage(id!, { expectedRevision: 2, hazard: "none" });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ _tag: "RepairClosed", repairId: id, status });
    }
  });

  test("a repair in progress, or a legacy record, is RepairNotTriageable", async () => {
    const repair = await triaged();
    expectStatus(await call.milestone(repair.id, investigated(1)), 200);
    const res = await call.triage(repair.id, { expectedRevision: 2, hazard: "none" });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ _tag: "RepairNotTriageable", repairId: repair.id, status: "in_progress" });
    for (const status of ["Awaiting parts", null]) {
      const id = await legacy(status);
      const old = await call.triage(id, { expectedRevision: 1, hazard: "none" });
      expect(old.status).toBe(409);
      expect(old.body).toEqual({ _tag: "RepairNotTriageable", repairId: id, status });
    }
  });
});

describe("milestones", () => {
  test("an investigation that confirms the hazard meets its clock, adds three, and makes the repair in progress", async () => {
    const repair = await triaged();
    const after = expectStatus(await call.milestone(repair.id, { ...investigated(1), note: " Found it " }), 200);
    expect(after).toMatchObject({ status: "in_progress", revision: 2 });
    expect(after.milestones).toEqual([
      {
        kind: "investigated",
        at: "2026-06-03T10:00:00.000Z",
        outcome: "hazard_confirmed",
        method: null,
        note: "Found it",
        recordedAt: after.updatedAt,
        recordedByUserId: ws.ownerUserId,
      },
    ]);
    expect(after.clocks.map((c: { kind: string; status: string }) => [c.kind, c.status])).toEqual([
      ["significant_investigate", "met"],
      ["written_summary", "breached"],
      ["safety_work_start", "breached"],
      ["preventative_work_start", "breached"],
    ]);
    const [event] = (await eventsOf(repair.id)).filter((e) => e.type === "repair.milestone_recorded");
    expect(event!.data).toEqual(after);
  });

  test("milestones are kept in order of at, then recordedAt; completed makes the repair completed", async () => {
    const repair = await triaged();
    let r = expectStatus(
      await call.milestone(repair.id, investigated(1, "hazard_confirmed", "2026-06-05T10:00:00Z")),
      200,
    );
    r = expectStatus(
      await call.milestone(repair.id, { expectedRevision: 2, kind: "made_safe", at: "2026-06-02T10:00:00Z" }),
      200,
    );
    r = expectStatus(
      await call.milestone(repair.id, {
        expectedRevision: 3,
        kind: "summary_sent",
        at: "2026-06-05T10:00:00Z",
        method: "left_at_home",
      }),
      200,
    );
    expect(r.milestones.map((m: { kind: string }) => m.kind)).toEqual(["made_safe", "investigated", "summary_sent"]);
    r = expectStatus(await call.milestone(repair.id, { expectedRevision: 4, kind: "completed", at: fromNow(0) }), 200);
    expect(r.status).toBe("completed");
    expect(r.clocks.find((c: { kind: string }) => c.kind === "written_summary").status).toBe("met");
  });

  test("outcome and method are required for their kinds and refused on others", async () => {
    const repair = await triaged();
    for (const [body, path] of [
      [{ kind: "investigated" }, "/body/outcome"],
      [{ kind: "made_safe", outcome: "no_hazard" }, "/body/outcome"],
      [{ kind: "summary_sent" }, "/body/method"],
      [{ kind: "decanted", method: "post" }, "/body/method"],
    ] as const) {
      const res = await call.milestone(repair.id, { expectedRevision: 1, at: fromNow(0), ...body });
      expect(res.status).toBe(400);
      expect(res.body.issues[0].path).toBe(path);
    }
  });

  test("a reported repair or a legacy record is RepairNotTriaged", async () => {
    const repair = await reported();
    for (const id of [repair.id, await legacy()]) {
      const res = await call.milestone(id, { expectedRevision: 1, kind: "made_safe", at: fromNow(0) });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ _tag: "RepairNotTriaged", repairId: id });
    }
  });

  test("each kind at most once: again is MilestoneRecorded", async () => {
    const repair = await triaged();
    expectStatus(await call.milestone(repair.id, { expectedRevision: 1, kind: "made_safe", at: fromNow(0) }), 200);
    const res = await call.milestone(repair.id, { expectedRevision: 2, kind: "made_safe", at: fromNow(0) });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ _tag: "MilestoneRecorded", repairId: repair.id, kind: "made_safe" });
  });

  test("a missing precondition is MilestoneOutOfOrder naming what it requires", async () => {
    const repair = await triaged();
    for (const [kind, method] of [
      ["summary_sent", "post"],
      ["safety_work_started", undefined],
      ["preventative_work_started", undefined],
    ] as const) {
      const res = await call.milestone(repair.id, { expectedRevision: 1, kind, at: fromNow(0), method });
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ _tag: "MilestoneOutOfOrder", repairId: repair.id, kind, requires: "investigated" });
    }
    expectStatus(await call.milestone(repair.id, investigated(1, "no_hazard")), 200);
    for (const kind of ["safety_work_started", "preventative_work_started"]) {
      const res = await call.milestone(repair.id, { expectedRevision: 2, kind, at: fromNow(0) });
      expect(res.body).toEqual({
        _tag: "MilestoneOutOfOrder",
        repairId: repair.id,
        kind,
        requires: "hazard_confirmed",
      });
    }
    const summary = { expectedRevision: 2, kind: "summary_sent", at: fromNow(0), method: "email" };
    expectStatus(await call.milestone(repair.id, summary), 200);
  });

  test("at: not more than 60 s ahead, not before awareAt, not before the investigation for the kinds after it", async () => {
    const repair = await triaged();
    const at = async (kind: string, value: string, revision: number, extra: Record<string, unknown> = {}) =>
      (await call.milestone(repair.id, { expectedRevision: revision, kind, at: value, ...extra })).body;
    expect(await at("made_safe", fromNow(120_000), 1)).toEqual({
      _tag: "RepairRejected",
      reason: "at_in_future",
      field: "at",
    });
    expect(await at("made_safe", "2026-06-01T08:59:59.999Z", 1)).toEqual({
      _tag: "RepairRejected",
      reason: "before_aware",
      field: "at",
    });
    expect((await at("made_safe", fromNow(30_000), 1)).status).toBe("in_progress");
    expectStatus(await call.milestone(repair.id, investigated(2)), 200);
    expect(await at("summary_sent", "2026-06-03T09:59:59Z", 3, { method: "post" })).toEqual({
      _tag: "RepairRejected",
      reason: "before_investigation",
      field: "at",
    });
    expect((await at("summary_sent", "2026-06-03T10:00:00Z", 3, { method: "post" })).revision).toBe(4);
  });

  test("a completed repair is RepairClosed; the revision is checked first", async () => {
    const repair = await triaged();
    expectStatus(await call.milestone(repair.id, { expectedRevision: 1, kind: "completed", at: fromNow(0) }), 200);
    const stale = await call.milestone(repair.id, { expectedRevision: 1, kind: "made_safe", at: fromNow(0) });
    expect(stale.body).toEqual({ _tag: "RevisionConflict", expectedRevision: 1, currentRevision: 2 });
    const res = await call.milestone(repair.id, { expectedRevision: 2, kind: "made_safe", at: fromNow(0) });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ _tag: "RepairClosed", repairId: repair.id, status: "completed" });
  });

  test("of two concurrent milestones at the same revision exactly one wins", async () => {
    const repair = await triaged();
    const answers = await Promise.all([
      call.milestone(repair.id, { expectedRevision: 1, kind: "made_safe", at: fromNow(0) }),
      call.milestone(repair.id, { expectedRevision: 1, kind: "decanted", at: fromNow(0) }),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409]);
    expect(expectStatus(await call.get(repair.id), 200).milestones).toHaveLength(1);
  });
});

describe("access attempts", () => {
  test("are kept in order with an id, move the revision, and never stop a clock", async () => {
    const repair = await reported({
      awareAt: fromNow(-3_600_000),
      hazard: "emergency",
      hhsrsHazard: "uncombusted_fuel_gas",
    });
    const first = expectStatus(await call.access(repair.id, { at: fromNow(0), outcome: "no_answer" }), 200);
    const second = expectStatus(
      await call.access(repair.id, { at: fromNow(-600_000), outcome: "refused", note: " Not today " }),
      200,
    );
    expect(second.revision).toBe(3);
    expect(second.accessAttempts.map((a: { outcome: string }) => a.outcome)).toEqual(["refused", "no_answer"]);
    expect(second.accessAttempts[0]).toEqual({
      id: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/),
      at: expect.any(String),
      outcome: "refused",
      note: "Not today",
      recordedAt: second.updatedAt,
    });
    expect(second.clocks.map((c: { status: string }) => c.status)).toEqual(["running", "running"]);
    expect(second.clocks).toEqual(first.clocks.map((c: object) => ({ ...c })));
    expect((await eventsOf(repair.id)).map((e) => e.type)).toEqual([
      "repair.reported",
      "repair.triaged",
      "repair.access_attempt_recorded",
      "repair.access_attempt_recorded",
    ]);
  });

  test("concurrent attempts are all kept", async () => {
    const repair = await reported();
    const answers = await Promise.all(
      ["granted", "refused", "no_answer", "rescheduled"].map((outcome) =>
        call.access(repair.id, { at: fromNow(0), outcome }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    const after = expectStatus(await call.get(repair.id), 200);
    expect(after.accessAttempts).toHaveLength(4);
    expect(after.revision).toBe(5);
  });

  test("are allowed on a legacy record", async () => {
    const id = await legacy();
    const res = await call.access(id, { at: "2020-01-01T00:00:00Z", outcome: "granted" });
    expect(expectStatus(res, 200)).toMatchObject({ status: "Awaiting parts", revision: 2 });
  });

  test("refusals: unknown repair, closed repair, at in the future or before awareAt", async () => {
    expect((await call.access("nope", { at: fromNow(0), outcome: "granted" })).body._tag).toBe("RepairNotFound");
    const repair = await triaged();
    expect((await call.access(repair.id, { at: fromNow(120_000), outcome: "granted" })).body).toEqual({
      _tag: "RepairRejected",
      reason: "at_in_future",
      field: "at",
    });
    expect((await call.access(repair.id, { at: "2026-05-31T23:00:00Z", outcome: "granted" })).body).toEqual({
      _tag: "RepairRejected",
      reason: "before_aware",
      field: "at",
    });
    expect((await call.access(repair.id, { at: fromNow(0), outcome: "knocked" })).status).toBe(400);
    expectStatus(await call.cancel(repair.id, { reason: "Tenant moved out" }), 200);
    const res = await call.access(repair.id, { at: fromNow(120_000), outcome: "granted" });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ _tag: "RepairClosed", repairId: repair.id, status: "cancelled" });
  });
});

describe("cancelling", () => {
  test("cancels with the reason trimmed; running clocks cease, breached ones stay breached", async () => {
    const repair = await reported({ awareAt: fromNow(-3_600_000), hazard: "emergency", hhsrsHazard: "fire" });
    const before = expectStatus(await call.milestone(repair.id, investigated(1, "hazard_confirmed", fromNow(0))), 200);
    expect(before.clocks.map((c: { status: string }) => c.status)).toEqual(["met", "running", "running", "running"]);
    const after = expectStatus(await call.cancel(repair.id, { reason: "  Tenant withdrew the report " }), 200);
    expect(after).toMatchObject({
      status: "cancelled",
      cancelReason: "Tenant withdrew the report",
      cancelledAt: after.updatedAt,
      revision: 3,
    });
    expect(
      after.clocks.map((c: { status: string; ceasedReason: string | null }) => [c.status, c.ceasedReason]),
    ).toEqual([
      ["met", null],
      ["ceased", "cancelled"],
      ["ceased", "cancelled"],
      ["ceased", "cancelled"],
    ]);
    const old = await triaged();
    const breached = expectStatus(await call.cancel(old.id, { reason: "Duplicate" }), 200);
    expect(breached.clocks.map((c: { status: string }) => c.status)).toEqual(["breached"]);
  });

  test("cancelling a cancelled repair answers it unchanged, whatever the reason, and records nothing", async () => {
    const repair = await reported();
    const first = expectStatus(await call.cancel(repair.id, { reason: "Duplicate" }), 200);
    const again = expectStatus(await call.cancel(repair.id, { reason: "Another reason" }), 200);
    expect(again).toEqual(first);
    expect((await eventsOf(repair.id)).map((e) => e.type)).toEqual(["repair.reported", "repair.cancelled"]);
    expect((await activityOf(repair.id)).map((a) => a.action)).toEqual([
      "maintenance-pro.repair_reported",
      "maintenance-pro.repair_cancelled",
    ]);
  });

  test("a legacy record can be cancelled", async () => {
    const id = await legacy();
    const res = await call.cancel(id, { reason: "Closed in the old system" });
    expect(expectStatus(res, 200)).toMatchObject({ status: "cancelled", revision: 2, clocks: [] });
  });

  test("refusals: a blank or over-long reason, an unknown repair, a completed repair", async () => {
    const repair = await triaged();
    for (const reason of ["   ", "", "x".repeat(501)]) {
      expect((await call.cancel(repair.id, { reason })).body._tag).toBe("RequestInvalid");
    }
    expect((await call.cancel(repair.id, { reason: ` ${"x".repeat(500)} ` })).status).toBe(200);
    expect((await call.cancel("nope", { reason: "x" })).body).toEqual({ _tag: "RepairNotFound", repairId: "nope" });
    const done = await triaged();
    expectStatus(await call.milestone(done.id, { expectedRevision: 1, kind: "completed", at: fromNow(0) }), 200);
    const res = await call.cancel(done.id, { reason: "Too late" });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ _tag: "RepairClosed", repairId: done.id, status: "completed" });
  });
});

describe("the key's scopes and module", () => {
  test("reading needs maintenance-pro:read, writing maintenance-pro:write", async () => {
    const repair = await reported();
    const reader = await h.key(ws, ["maintenance-pro:read"]);
    expect((await call.get(repair.id, reader)).status).toBe(200);
    expect((await call.cancel(repair.id, { reason: "x" }, reader)).body).toEqual({
      _tag: "ScopeMissing",
      scope: "maintenance-pro:write",
    });
  });
});
