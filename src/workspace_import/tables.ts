/** The tables a workspace document writes, in write order, and how each one is upserted. */

/** A column type as `jsonb_to_recordset` reads it. */
export type ColumnType = "text" | "date" | "timestamptz" | "boolean" | "integer" | "bigint" | "jsonb" | "text[]";

/** How one table is upserted from document rows. */
export interface TableSpec {
  /** Columns identifying a row within the workspace. */
  key: string[];
  /** Every column written (key columns included) and its type. */
  columns: Record<string, ColumnType>;
  /** `revision` goes up by one when the row changes. */
  revision?: boolean;
  /** A column set to now() when the row changes. */
  touch?: string;
  /** Columns whose null in the document keeps the stored value (and means now() for a new row). */
  keep?: string[];
  /** The parent column of a nested list: the parent's rows the document does not list are deleted. */
  parent?: string;
}

const t = "text" as const;
const d = "date" as const;
const ts = "timestamptz" as const;
const b = "boolean" as const;
const big = "bigint" as const;

/** Every table the import writes, in an order that satisfies the foreign keys. */
export const tables = {
  users: { key: ["id"], columns: { id: t, name: t, email: t, role: t, created_at: ts }, keep: ["created_at"] },
  workspace_modules: { key: ["module_id"], columns: { module_id: t } },
  contacts: {
    key: ["id"],
    columns: {
      id: t, kind: t, name: t, email: t, mobile: t, address_line1: t, address_line2: t, address_town: t, address_postcode: t,
      overseas: b, roles: "text[]", registration_number: t, registration_jurisdiction: t, website: t, notes: t,
      legacy_contact_id: t, name_norm: t, email_norm: t, email_canon: t, mobile_norm: t, postcode_norm: t, registration_norm: t,
      archived_at: ts, created_at: ts,
    },
    revision: true, touch: "updated_at", keep: ["created_at"],
  },
  company_people: { key: ["company_id", "contact_id"], columns: { company_id: t, contact_id: t, role: t, archived_at: ts } },
  properties: {
    key: ["id"],
    columns: { id: t, label: t, address_line1: t, address_town: t, address_postcode: t, facts: "jsonb", created_at: ts },
    keep: ["created_at"],
  },
  property_landlords: { key: ["property_id", "contact_id"], columns: { property_id: t, contact_id: t }, parent: "property_id" },
  blocks: {
    key: ["id"],
    columns: { id: t, property_id: t, label: t, facts: "jsonb", policy_version: t, updated_at: ts, updated_by_user_id: t },
    revision: true,
  },
  block_fact_history: {
    key: ["id"],
    columns: { id: t, block_id: t, kind: t, detail: t, actor_user_id: t, policy_version: t, created_at: ts },
    parent: "block_id",
  },
  units: { key: ["id"], columns: { id: t, property_id: t, block_id: t, label: t } },
  unit_meters: { key: ["unit_id", "meter"], columns: { unit_id: t, meter: t }, parent: "unit_id" },
  tenancies: { key: ["id"], columns: { id: t, unit_id: t, status: t, starts_on: d, ends_on: d, notice_given_on: d } },
  tenancy_occupants: {
    key: ["tenancy_id", "contact_id"], columns: { tenancy_id: t, contact_id: t, role: t, is_lead: b }, parent: "tenancy_id",
  },
  handovers: {
    key: ["id"],
    columns: {
      id: t, tenancy_id: t, direction: t, status: t, due_on: d, completed_at: ts, forwarding_address: t,
      notice_evidence_document_id: t,
    },
  },
  handover_meter_readings: {
    key: ["handover_id", "meter"], columns: { handover_id: t, meter: t, reading: t, read_on: d }, parent: "handover_id",
  },
  repairs: { key: ["id"], columns: { id: t, reference: t, status: t, property_id: t, unit_id: t } },
  tasks: {
    key: ["id"],
    columns: {
      id: t, title: t, subject_kind: t, subject_id: t, assignee_contact_id: t, assignee_user_id: t, assignee_staff_id: t,
      team_id: t, task_type_id: t, branch_id: t, priority: t, due_on: d, status: t, created_by_user_id: t, dedupe_key: t,
      request_id: t, done_at: ts, created_at: ts,
    },
    revision: true, keep: ["created_at"],
  },
  inspections: {
    key: ["id"],
    columns: { id: t, tenancy_id: t, kind: t, reference: t, status: t, outcome: t, due_on: d, booked_for: ts, completed_at: ts },
  },
  inspection_findings: {
    key: ["id"], columns: { id: t, inspection_id: t, area: t, item: t, repair_id: t, task_id: t }, parent: "inspection_id",
  },
  key_sets: {
    key: ["id"],
    columns: {
      id: t, reference: t, label: t, unit_id: t, status: t, sequence: "integer", holder_type: t, holder_contact_id: t,
      holder_name: t, tenancy_id: t,
    },
  },
  key_reports: {
    key: ["id"],
    columns: {
      id: t, key_set_id: t, note: t, source_kind: t, source_id: t, source_label: t, reported_by: t, reported_at: ts,
      cleared_note: t, cleared_by: t, cleared_at: ts,
    },
  },
  contractor_authorisations: { key: ["id"], columns: { id: t, basis: t, authorised_minor: big, authorised_currency: t } },
  contractor_invoices: {
    key: ["id"],
    columns: {
      id: t, subject_kind: t, subject_id: t, subject_label: t, property_id: t, tenancy_id: t, contractor_contact_id: t,
      number: t, issued_on: d, due_on: d, currency: t, borne_by: t, document_id: t, approved_at: ts, disputed_at: ts,
      dispute_reason: t, disputed_minor: big, voided_at: ts, void_reason: t, legacy: b, legacy_status: t, legacy_settled: b,
      authorisation_id: t, net_minor: big, vat_minor: big, gross_minor: big, credited_minor: big, payable_minor: big,
      paid_minor: big, outstanding_minor: big, recovered_minor: big, recoverable_minor: big, status: t, created_at: ts,
    },
    revision: true, keep: ["created_at"],
  },
  contractor_invoice_lines: {
    key: ["id"],
    columns: { id: t, invoice_id: t, ordinal: "integer", kind: t, description: t, net_minor: big, vat_minor: big },
    parent: "invoice_id",
  },
  contractor_payments: {
    key: ["id"],
    columns: {
      id: t, invoice_id: t, amount_minor: big, paid_on: d, reference: t, legacy: b, created_at: ts, corrected_at: ts,
      correction_reason: t,
    },
    keep: ["created_at"], parent: "invoice_id",
  },
  contractor_credit_notes: {
    key: ["id"],
    columns: {
      id: t, invoice_id: t, number: t, issued_on: d, net_minor: big, vat_minor: big, reason: t, document_id: t,
      created_at: ts, corrected_at: ts, correction_reason: t,
    },
    keep: ["created_at"], parent: "invoice_id",
  },
  contractor_recoveries: {
    key: ["id"],
    columns: {
      id: t, invoice_id: t, amount_minor: big, received_on: d, reference: t, created_at: ts, corrected_at: ts,
      correction_reason: t,
    },
    keep: ["created_at"], parent: "invoice_id",
  },
  contractor_limit_overrides: {
    key: ["id"],
    columns: {
      id: t, invoice_id: t, state: t, basis: t, authorised_minor: big, authorised_currency: t, earlier_minor: big,
      charged_minor: big, excess_minor: big, reason: t, user_id: t, created_at: ts,
    },
    keep: ["created_at"], parent: "invoice_id",
  },
  calendar_events: {
    key: ["id"],
    columns: {
      id: t, title: t, kind: t, subject_kind: t, subject_id: t, starts_at: ts, ends_at: ts, location: t, status: t,
      created_by_user_id: t, property_id: t, staff_user_id: t, contact_id: t, notes: t, outcome: t, outcome_note: t,
      outcome_recorded_at: ts, feedback: "jsonb", follow_up_task_id: t, cancel_reason: t, cancelled_at: ts, created_at: ts,
    },
    revision: true, touch: "updated_at", keep: ["created_at"],
  },
  sms_threads: {
    key: ["id"],
    columns: {
      id: t, local_number: t, address: t, contact_id: t, last_message_at: ts, last_inbound_at: ts, preview: t, stopped: b,
    },
    revision: true,
  },
  landlord_portal_access: {
    key: ["contact_id"], columns: { contact_id: t, status: t, invited_at: ts, accepted_at: ts, revoked_at: ts },
  },
  onboarding_checkouts: {
    key: ["id"], columns: { id: t, module_id: t, status: t, started_at: ts, abandoned_at: ts }, keep: ["started_at"],
  },
} satisfies Record<string, TableSpec>;

/** A table the import writes. */
export type TableName = keyof typeof tables;

/** The tables in write order. */
export const tableOrder = Object.keys(tables) as TableName[];

/** Child tables of a contractor invoice: a change to one of them is a change of the invoice. */
export const invoiceChildren: TableName[] = [
  "contractor_invoice_lines", "contractor_payments", "contractor_credit_notes", "contractor_recoveries",
  "contractor_limit_overrides",
];
