/** The contractor-invoices group's SQL. Every statement filters on the caller's workspace. */
import type { Db, Tx } from "../core/db.ts";
import { MoneyBusy } from "../core/errors.ts";
import type { AuthorisationFacts } from "./authorisation.ts";
import type { InvoiceTotals } from "./derive.ts";
import type { ContractorInvoice } from "./schema.ts";

/**
 * An invoice as stored: the response's shape, with the stored totals, the
 * recorded disputed amount and the authorisation's facts.
 */
export type InvoiceRow = Omit<ContractorInvoice, "authorisation" | "disputedMinor"> & {
  disputedMinor: number | null;
  authorisation: AuthorisationFacts | null;
};

/** The invoice a payment belongs to, or undefined when the payment is not in this workspace. */
export async function paymentInvoiceId(tx: Tx, workspaceId: string, paymentId: string): Promise<string | undefined> {
  const [row] = await tx<{ invoiceId: string }[]>`
    select invoice_id from contractor_payments where workspace_id = ${workspaceId} and id = ${paymentId}`;
  return row?.invoiceId;
}

/**
 * Takes the invoice and the payment for a money operation until the transaction ends, without waiting:
 * when another transaction holds either row, MoneyBusy at once. False when the payment is gone.
 */
export async function holdForMoney(
  tx: Tx,
  workspaceId: string,
  invoiceId: string,
  paymentId: string,
): Promise<boolean> {
  try {
    // Why nowait: a second money operation on the same invoice is refused at once rather than queued.
    const rows = await tx`
      select 1 from contractor_invoices i
      join contractor_payments p on p.workspace_id = i.workspace_id and p.invoice_id = i.id
      where i.workspace_id = ${workspaceId} and i.id = ${invoiceId} and p.id = ${paymentId}
      for update nowait`;
    return rows.length > 0;
  } catch (error) {
    if ((error as { code?: string }).code === "55P03") throw new MoneyBusy({ invoiceId });
    throw error;
  }
}

/** Marks a payment as recorded in error: its correctedAt, or undefined when it was already corrected. */
export async function markPaymentCorrected(
  tx: Tx,
  workspaceId: string,
  paymentId: string,
  reason: string,
): Promise<string | undefined> {
  const [row] = await tx<{ correctedAt: string }[]>`
    update contractor_payments set corrected_at = now(), correction_reason = ${reason}
    where workspace_id = ${workspaceId} and id = ${paymentId} and corrected_at is null
    returning iso(corrected_at) as corrected_at`;
  return row?.correctedAt;
}

/** When a payment was corrected (null when it is not). */
export async function paymentCorrectedAt(tx: Tx, workspaceId: string, paymentId: string): Promise<string | null> {
  const [row] = await tx<{ correctedAt: string | null }[]>`
    select iso(corrected_at) as corrected_at from contractor_payments
    where workspace_id = ${workspaceId} and id = ${paymentId}`;
  return row?.correctedAt ?? null;
}

/** Writes an invoice's derived fields and bumps its revision; returns the new revision. */
export async function storeTotals(tx: Tx, workspaceId: string, invoiceId: string, t: InvoiceTotals): Promise<number> {
  const [row] = await tx<{ revision: number }[]>`
    update contractor_invoices set
      net_minor = ${t.netMinor}, vat_minor = ${t.vatMinor}, gross_minor = ${t.grossMinor},
      credited_minor = ${t.creditedMinor}, payable_minor = ${t.payableMinor}, paid_minor = ${t.paidMinor},
      outstanding_minor = ${t.outstandingMinor}, recovered_minor = ${t.recoveredMinor},
      recoverable_minor = ${t.recoverableMinor}, status = ${t.status}, revision = revision + 1
    where workspace_id = ${workspaceId} and id = ${invoiceId}
    returning revision`;
  return row!.revision;
}

/**
 * The invoice with its entries, labels, override and authorisation facts,
 * in one statement; undefined when not in this workspace.
 */
export async function invoiceRow(db: Db | Tx, workspaceId: string, invoiceId: string): Promise<InvoiceRow | undefined> {
  // Built as one JSON value so bigint amounts arrive as numbers and nested entries need no second round trip.
  const [row] = await db<{ invoice: InvoiceRow }[]>`
    select json_build_object(
      'id', i.id,
      'subjectKind', i.subject_kind, 'subjectId', i.subject_id, 'subjectLabel', i.subject_label,
      'propertyId', i.property_id, 'propertyLabel', p.label, 'tenancyId', i.tenancy_id,
      'contractorContactId', i.contractor_contact_id, 'contractorName', c.name,
      'number', i.number, 'issuedOn', ymd(i.issued_on), 'dueOn', ymd(i.due_on), 'currency', i.currency,
      'netMinor', i.net_minor, 'vatMinor', i.vat_minor, 'grossMinor', i.gross_minor,
      'borneBy', i.borne_by, 'documentId', i.document_id, 'status', i.status, 'approvedAt', iso(i.approved_at),
      'creditedMinor', i.credited_minor, 'paidMinor', i.paid_minor, 'outstandingMinor', i.outstanding_minor,
      'disputedMinor', i.disputed_minor, 'payableMinor', i.payable_minor, 'recoveredMinor', i.recovered_minor,
      'recoverableMinor', i.recoverable_minor,
      'disputeReason', i.dispute_reason, 'disputedAt', iso(i.disputed_at), 'voidedAt', iso(i.voided_at),
      'voidReason', i.void_reason,
      'legacy', i.legacy, 'legacyStatus', i.legacy_status, 'legacySettled', coalesce(i.legacy_settled, false),
      'revision', i.revision, 'createdAt', iso(i.created_at),
      'lines', coalesce((
        select json_agg(json_build_object(
          'id', l.id, 'ordinal', l.ordinal, 'kind', l.kind, 'description', l.description,
          'netMinor', l.net_minor, 'vatMinor', l.vat_minor, 'grossMinor', l.net_minor + l.vat_minor
        ) order by l.ordinal, l.id collate "C")
        from contractor_invoice_lines l where l.workspace_id = i.workspace_id and l.invoice_id = i.id), '[]'),
      'payments', coalesce((
        select json_agg(json_build_object(
          'id', x.id, 'amountMinor', x.amount_minor, 'paidOn', ymd(x.paid_on), 'reference', x.reference,
          'legacy', x.legacy, 'createdAt', iso(x.created_at), 'correctedAt', iso(x.corrected_at),
          'correctionReason', x.correction_reason
        ) order by x.paid_on, x.created_at, x.id collate "C")
        from contractor_payments x where x.workspace_id = i.workspace_id and x.invoice_id = i.id), '[]'),
      'creditNotes', coalesce((
        select json_agg(json_build_object(
          'id', n.id, 'number', n.number, 'issuedOn', ymd(n.issued_on), 'netMinor', n.net_minor,
          'vatMinor', n.vat_minor, 'grossMinor', n.net_minor + n.vat_minor, 'reason', n.reason,
          'documentId', n.document_id, 'createdAt', iso(n.created_at), 'correctedAt', iso(n.corrected_at),
          'correctionReason', n.correction_reason
        ) order by n.issued_on, n.created_at, n.id collate "C")
        from contractor_credit_notes n where n.workspace_id = i.workspace_id and n.invoice_id = i.id), '[]'),
      'recoveries', coalesce((
        select json_agg(json_build_object(
          'id', r.id, 'amountMinor', r.amount_minor, 'receivedOn', ymd(r.received_on), 'reference', r.reference,
          'createdAt', iso(r.created_at), 'correctedAt', iso(r.corrected_at), 'correctionReason', r.correction_reason
        ) order by r.received_on, r.created_at, r.id collate "C")
        from contractor_recoveries r where r.workspace_id = i.workspace_id and r.invoice_id = i.id), '[]'),
      'authorisation', case when a.id is null then null else json_build_object(
        'basis', a.basis, 'authorisedMinor', a.authorised_minor, 'authorisedCurrency', a.authorised_currency,
        -- Earlier: the other invoices of the authorisation in its currency, not void, before this one
        -- by issue date (an invoice without one last), then by id.
        'earlierMinor', (
          select coalesce(sum(e.payable_minor), 0) from contractor_invoices e
          where e.workspace_id = i.workspace_id and e.authorisation_id = a.id and e.id <> i.id
            and e.voided_at is null and e.currency = a.authorised_currency
            and (coalesce(e.issued_on, 'infinity'::date), e.id collate "C")
              < (coalesce(i.issued_on, 'infinity'::date), i.id collate "C"))
      ) end,
      'limitOverride', (
        select json_build_object(
          'id', o.id, 'state', o.state, 'basis', o.basis, 'authorisedMinor', o.authorised_minor,
          'authorisedCurrency', o.authorised_currency, 'earlierMinor', o.earlier_minor,
          'chargedMinor', o.charged_minor, 'excessMinor', o.excess_minor, 'reason', o.reason,
          'userId', o.user_id, 'createdAt', iso(o.created_at))
        from contractor_limit_overrides o where o.workspace_id = i.workspace_id and o.invoice_id = i.id)
    ) as invoice
    from contractor_invoices i
    left join properties p on p.workspace_id = i.workspace_id and p.id = i.property_id
    left join contacts c on c.workspace_id = i.workspace_id and c.id = i.contractor_contact_id
    left join contractor_authorisations a on a.workspace_id = i.workspace_id and a.id = i.authorisation_id
    where i.workspace_id = ${workspaceId} and i.id = ${invoiceId}`;
  return row?.invoice;
}
