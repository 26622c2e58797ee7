import { describe, expect, test } from "bun:test";
import {
  deriveInvoice,
  disputedAmount,
  invoiceStatuses,
  type InvoiceFacts,
  type InvoiceTotals,
} from "../../src/contractor_invoices/derive.ts";
import { assessAuthorisation } from "../../src/contractor_invoices/authorisation.ts";

const T = "2026-03-01T09:00:00.000Z";
const base: InvoiceFacts = {
  borneBy: "landlord",
  approvedAt: null,
  disputedAt: null,
  voidedAt: null,
  lines: [{ netMinor: 10_000, vatMinor: 2_000 }],
  payments: [],
  creditNotes: [],
  recoveries: [],
};
const pay = (amountMinor: number, correctedAt: string | null = null) => ({ amountMinor, correctedAt });
const credit = (netMinor: number, vatMinor: number, correctedAt: string | null = null) => ({
  netMinor,
  vatMinor,
  correctedAt,
});

type Case = [name: string, facts: Partial<InvoiceFacts>, expected: Partial<InvoiceTotals>];

const cases: Case[] = [
  [
    "a new invoice is received",
    {},
    {
      netMinor: 10_000,
      vatMinor: 2_000,
      grossMinor: 12_000,
      payableMinor: 12_000,
      outstandingMinor: 12_000,
      status: "received",
    },
  ],
  [
    "an approved invoice with nothing paid is approved",
    { approvedAt: T },
    { status: "approved", outstandingMinor: 12_000 },
  ],
  [
    "a payment short of the payable amount is part_paid",
    { approvedAt: T, payments: [pay(5_000)] },
    { paidMinor: 5_000, outstandingMinor: 7_000, status: "part_paid" },
  ],
  ["a payment without approval is part_paid too", { payments: [pay(1)] }, { status: "part_paid" }],
  [
    "payments reaching the payable amount make it paid",
    { approvedAt: T, payments: [pay(5_000), pay(7_000)] },
    { paidMinor: 12_000, outstandingMinor: 0, status: "paid" },
  ],
  [
    "an overpayment is paid with nothing outstanding",
    { payments: [pay(13_000)] },
    { paidMinor: 13_000, outstandingMinor: 0, status: "paid" },
  ],
  [
    "a corrected payment does not count",
    { approvedAt: T, payments: [pay(12_000, T)] },
    { paidMinor: 0, outstandingMinor: 12_000, status: "approved" },
  ],
  [
    "one of two payments corrected leaves it part_paid",
    { approvedAt: T, payments: [pay(6_000), pay(6_000, T)] },
    { paidMinor: 6_000, status: "part_paid" },
  ],
  [
    "a credit note reduces the payable amount",
    { creditNotes: [credit(2_000, 400)] },
    { creditedMinor: 2_400, payableMinor: 9_600, outstandingMinor: 9_600, status: "received" },
  ],
  [
    "paying what is left after a credit note makes it paid",
    { creditNotes: [credit(2_000, 400)], payments: [pay(9_600)] },
    { payableMinor: 9_600, status: "paid" },
  ],
  [
    "a credit note for the whole gross makes it credited",
    { creditNotes: [credit(10_000, 2_000)] },
    { creditedMinor: 12_000, payableMinor: 0, outstandingMinor: 0, status: "credited" },
  ],
  [
    "credited wins over paid",
    { creditNotes: [credit(10_000, 2_000)], payments: [pay(12_000)] },
    { status: "credited", outstandingMinor: 0 },
  ],
  [
    "over-crediting keeps payable at 0",
    { creditNotes: [credit(20_000, 0)] },
    { creditedMinor: 20_000, payableMinor: 0, status: "credited" },
  ],
  [
    "a corrected credit note does not count",
    { creditNotes: [credit(10_000, 2_000, T)] },
    { creditedMinor: 0, payableMinor: 12_000, status: "received" },
  ],
  [
    "an invoice with no lines is never credited nor paid",
    { lines: [], approvedAt: T },
    { grossMinor: 0, payableMinor: 0, status: "approved" },
  ],
  [
    "a zero invoice with a payment is part_paid, not paid",
    { lines: [{ netMinor: 0, vatMinor: 0 }], payments: [pay(100)] },
    { status: "part_paid", outstandingMinor: 0 },
  ],
  [
    "a disputed invoice is disputed whatever was paid",
    { disputedAt: T, approvedAt: T, payments: [pay(12_000)] },
    { status: "disputed", paidMinor: 12_000 },
  ],
  [
    "a disputed, fully credited invoice is disputed",
    { disputedAt: T, creditNotes: [credit(10_000, 2_000)] },
    { status: "disputed" },
  ],
  [
    "a void invoice is void even when disputed and paid",
    { voidedAt: T, disputedAt: T, payments: [pay(12_000)] },
    { status: "void", paidMinor: 12_000 },
  ],
  [
    "a void invoice keeps its amounts",
    { voidedAt: T },
    { status: "void", grossMinor: 12_000, payableMinor: 12_000, outstandingMinor: 12_000 },
  ],
  [
    "a landlord-borne invoice has nothing to recover",
    { recoveries: [pay(1_000)] },
    { recoveredMinor: 1_000, recoverableMinor: 0 },
  ],
  ["an agency-borne invoice has nothing to recover", { borneBy: "agency" }, { recoverableMinor: 0 }],
  [
    "a tenant-borne invoice is recoverable in full",
    { borneBy: "tenant" },
    { recoveredMinor: 0, recoverableMinor: 12_000 },
  ],
  [
    "recoveries reduce what is recoverable",
    { borneBy: "tenant", recoveries: [pay(2_000), pay(1_000)] },
    { recoveredMinor: 3_000, recoverableMinor: 9_000 },
  ],
  [
    "recovering more than payable leaves 0 recoverable",
    { borneBy: "tenant", recoveries: [pay(15_000)] },
    { recoverableMinor: 0 },
  ],
  [
    "a corrected recovery does not count",
    { borneBy: "tenant", recoveries: [pay(2_000, T)] },
    { recoveredMinor: 0, recoverableMinor: 12_000 },
  ],
  [
    "recoverable follows credit notes",
    { borneBy: "tenant", creditNotes: [credit(5_000, 1_000)] },
    { payableMinor: 6_000, recoverableMinor: 6_000 },
  ],
  [
    "recoveries do not pay the contractor",
    { borneBy: "tenant", recoveries: [pay(12_000)], approvedAt: T },
    { paidMinor: 0, status: "approved", recoverableMinor: 0 },
  ],
  [
    "several lines add up, VAT apart",
    {
      lines: [
        { netMinor: 100, vatMinor: 20 },
        { netMinor: 250, vatMinor: 0 },
        { netMinor: -50, vatMinor: -10 },
      ],
    },
    { netMinor: 300, vatMinor: 10, grossMinor: 310 },
  ],
];

describe("deriveInvoice", () => {
  test.each(cases)("%s", (_name, facts, expected) => {
    const got = deriveInvoice({ ...base, ...facts });
    expect(got).toMatchObject(expected);
  });

  test("every status is reached by some case", () => {
    const reached = new Set(cases.map(([, f]) => deriveInvoice({ ...base, ...f }).status));
    expect([...reached].sort()).toEqual([...invoiceStatuses].sort());
  });

  test("a legacy invoice is derived from its entries alone: the old system's status and settlement change nothing", () => {
    const legacy = { legacy: true, legacyStatus: "paid", legacySettled: true };
    const unpaid = { ...base, approvedAt: T };
    expect(deriveInvoice({ ...unpaid, ...legacy } as InvoiceFacts)).toEqual(deriveInvoice(unpaid));
    expect(deriveInvoice({ ...unpaid, ...legacy } as InvoiceFacts)).toMatchObject({
      status: "approved",
      outstandingMinor: 12_000,
    });
    const legacyPayment = { amountMinor: 12_000, correctedAt: null, legacy: true };
    expect(deriveInvoice({ ...unpaid, ...legacy, payments: [legacyPayment] } as InvoiceFacts)).toMatchObject({
      status: "paid",
      paidMinor: 12_000,
    });
  });

  test("an entry whose correctedAt is missing counts as not corrected (an import may omit it)", () => {
    const got = deriveInvoice({
      ...base,
      payments: [{ amountMinor: 12_000 } as any],
      creditNotes: [{ netMinor: 100, vatMinor: 0 } as any],
    });
    expect(got).toMatchObject({ creditedMinor: 100, paidMinor: 12_000, status: "paid" });
  });

  test("a fraction, a string or an unsafe integer is refused, never rounded or concatenated", () => {
    expect(() => deriveInvoice({ ...base, lines: [{ netMinor: 10.5, vatMinor: 0 }] })).toThrow(RangeError);
    expect(() => deriveInvoice({ ...base, payments: [{ amountMinor: "100" as any, correctedAt: null }] })).toThrow(
      RangeError,
    );
    expect(() => deriveInvoice({ ...base, lines: [{ netMinor: Number.MAX_SAFE_INTEGER, vatMinor: 1 }] })).toThrow(
      RangeError,
    );
    expect(() => deriveInvoice({ ...base, recoveries: [{ amountMinor: NaN, correctedAt: null }] })).toThrow(RangeError);
  });

  test("the figures hold together for any mix of entries", () => {
    for (let seed = 1; seed <= 500; seed++) {
      const r = (n: number) => ((seed * 7919 + n * 104729) % 9973) * (n % 3);
      const facts: InvoiceFacts = {
        ...base,
        borneBy: (["landlord", "tenant", "agency"] as const)[seed % 3]!,
        lines: [{ netMinor: r(1), vatMinor: r(2) }],
        payments: [pay(r(3) + 1, seed % 5 ? null : T), pay(r(4) + 1)],
        creditNotes: seed % 4 ? [] : [credit(r(5), r(6))],
        recoveries: [pay(r(7) + 1)],
      };
      const t = deriveInvoice(facts);
      expect(Number.isSafeInteger(t.outstandingMinor)).toBe(true);
      expect(t.grossMinor).toBe(t.netMinor + t.vatMinor);
      expect(t.payableMinor).toBe(Math.max(0, t.grossMinor - t.creditedMinor));
      expect(t.outstandingMinor).toBe(Math.max(0, t.payableMinor - t.paidMinor));
      expect(t.recoverableMinor).toBe(facts.borneBy === "tenant" ? Math.max(0, t.payableMinor - t.recoveredMinor) : 0);
    }
  });
});

describe("disputedAmount", () => {
  const totals = { outstandingMinor: 7_000 };
  test.each([
    ["an invoice not disputed disputes nothing, whatever was recorded", { disputedAt: null, disputedMinor: 500 }, 0],
    ["a dispute with a recorded amount disputes that amount", { disputedAt: T, disputedMinor: 500 }, 500],
    ["a dispute without an amount disputes all that is outstanding", { disputedAt: T, disputedMinor: null }, 7_000],
  ] as const)("%s", (_name, facts, expected) => {
    expect(disputedAmount(facts, totals)).toBe(expected);
  });
});

describe("assessAuthorisation", () => {
  const a = { basis: "approved_quote", authorisedMinor: 50_000, authorisedCurrency: "GBP", earlierMinor: 0 };
  const inv = { currency: "GBP", voided: false, payableMinor: 30_000 };
  test.each([
    [
      "an invoice within the authorised amount is within",
      a,
      inv,
      { state: "within", chargedMinor: 30_000, remainingMinor: 20_000, excessMinor: 0 },
    ],
    [
      "using up exactly the authorised amount is within",
      { ...a, earlierMinor: 20_000 },
      inv,
      { state: "within", chargedMinor: 30_000, remainingMinor: 0, excessMinor: 0 },
    ],
    [
      "earlier invoices plus this one beyond the amount is exceeded",
      { ...a, earlierMinor: 30_000 },
      inv,
      { state: "exceeded", earlierMinor: 30_000, chargedMinor: 30_000, remainingMinor: 0, excessMinor: 10_000 },
    ],
    [
      "a void invoice charges nothing",
      { ...a, earlierMinor: 45_000 },
      { ...inv, voided: true },
      { state: "within", chargedMinor: 0, remainingMinor: 5_000, excessMinor: 0 },
    ],
    [
      "an invoice in another currency cannot be compared",
      { ...a, earlierMinor: 10_000 },
      { ...inv, currency: "EUR" },
      { state: "currency_mismatch", chargedMinor: 30_000, remainingMinor: 40_000, excessMinor: 0 },
    ],
  ] as const)("%s", (_name, facts, invoice, expected) => {
    expect(assessAuthorisation(facts, invoice)).toEqual({ ...facts, ...expected } as any);
  });
});
