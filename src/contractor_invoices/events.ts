/** The event types the contractor-invoices group's writes record. */
import { eventType } from "../events/event_type.ts";
import { ContractorInvoice } from "./schema.ts";

/** A contractor payment was marked as recorded in error; data is the recomputed invoice. */
export const contractorPaymentCorrected = eventType({
  name: "contractor_payment.corrected",
  subjectKind: "contractor_payment",
  data: ContractorInvoice,
  description:
    "A contractor payment was marked as recorded in error (`subject.id` is the payment). `data` is the whole " +
    "invoice, recomputed, as `POST /contractor-payments/{id}/correct` answered it.",
});
