/** The demo workspace: its document loads, covers what a person trying the API should see, and ensureDemo is idempotent. */
import { describe, expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import { demoDocument } from "../../src/workspace_import/demo_document.ts";
import { londonToday } from "../../src/core/dates.ts";
import { ensureDemo, demoSlug } from "../../src/workspace_import/demo.ts";
import { importWorkspace, prepareDocument } from "../../src/workspace_import/import.ts";
import { deriveInvoice } from "../../src/contractor_invoices/derive.ts";
import type { WorkspaceDoc } from "../../src/workspace_import/schema.ts";
import { dumpDatabase } from "../support/dump.ts";

const h = await harness();
const today = "2026-11-22";
const doc = demoDocument(today);

/** A tenancy's outstanding codes by the rules of src/handovers/outstanding.ts, from the document alone. */
function outstandingCodes(d: WorkspaceDoc, tenancyId: string, on: string): string[] {
  const t = d.tenancies!.find((x) => x.id === tenancyId)!;
  const meters = d.units!.find((u) => u.id === t.unitId)!.meters ?? [];
  const visits = (kind: string) => {
    const all = d
      .inspections!.filter((i) => i.tenancyId === tenancyId && i.kind === kind)
      .sort((a, b) => `${b.dueOn}${b.id}`.localeCompare(`${a.dueOn}${a.id}`));
    return {
      live: all.find((i) => i.status !== "cancelled"),
      latest: all.find((i) => i.status !== "cancelled") ?? all[0],
    };
  };
  const openFollowUps = (
    inspection: { findings?: { repairId?: string | null; taskId?: string | null }[] | null } | undefined,
  ) =>
    (inspection?.findings ?? []).filter((f) => {
      const repair = d.repairs!.find((r) => r.id === f.repairId);
      const task = d.tasks!.find((x) => x.id === f.taskId);
      return (
        (repair && !["completed", "cancelled"].includes(repair.status ?? "")) ||
        (task && !["done", "cancelled"].includes(task.status ?? "open"))
      );
    }).length;
  const handover = (direction: string) =>
    d.handovers!.find((x) => x.tenancyId === tenancyId && x.direction === direction);
  const missingReadings = (direction: string) =>
    meters.filter((m) => !(handover(direction)?.meterReadings ?? []).some((r) => r.meter === m)).length;
  const occupants = (t.occupants ?? []).map((o) => o.contactId);
  const sets = d.keySets!.filter((k) => k.unitId === t.unitId && k.status !== "lost");
  const held = sets.filter((k) => k.status === "checked_out" && k.tenancyId === tenancyId);
  const ambiguous = sets.filter(
    (k) =>
      k.status === "checked_out" &&
      !k.tenancyId &&
      (k.holderType === "tenant" || occupants.includes(k.holderContactId ?? "")),
  );
  const leaving = t.status === "notice_given" || t.status === "ended";
  const codes: string[] = [];
  const ci = visits("check_in");
  const co = visits("check_out");
  if (!ci.live) codes.push("move_in:check_in_missing");
  if (ci.live && ["due", "booked"].includes(ci.live.status)) codes.push("move_in:check_in_open");
  if (openFollowUps(ci.latest)) codes.push(`move_in:follow_ups_open:${openFollowUps(ci.latest)}`);
  if (t.status !== "ended" && (t.startsOn ?? "") <= on && !held.length) codes.push("move_in:keys_not_handed_over");
  if (t.status === "active" && ambiguous.length) codes.push(`move_in:keys_unattributed:${ambiguous.length}`);
  if (missingReadings("move_in")) codes.push(`move_in:meter_readings_missing:${missingReadings("move_in")}`);
  if (!handover("move_in") || handover("move_in")!.status === "open") codes.push("move_in:handover_open");
  if (leaving && !co.live) codes.push("move_out:check_out_missing");
  if (leaving && co.live && ["due", "booked"].includes(co.live.status)) codes.push("move_out:check_out_open");
  if (openFollowUps(co.latest)) codes.push(`move_out:follow_ups_open:${openFollowUps(co.latest)}`);
  if (t.status === "ended" && held.length) codes.push(`move_out:keys_held:${held.length}`);
  if (t.status !== "active" && ambiguous.length) codes.push(`move_out:keys_unattributed:${ambiguous.length}`);
  if (leaving && missingReadings("move_out"))
    codes.push(`move_out:meter_readings_missing:${missingReadings("move_out")}`);
  if (leaving && !handover("move_out")?.forwardingAddress) codes.push("move_out:forwarding_missing");
  if (t.noticeGivenOn && !handover("move_out")?.noticeEvidenceDocumentId)
    codes.push("move_out:notice_evidence_missing");
  if (leaving && (!handover("move_out") || handover("move_out")!.status === "open"))
    codes.push("move_out:handover_open");
  return codes;
}

describe("the demo document", () => {
  test("validates and loads into an empty workspace, and loading it again changes nothing", async () => {
    const ws = await h.workspace();
    const counts = await importWorkspace(h.database.db, ws.slug, doc);
    expect(counts.tenancies).toBe(9);
    const before = await dumpDatabase(h.database.db);
    await importWorkspace(h.database.db, ws.slug, doc);
    expect(await dumpDatabase(h.database.db)).toEqual(before);
  });

  test("is valid on any day, across the clock changes", () => {
    for (const day of ["2026-03-29", "2026-10-25", "2027-01-01", "2028-02-29"])
      expect(() => prepareDocument(demoDocument(day))).not.toThrow();
  });

  test("places times on the London wall clock, in summer and in winter", () => {
    const summer = demoDocument("2026-07-01").calendarEvents!.find((e) => e.id === "ev-viewing-ashby-7")!;
    const winter = demoDocument("2026-12-01").calendarEvents!.find((e) => e.id === "ev-viewing-ashby-7")!;
    expect(summer.startsAt).toBe("2026-07-02T09:00:00.000Z");
    expect(winter.startsAt).toBe("2026-12-02T10:00:00.000Z");
    expect(londonToday(Date.parse("2026-06-30T23:30:00Z"))).toBe("2026-07-01");
    expect(londonToday(Date.parse("2026-12-31T23:30:00Z"))).toBe("2026-12-31");
  });

  test("shows every outstanding code of the handover row on some tenancy, and many on ten-ashby-2b", () => {
    const byTenancy = Object.fromEntries(doc.tenancies!.map((t) => [t.id, outstandingCodes(doc, t.id, today)]));
    expect(byTenancy).toEqual({
      "ten-ashby-1a": [],
      "ten-ashby-2b": [
        "move_in:follow_ups_open:2",
        "move_in:keys_not_handed_over",
        "move_in:meter_readings_missing:2",
        "move_in:handover_open",
        "move_out:check_out_open",
        "move_out:keys_unattributed:1",
        "move_out:meter_readings_missing:3",
        "move_out:forwarding_missing",
        "move_out:notice_evidence_missing",
        "move_out:handover_open",
      ],
      "ten-headingley-2-prev": [
        "move_out:check_out_open",
        "move_out:meter_readings_missing:2",
        "move_out:handover_open",
      ],
      "ten-headingley-2": ["move_in:check_in_open", "move_in:meter_readings_missing:2", "move_in:handover_open"],
      "ten-headingley-4": ["move_in:check_in_missing", "move_in:keys_unattributed:1"],
      "ten-ancoats-3": ["move_out:follow_ups_open:2", "move_out:keys_held:1"],
      "ten-ancoats-5": [
        "move_out:check_out_missing",
        "move_out:meter_readings_missing:2",
        "move_out:forwarding_missing",
        "move_out:notice_evidence_missing",
        "move_out:handover_open",
      ],
      "ten-wellington": ["move_out:check_out_open", "move_out:meter_readings_missing:3", "move_out:handover_open"],
      "ten-harrogate": [],
    });
    const shown = new Set(
      Object.values(byTenancy)
        .flat()
        .map((c) => c.split(":").slice(0, 2).join(":")),
    );
    const table = [
      "move_in:check_in_missing",
      "move_in:check_in_open",
      "move_in:follow_ups_open",
      "move_in:keys_not_handed_over",
      "move_in:meter_readings_missing",
      "move_in:handover_open",
      "move_out:check_out_missing",
      "move_out:check_out_open",
      "move_out:follow_ups_open",
      "move_out:keys_held",
      "move_in:keys_unattributed",
      "move_out:keys_unattributed",
      "move_out:meter_readings_missing",
      "move_out:forwarding_missing",
      "move_out:notice_evidence_missing",
      "move_out:handover_open",
    ];
    expect(table.filter((code) => !shown.has(code))).toEqual([]);
  });

  test("has every state a person trying the API should meet", () => {
    const set = <T>(xs: T[]) => [...new Set(xs)].sort();
    const started = (t: { status: string; startsOn?: string | null }) =>
      t.status === "active" && (t.startsOn ?? "") > today ? "not_started" : t.status;
    expect(set(doc.tenancies!.map(started))).toEqual(["active", "ended", "not_started", "notice_given"]);
    expect(set(doc.tasks!.map((t) => t.status))).toEqual(["cancelled", "done", "in_progress", "open"]);
    expect(set(doc.tasks!.map((t) => t.priority))).toEqual(["high", "low", "normal", "urgent"]);
    expect(set(doc.inspections!.map((i) => i.kind))).toEqual(["check_in", "check_out"]);
    expect(set(doc.inspections!.map((i) => i.status))).toEqual(["booked", "cancelled", "completed", "due"]);
    expect(set(doc.inspections!.map((i) => i.outcome ?? "none"))).toEqual([
      "minor_actions",
      "none",
      "satisfactory",
      "unsatisfactory",
    ]);
    expect(
      doc.inspections!.flatMap((i) => i.findings ?? []).some((f) => f.repairId) &&
        doc.inspections!.flatMap((i) => i.findings ?? []).some((f) => f.taskId),
    ).toBe(true);
    const keys = doc.keySets!;
    expect(set(keys.map((k) => k.status))).toEqual(["checked_out", "in_office", "lost"]);
    expect(
      keys.some((k) => k.holderType === "tenant" && k.tenancyId) &&
        keys.some((k) => k.holderType === "tenant" && !k.tenancyId),
    ).toBe(true);
    expect(keys.some((k) => k.holderType === "contractor" && k.status === "checked_out")).toBe(true);
    expect(set(doc.keyReports!.map((r) => (r.cleared ? "cleared" : "open")))).toEqual(["cleared", "open"]);
    const invoices = doc.contractorInvoices!.map((v) =>
      deriveInvoice({
        borneBy: v.borneBy,
        approvedAt: v.approvedAt ?? null,
        disputedAt: v.disputedAt ?? null,
        voidedAt: v.voidedAt ?? null,
        lines: v.lines ?? [],
        payments: (v.payments ?? []).map((p) => ({ amountMinor: p.amountMinor, correctedAt: p.correctedAt ?? null })),
        creditNotes: (v.creditNotes ?? []).map((c) => ({
          netMinor: c.netMinor,
          vatMinor: c.vatMinor,
          correctedAt: c.correctedAt ?? null,
        })),
        recoveries: (v.recoveries ?? []).map((r) => ({
          amountMinor: r.amountMinor,
          correctedAt: r.correctedAt ?? null,
        })),
      }),
    );
    expect(set(invoices.map((v) => v.status))).toEqual([
      "approved",
      "credited",
      "disputed",
      "paid",
      "part_paid",
      "received",
      "void",
    ]);
    expect(
      invoices.some(
        (v, i) => doc.contractorInvoices![i]!.borneBy === "tenant" && v.recoveredMinor > 0 && v.recoverableMinor > 0,
      ),
    ).toBe(true);
    expect(doc.contractorInvoices!.some((v) => v.limitOverride && v.authorisation)).toBe(true);
    const events = doc.calendarEvents!;
    const inTwoWeeks = events.filter((e) => e.startsAt >= `${today}T00:00` && e.startsAt < "2026-12-06T00:00");
    expect(inTwoWeeks.length).toBeGreaterThanOrEqual(8);
    expect(inTwoWeeks.some((e) => e.status === "cancelled")).toBe(true);
    expect(set(doc.smsThreads!.map((s) => String(s.stopped ?? false)))).toEqual(["false", "true"]);
    const landlords = doc.contacts!.filter((c) => c.roles?.includes("landlord"));
    expect(landlords.some((c) => c.email) && landlords.some((c) => !c.email)).toBe(true);
    expect(set(doc.landlordPortalAccess!.map((a) => a.status))).toEqual(["active", "pending", "revoked"]);
    expect(doc.onboardingCheckouts!.some((c) => c.status === "started")).toBe(true);
    expect(doc.blocks!.every((b) => Object.keys(b.facts ?? {}).length > 0)).toBe(true);
    expect(doc.blocks!.some((b) => (b.history ?? []).length > 1)).toBe(true);
    expect(doc.hazardSettings).toEqual({ regime: "social" });
    // The five statuses of a repair, and a legacy record's own.
    expect(set(doc.repairs!.map((r) => r.status ?? "none"))).toEqual([
      "awaiting_contractor",
      "cancelled",
      "completed",
      "in_progress",
      "reported",
      "triaged",
    ]);
  });
});

describe("ensureDemo", () => {
  test("two processes starting at once create one demo workspace, once", async () => {
    const [a, b] = await Promise.all([ensureDemo(h.database.db), ensureDemo(h.database.db)]);
    expect([a.created, b.created].sort()).toEqual([false, true]);
    expect(a.workspaceId).toBe(b.workspaceId);
    expect(await h.database.db`select count(*)::int as n from workspaces where slug = ${demoSlug}`).toEqual([
      { n: 1 },
    ] as any);
    expect(await h.database.db`select count(*)::int as n from tenancies where workspace_id = ${a.workspaceId}`).toEqual(
      [{ n: 9 }] as any,
    );
    expect(await h.database.db`select id from users where workspace_id = ${a.workspaceId} and role = 'owner'`).toEqual([
      { id: "usr-hannah" },
    ] as any);
  });

  test("hands out a fresh working key on every call and revokes the one before", async () => {
    const first = await ensureDemo(h.database.db);
    const second = await ensureDemo(h.database.db);
    expect(first).toMatchObject({ slug: demoSlug, created: false });
    expect(second).toMatchObject({ workspaceId: first.workspaceId, revokedKeys: 1 });
    expect(second.key).not.toBe(first.key);
    expect(second.keyId).not.toBe(first.keyId);
    const path = "/handovers/tenancies/ten-ashby-2b";
    expect((await h.request("GET", path, { key: second.key })).status).toBe(200);
    expect((await h.request("GET", path, { key: first.key })).body).toEqual({ _tag: "ApiKeyRejected" });
  });

  test("two calls at once leave exactly one live demo key", async () => {
    await Promise.all([ensureDemo(h.database.db), ensureDemo(h.database.db), ensureDemo(h.database.db)]);
    const live = await h.database.db`
      select k.id from api_keys k join workspaces w on w.id = k.workspace_id
      where w.slug = ${demoSlug} and k.revoked_at is null`;
    expect(live).toHaveLength(1);
  });
});
