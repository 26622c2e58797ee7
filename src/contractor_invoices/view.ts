/** A stored invoice as the API shows it: the derived fields recomputed from its entries, the authorisation assessed. */
import { assessAuthorisation } from "./authorisation.ts";
import { deriveInvoice, disputedAmount, type InvoiceTotals } from "./derive.ts";
import type { InvoiceRow } from "./queries.ts";
import type { ContractorInvoice } from "./schema.ts";

/** The response for a stored invoice, and the totals it was derived to (to store them). */
export function invoiceView(row: InvoiceRow): { invoice: ContractorInvoice; totals: InvoiceTotals } {
  const totals = deriveInvoice(row);
  const invoice: ContractorInvoice = {
    ...row,
    ...totals,
    disputedMinor: disputedAmount(row, totals),
    authorisation: row.authorisation
      ? assessAuthorisation(row.authorisation, {
          currency: row.currency,
          voided: row.voidedAt !== null,
          payableMinor: totals.payableMinor,
        })
      : null,
  };
  return { invoice, totals };
}
