import { describe, expect, test } from "bun:test";
import { harness, type TestWorkspace } from "../support/harness.ts";
import { throughPgBouncer } from "../support/database.ts";
import { inlineRefs } from "../support/openapi.ts";
import { seedAuthorisation, seedInvoice, storedInvoice, type InvoiceSeed } from "./fixtures.ts";

const h = await harness();
const db = h.database.db;
const T = "2026-03-02T10:00:00.000Z";
const correct = (
  ws: TestWorkspace,
  paymentId: string,
  body: unknown = { reason: "Duplicate bank entry" },
  key = ws.key,
) => h.request("POST", `/contractor-payments/${paymentId}/correct`, { key, body });

/** An approved £120.00 invoice paid in two payments. */
const paidInTwo = (extra: Partial<InvoiceSeed> = {}): InvoiceSeed => ({
  approvedAt: T,
  lines: [{ netMinor: 10_000, vatMinor: 2_000 }],
  payments: [{ amountMinor: 5_000 }, { amountMinor: 7_000 }],
  ...extra,
});

describe("POST /contractor-payments/{id}/correct", () => {
  test("answers the whole invoice with the payment flagged and every field of the invoice schema", async () => {
    const ws = await h.workspace();
    const propertyId = await h.rows(ws).property({ label: "Flat 2, 12 Harbour Street" });
    const contractorId = await h
      .rows(ws)
      .contact({ kind: "company", name: "Sparks & Sons Ltd", roles: ["contractor"] });
    const authorisationId = await seedAuthorisation(db, ws.id, {
      id: "AUTH-1",
      authorisedMinor: 20_000,
      basis: "approved_quote",
    });
    const { invoiceId, paymentIds } = await seedInvoice(db, ws.id, {
      id: "INV-1",
      number: "SS-1042",
      subjectKind: "repair",
      subjectId: "R-77",
      subjectLabel: "Leaking tap",
      propertyId,
      contractorContactId: contractorId,
      issuedOn: "2026-02-20",
      dueOn: "2026-03-22",
      borneBy: "tenant",
      documentId: "DOC-9",
      approvedAt: T,
      authorisationId,
      lines: [
        { id: "L1", kind: "labour", description: "Two hours", netMinor: 8_000, vatMinor: 1_600 },
        { id: "L2", kind: "materials", description: "Cartridge", netMinor: 2_000, vatMinor: 400 },
      ],
      payments: [
        { id: "P1", amountMinor: 6_000, paidOn: "2026-03-03", reference: "BACS 1" },
        { id: "P2", amountMinor: 6_000, paidOn: "2026-03-03", reference: "BACS 1 again" },
      ],
      creditNotes: [
        {
          id: "CN1",
          number: "CN-1",
          issuedOn: "2026-03-01",
          netMinor: 500,
          vatMinor: 100,
          reason: "Discount",
          documentId: "DOC-10",
        },
      ],
      recoveries: [{ id: "RC1", amountMinor: 1_000, receivedOn: "2026-03-05", reference: "Tenant card" }],
      limitOverride: {
        id: "LO1",
        state: "exceeded",
        basis: "approved_quote",
        authorisedMinor: 20_000,
        authorisedCurrency: "GBP",
        earlierMinor: 0,
        chargedMinor: 11_400,
        excessMinor: 0,
        reason: "Urgent",
        userId: ws.ownerUserId,
      },
    });
    const before =
      await db`select status, revision from contractor_invoices where workspace_id = ${ws.id} and id = ${invoiceId}`;
    expect(before[0]).toEqual({ status: "paid", revision: 1 });

    const res = await correct(ws, paymentIds[1]!, { reason: "  Entered twice  " });
    expect(res.status).toBe(200);
    const correctedAt = res.body.payments[1].correctedAt;
    expect(correctedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(res.body).toEqual({
      id: "INV-1",
      subjectKind: "repair",
      subjectId: "R-77",
      subjectLabel: "Leaking tap",
      propertyId,
      propertyLabel: "Flat 2, 12 Harbour Street",
      tenancyId: null,
      contractorContactId: contractorId,
      contractorName: "Sparks & Sons Ltd",
      number: "SS-1042",
      issuedOn: "2026-02-20",
      dueOn: "2026-03-22",
      currency: "GBP",
      netMinor: 10_000,
      vatMinor: 2_000,
      grossMinor: 12_000,
      borneBy: "tenant",
      documentId: "DOC-9",
      status: "part_paid",
      approvedAt: T,
      creditedMinor: 600,
      paidMinor: 6_000,
      outstandingMinor: 5_400,
      disputedMinor: 0,
      payableMinor: 11_400,
      recoveredMinor: 1_000,
      recoverableMinor: 10_400,
      disputeReason: null,
      disputedAt: null,
      voidedAt: null,
      voidReason: null,
      legacy: false,
      legacyStatus: null,
      legacySettled: false,
      revision: 2,
      createdAt: "2026-03-01T09:00:00.000Z",
      lines: [
        {
          id: "L1",
          ordinal: 1,
          kind: "labour",
          description: "Two hours",
          netMinor: 8_000,
          vatMinor: 1_600,
          grossMinor: 9_600,
        },
        {
          id: "L2",
          ordinal: 2,
          kind: "materials",
          description: "Cartridge",
          netMinor: 2_000,
          vatMinor: 400,
          grossMinor: 2_400,
        },
      ],
      payments: [
        {
          id: "P1",
          amountMinor: 6_000,
          paidOn: "2026-03-03",
          reference: "BACS 1",
          legacy: false,
          createdAt: "2026-03-01T09:00:00.000Z",
          correctedAt: null,
          correctionReason: null,
        },
        {
          id: "P2",
          amountMinor: 6_000,
          paidOn: "2026-03-03",
          reference: "BACS 1 again",
          legacy: false,
          createdAt: "2026-03-01T09:00:00.000Z",
          correctedAt,
          correctionReason: "Entered twice",
        },
      ],
      creditNotes: [
        {
          id: "CN1",
          number: "CN-1",
          issuedOn: "2026-03-01",
          netMinor: 500,
          vatMinor: 100,
          grossMinor: 600,
          reason: "Discount",
          documentId: "DOC-10",
          createdAt: "2026-03-01T09:00:00.000Z",
          correctedAt: null,
          correctionReason: null,
        },
      ],
      recoveries: [
        {
          id: "RC1",
          amountMinor: 1_000,
          receivedOn: "2026-03-05",
          reference: "Tenant card",
          createdAt: "2026-03-01T09:00:00.000Z",
          correctedAt: null,
          correctionReason: null,
        },
      ],
      authorisation: {
        state: "within",
        basis: "approved_quote",
        authorisedMinor: 20_000,
        authorisedCurrency: "GBP",
        earlierMinor: 0,
        chargedMinor: 11_400,
        remainingMinor: 8_600,
        excessMinor: 0,
      },
      limitOverride: {
        id: "LO1",
        state: "exceeded",
        basis: "approved_quote",
        authorisedMinor: 20_000,
        authorisedCurrency: "GBP",
        earlierMinor: 0,
        chargedMinor: 11_400,
        excessMinor: 0,
        reason: "Urgent",
        userId: ws.ownerUserId,
        createdAt: "2026-03-01T09:00:00.000Z",
      },
    });
  });

  test("stores the correction, the recomputed totals and the revision, and logs it with the key", async () => {
    const ws = await h.workspace();
    const { invoiceId, paymentIds } = await seedInvoice(db, ws.id, paidInTwo());
    const res = await correct(ws, paymentIds[0]!, { reason: "Wrong invoice" });
    expect(res.status).toBe(200);
    const [row] = await db`
      select status, paid_minor::int, outstanding_minor::int, payable_minor::int, revision
      from contractor_invoices where workspace_id = ${ws.id} and id = ${invoiceId}`;
    expect(row).toEqual({
      status: "part_paid",
      paidMinor: 7_000,
      outstandingMinor: 5_000,
      payableMinor: 12_000,
      revision: 2,
    });
    const [payment] =
      await db`select iso(corrected_at) as corrected_at, correction_reason from contractor_payments where workspace_id = ${ws.id} and id = ${paymentIds[0]!}`;
    expect(payment).toEqual({ correctedAt: res.body.payments[0].correctedAt, correctionReason: "Wrong invoice" });
    const log =
      await db`select actor_key_id, action, subject_kind, subject_id, detail from activity_log where workspace_id = ${ws.id}`;
    expect([...log]).toEqual([
      {
        actorKeyId: ws.keyId,
        action: "contractorInvoices.paymentCorrected",
        subjectKind: "contractor_invoice",
        subjectId: invoiceId,
        detail: {
          paymentId: paymentIds[0],
          reason: "Wrong invoice",
          amountMinor: 5_000,
          statusBefore: "paid",
          statusAfter: "part_paid",
          revision: 2,
        },
      },
    ]);
  });

  test("correcting each payment of a fully paid invoice walks it paid → part_paid → approved", async () => {
    const ws = await h.workspace();
    const { paymentIds } = await seedInvoice(db, ws.id, paidInTwo());
    const first = await correct(ws, paymentIds[0]!);
    expect(first.body).toMatchObject({ status: "part_paid", paidMinor: 7_000, outstandingMinor: 5_000, revision: 2 });
    const second = await correct(ws, paymentIds[1]!);
    expect(second.body).toMatchObject({ status: "approved", paidMinor: 0, outstandingMinor: 12_000, revision: 3 });
    expect(second.body.payments.map((p: any) => p.correctedAt !== null)).toEqual([true, true]);
  });

  test("an unapproved invoice falls back to received", async () => {
    const ws = await h.workspace();
    const { paymentIds } = await seedInvoice(
      db,
      ws.id,
      paidInTwo({ approvedAt: null, payments: [{ amountMinor: 12_000 }] }),
    );
    const res = await correct(ws, paymentIds[0]!);
    expect(res.body).toMatchObject({ status: "received", paidMinor: 0 });
  });

  test("a void or disputed invoice keeps its status; a dispute without an amount disputes what is outstanding", async () => {
    const ws = await h.workspace();
    const disputed = await seedInvoice(db, ws.id, paidInTwo({ disputedAt: T, disputeReason: "Work incomplete" }));
    const d = await correct(ws, disputed.paymentIds[0]!);
    expect(d.body).toMatchObject({
      status: "disputed",
      disputedAt: T,
      disputeReason: "Work incomplete",
      outstandingMinor: 5_000,
      disputedMinor: 5_000,
    });
    const withAmount = await seedInvoice(db, ws.id, paidInTwo({ disputedAt: T, disputedMinor: 1_500 }));
    expect((await correct(ws, withAmount.paymentIds[0]!)).body.disputedMinor).toBe(1_500);
    const voided = await seedInvoice(db, ws.id, paidInTwo({ voidedAt: T, voidReason: "Sent to the wrong agent" }));
    const v = await correct(ws, voided.paymentIds[1]!);
    expect(v.body).toMatchObject({
      status: "void",
      voidedAt: T,
      voidReason: "Sent to the wrong agent",
      paidMinor: 5_000,
    });
  });

  test("a legacy invoice is recomputed from its entries; its old status is kept for reference", async () => {
    const ws = await h.workspace();
    const { paymentIds } = await seedInvoice(
      db,
      ws.id,
      paidInTwo({
        legacy: true,
        legacyStatus: "PAID_IN_FULL",
        legacySettled: true,
        payments: [{ amountMinor: 12_000, legacy: true }],
      }),
    );
    const res = await correct(ws, paymentIds[0]!);
    expect(res.body).toMatchObject({
      legacy: true,
      legacyStatus: "PAID_IN_FULL",
      legacySettled: true,
      status: "approved",
      outstandingMinor: 12_000,
    });
    expect(res.body.payments[0].legacy).toBe(true);
  });

  test("an invoice with no authorisation and no override shows both as null", async () => {
    const ws = await h.workspace();
    const { paymentIds } = await seedInvoice(db, ws.id, paidInTwo({ issuedOn: null }));
    const res = await correct(ws, paymentIds[0]!);
    expect(res.body).toMatchObject({
      authorisation: null,
      limitOverride: null,
      issuedOn: null,
      propertyLabel: null,
      contractorName: null,
    });
  });

  test("the authorisation counts earlier, not void invoices charged to it, and only those", async () => {
    const ws = await h.workspace();
    const other = await h.workspace();
    const auth = await seedAuthorisation(db, ws.id, { id: "Q-1", authorisedMinor: 30_000 });
    await seedAuthorisation(db, other.id, { id: "Q-1", authorisedMinor: 30_000 });
    const charged = (issuedOn: string | null, grossPounds: number, extra: Partial<InvoiceSeed> = {}): InvoiceSeed => ({
      authorisationId: auth,
      issuedOn,
      lines: [{ netMinor: grossPounds * 100, vatMinor: 0 }],
      ...extra,
    });
    await seedInvoice(db, ws.id, charged("2026-01-10", 100, { id: "A" }));
    await seedInvoice(
      db,
      ws.id,
      charged("2026-01-12", 50, { id: "B", creditNotes: [{ netMinor: 1_000, vatMinor: 0 }] }),
    );
    await seedInvoice(db, ws.id, charged("2026-01-11", 500, { id: "V", voidedAt: T }));
    await seedInvoice(db, ws.id, charged("2026-01-11", 70, { id: "E", currency: "EUR" }));
    await seedInvoice(db, ws.id, charged("2026-02-01", 60, { id: "C" }));
    await seedInvoice(db, ws.id, charged("2026-02-01", 10, { id: "D" }));
    await seedInvoice(db, ws.id, charged(null, 999, { id: "N" }));
    await seedInvoice(db, ws.id, { issuedOn: "2026-01-01", lines: [{ netMinor: 99_900, vatMinor: 0 }] });
    await seedInvoice(db, other.id, { ...charged("2026-01-01", 900), authorisationId: "Q-1" });
    const target = await seedInvoice(
      db,
      ws.id,
      charged("2026-02-01", 180, { id: "CA", payments: [{ amountMinor: 100 }] }),
    );
    const res = await correct(ws, target.paymentIds[0]!);
    // Earlier: A (100) + B (50 − 10 credited) + C (60, same day, smaller id); not D (same day, larger id), V (void),
    // E (another currency), N (no issue date: last), nor the other workspace's Q-1.
    expect(res.body.authorisation).toEqual({
      state: "exceeded",
      basis: "approved_quote",
      authorisedMinor: 30_000,
      authorisedCurrency: "GBP",
      earlierMinor: 20_000,
      chargedMinor: 18_000,
      remainingMinor: 0,
      excessMinor: 8_000,
    });
    const last = await seedInvoice(db, ws.id, { ...charged(null, 1), id: "ZZ", payments: [{ amountMinor: 1 }] });
    const lastRes = await correct(ws, last.paymentIds[0]!);
    // With no issue date it comes after every dated one, and after N by id.
    expect(lastRes.body.authorisation).toMatchObject({
      earlierMinor: 100 * (100 + 40 + 60 + 10 + 180 + 999),
      chargedMinor: 100,
    });
  });

  test("a corrected credit note or recovery stays listed, flagged, and does not count", async () => {
    const ws = await h.workspace();
    const { paymentIds } = await seedInvoice(
      db,
      ws.id,
      paidInTwo({
        borneBy: "tenant",
        creditNotes: [{ netMinor: 1_000, vatMinor: 200, correctedAt: T, correctionReason: "Not ours" }],
        recoveries: [
          { id: "R1", amountMinor: 3_000, correctedAt: T, correctionReason: "Bounced" },
          { id: "R2", amountMinor: 2_000 },
        ],
      }),
    );
    const res = await correct(ws, paymentIds[0]!);
    expect(res.body).toMatchObject({
      creditedMinor: 0,
      payableMinor: 12_000,
      recoveredMinor: 2_000,
      recoverableMinor: 10_000,
    });
    expect(res.body.creditNotes[0]).toMatchObject({ correctedAt: T, correctionReason: "Not ours" });
    expect(res.body.recoveries.map((r: any) => r.correctionReason)).toEqual(["Bounced", null]);
  });
});

describe("refusals change nothing", () => {
  test("an unknown payment is PaymentNotFound", async () => {
    const ws = await h.workspace();
    const res = await correct(ws, "NO-SUCH-PAYMENT");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ _tag: "PaymentNotFound", paymentId: "NO-SUCH-PAYMENT" });
  });

  test("a payment of another workspace is PaymentNotFound and stays as it was; a same-id payment of the caller's is the one corrected", async () => {
    const ws = await h.workspace();
    const other = await h.workspace();
    const theirs = await seedInvoice(
      db,
      other.id,
      paidInTwo({ id: "INV-SAME", payments: [{ id: "PAY-SAME", amountMinor: 12_000 }] }),
    );
    const before = await storedInvoice(db, other.id, theirs.invoiceId);
    const refused = await correct(ws, "PAY-SAME");
    expect(refused.status).toBe(404);
    expect(refused.body).toEqual({ _tag: "PaymentNotFound", paymentId: "PAY-SAME" });
    const mine = await seedInvoice(
      db,
      ws.id,
      paidInTwo({ id: "INV-SAME", payments: [{ id: "PAY-SAME", amountMinor: 12_000 }] }),
    );
    const ok = await correct(ws, "PAY-SAME");
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe("approved");
    expect(await storedInvoice(db, other.id, theirs.invoiceId)).toEqual(before);
    expect(mine.invoiceId).toBe("INV-SAME");
  });

  test("a payment already corrected is PaymentAlreadyCorrected with its correctedAt", async () => {
    const ws = await h.workspace();
    const { invoiceId, paymentIds } = await seedInvoice(db, ws.id, paidInTwo());
    const first = await correct(ws, paymentIds[0]!);
    const before = await storedInvoice(db, ws.id, invoiceId);
    const again = await correct(ws, paymentIds[0]!, { reason: "Once more" });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      _tag: "PaymentAlreadyCorrected",
      paymentId: paymentIds[0],
      correctedAt: first.body.payments[0].correctedAt,
    });
    expect(await storedInvoice(db, ws.id, invoiceId)).toEqual(before);
  });

  test.each([
    ["a missing reason", {}],
    ["an empty reason", { reason: "" }],
    ["a reason of whitespace only", { reason: " \t\n " }],
    ["a reason of 501 characters after trimming", { reason: ` ${"x".repeat(501)} ` }],
    ["a reason that is not a string", { reason: 42 }],
    ["an unknown field", { reason: "Duplicate", revision: 3 }],
  ])("%s is RequestInvalid", async (_name, body) => {
    const ws = await h.workspace();
    const { invoiceId, paymentIds } = await seedInvoice(db, ws.id, paidInTwo());
    const before = await storedInvoice(db, ws.id, invoiceId);
    const res = await correct(ws, paymentIds[0]!, body);
    expect(res.status).toBe(400);
    expect(res.body._tag).toBe("RequestInvalid");
    expect(res.body.issues.length).toBeGreaterThan(0);
    expect(await storedInvoice(db, ws.id, invoiceId)).toEqual(before);
  });

  test("a reason of 500 characters after trimming is accepted and stored trimmed", async () => {
    const ws = await h.workspace();
    const { paymentIds } = await seedInvoice(db, ws.id, paidInTwo());
    const reason = `é${"x".repeat(498)}!`;
    const res = await correct(ws, paymentIds[0]!, { reason: `\n  ${reason}   ` });
    expect(res.status).toBe(200);
    expect(res.body.payments[0].correctionReason).toBe(reason);
  });

  test("a body that is not JSON is refused before anything is read", async () => {
    const ws = await h.workspace();
    const res = await h.request("POST", "/contractor-payments/X/correct", {
      key: ws.key,
      body: "reason=x",
      headers: { "content-type": "text/plain" },
    });
    expect(res.status).toBe(415);
  });

  test("while another money operation holds the invoice the answer is MoneyBusy at once, and nothing changes", async () => {
    const ws = await h.workspace();
    const { invoiceId, paymentIds } = await seedInvoice(db, ws.id, paidInTwo());
    const before = await storedInvoice(db, ws.id, invoiceId);
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let held!: () => void;
    const holding = new Promise<void>((r) => (held = r));
    const holder = db.begin(async (tx) => {
      await tx`select 1 from contractor_invoices where workspace_id = ${ws.id} and id = ${invoiceId} for update`;
      held();
      await released;
    });
    await holding;
    try {
      // Were the operation to wait for the lock, this request would never answer while the lock is held.
      const res = await correct(ws, paymentIds[0]!);
      expect(res.status).toBe(409);
      expect(res.body).toEqual({ _tag: "MoneyBusy", invoiceId });
    } finally {
      release();
      await holder;
    }
    expect(await storedInvoice(db, ws.id, invoiceId)).toEqual(before);
    const after = await correct(ws, paymentIds[0]!);
    expect(after.status).toBe(200);
  });
});

describe("concurrent corrections", () => {
  test("two corrections of different payments of one invoice: each succeeds or is MoneyBusy, and the totals end right", async () => {
    const ws = await h.workspace();
    let busy = 0;
    for (let round = 0; round < 10; round++) {
      const { invoiceId, paymentIds } = await seedInvoice(db, ws.id, paidInTwo());
      const answers = await Promise.all(paymentIds.map((id) => correct(ws, id)));
      for (const a of answers) {
        expect([200, 409]).toContain(a.status);
        if (a.status === 409) expect(a.body).toEqual({ _tag: "MoneyBusy", invoiceId });
      }
      expect(answers.some((a) => a.status === 200)).toBe(true);
      for (const [i, a] of answers.entries()) {
        if (a.status === 409) {
          busy++;
          expect((await correct(ws, paymentIds[i]!)).status).toBe(200);
        }
      }
      const [row] = await db`
        select status, paid_minor::int, outstanding_minor::int, revision from contractor_invoices
        where workspace_id = ${ws.id} and id = ${invoiceId}`;
      expect(row).toEqual({ status: "approved", paidMinor: 0, outstandingMinor: 12_000, revision: 3 });
      const [{ count }] = await db<[{ count: number }]>`
        select count(*)::int from activity_log where workspace_id = ${ws.id} and subject_id = ${invoiceId}`;
      expect(count).toBe(2);
    }
    console.log(`concurrent corrections of two payments: ${busy} of 10 rounds answered MoneyBusy once`);
  });

  test("two corrections of the same payment: exactly one succeeds", async () => {
    const ws = await h.workspace();
    for (let round = 0; round < 10; round++) {
      const { invoiceId, paymentIds } = await seedInvoice(db, ws.id, paidInTwo());
      const answers = await Promise.all([
        correct(ws, paymentIds[0]!, { reason: "A" }),
        correct(ws, paymentIds[0]!, { reason: "B" }),
      ]);
      const ok = answers.filter((a) => a.status === 200);
      expect(ok.length).toBe(1);
      const refused = answers.find((a) => a.status !== 200)!;
      expect(refused.status).toBe(409);
      expect(["MoneyBusy", "PaymentAlreadyCorrected"]).toContain(refused.body._tag);
      const [row] =
        await db`select paid_minor::int, revision from contractor_invoices where workspace_id = ${ws.id} and id = ${invoiceId}`;
      expect(row).toEqual({ paidMinor: 7_000, revision: 2 });
      const [p] =
        await db`select correction_reason from contractor_payments where workspace_id = ${ws.id} and id = ${paymentIds[0]!}`;
      expect(p!.correctionReason).toBe(ok[0]!.body.payments[0].correctionReason);
    }
  });

  test("a second process correcting the same payment at the same time cannot double-correct it", async () => {
    const ws = await h.workspace();
    const { connect } = await import("../../src/core/db.ts");
    const { buildApp } = await import("../../src/app.ts");
    const db2 = connect(h.database.url, { max: 5, pooled: throughPgBouncer });
    const app2 = buildApp({ ...h.ctx, db: db2 });
    try {
      const { paymentIds } = await seedInvoice(db, ws.id, paidInTwo());
      const call = (app: typeof h.app) =>
        app
          .handle(
            new Request(`http://localhost/contractor-payments/${paymentIds[1]}/correct`, {
              method: "POST",
              headers: { "x-api-key": ws.key, "content-type": "application/json" },
              body: JSON.stringify({ reason: "dup" }),
            }),
          )
          .then((r) => r.status);
      const statuses = await Promise.all([call(h.app), call(app2), call(h.app), call(app2)]);
      expect(statuses.filter((s) => s === 200).length).toBe(1);
      expect(statuses.filter((s) => s === 409).length).toBe(3);
    } finally {
      await db2.end();
    }
  });
});

describe("the OpenAPI document", () => {
  test("describes the operation: body, nullable fields, money rules and its refusals", async () => {
    const res = await h.request("GET", "/openapi.json");
    const op = inlineRefs(res.body).paths["/contractor-payments/{id}/correct"].post;
    expect(op.operationId).toBe("contractorInvoices.correctPayment");
    expect(op.tags).toEqual(["contractor-invoices"]);
    expect(op.description).toContain("payableMinor = max(0, grossMinor − creditedMinor)");
    expect(op.requestBody.content["application/json"].schema.required).toEqual(["reason"]);
    const schema = op.responses["200"].content["application/json"].schema;
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toContain("limitOverride");
    for (const field of ["approvedAt", "disputeReason", "voidedAt", "legacyStatus", "authorisation", "limitOverride"]) {
      expect(schema.properties[field].anyOf.map((s: any) => s.type)).toContain("null");
    }
    const tags = (status: string) => JSON.stringify(op.responses[status].content["application/json"].schema);
    expect(tags("404")).toContain("PaymentNotFound");
    expect(tags("409")).toContain("PaymentAlreadyCorrected");
    expect(tags("409")).toContain("MoneyBusy");
  });
});
