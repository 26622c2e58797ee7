/** The derived fields and status of a contractor invoice, from its entries (CONTRACT.md §4.2). Integers only. */

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
  status: "received" | "approved" | "part_paid" | "paid" | "disputed" | "credited" | "void";
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

/** Computes totals and status over the entries that are not corrected; the first status rule that holds wins. */
export function deriveInvoice(f: InvoiceFacts): InvoiceTotals {
  const live = <T extends { correctedAt: string | null }>(xs: T[]) => xs.filter((x) => x.correctedAt === null);
  const netMinor = sum(f.lines.map((l) => l.netMinor));
  const vatMinor = sum(f.lines.map((l) => l.vatMinor));
  const grossMinor = netMinor + vatMinor;
  const creditedMinor = sum(live(f.creditNotes).map((c) => c.netMinor + c.vatMinor));
  const payableMinor = Math.max(0, grossMinor - creditedMinor);
  const paidMinor = sum(live(f.payments).map((p) => p.amountMinor));
  const outstandingMinor = Math.max(0, payableMinor - paidMinor);
  const recoveredMinor = sum(live(f.recoveries).map((r) => r.amountMinor));
  const recoverableMinor = f.borneBy === "tenant" ? Math.max(0, payableMinor - recoveredMinor) : 0;
  const status: InvoiceTotals["status"] = f.voidedAt
    ? "void"
    : f.disputedAt
      ? "disputed"
      : grossMinor > 0 && creditedMinor >= grossMinor
        ? "credited"
        : payableMinor > 0 && paidMinor >= payableMinor
          ? "paid"
          : paidMinor > 0
            ? "part_paid"
            : f.approvedAt
              ? "approved"
              : "received";
  return { netMinor, vatMinor, grossMinor, creditedMinor, payableMinor, paidMinor, outstandingMinor, recoveredMinor, recoverableMinor, status };
}
