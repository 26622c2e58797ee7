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

/** Every table the import writes, in an order that satisfies the foreign keys. */
export const tables = {
  users: {
    key: ["id"],
    columns: { id: "text", name: "text", email: "text", role: "text", created_at: "timestamptz" },
    keep: ["created_at"],
  },
  workspace_modules: { key: ["module_id"], columns: { module_id: "text" } },
  contacts: {
    key: ["id"],
    columns: {
      id: "text",
      kind: "text",
      name: "text",
      email: "text",
      mobile: "text",
      address_line1: "text",
      address_line2: "text",
      address_town: "text",
      address_postcode: "text",
      overseas: "boolean",
      roles: "text[]",
      registration_number: "text",
      registration_jurisdiction: "text",
      website: "text",
      notes: "text",
      legacy_contact_id: "text",
      name_norm: "text",
      email_norm: "text",
      email_canon: "text",
      mobile_norm: "text",
      postcode_norm: "text",
      registration_norm: "text",
      archived_at: "timestamptz",
      created_at: "timestamptz",
    },
    revision: true,
    touch: "updated_at",
    keep: ["created_at"],
  },
  company_people: {
    key: ["company_id", "contact_id"],
    columns: { company_id: "text", contact_id: "text", role: "text", archived_at: "timestamptz" },
  },
  properties: {
    key: ["id"],
    columns: {
      id: "text",
      label: "text",
      address_line1: "text",
      address_town: "text",
      address_postcode: "text",
      facts: "jsonb",
      created_at: "timestamptz",
    },
    keep: ["created_at"],
  },
  property_landlords: {
    key: ["property_id", "contact_id"],
    columns: { property_id: "text", contact_id: "text" },
    parent: "property_id",
  },
  blocks: {
    key: ["id"],
    columns: {
      id: "text",
      property_id: "text",
      label: "text",
      facts: "jsonb",
      policy_version: "text",
      updated_at: "timestamptz",
      updated_by_user_id: "text",
    },
    revision: true,
  },
  block_fact_history: {
    key: ["id"],
    columns: {
      id: "text",
      block_id: "text",
      kind: "text",
      detail: "text",
      actor_user_id: "text",
      policy_version: "text",
      created_at: "timestamptz",
    },
    parent: "block_id",
  },
  units: { key: ["id"], columns: { id: "text", property_id: "text", block_id: "text", label: "text" } },
  unit_meters: { key: ["unit_id", "meter"], columns: { unit_id: "text", meter: "text" }, parent: "unit_id" },
  tenancies: {
    key: ["id"],
    columns: {
      id: "text",
      unit_id: "text",
      status: "text",
      starts_on: "date",
      ends_on: "date",
      notice_given_on: "date",
    },
  },
  tenancy_occupants: {
    key: ["tenancy_id", "contact_id"],
    columns: { tenancy_id: "text", contact_id: "text", role: "text", is_lead: "boolean" },
    parent: "tenancy_id",
  },
  handovers: {
    key: ["id"],
    columns: {
      id: "text",
      tenancy_id: "text",
      direction: "text",
      status: "text",
      due_on: "date",
      completed_at: "timestamptz",
      forwarding_address: "text",
      notice_evidence_document_id: "text",
    },
  },
  handover_meter_readings: {
    key: ["handover_id", "meter"],
    columns: { handover_id: "text", meter: "text", reading: "text", read_on: "date" },
    parent: "handover_id",
  },
  repairs: {
    key: ["id"],
    columns: {
      id: "text",
      reference: "text",
      status: "text",
      property_id: "text",
      unit_id: "text",
      tenancy_id: "text",
      title: "text",
      description: "text",
      location: "text",
      category: "text",
      reporter_kind: "text",
      reporter_contact_id: "text",
      reporter_name: "text",
      channel: "text",
      aware_at: "timestamptz",
      hazard: "text",
      hhsrs_hazard: "text",
      regime: "text",
      policy_version: "text",
      triaged_at: "timestamptz",
      triaged_by_user_id: "text",
      triage_note: "text",
      milestones: "jsonb",
      access_attempts: "jsonb",
      cancel_reason: "text",
      cancelled_at: "timestamptz",
      // Computed at the load from the clocks the repair has, with the working calendar (repair_records.ts).
      open_due_at: "timestamptz",
      open_due_last_at: "timestamptz",
      created_at: "timestamptz",
    },
    revision: true,
    touch: "updated_at",
    keep: ["created_at"],
  },
  tasks: {
    key: ["id"],
    columns: {
      id: "text",
      title: "text",
      subject_kind: "text",
      subject_id: "text",
      assignee_contact_id: "text",
      assignee_user_id: "text",
      assignee_staff_id: "text",
      team_id: "text",
      task_type_id: "text",
      branch_id: "text",
      priority: "text",
      due_on: "date",
      status: "text",
      created_by_user_id: "text",
      dedupe_key: "text",
      request_id: "text",
      done_at: "timestamptz",
      created_at: "timestamptz",
    },
    revision: true,
    keep: ["created_at"],
  },
  inspections: {
    key: ["id"],
    columns: {
      id: "text",
      tenancy_id: "text",
      kind: "text",
      reference: "text",
      status: "text",
      outcome: "text",
      due_on: "date",
      booked_for: "timestamptz",
      completed_at: "timestamptz",
    },
  },
  inspection_findings: {
    key: ["id"],
    columns: { id: "text", inspection_id: "text", area: "text", item: "text", repair_id: "text", task_id: "text" },
    parent: "inspection_id",
  },
  key_sets: {
    key: ["id"],
    columns: {
      id: "text",
      reference: "text",
      label: "text",
      unit_id: "text",
      status: "text",
      sequence: "integer",
      holder_type: "text",
      holder_contact_id: "text",
      holder_name: "text",
      tenancy_id: "text",
    },
  },
  key_reports: {
    key: ["id"],
    columns: {
      id: "text",
      key_set_id: "text",
      note: "text",
      source_kind: "text",
      source_id: "text",
      source_label: "text",
      reported_by: "text",
      reported_at: "timestamptz",
      cleared_note: "text",
      cleared_by: "text",
      cleared_at: "timestamptz",
    },
  },
  contractor_authorisations: {
    key: ["id"],
    columns: { id: "text", basis: "text", authorised_minor: "bigint", authorised_currency: "text" },
  },
  contractor_invoices: {
    key: ["id"],
    columns: {
      id: "text",
      subject_kind: "text",
      subject_id: "text",
      subject_label: "text",
      property_id: "text",
      tenancy_id: "text",
      contractor_contact_id: "text",
      number: "text",
      issued_on: "date",
      due_on: "date",
      currency: "text",
      borne_by: "text",
      document_id: "text",
      approved_at: "timestamptz",
      disputed_at: "timestamptz",
      dispute_reason: "text",
      disputed_minor: "bigint",
      voided_at: "timestamptz",
      void_reason: "text",
      legacy: "boolean",
      legacy_status: "text",
      legacy_settled: "boolean",
      authorisation_id: "text",
      net_minor: "bigint",
      vat_minor: "bigint",
      gross_minor: "bigint",
      credited_minor: "bigint",
      payable_minor: "bigint",
      paid_minor: "bigint",
      outstanding_minor: "bigint",
      recovered_minor: "bigint",
      recoverable_minor: "bigint",
      status: "text",
      created_at: "timestamptz",
    },
    revision: true,
    keep: ["created_at"],
  },
  contractor_invoice_lines: {
    key: ["id"],
    columns: {
      id: "text",
      invoice_id: "text",
      ordinal: "integer",
      kind: "text",
      description: "text",
      net_minor: "bigint",
      vat_minor: "bigint",
    },
    parent: "invoice_id",
  },
  contractor_payments: {
    key: ["id"],
    columns: {
      id: "text",
      invoice_id: "text",
      amount_minor: "bigint",
      paid_on: "date",
      reference: "text",
      legacy: "boolean",
      created_at: "timestamptz",
      corrected_at: "timestamptz",
      correction_reason: "text",
    },
    keep: ["created_at"],
    parent: "invoice_id",
  },
  contractor_credit_notes: {
    key: ["id"],
    columns: {
      id: "text",
      invoice_id: "text",
      number: "text",
      issued_on: "date",
      net_minor: "bigint",
      vat_minor: "bigint",
      reason: "text",
      document_id: "text",
      created_at: "timestamptz",
      corrected_at: "timestamptz",
      correction_reason: "text",
    },
    keep: ["created_at"],
    parent: "invoice_id",
  },
  contractor_recoveries: {
    key: ["id"],
    columns: {
      id: "text",
      invoice_id: "text",
      amount_minor: "bigint",
      received_on: "date",
      reference: "text",
      created_at: "timestamptz",
      corrected_at: "timestamptz",
      correction_reason: "text",
    },
    keep: ["created_at"],
    parent: "invoice_id",
  },
  contractor_limit_overrides: {
    key: ["id"],
    columns: {
      id: "text",
      invoice_id: "text",
      state: "text",
      basis: "text",
      authorised_minor: "bigint",
      authorised_currency: "text",
      earlier_minor: "bigint",
      charged_minor: "bigint",
      excess_minor: "bigint",
      reason: "text",
      user_id: "text",
      created_at: "timestamptz",
    },
    keep: ["created_at"],
    parent: "invoice_id",
  },
  calendar_events: {
    key: ["id"],
    columns: {
      id: "text",
      title: "text",
      kind: "text",
      subject_kind: "text",
      subject_id: "text",
      starts_at: "timestamptz",
      ends_at: "timestamptz",
      location: "text",
      status: "text",
      created_by_user_id: "text",
      property_id: "text",
      staff_user_id: "text",
      contact_id: "text",
      notes: "text",
      outcome: "text",
      outcome_note: "text",
      outcome_recorded_at: "timestamptz",
      feedback: "jsonb",
      follow_up_task_id: "text",
      cancel_reason: "text",
      cancelled_at: "timestamptz",
      created_at: "timestamptz",
    },
    revision: true,
    touch: "updated_at",
    keep: ["created_at"],
  },
  sms_threads: {
    key: ["id"],
    columns: {
      id: "text",
      local_number: "text",
      address: "text",
      contact_id: "text",
      last_message_at: "timestamptz",
      last_inbound_at: "timestamptz",
      preview: "text",
      stopped: "boolean",
    },
    revision: true,
  },
  landlord_portal_access: {
    key: ["contact_id"],
    columns: {
      contact_id: "text",
      status: "text",
      invited_at: "timestamptz",
      accepted_at: "timestamptz",
      revoked_at: "timestamptz",
    },
  },
  onboarding_checkouts: {
    key: ["id"],
    columns: { id: "text", module_id: "text", status: "text", started_at: "timestamptz", abandoned_at: "timestamptz" },
    keep: ["started_at"],
  },
} satisfies Record<string, TableSpec>;

/** A table the import writes. */
export type TableName = keyof typeof tables;

/** The value a column of each type takes in a planned row (null is SQL null). */
interface ColumnValues {
  text: string;
  date: string;
  timestamptz: string;
  boolean: boolean;
  integer: number;
  bigint: number;
  jsonb: unknown;
  "text[]": string[];
}

/**
 * One planned row of a table: exactly its declared columns, each of its type or null, so that a misspelt or
 * missing column is a compile error rather than a NULL in COPY. Of several tables, any one of their rows.
 */
export type Row<N extends TableName> = N extends TableName
  ? { [C in keyof Columns<N>]: ColumnValue<Columns<N>[C]> | null }
  : never;

type Columns<N extends TableName> = (typeof tables)[N]["columns"];
type ColumnValue<T> = T extends ColumnType ? ColumnValues[T] : never;

/** Planned rows by table. */
export type Rows = { [N in TableName]?: Row<N>[] };

/** The tables in write order. */
export const tableOrder = Object.keys(tables) as TableName[];

/** Child tables of a contractor invoice: a change to one of them is a change of the invoice. */
export const invoiceChildren: TableName[] = [
  "contractor_invoice_lines",
  "contractor_payments",
  "contractor_credit_notes",
  "contractor_recoveries",
  "contractor_limit_overrides",
];
