/** The contractor-invoices group's operations. */
import { Type } from "@sinclair/typebox";
import { MoneyBusy } from "../core/errors.ts";
import { operation } from "../core/operation.ts";
import { Id } from "../core/schema.ts";
import { recordActivity } from "../core/activity.ts";
import { recordEvent, keyActor } from "../events/record.ts";
import { PaymentAlreadyCorrected, PaymentNotFound } from "./errors.ts";
import { contractorPaymentCorrected } from "./events.ts";
import {
  holdForMoney,
  invoiceRow,
  markPaymentCorrected,
  paymentCorrectedAt,
  paymentInvoiceId,
  storeTotals,
} from "./queries.ts";
import { ContractorInvoice, CorrectPaymentBody } from "./schema.ts";
import { invoiceView } from "./view.ts";

const moneyRules = `
Money rules. Amounts are integers in minor units of the invoice's currency; no fractions anywhere. Entries
(payments, credit notes, recoveries) are never deleted: one recorded in error is marked with \`correctedAt\`
and \`correctionReason\`, stays listed, and stops counting. Over the entries not corrected:
\`grossMinor = netMinor + vatMinor\` (sums of the lines); \`creditedMinor\` = Σ credit notes' gross;
\`payableMinor = max(0, grossMinor − creditedMinor)\`; \`paidMinor\` = Σ payments;
\`outstandingMinor = max(0, payableMinor − paidMinor)\`; \`recoveredMinor\` = Σ recoveries;
\`recoverableMinor = max(0, payableMinor − recoveredMinor)\` for a tenant-borne invoice, else 0;
\`disputedMinor\` is 0 unless the invoice is disputed, then the amount recorded with the dispute, else the \
outstanding amount.
Status, the first that holds: \`void\`, \`disputed\`, \`credited\` (creditedMinor ≥ grossMinor > 0), \`paid\`
(payableMinor > 0 and paidMinor ≥ payableMinor), \`part_paid\` (paidMinor > 0), \`approved\`, \`received\`.
Imported invoices are derived by the same rule, so an imported and a corrected invoice always agree;
\`legacyStatus\` and \`legacySettled\` are kept for reference and never change the derived figures.

Authorisation: an invoice charged to an authorisation charges its \`payableMinor\` (nothing when void).
\`earlierMinor\` sums what the workspace's other invoices charged to the same authorisation, in its currency
and not void, that come before this one (by \`issuedOn\`, an invoice without one last, then by id).
\`state\` is \`exceeded\` when earlierMinor + chargedMinor is more than \`authorisedMinor\`, else \`within\`
(\`currency_mismatch\` when the invoice's currency is not the authorisation's). It is computed at each read.
`.trim();

/** Marks a contractor payment as recorded in error and returns the recomputed invoice. */
export const correctPayment = operation({
  id: "contractorInvoices.correctPayment",
  group: "contractor-invoices",
  method: "POST",
  path: "/contractor-payments/:id/correct",
  summary: "Marks a contractor payment as recorded in error and returns the recomputed invoice.",
  description: `
In one transaction: the payment gets \`correctedAt\` (now) and \`correctionReason\` (the trimmed reason); it stays on
the invoice, flagged, and no longer counts. The invoice's derived fields and status are recomputed from its
entries, its \`revision\` goes up by one, and the change is recorded in the activity log with the key's id and as the
event \`contractor_payment.corrected\`. The
answer is the whole invoice. Correcting is allowed in every status (a void or disputed invoice keeps its status).

Refusals change nothing: an unknown payment (or one of another workspace) is \`PaymentNotFound\`; a payment already
corrected is \`PaymentAlreadyCorrected\` with its \`correctedAt\`; while another money operation holds the invoice
the answer is \`MoneyBusy\` at once, never a wait: retry shortly. Of two concurrent corrections of the same payment
exactly one succeeds.

${moneyRules}`.trim(),
  params: Type.Object({ id: Id }, { additionalProperties: false }),
  body: CorrectPaymentBody,
  response: ContractorInvoice,
  errors: [PaymentNotFound, PaymentAlreadyCorrected, MoneyBusy],
  hints: { destructive: false, idempotent: false },
  run: ({ db, principal, params, body, requestId }) =>
    db.begin(async (tx) => {
      const workspaceId = principal.workspaceId;
      const paymentId = params.id;
      const invoiceId = await paymentInvoiceId(tx, workspaceId, paymentId);
      if (!invoiceId || !(await holdForMoney(tx, workspaceId, invoiceId, paymentId)))
        throw new PaymentNotFound({ paymentId });
      const reason = body.reason.trim();
      const correctedAt = await markPaymentCorrected(tx, workspaceId, paymentId, reason);
      if (!correctedAt) {
        throw new PaymentAlreadyCorrected({
          paymentId,
          correctedAt: (await paymentCorrectedAt(tx, workspaceId, paymentId))!,
        });
      }
      const row = (await invoiceRow(tx, workspaceId, invoiceId))!;
      const { invoice, totals } = invoiceView(row);
      invoice.revision = await storeTotals(tx, workspaceId, invoiceId, totals);
      await recordActivity(tx, {
        workspaceId,
        keyId: principal.keyId,
        action: "contractorInvoices.paymentCorrected",
        subjectKind: "contractor_invoice",
        subjectId: invoiceId,
        detail: {
          paymentId,
          reason,
          amountMinor: row.payments.find((p) => p.id === paymentId)!.amountMinor,
          statusBefore: row.status,
          statusAfter: invoice.status,
          revision: invoice.revision,
        },
      });
      await recordEvent(tx, contractorPaymentCorrected, {
        workspaceId,
        subjectId: paymentId,
        data: invoice,
        requestId,
        actor: keyActor(principal),
      });
      return invoice;
    }),
});

/** Every operation of the group. */
export const operations = [correctPayment];
