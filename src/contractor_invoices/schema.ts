/** TypeBox schemas of the contractor invoice resource and the payment correction body. */
import { Type, type Static } from "@sinclair/typebox";
import { Nullable, Strict } from "../core/schema.ts";
import { invoiceStatuses } from "./derive.ts";

// Patterns rather than `format`: TypeBox refuses a format that is not registered, and core registers none.
const instant = (description: string) =>
  Type.String({
    pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$",
    description: `${description} RFC 3339 UTC with milliseconds.`,
  });
const date = (description: string) =>
  Type.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}$", description: `${description} YYYY-MM-DD.` });

const Minor = (description: string) => Type.Integer({ description });
const Text = (description: string) => Type.String({ description });
const NullableText = (description: string) => Nullable(Type.String({ description: `${description} Null when none.` }));
const When = (description: string) => Nullable(instant(`${description} Null when not set;`));
const On = (description: string) => Nullable(date(`${description} Null when not known;`));
const CorrectedAt = When(
  "When the entry was marked as recorded in error; such an entry stays listed and no longer counts.",
);
const CorrectionReason = NullableText("Why the entry was marked as recorded in error.");

/** One line of an invoice. */
export const InvoiceLine = Strict(
  {
    id: Text("Line id."),
    ordinal: Type.Integer({ description: "Position on the invoice; lines are listed by ordinal, then id." }),
    kind: Text("What the line charges for: `labour`, `materials`, `callout`, … (free text from the source)."),
    description: Text("The line's text as invoiced."),
    netMinor: Minor("Net amount in minor units."),
    vatMinor: Minor("VAT in minor units."),
    grossMinor: Minor("netMinor + vatMinor."),
  },
  { title: "ContractorInvoiceLine" },
);

/** A payment made to the contractor against an invoice. */
export const InvoicePayment = Strict(
  {
    id: Text("Payment id."),
    amountMinor: Minor("Amount paid, in minor units (always positive)."),
    paidOn: date("Date paid."),
    reference: NullableText("The payment reference (bank reference, cheque number)."),
    legacy: Type.Boolean({ description: "True when the payment was carried over from a previous system." }),
    createdAt: instant("When the payment was recorded here."),
    correctedAt: CorrectedAt,
    correctionReason: CorrectionReason,
  },
  { title: "ContractorPayment" },
);

/** A credit note the contractor issued against an invoice. */
export const InvoiceCreditNote = Strict(
  {
    id: Text("Credit note id."),
    number: Text("The contractor's credit note number."),
    issuedOn: date("Date issued."),
    netMinor: Minor("Net amount credited, in minor units."),
    vatMinor: Minor("VAT credited, in minor units."),
    grossMinor: Minor("netMinor + vatMinor."),
    reason: NullableText("Why the credit was given."),
    documentId: NullableText("The stored credit note document."),
    createdAt: instant("When the credit note was recorded here."),
    correctedAt: CorrectedAt,
    correctionReason: CorrectionReason,
  },
  { title: "ContractorCreditNote" },
);

/** Money recovered from the tenant for a tenant-borne invoice. */
export const InvoiceRecovery = Strict(
  {
    id: Text("Recovery id."),
    amountMinor: Minor("Amount recovered, in minor units (always positive)."),
    receivedOn: date("Date received."),
    reference: NullableText("The receipt reference."),
    createdAt: instant("When the recovery was recorded here."),
    correctedAt: CorrectedAt,
    correctionReason: CorrectionReason,
  },
  { title: "ContractorRecovery" },
);

/** The invoice's standing against the authorisation it is charged to. */
export const InvoiceAuthorisation = Strict(
  {
    state: Type.Union([Type.Literal("within"), Type.Literal("exceeded"), Type.Literal("currency_mismatch")], {
      description:
        "`within`: earlierMinor + chargedMinor ≤ authorisedMinor. `exceeded`: they take more. " +
        "`currency_mismatch`: the invoice is in another currency than the authorisation, so it cannot be " +
        "compared (it then uses up and exceeds nothing).",
    }),
    basis: Text("What authorised the work: `approved_quote`, `works_order_limit`, … (as recorded)."),
    authorisedMinor: Minor("The authorised amount, in minor units of authorisedCurrency."),
    authorisedCurrency: Text("ISO 4217 currency of the authorised amount."),
    earlierMinor: Minor(
      "Σ payableMinor of the other invoices of the workspace charged to the same authorisation, in its currency, " +
        "that are not void and come before this one (by issuedOn, an invoice without one last, then by id).",
    ),
    chargedMinor: Minor("What this invoice charges: its payableMinor (gross less credit notes); 0 when it is void."),
    remainingMinor: Minor("authorisedMinor − earlierMinor − chargedMinor, not below 0."),
    excessMinor: Minor("earlierMinor + chargedMinor − authorisedMinor, not below 0."),
  },
  { title: "ContractorInvoiceAuthorisation", description: "Computed at each read, never imported." },
);

/** A recorded decision to let the invoice exceed its authorisation, as it stood when it was taken. */
export const InvoiceLimitOverride = Strict(
  {
    id: Text("Override id."),
    state: Text("The authorisation state the override was taken in (e.g. `exceeded`)."),
    basis: Text("The authorisation basis at the time."),
    authorisedMinor: Minor("The authorised amount at the time."),
    authorisedCurrency: Text("Its currency."),
    earlierMinor: Minor("earlierMinor at the time."),
    chargedMinor: Minor("chargedMinor at the time."),
    excessMinor: Minor("The excess that was allowed."),
    reason: Text("Why the excess was allowed."),
    userId: NullableText("The user who allowed it."),
    createdAt: instant("When it was allowed."),
  },
  {
    title: "ContractorInvoiceLimitOverride",
    description: "A snapshot taken when the override was recorded; it is not recomputed.",
  },
);

/** A contractor invoice with its entries, derived totals and status (derive.ts). */
export const ContractorInvoice = Strict(
  {
    id: Text("Invoice id."),
    subjectKind: NullableText("What the work was for: `repair`, `planned_job`, … ."),
    subjectId: NullableText("The id of that subject."),
    subjectLabel: NullableText("A label of that subject for people."),
    propertyId: NullableText("The property the work was done at."),
    propertyLabel: NullableText("That property's label."),
    tenancyId: NullableText("The tenancy the work concerns."),
    contractorContactId: NullableText("The contractor's contact."),
    contractorName: NullableText("That contact's name."),
    number: Text("The contractor's invoice number."),
    issuedOn: On("Date of issue."),
    dueOn: On("Date payment is due."),
    currency: Text("ISO 4217 currency of every amount of the invoice."),
    netMinor: Minor("Σ lines' netMinor."),
    vatMinor: Minor("Σ lines' vatMinor."),
    grossMinor: Minor("netMinor + vatMinor."),
    borneBy: Type.Union([Type.Literal("landlord"), Type.Literal("tenant"), Type.Literal("agency")], {
      description: "Who bears the cost. Only a tenant-borne invoice has anything to recover.",
    }),
    documentId: NullableText("The stored invoice document."),
    status: Type.Union(
      invoiceStatuses.map((s) => Type.Literal(s)),
      {
        description:
          "Derived from the entries, the first that holds: `void` (voidedAt set); `disputed` (disputedAt set); " +
          "`credited` (creditedMinor ≥ grossMinor > 0); `paid` (payableMinor > 0 and paidMinor ≥ " +
          "payableMinor); `part_paid` (paidMinor > 0); `approved` (approvedAt set); `received`.",
      },
    ),
    approvedAt: When("When the invoice was approved for payment."),
    creditedMinor: Minor("Σ grossMinor of the credit notes not corrected."),
    paidMinor: Minor("Σ amountMinor of the payments not corrected."),
    outstandingMinor: Minor("payableMinor − paidMinor, not below 0."),
    disputedMinor: Minor(
      "The amount in dispute: 0 unless disputedAt is set; then the amount recorded with the dispute, or the " +
        "whole outstandingMinor when none was recorded.",
    ),
    payableMinor: Minor("grossMinor − creditedMinor, not below 0."),
    recoveredMinor: Minor("Σ amountMinor of the recoveries not corrected."),
    recoverableMinor: Minor("For a tenant-borne invoice payableMinor − recoveredMinor, not below 0; otherwise 0."),
    disputeReason: NullableText("Why the invoice is disputed."),
    disputedAt: When("When the invoice was disputed."),
    voidedAt: When("When the invoice was voided."),
    voidReason: NullableText("Why it was voided."),
    legacy: Type.Boolean({ description: "True when the invoice was carried over from a previous system." }),
    legacyStatus: NullableText(
      "The status the previous system gave the invoice, kept for reference only: `status` is always derived from " +
        "the entries.",
    ),
    legacySettled: Type.Boolean({
      description:
        "True when the previous system recorded the invoice as settled; false otherwise (and for invoices that " +
        "are not legacy). Reference only: it does not change the derived amounts or status.",
    }),
    revision: Type.Integer({ description: "Goes up by one with every change to the invoice or its entries." }),
    createdAt: instant("When the invoice was recorded here."),
    lines: Type.Array(InvoiceLine, { description: "By ordinal, then id." }),
    payments: Type.Array(InvoicePayment, {
      description:
        "Every payment, corrected ones included (flagged by correctedAt), by paidOn, then createdAt, then id.",
    }),
    creditNotes: Type.Array(InvoiceCreditNote, {
      description: "Every credit note, corrected ones included, by issuedOn, then createdAt, then id.",
    }),
    recoveries: Type.Array(InvoiceRecovery, {
      description: "Every recovery, corrected ones included, by receivedOn, then createdAt, then id.",
    }),
    authorisation: Nullable(InvoiceAuthorisation),
    limitOverride: Nullable(InvoiceLimitOverride),
  },
  { title: "ContractorInvoice" },
);

/** A contractor invoice as the API returns it. */
export type ContractorInvoice = Static<typeof ContractorInvoice>;

/** Why a payment is being marked as recorded in error. */
export const CorrectPaymentBody = Strict(
  {
    reason: Type.String({
      // 1 to 500 characters once leading and trailing whitespace is trimmed.
      pattern: "^\\s*\\S(?:[\\s\\S]{0,498}\\S)?\\s*$",
      description:
        "Why the payment was recorded in error: 1 to 500 characters after trimming leading and trailing " +
        "whitespace (stored trimmed).",
    }),
  },
  { title: "CorrectPaymentBody" },
);
