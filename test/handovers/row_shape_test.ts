/**
 * Stored handover rows carry the shape of the computation that made them (rowShape, sql/0012); rows of another
 * shape are computed again. That holds only if rowShape is raised whenever what fullRow computes changes: this
 * test records a digest of the rows fullRow computes for fixed inputs, per shape, and fails when they change while
 * rowShape stays. To change the rows: raise rowShape in src/handovers/row.ts and add its digest below; never edit a
 * recorded one.
 */
import { describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import type { InspectionInputs, TenancyInputs } from "../../src/handovers/queries.ts";
import { storedRow, tenancyInputs } from "../../src/handovers/queries.ts";
import { fullRow, rowShape } from "../../src/handovers/row.ts";
import { harness } from "../support/harness.ts";
import { Seed } from "./fixtures.ts";
import { outstandingCodes, type Handover, type KeyEntry } from "../../src/handovers/schema.ts";

/** The digest of the rows each shape computes for `fixtures`. */
const digests: Record<number, string> = {
  1: "831e93ce298f1c533556989debe0f25e5c5797163631ce663eb333091295cdbd",
};

const handover = (over: Partial<Handover>): Handover => ({
  id: "ho-1",
  direction: "move_in",
  status: "completed",
  dueOn: "2025-01-01",
  completedAt: "2025-01-02T10:00:00.000Z",
  meterReadings: [
    { meter: "electricity", reading: "12345", readOn: "2025-01-02" },
    { meter: "gas", reading: "0042.5", readOn: null },
  ],
  forwardingAddress: null,
  noticeEvidenceDocumentId: null,
  ...over,
});
const visit = (over: Partial<InspectionInputs>): InspectionInputs => ({
  id: "in-1",
  reference: "CI-1",
  status: "completed",
  outcome: "minor_actions",
  dueOn: "2025-01-02",
  bookedFor: "2025-01-02T09:00:00.000Z",
  completedAt: "2025-01-02T11:00:00.000Z",
  findingCount: 3,
  followUps: [
    {
      findingId: "f-2",
      area: "Kitchen",
      item: "Oven",
      repair: null,
      task: { id: "t-1", title: "Clean oven", status: "open", dueOn: "2025-02-01" },
    },
    {
      findingId: "f-1",
      area: "Bath",
      item: null,
      repair: { id: "r-1", reference: "REP-1", status: "completed" },
      task: null,
    },
  ],
  ...over,
});
const keySet = (over: Partial<KeyEntry>): KeyEntry => ({
  id: "ks-1",
  reference: "K-1",
  label: "Front door",
  unitId: "u-1",
  status: "in_office",
  sequence: 0,
  holderType: "office",
  holderContactId: null,
  holderName: "",
  tenancyId: null,
  ...over,
});

/** A tenancy under notice with a bit of everything. */
const leaving: TenancyInputs = {
  tenancyId: "ten-1",
  tenancyStatus: "notice_given",
  startsOn: "2025-01-01",
  endsOn: "2026-04-30",
  noticeGivenOn: "2026-03-01",
  unitId: "u-1",
  propertyId: "p-1",
  today: "2026-03-15",
  occupants: [
    { contactId: "c-1", role: "tenant", isLead: true },
    { contactId: "c-2", role: "permitted_occupier", isLead: false },
  ],
  meters: ["electricity", "gas", "water"],
  moveIn: handover({}),
  moveOut: handover({ id: "ho-2", direction: "move_out", status: "open", completedAt: null, meterReadings: [] }),
  checkIn: visit({}),
  checkOut: visit({ id: "in-2", reference: "CO-1", status: "booked", outcome: null, completedAt: null, followUps: [] }),
  keySets: [
    keySet({}),
    keySet({ id: "ks-2", reference: "K-2", status: "checked_out", holderType: "tenant", tenancyId: "ten-1" }),
    keySet({ id: "ks-3", reference: "K-3", status: "checked_out", holderType: "tenant", holderName: "Alex" }),
    keySet({ id: "ks-4", reference: "K-4", status: "checked_out", holderType: "other", holderContactId: "c-2" }),
    keySet({ id: "ks-5", reference: "K-5", status: "checked_out", holderType: "contractor", holderName: "Fixit" }),
  ],
  otherActiveTenancyIds: ["ten-0"],
  rowVersion: 3,
};

/** Inputs covering the outstanding rules: new, started, leaving, ended. */
const fixtures: TenancyInputs[] = [
  leaving,
  {
    ...leaving,
    tenancyId: "ten-2",
    tenancyStatus: "active",
    startsOn: "2026-04-01",
    endsOn: null,
    noticeGivenOn: null,
    occupants: [],
    moveIn: null,
    moveOut: null,
    checkIn: null,
    checkOut: null,
    keySets: [],
    otherActiveTenancyIds: [],
  },
  {
    ...leaving,
    tenancyId: "ten-3",
    tenancyStatus: "active",
    noticeGivenOn: null,
    moveOut: null,
    checkIn: visit({
      status: "due",
      outcome: null,
      bookedFor: null,
      completedAt: null,
      findingCount: 0,
      followUps: [],
    }),
    checkOut: null,
  },
  {
    ...leaving,
    tenancyId: "ten-4",
    tenancyStatus: "ended",
    moveOut: handover({ id: "ho-2", direction: "move_out", forwardingAddress: " ", noticeEvidenceDocumentId: "d-1" }),
    checkIn: visit({ status: "cancelled" }),
    checkOut: visit({ id: "in-2", reference: "CO-1", status: "cancelled", followUps: [] }),
    keySets: [keySet({ status: "checked_out", holderType: "tenant", tenancyId: "ten-4" })],
  },
];

describe("the shape of stored rows", () => {
  test("the rows fullRow computes are those recorded for rowShape (a change to them raises rowShape)", () => {
    const digest = createHash("sha256")
      .update(JSON.stringify(fixtures.map((f) => fullRow(f))))
      .digest("hex");
    expect({ rowShape, digest }).toEqual({ rowShape, digest: digests[rowShape]! });
  });

  test("the fixtures reach every outstanding code, so that a changed rule changes the digest", () => {
    const codes = new Set(fixtures.flatMap((f) => fullRow(f).outstanding.map((o) => o.code)));
    expect([...codes].sort()).toEqual([...outstandingCodes].sort());
  });
});

const h = await harness();

describe("stored rows of another shape", () => {
  /** A stored row (after a first read) of a tenancy under notice, and how to read it and its record back. */
  async function storedTenancy() {
    const { database } = h;
    const ws = await h.workspace();
    const seed = new Seed(database.db, ws.id);
    const tenancyId = await seed.tenancy({
      unitId: await seed.unit({ meters: ["gas"] }),
      status: "notice_given",
      noticeGivenOn: "2026-01-10",
    });
    const get = () => h.request("GET", `/handovers/tenancies/${tenancyId}`, { key: ws.key });
    const record = async () =>
      (
        await database.db<{ shape: number | null; rowJson: string | null }[]>`
          select shape, row_json from handover_rows where workspace_id = ${ws.id} and tenancy_id = ${tenancyId}`
      )[0]!;
    /** Stores the row as another shape left it: a different status, and `shape`. */
    const storeAs = (shape: number | null) => database.db`
      update handover_rows set shape = ${shape},
        row_json = replace(row_json, '"tenancyStatus":"notice_given"', '"tenancyStatus":"active"')
      where workspace_id = ${ws.id} and tenancy_id = ${tenancyId}`;
    const live = async () => JSON.parse(JSON.stringify(fullRow((await tenancyInputs(database.db, ws.id, tenancyId))!)));
    expect((await get()).status).toBe(200);
    expect(await record()).toMatchObject({ shape: rowShape });
    return { db: database.db, ws, tenancyId, get, record, storeAs, live };
  }

  test("a row of another shape is not served: the read computes it and stores it over, with this shape", async () => {
    const t = await storedTenancy();
    await t.storeAs(rowShape); // control: the same shape is served as stored
    expect((await t.get()).body.tenancyStatus).toBe("active");
    await t.storeAs(rowShape + 1);
    expect(await storedRow(t.db, t.ws.id, t.tenancyId)).toBeUndefined();
    const res = await t.get();
    expect(res.body).toEqual(await t.live());
    expect(res.body.tenancyStatus).toBe("notice_given");
    const after = await t.record();
    expect(after.shape).toBe(rowShape);
    expect(after.rowJson).toBe(res.text);
  });

  test("a row stored before shapes were kept (none) is computed again once", async () => {
    const t = await storedTenancy();
    await t.storeAs(null);
    expect((await t.get()).body.tenancyStatus).toBe("notice_given");
    expect(await t.record()).toMatchObject({ shape: rowShape });
    expect((await t.get()).text).toBe((await t.record()).rowJson!);
  });
});
