/** Contractor invoices seeded straight into the database, with their totals derived as the import derives them. */
import { ulid } from "ulid";
import type { Db } from "../../src/core/db.ts";
import { deriveInvoice } from "../../src/contractor_invoices/derive.ts";

/** An invoice to seed; everything but its lines' amounts has a default. */
export interface InvoiceSeed {
  id?: string;
  number?: string;
  subjectKind?: string | null;
  subjectId?: string | null;
  subjectLabel?: string | null;
  propertyId?: string | null;
  tenancyId?: string | null;
  contractorContactId?: string | null;
  issuedOn?: string | null;
  dueOn?: string | null;
  currency?: string;
  borneBy?: "landlord" | "tenant" | "agency";
  documentId?: string | null;
  approvedAt?: string | null;
  disputedAt?: string | null;
  disputeReason?: string | null;
  disputedMinor?: number | null;
  voidedAt?: string | null;
  voidReason?: string | null;
  legacy?: boolean;
  legacyStatus?: string | null;
  legacySettled?: boolean | null;
  authorisationId?: string | null;
  createdAt?: string;
  lines: { id?: string; kind?: string; description?: string; netMinor: number; vatMinor: number }[];
  payments?: {
    id?: string;
    amountMinor: number;
    paidOn?: string;
    reference?: string | null;
    legacy?: boolean;
    createdAt?: string;
    correctedAt?: string | null;
    correctionReason?: string | null;
  }[];
  creditNotes?: {
    id?: string;
    number?: string;
    issuedOn?: string;
    netMinor: number;
    vatMinor: number;
    reason?: string | null;
    documentId?: string | null;
    createdAt?: string;
    correctedAt?: string | null;
    correctionReason?: string | null;
  }[];
  recoveries?: {
    id?: string;
    amountMinor: number;
    receivedOn?: string;
    reference?: string | null;
    createdAt?: string;
    correctedAt?: string | null;
    correctionReason?: string | null;
  }[];
  limitOverride?: {
    id?: string;
    state: string;
    basis: string;
    authorisedMinor: number;
    authorisedCurrency: string;
    earlierMinor: number;
    chargedMinor: number;
    excessMinor: number;
    reason: string;
    userId?: string | null;
    createdAt?: string;
  };
}

/** What was seeded: the invoice id and its entries' ids in the order given. */
export interface SeededInvoice {
  invoiceId: string;
  paymentIds: string[];
}

const at = "2026-03-01T09:00:00.000Z";

/** Seeds an authorisation invoices can be charged to. */
export async function seedAuthorisation(
  db: Db,
  workspaceId: string,
  a: { id?: string; basis?: string; authorisedMinor: number; authorisedCurrency?: string },
): Promise<string> {
  const id = a.id ?? ulid();
  await db`insert into contractor_authorisations (workspace_id, id, basis, authorised_minor, authorised_currency)
    values (${workspaceId}, ${id}, ${a.basis ?? "approved_quote"}, ${a.authorisedMinor}, ${a.authorisedCurrency ?? "GBP"})`;
  return id;
}

/** Seeds an invoice and its entries, storing the derived totals and status as the import does. */
export async function seedInvoice(db: Db, workspaceId: string, s: InvoiceSeed): Promise<SeededInvoice> {
  const id = s.id ?? ulid();
  const payments = (s.payments ?? []).map((p) => ({ correctedAt: null, ...p, id: p.id ?? ulid() }));
  const creditNotes = (s.creditNotes ?? []).map((c) => ({ correctedAt: null, ...c, id: c.id ?? ulid() }));
  const recoveries = (s.recoveries ?? []).map((r) => ({ correctedAt: null, ...r, id: r.id ?? ulid() }));
  const t = deriveInvoice({
    borneBy: s.borneBy ?? "landlord",
    approvedAt: s.approvedAt ?? null,
    disputedAt: s.disputedAt ?? null,
    voidedAt: s.voidedAt ?? null,
    lines: s.lines,
    payments,
    creditNotes,
    recoveries,
  });
  await db.begin(async (tx) => {
    await tx`insert into contractor_invoices (
        workspace_id, id, subject_kind, subject_id, subject_label, property_id, tenancy_id, contractor_contact_id,
        number, issued_on, due_on, currency, borne_by, document_id, approved_at, disputed_at, dispute_reason,
        disputed_minor, voided_at, void_reason, legacy, legacy_status, legacy_settled, authorisation_id,
        net_minor, vat_minor, gross_minor, credited_minor, payable_minor, paid_minor, outstanding_minor,
        recovered_minor, recoverable_minor, status, created_at)
      values (${workspaceId}, ${id}, ${s.subjectKind ?? null}, ${s.subjectId ?? null}, ${s.subjectLabel ?? null},
        ${s.propertyId ?? null}, ${s.tenancyId ?? null}, ${s.contractorContactId ?? null}, ${s.number ?? `INV-${id}`},
        ${s.issuedOn === undefined ? "2026-03-01" : s.issuedOn}, ${s.dueOn ?? null}, ${s.currency ?? "GBP"},
        ${s.borneBy ?? "landlord"}, ${s.documentId ?? null}, ${s.approvedAt ?? null}, ${s.disputedAt ?? null},
        ${s.disputeReason ?? null}, ${s.disputedMinor ?? null}, ${s.voidedAt ?? null}, ${s.voidReason ?? null},
        ${s.legacy ?? false}, ${s.legacyStatus ?? null}, ${s.legacySettled ?? null}, ${s.authorisationId ?? null},
        ${t.netMinor}, ${t.vatMinor}, ${t.grossMinor}, ${t.creditedMinor}, ${t.payableMinor}, ${t.paidMinor},
        ${t.outstandingMinor}, ${t.recoveredMinor}, ${t.recoverableMinor}, ${t.status}, ${s.createdAt ?? at})`;
    for (const [n, l] of s.lines.entries()) {
      await tx`insert into contractor_invoice_lines (workspace_id, id, invoice_id, ordinal, kind, description, net_minor, vat_minor)
        values (${workspaceId}, ${l.id ?? ulid()}, ${id}, ${n + 1}, ${l.kind ?? "labour"}, ${l.description ?? `Line ${n + 1}`}, ${l.netMinor}, ${l.vatMinor})`;
    }
    for (const [n, p] of payments.entries()) {
      await tx`insert into contractor_payments (workspace_id, id, invoice_id, amount_minor, paid_on, reference, legacy, created_at, corrected_at, correction_reason)
        values (${workspaceId}, ${p.id}, ${id}, ${p.amountMinor}, ${p.paidOn ?? `2026-03-${String(10 + n).padStart(2, "0")}`},
          ${p.reference ?? null}, ${p.legacy ?? false}, ${p.createdAt ?? at}, ${p.correctedAt}, ${p.correctionReason ?? null})`;
    }
    for (const [n, c] of creditNotes.entries()) {
      await tx`insert into contractor_credit_notes (workspace_id, id, invoice_id, number, issued_on, net_minor, vat_minor, reason, document_id, created_at, corrected_at, correction_reason)
        values (${workspaceId}, ${c.id}, ${id}, ${c.number ?? `CN-${n + 1}`}, ${c.issuedOn ?? "2026-03-05"}, ${c.netMinor}, ${c.vatMinor},
          ${c.reason ?? null}, ${c.documentId ?? null}, ${c.createdAt ?? at}, ${c.correctedAt}, ${c.correctionReason ?? null})`;
    }
    for (const r of recoveries) {
      await tx`insert into contractor_recoveries (workspace_id, id, invoice_id, amount_minor, received_on, reference, created_at, corrected_at, correction_reason)
        values (${workspaceId}, ${r.id}, ${id}, ${r.amountMinor}, ${r.receivedOn ?? "2026-03-20"}, ${r.reference ?? null},
          ${r.createdAt ?? at}, ${r.correctedAt}, ${r.correctionReason ?? null})`;
    }
    const o = s.limitOverride;
    if (o) {
      await tx`insert into contractor_limit_overrides (workspace_id, id, invoice_id, state, basis, authorised_minor, authorised_currency,
          earlier_minor, charged_minor, excess_minor, reason, user_id, created_at)
        values (${workspaceId}, ${o.id ?? ulid()}, ${id}, ${o.state}, ${o.basis}, ${o.authorisedMinor}, ${o.authorisedCurrency},
          ${o.earlierMinor}, ${o.chargedMinor}, ${o.excessMinor}, ${o.reason}, ${o.userId ?? null}, ${o.createdAt ?? at})`;
    }
  });
  return { invoiceId: id, paymentIds: payments.map((p) => p.id) };
}

/** Everything stored about an invoice, as comparable JSON: the row, its entries, and its activity entries. */
export async function storedInvoice(db: Db, workspaceId: string, invoiceId: string): Promise<unknown> {
  const [row] = await db`
    select row_to_json(i) as invoice,
      (select json_agg(row_to_json(p) order by p.id) from contractor_payments p where p.workspace_id = i.workspace_id and p.invoice_id = i.id) as payments,
      (select json_agg(row_to_json(n) order by n.id) from contractor_credit_notes n where n.workspace_id = i.workspace_id and n.invoice_id = i.id) as credit_notes,
      (select json_agg(row_to_json(r) order by r.id) from contractor_recoveries r where r.workspace_id = i.workspace_id and r.invoice_id = i.id) as recoveries,
      (select count(*)::int from activity_log a where a.workspace_id = i.workspace_id and a.subject_id = i.id) as activity
    from contractor_invoices i where i.workspace_id = ${workspaceId} and i.id = ${invoiceId}`;
  return row;
}
