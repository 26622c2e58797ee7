/** GET /handovers/tenancies/{tenancyId} (handovers.forTenancy): the row, its rules, its scopes and its one query. */
import { describe, expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import { Seed } from "./fixtures.ts";

const h = await harness();
const ws = await h.workspace();
const seed = new Seed(h.database.db, ws.id);
const get = (tenancyId: string, key = ws.key) => h.request("GET", `/handovers/tenancies/${tenancyId}`, { key });
const codes = (body: any) => body.outstanding.map((i: any) => `${i.direction}:${i.code}:${i.count}`);
const [{ today }] = await h.database.db<[{ today: string }]>`select ymd(london_today()) as today`;

describe("the handover row", () => {
  test("every field is present with the contract's shapes, and nothing else", async () => {
    const propertyId = await seed.property();
    const unitId = await seed.unit({ propertyId, meters: ["electricity", "gas"] });
    const lead = await seed.contact({ name: "Lead Tenant" });
    const other = await seed.contact({ name: "Other Tenant" });
    const tenancyId = await seed.tenancy({
      unitId,
      status: "notice_given",
      startsOn: "2024-02-01",
      endsOn: "2026-12-31",
      noticeGivenOn: "2026-10-01",
      occupants: [
        { contactId: other, role: "occupier" },
        { contactId: lead, role: "tenant", isLead: true },
      ],
    });
    const moveIn = await seed.handover({
      tenancyId,
      direction: "move_in",
      status: "completed",
      dueOn: "2024-02-01",
      completedAt: "2024-02-01T10:15:00Z",
      readings: [
        { meter: "gas", reading: "01234", readOn: "2024-02-01" },
        { meter: "electricity", reading: "55", readOn: null },
      ],
    });
    const moveOut = await seed.handover({
      tenancyId,
      direction: "move_out",
      status: "open",
      dueOn: "2026-12-31",
      forwardingAddress: "5 Hill Road, York",
    });
    const repairId = await seed.repair("open", "REP-7");
    const taskId = await seed.task("done", "Clean oven", "2024-02-10");
    const checkIn = await seed.inspection({
      tenancyId,
      kind: "check_in",
      status: "completed",
      reference: "CI-100",
      outcome: "minor_actions",
      dueOn: "2024-02-01",
      bookedFor: "2024-02-01T09:00:00Z",
      completedAt: "2024-02-01T11:00:00Z",
      findings: [
        { id: "F-3", area: "Kitchen", item: "Oven", taskId },
        { id: "F-1", area: "Bathroom", item: "Tap", repairId },
        { id: "F-2", area: "Bathroom", item: "Mirror" },
      ],
    });
    const keyId = await seed.keySet({
      unitId,
      status: "checked_out",
      reference: "K-1",
      label: "Front door",
      sequence: 1,
      holderType: "tenant",
      holderContactId: lead,
      holderName: "Lead Tenant",
      tenancyId,
    });

    const res = await get(tenancyId);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      tenancyId,
      tenancyStatus: "notice_given",
      startsOn: "2024-02-01",
      endsOn: "2026-12-31",
      noticeGivenOn: "2026-10-01",
      unitId,
      propertyId,
      occupants: [
        { contactId: lead, role: "tenant", isLead: true },
        { contactId: other, role: "occupier", isLead: false },
      ],
      moveIn: {
        id: moveIn,
        direction: "move_in",
        status: "completed",
        dueOn: "2024-02-01",
        completedAt: "2024-02-01T10:15:00.000Z",
        meterReadings: [
          { meter: "electricity", reading: "55", readOn: null },
          { meter: "gas", reading: "01234", readOn: "2024-02-01" },
        ],
        forwardingAddress: null,
        noticeEvidenceDocumentId: null,
      },
      moveOut: {
        id: moveOut,
        direction: "move_out",
        status: "open",
        dueOn: "2026-12-31",
        completedAt: null,
        meterReadings: [],
        forwardingAddress: "5 Hill Road, York",
        noticeEvidenceDocumentId: null,
      },
      checkIn: {
        id: checkIn,
        reference: "CI-100",
        status: "completed",
        outcome: "minor_actions",
        dueOn: "2024-02-01",
        bookedFor: "2024-02-01T09:00:00.000Z",
        completedAt: "2024-02-01T11:00:00.000Z",
        findingCount: 3,
        followUpCount: 2,
      },
      checkOut: null,
      inspectionsReadable: true,
      followUps: [
        {
          findingId: "F-1",
          area: "Bathroom",
          item: "Tap",
          repair: { id: repairId, reference: "REP-7", status: "open" },
          task: null,
        },
        {
          findingId: "F-3",
          area: "Kitchen",
          item: "Oven",
          repair: null,
          task: { id: taskId, title: "Clean oven", status: "done", dueOn: "2024-02-10" },
        },
      ],
      keys: {
        held: [
          {
            id: keyId,
            reference: "K-1",
            label: "Front door",
            unitId,
            status: "checked_out",
            sequence: 1,
            holderType: "tenant",
            holderContactId: lead,
            holderName: "Lead Tenant",
            tenancyId,
          },
        ],
        ambiguous: [],
        available: [],
        otherActiveTenancyIds: [],
      },
      outstanding: [
        { code: "follow_ups_open", direction: "move_in", count: 1, message: expect.any(String) },
        { code: "check_out_missing", direction: "move_out", count: null, message: expect.any(String) },
        {
          code: "meter_readings_missing",
          direction: "move_out",
          count: 2,
          message: "2 meters have no move-out reading (electricity, gas): record the readings.",
        },
        { code: "notice_evidence_missing", direction: "move_out", count: null, message: expect.any(String) },
        {
          code: "handover_open",
          direction: "move_out",
          count: null,
          message: "The move-out handover is still open (due on 2026-12-31): complete it.",
        },
      ],
    });
  });

  test("an unknown tenancy is HandoverNotFound", async () => {
    const res = await get("NO-SUCH-TENANCY");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ _tag: "HandoverNotFound", tenancyId: "NO-SUCH-TENANCY" });
  });

  test("another workspace's tenancy is HandoverNotFound, exactly like an unknown one", async () => {
    const other = await h.workspace();
    const otherSeed = new Seed(h.database.db, other.id);
    const tenancyId = await otherSeed.tenancy({ unitId: await otherSeed.unit() });
    expect((await get(tenancyId, other.key)).status).toBe(200);
    const res = await get(tenancyId);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ _tag: "HandoverNotFound", tenancyId });
  });

  test("another workspace's rows never join in, even with the same ids", async () => {
    const other = await h.workspace();
    const otherSeed = new Seed(h.database.db, other.id);
    const shared = "T-SHARED";
    const mine = await seed.tenancy({ id: shared, unitId: await seed.unit() });
    const theirUnit = await otherSeed.unit({ meters: ["water"] });
    await otherSeed.tenancy({ id: shared, unitId: theirUnit });
    await otherSeed.inspection({
      tenancyId: shared,
      kind: "check_in",
      findings: [{ area: "Hall", taskId: await otherSeed.task() }],
    });
    await otherSeed.handover({ tenancyId: shared, direction: "move_in", status: "completed" });
    await otherSeed.keySet({ unitId: theirUnit, status: "checked_out", holderType: "tenant", tenancyId: shared });
    const res = await get(mine);
    expect(res.status).toBe(200);
    expect(res.body.checkIn).toBeNull();
    expect(res.body.moveIn).toBeNull();
    expect(res.body.keys).toEqual({ held: [], ambiguous: [], available: [], otherActiveTenancyIds: [] });
    expect(codes(res.body)).toEqual([
      "move_in:check_in_missing:null",
      "move_in:keys_not_handed_over:null",
      "move_in:handover_open:null",
    ]);
  });
});

describe("check-in and check-out", () => {
  test("the latest non-cancelled visit is shown, by dueOn then id, even when a later one was cancelled", async () => {
    const tenancyId = await seed.tenancy({ unitId: await seed.unit() });
    await seed.inspection({ tenancyId, kind: "check_in", status: "completed", dueOn: "2024-01-01", id: "CI-A" });
    await seed.inspection({ tenancyId, kind: "check_in", status: "booked", dueOn: "2024-03-01", id: "CI-B" });
    await seed.inspection({ tenancyId, kind: "check_in", status: "due", dueOn: "2024-03-01", id: "CI-C" });
    await seed.inspection({ tenancyId, kind: "check_in", status: "cancelled", dueOn: "2024-06-01", id: "CI-D" });
    await seed.inspection({ tenancyId, kind: "check_in", status: "completed", dueOn: null, id: "CI-E" });
    const res = await get(tenancyId);
    expect(res.body.checkIn.id).toBe("CI-C");
    expect(codes(res.body)[0]).toBe("move_in:check_in_open:null");
  });

  test("with only cancelled visits the latest cancelled one is shown and the visit counts as missing", async () => {
    const tenancyId = await seed.tenancy({ unitId: await seed.unit(), status: "ended", noticeGivenOn: "2025-01-01" });
    await seed.inspection({ tenancyId, kind: "check_out", status: "cancelled", dueOn: "2025-02-01", id: "CO-A" });
    await seed.inspection({ tenancyId, kind: "check_out", status: "cancelled", dueOn: "2025-03-01", id: "CO-B" });
    const res = await get(tenancyId);
    expect(res.body.checkOut).toMatchObject({ id: "CO-B", status: "cancelled" });
    expect(codes(res.body)).toContain("move_out:check_out_missing:null");
  });

  test("follow-ups of both visits are listed together by area, item (none first) and finding id, with open ones counted per direction", async () => {
    const tenancyId = await seed.tenancy({ unitId: await seed.unit(), status: "ended", noticeGivenOn: "2025-01-01" });
    const openTask = await seed.task("in_progress");
    const doneRepair = await seed.repair("completed");
    const openRepair = await seed.repair(null);
    await seed.inspection({
      tenancyId,
      kind: "check_in",
      findings: [
        { id: "IN-2", area: "Lounge", item: "Carpet", taskId: openTask },
        { id: "IN-1", area: "Lounge", item: null, repairId: doneRepair },
        { id: "IN-3", area: "Attic", item: "Hatch" },
      ],
    });
    await seed.inspection({
      tenancyId,
      kind: "check_out",
      findings: [
        { id: "OUT-1", area: "Hall", item: "Door", repairId: openRepair, taskId: await seed.task("done") },
        { id: "OUT-2", area: "Lounge", item: "Carpet", repairId: doneRepair },
      ],
    });
    const res = await get(tenancyId);
    expect(res.body.followUps.map((f: any) => f.findingId)).toEqual(["OUT-1", "IN-1", "IN-2", "OUT-2"]);
    expect(res.body.checkIn).toMatchObject({ findingCount: 3, followUpCount: 2 });
    expect(res.body.checkOut).toMatchObject({ findingCount: 2, followUpCount: 2 });
    const followUps = res.body.outstanding.filter((i: any) => i.code === "follow_ups_open");
    expect(followUps.map((i: any) => [i.direction, i.count])).toEqual([
      ["move_in", 1],
      ["move_out", 1],
    ]);
  });
});

describe("status rules", () => {
  test("an active tenancy that has started and holds nothing is told to hand keys over", async () => {
    const tenancyId = await seed.tenancy({ unitId: await seed.unit(), status: "active", startsOn: "2024-01-01" });
    expect(codes((await get(tenancyId)).body)).toEqual([
      "move_in:check_in_missing:null",
      "move_in:keys_not_handed_over:null",
      "move_in:handover_open:null",
    ]);
  });

  test("a tenancy starting today in Europe/London has started; one starting tomorrow has not", async () => {
    const unitId = await seed.unit();
    const starting = await seed.tenancy({ unitId, startsOn: today });
    const [{ tomorrow }] = await h.database.db<[{ tomorrow: string }]>`select ymd(london_today() + 1) as tomorrow`;
    const future = await seed.tenancy({ unitId, startsOn: tomorrow });
    expect(codes((await get(starting)).body)).toContain("move_in:keys_not_handed_over:null");
    expect(codes((await get(future)).body)).toEqual(["move_in:check_in_missing:null", "move_in:handover_open:null"]);
  });

  test("a tenancy under notice is asked for its whole move-out", async () => {
    const unitId = await seed.unit({ meters: ["water"] });
    const tenancyId = await seed.tenancy({ unitId, status: "notice_given", noticeGivenOn: "2026-01-10" });
    await seed.keySet({ unitId, status: "checked_out", holderType: "tenant", tenancyId });
    await seed.inspection({ tenancyId, kind: "check_in" });
    await seed.handover({
      tenancyId,
      direction: "move_in",
      status: "completed",
      readings: [{ meter: "water", reading: "9" }],
    });
    await seed.inspection({ tenancyId, kind: "check_out", status: "booked", dueOn: "2026-02-01" });
    expect(codes((await get(tenancyId)).body)).toEqual([
      "move_out:check_out_open:null",
      "move_out:meter_readings_missing:1",
      "move_out:forwarding_missing:null",
      "move_out:notice_evidence_missing:null",
      "move_out:handover_open:null",
    ]);
  });

  test("an ended tenancy still holding keys is asked for them back, and a complete move-out clears the rest", async () => {
    const unitId = await seed.unit({ meters: ["gas"] });
    const tenancyId = await seed.tenancy({
      unitId,
      status: "ended",
      noticeGivenOn: "2025-06-01",
      endsOn: "2025-08-01",
    });
    await seed.keySet({ unitId, status: "checked_out", holderType: "tenant", tenancyId, reference: "K-A" });
    await seed.keySet({ unitId, status: "checked_out", holderType: "tenant", tenancyId, reference: "K-B" });
    await seed.inspection({ tenancyId, kind: "check_in" });
    await seed.inspection({ tenancyId, kind: "check_out" });
    await seed.handover({
      tenancyId,
      direction: "move_in",
      status: "completed",
      readings: [{ meter: "gas", reading: "1" }],
    });
    await seed.handover({
      tenancyId,
      direction: "move_out",
      status: "completed",
      readings: [{ meter: "gas", reading: "2" }],
      forwardingAddress: "1 Sea View",
      noticeEvidenceDocumentId: "DOC-9",
    });
    const res = await get(tenancyId);
    expect(codes(res.body)).toEqual(["move_out:keys_held:2"]);
    expect(res.body.outstanding[0].message).toContain("2 key sets are still held");
  });
});

describe("keys", () => {
  test("several tenancies on one unit: key sets go by tenancyId, ambiguous ones by holder, lost ones nowhere", async () => {
    const unitId = await seed.unit();
    const oldTenant = await seed.contact({ name: "Old Tenant" });
    const newTenant = await seed.contact({ name: "New Tenant" });
    const contractor = await seed.contact({ name: "Locksmith" });
    const old = await seed.tenancy({
      unitId,
      status: "ended",
      startsOn: "2022-01-01",
      noticeGivenOn: "2023-11-01",
      occupants: [{ contactId: oldTenant }],
    });
    const current = await seed.tenancy({
      unitId,
      status: "active",
      startsOn: "2024-01-01",
      occupants: [{ contactId: newTenant, isLead: true }],
    });
    const next = await seed.tenancy({
      unitId,
      status: "notice_given",
      startsOn: "2024-01-01",
      noticeGivenOn: "2026-01-01",
    });
    const otherUnit = await seed.unit();
    await seed.keySet({
      unitId,
      id: "KS-HELD-CUR",
      sequence: 2,
      reference: "B",
      status: "checked_out",
      holderType: "tenant",
      holderContactId: newTenant,
      tenancyId: current,
    });
    await seed.keySet({
      unitId,
      id: "KS-HELD-OLD",
      sequence: 2,
      reference: "A",
      status: "checked_out",
      holderType: "tenant",
      holderContactId: oldTenant,
      tenancyId: old,
    });
    await seed.keySet({
      unitId,
      id: "KS-TENANT",
      sequence: 1,
      status: "checked_out",
      holderType: "tenant",
      holderName: "Someone",
    });
    await seed.keySet({
      unitId,
      id: "KS-OCCUPANT",
      sequence: 3,
      status: "checked_out",
      holderType: "other",
      holderContactId: oldTenant,
    });
    await seed.keySet({
      unitId,
      id: "KS-CONTRACTOR",
      status: "checked_out",
      holderType: "contractor",
      holderContactId: contractor,
    });
    await seed.keySet({ unitId, id: "KS-OFFICE-2", sequence: 5, reference: "Z", status: "in_office" });
    await seed.keySet({ unitId, id: "KS-OFFICE-1", sequence: 5, reference: "M", status: "in_office" });
    await seed.keySet({ unitId, id: "KS-LOST", status: "lost", holderType: "tenant", tenancyId: old });
    await seed.keySet({
      unitId: otherUnit,
      id: "KS-ELSEWHERE",
      status: "checked_out",
      holderType: "tenant",
      tenancyId: current,
    });

    const ids = (list: any[]) => list.map((k) => k.id);
    const cur = (await get(current)).body;
    expect(ids(cur.keys.held)).toEqual(["KS-HELD-CUR"]);
    expect(ids(cur.keys.ambiguous)).toEqual(["KS-TENANT"]);
    expect(ids(cur.keys.available)).toEqual(["KS-OFFICE-1", "KS-OFFICE-2"]);
    expect(cur.keys.otherActiveTenancyIds).toEqual([next]);
    expect(codes(cur)).toContain("move_in:keys_unattributed:1");
    expect(codes(cur)).not.toContain("move_in:keys_not_handed_over:null");

    const was = (await get(old)).body;
    expect(ids(was.keys.held)).toEqual(["KS-HELD-OLD"]);
    expect(ids(was.keys.ambiguous)).toEqual(["KS-TENANT", "KS-OCCUPANT"]);
    expect(was.keys.otherActiveTenancyIds.sort()).toEqual([current, next].sort());
    const keyItems = was.outstanding.filter((i: any) => i.code.startsWith("keys_"));
    expect(keyItems.map((i: any) => `${i.direction}:${i.code}:${i.count}`)).toEqual([
      "move_out:keys_held:1",
      "move_out:keys_unattributed:2",
    ]);

    const all = [
      ...cur.keys.held,
      ...cur.keys.ambiguous,
      ...cur.keys.available,
      ...was.keys.held,
      ...was.keys.ambiguous,
    ];
    expect(ids(all)).not.toContain("KS-LOST");
    expect(ids(all)).not.toContain("KS-CONTRACTOR");
  });

  test("a tenancy whose only key sets are lost has nothing held and is told so", async () => {
    const unitId = await seed.unit();
    const tenancyId = await seed.tenancy({ unitId, status: "ended", noticeGivenOn: "2025-01-01" });
    await seed.keySet({ unitId, status: "lost", holderType: "tenant", tenancyId });
    const res = await get(tenancyId);
    expect(res.body.keys.held).toEqual([]);
    expect(codes(res.body).filter((c: string) => c.includes("keys_"))).toEqual([]);
  });
});

describe("field-level authorisation", () => {
  const build = async () => {
    const unitId = await seed.unit();
    const tenancyId = await seed.tenancy({ unitId, status: "ended", noticeGivenOn: "2025-01-01" });
    await seed.inspection({
      tenancyId,
      kind: "check_in",
      status: "booked",
      findings: [{ area: "Hall", taskId: await seed.task() }],
    });
    await seed.keySet({ unitId, status: "checked_out", holderType: "tenant", tenancyId });
    await seed.keySet({ unitId, status: "checked_out", holderType: "tenant" });
    return tenancyId;
  };

  test("without inspections:read and keys:read the inspection and key fields are null and outstanding is unchanged", async () => {
    const tenancyId = await build();
    const full = (await get(tenancyId)).body;
    const key = await h.key(ws, ["handovers:read"]);
    const res = await get(tenancyId, key);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      inspectionsReadable: false,
      checkIn: null,
      checkOut: null,
      followUps: null,
      keys: null,
    });
    expect(res.body.outstanding).toEqual(full.outstanding);
    expect(codes(res.body)).toEqual([
      "move_in:check_in_open:null",
      "move_in:follow_ups_open:1",
      "move_in:handover_open:null",
      "move_out:check_out_missing:null",
      "move_out:keys_held:1",
      "move_out:keys_unattributed:1",
      "move_out:forwarding_missing:null",
      "move_out:notice_evidence_missing:null",
      "move_out:handover_open:null",
    ]);
  });

  test("inspections:read alone shows the visits but not the keys", async () => {
    const tenancyId = await build();
    const key = await h.key(ws, ["handovers:read", "inspections:read"]);
    const res = await get(tenancyId, key);
    expect(res.body.inspectionsReadable).toBe(true);
    expect(res.body.checkIn).not.toBeNull();
    expect(res.body.followUps).toHaveLength(1);
    expect(res.body.keys).toBeNull();
  });

  test("keys:read alone shows the keys but not the visits", async () => {
    const tenancyId = await build();
    const key = await h.key(ws, ["handovers:read", "keys:read"]);
    const res = await get(tenancyId, key);
    expect(res.body).toMatchObject({ inspectionsReadable: false, checkIn: null, followUps: null });
    expect(res.body.keys.held).toHaveLength(1);
    expect(res.body.keys.ambiguous).toHaveLength(1);
  });

  test("inspections:write or keys:write do not stand in for read", async () => {
    const tenancyId = await build();
    const key = await h.key(ws, ["handovers:read", "inspections:write", "keys:write"]);
    const res = await get(tenancyId, key);
    expect(res.body).toMatchObject({ inspectionsReadable: false, checkIn: null, keys: null });
  });
});
