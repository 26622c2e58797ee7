/** The derived fields and status of a contractor invoice, from its entries (operations.ts). Integers only. */

/** The stored facts an invoice's derived fields depend on. */
export interface InvoiceFacts {
  borneBy: "landlord" | "tenant" | "agency";
  approvedAt: string | null;
  disputedAt: string | null;
  voidedAt: string | null;
  lines: { netMinor: number; vatMinor: number }[];
  payments: { amountMinor: number; correctedAt: string | null }[];
  creditNotes: { netMinor: number; vatMinor: number; correctedAt: string | null }[];
  recoveries: { amountMinor: number; correctedAt: string | null }[];
}

/** The derived fields of an invoice. */
export interface InvoiceTotals {
  netMinor: number;
  vatMinor: number;
  grossMinor: number;
  creditedMinor: number;
  payableMinor: number;
  paidMinor: number;
  outstandingMinor: number;
  recoveredMinor: number;
  recoverableMinor: number;
  status: InvoiceStatus;
}

/** An invoice status, in the order the rules are tried. */
export type InvoiceStatus = "received" | "approved" | "part_paid" | "paid" | "disputed" | "credited" | "void";

/** Every status, in the common interface's order. */
export const invoiceStatuses: readonly InvoiceStatus[] = [
  "received",
  "approved",
  "part_paid",
  "paid",
  "disputed",
  "credited",
  "void",
];

/** An amount as a safe integer of minor units; anything else (a float, a string, a huge number) is refused. */
function minor(value: unknown, what: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value)) {
    throw new RangeError(`${what} must be an integer amount in minor units, not ${JSON.stringify(value)}`);
  }
  return value;
}

function sum(values: number[], what: string): number {
  let total = 0;
  for (const v of values) total = minor(total + minor(v, what), `the sum of ${what}`);
  return total;
}

/** A timestamp fact is set when it is a non-empty string. */
const isSet = (at: string | null | undefined) => typeof at === "string" && at !== "";

/**
 * Computes totals and status over the entries that are not corrected; the first status rule that holds wins.
 * Lines always count (they are the invoice itself); corrected payments, credit notes and recoveries never do.
 * Throws a RangeError when an amount is not a safe integer.
 */
export function deriveInvoice(f: InvoiceFacts): InvoiceTotals {
  const live = <T extends { correctedAt: string | null }>(xs: T[]) => xs.filter((x) => !isSet(x.correctedAt));
  const netMinor = sum(
    f.lines.map((l) => l.netMinor),
    "line netMinor",
  );
  const vatMinor = sum(
    f.lines.map((l) => l.vatMinor),
    "line vatMinor",
  );
  const grossMinor = minor(netMinor + vatMinor, "grossMinor");
  const creditedMinor = sum(
    live(f.creditNotes).map((c) =>
      minor(
        minor(c.netMinor, "credit note netMinor") + minor(c.vatMinor, "credit note vatMinor"),
        "credit note grossMinor",
      ),
    ),
    "credit note grossMinor",
  );
  const payableMinor = Math.max(0, grossMinor - creditedMinor);
  const paidMinor = sum(
    live(f.payments).map((p) => p.amountMinor),
    "payment amountMinor",
  );
  const outstandingMinor = Math.max(0, payableMinor - paidMinor);
  const recoveredMinor = sum(
    live(f.recoveries).map((r) => r.amountMinor),
    "recovery amountMinor",
  );
  const recoverableMinor = f.borneBy === "tenant" ? Math.max(0, payableMinor - recoveredMinor) : 0;
  const status: InvoiceStatus = isSet(f.voidedAt)
    ? "void"
    : isSet(f.disputedAt)
      ? "disputed"
      : grossMinor > 0 && creditedMinor >= grossMinor
        ? "credited"
        : payableMinor > 0 && paidMinor >= payableMinor
          ? "paid"
          : paidMinor > 0
            ? "part_paid"
            : isSet(f.approvedAt)
              ? "approved"
              : "received";
  return {
    netMinor,
    vatMinor,
    grossMinor,
    creditedMinor,
    payableMinor,
    paidMinor,
    outstandingMinor,
    recoveredMinor,
    recoverableMinor,
    status,
  };
}

/**
 * The amount in dispute: 0 unless the invoice is disputed; then the amount recorded with the dispute, or,
 * when none was recorded, the whole outstanding amount.
 */
export function disputedAmount(
  f: { disputedAt: string | null; disputedMinor: number | null },
  totals: Pick<InvoiceTotals, "outstandingMinor">,
): number {
  if (!isSet(f.disputedAt)) return 0;
  return f.disputedMinor === null ? totals.outstandingMinor : minor(f.disputedMinor, "disputedMinor");
}
