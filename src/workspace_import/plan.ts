/** A validated document turned into table rows, and the references and rules to check before writing. Pure. */
import { deriveInvoice } from "../contractor_invoices/derive.ts";
import {
  companyPeople,
  contacts,
  landlordPortalAccess,
  onboardingCheckouts,
  planCollection,
  properties,
  repairs,
  tenancies,
  units,
  smsThreads,
  type Planner,
} from "./collections.ts";
import { ImportRejected } from "./errors.ts";
import { collections, type WorkspaceDoc } from "./schema.ts";
import type { Row, Rows, TableName } from "./tables.ts";

/** A kind of record another record can name. */
export type Target =
  | "users"
  | "contacts"
  | "properties"
  | "blocks"
  | "units"
  | "tenancies"
  | "repairs"
  | "tasks"
  | "inspections"
  | "keySets"
  | "contractorInvoices";

/** Facts about a record that reference rules look at (contact kind, unit's property, tenancy's unit). */
export type Attributes = Record<string, string | null>;

/** A reference to check: `id` must name a `target` in the document or the workspace, with `expect` holding. */
export interface Ref {
  target: Target;
  id: string;
  path: string;
  expect?: { attribute: string; value: string | null; message: string };
}

/** A nested record with its own id (a finding, a payment…) that must not belong to another parent already. */
export interface Claim {
  table: TableName;
  parentColumn: string;
  id: string;
  parent: string;
  path: string;
}

/** Everything the writer and the reference check need. */
export interface Plan {
  counts: Record<string, number>;
  rows: Rows;
  /** For nested lists: the parents whose lists the document gives in full. */
  parents: Partial<Record<TableName, string[]>>;
  refs: Ref[];
  claims: Claim[];
  handovers: { id: string; tenancyId: string; direction: string; path: string }[];
  users: { id: string; role: string; path: string }[];
  owner: { id: string; path: string } | null;
  regime: string | null;
  /** The document's own records, with the attributes references look at. */
  known: Record<Target, Map<string, Attributes>>;
}

/** Record kinds a `subjectKind` may name, checked when used. */
export const subjectTargets: Record<string, Target> = {
  property: "properties",
  block: "blocks",
  unit: "units",
  tenancy: "tenancies",
  contact: "contacts",
  repair: "repairs",
  task: "tasks",
  inspection: "inspections",
  key_set: "keySets",
  contractor_invoice: "contractorInvoices",
  user: "users",
};

const singular: Record<Target, string> = {
  users: "user",
  contacts: "contact",
  properties: "property",
  blocks: "block",
  units: "unit",
  tenancies: "tenancy",
  repairs: "repair",
  tasks: "task",
  inspections: "inspection",
  keySets: "key set",
  contractorInvoices: "contractor invoice",
};

/** The name of a record kind, for messages. */
export function nameOf(target: Target): string {
  return singular[target];
}

const blockPolicy = "block-facts-2025-1";
/** A value the document may leave out, as a column value: null when absent. */
const orNull = <T>(v: T | null | undefined): T | null => (v === undefined ? null : v);

/** Turns a validated document into a plan; throws ImportRejected for rules that need nothing but the document. */
export function planImport(doc: WorkspaceDoc): Plan {
  const rows: Plan["rows"] = {};
  const add = <N extends TableName>(table: N, row: Row<N>) => {
    rows[table] ??= [];
    (rows[table] as Row<N>[]).push(row);
  };
  const parents: Plan["parents"] = {};
  const parent = (table: TableName, id: string) => {
    parents[table] ??= [];
    parents[table].push(id);
  };
  const refs: Ref[] = [];
  const claims: Claim[] = [];
  const known = Object.fromEntries(Object.keys(singular).map((k) => [k, new Map()])) as Plan["known"];
  const seen = new Map<string, string>();

  /** Registers an id of a kind; a second record with the same id is refused. */
  const unique = (kind: string, id: string, path: string) => {
    const key = `${kind}\u0000${id}`;
    const first = seen.get(key);
    if (first !== undefined) throw new ImportRejected({ path, message: `Duplicate ${kind} "${id}": also at ${first}` });
    seen.set(key, path);
  };
  const ref = (target: Target, id: string | null | undefined, path: string, field: string, expect?: Ref["expect"]) => {
    if (id != null) refs.push({ target, id, path: `${path}/${field}`, expect });
  };
  const subject = (kind: string | null | undefined, id: string | null | undefined, path: string) => {
    const target = kind ? subjectTargets[kind] : undefined;
    if (target) ref(target, id, path, "subjectId");
  };
  const claim = (table: TableName, parentColumn: string, id: string, parentId: string, path: string) =>
    claims.push({ table, parentColumn, id, parent: parentId, path });
  const correction = (c: { correctedAt?: string | null; correctionReason?: string | null }, path: string) => {
    if (c.correctedAt && !c.correctionReason?.trim()) {
      throw new ImportRejected({
        path: `${path}/correctionReason`,
        message: "A corrected entry needs a correctionReason",
      });
    }
  };

  const state: Planner["plan"] = { users: [], owner: null, handovers: [] };
  const planner: Planner = { add, unique, ref, claim, known, parent, plan: state, authorisations: new Map() };

  const users = state.users;
  doc.users?.forEach((u, i) => {
    const path = `/users/${i}`;
    unique("user", u.id, path);
    if (u.role === "owner") {
      if (state.owner)
        throw new ImportRejected({
          path: `${path}/role`,
          message: `A workspace has one owner; ${state.owner.path} is already the owner`,
        });
      state.owner = { id: u.id, path };
    }
    users.push({ id: u.id, role: u.role, path });
    known.users.set(u.id, {});
    add("users", {
      id: u.id,
      name: u.name,
      email: u.email?.trim() ?? null,
      role: u.role,
      created_at: orNull(u.createdAt),
    });
  });

  for (const m of doc.entitlements ?? []) add("workspace_modules", { module_id: m });

  planCollection(planner, contacts, doc);

  planCollection(planner, companyPeople, doc);

  planCollection(planner, properties, doc);

  doc.blocks?.forEach((b, i) => {
    const path = `/blocks/${i}`;
    unique("block", b.id, path);
    known.blocks.set(b.id, { propertyId: b.propertyId });
    ref("properties", b.propertyId, path, "propertyId");
    ref("users", b.updatedByUserId, path, "updatedByUserId");
    const policy = b.policyVersion ?? blockPolicy;
    add("blocks", {
      id: b.id,
      property_id: b.propertyId,
      label: b.label,
      facts: b.facts ?? {},
      policy_version: policy,
      updated_at: orNull(b.updatedAt),
      updated_by_user_id: orNull(b.updatedByUserId),
    });
    parent("block_fact_history", b.id);
    b.history?.forEach((h, j) => {
      const hp = `${path}/history/${j}`;
      unique("block history entry", h.id, hp);
      claim("block_fact_history", "block_id", h.id, b.id, hp);
      ref("users", h.actorUserId, hp, "actorUserId");
      add("block_fact_history", {
        id: h.id,
        block_id: b.id,
        kind: h.kind,
        detail: h.detail,
        actor_user_id: orNull(h.actorUserId),
        policy_version: h.policyVersion ?? policy,
        created_at: h.createdAt,
      });
    });
  });

  planCollection(planner, units, doc);

  planCollection(planner, tenancies, doc);

  const handovers = state.handovers;
  doc.handovers?.forEach((h, i) => {
    const path = `/handovers/${i}`;
    unique("handover", h.id, path);
    unique("handover of a tenancy and direction", `${h.tenancyId} ${h.direction}`, `${path}/direction`);
    handovers.push({ id: h.id, tenancyId: h.tenancyId, direction: h.direction, path });
    ref("tenancies", h.tenancyId, path, "tenancyId");
    add("handovers", {
      id: h.id,
      tenancy_id: h.tenancyId,
      direction: h.direction,
      status: h.status,
      due_on: orNull(h.dueOn),
      completed_at: orNull(h.completedAt),
      forwarding_address: orNull(h.forwardingAddress),
      notice_evidence_document_id: orNull(h.noticeEvidenceDocumentId),
    });
    parent("handover_meter_readings", h.id);
    h.meterReadings?.forEach((r, j) => {
      unique(`meter reading of handover ${h.id}`, r.meter, `${path}/meterReadings/${j}/meter`);
      add("handover_meter_readings", {
        handover_id: h.id,
        meter: r.meter,
        reading: String(r.reading),
        read_on: orNull(r.readOn),
      });
    });
  });

  repairs.plan(planner, doc);

  doc.tasks?.forEach((t, i) => {
    const path = `/tasks/${i}`;
    unique("task", t.id, path);
    known.tasks.set(t.id, {});
    subject(t.subjectKind, t.subjectId, path);
    ref("contacts", t.assigneeContactId, path, "assigneeContactId");
    ref("users", t.assigneeUserId, path, "assigneeUserId");
    ref("users", t.createdByUserId, path, "createdByUserId");
    add("tasks", {
      id: t.id,
      title: t.title,
      subject_kind: orNull(t.subjectKind),
      subject_id: orNull(t.subjectId),
      assignee_contact_id: orNull(t.assigneeContactId),
      assignee_user_id: orNull(t.assigneeUserId),
      assignee_staff_id: orNull(t.assigneeStaffId),
      team_id: orNull(t.teamId),
      task_type_id: orNull(t.taskTypeId),
      branch_id: orNull(t.branchId),
      priority: t.priority ?? "normal",
      due_on: orNull(t.dueOn),
      status: t.status ?? "open",
      created_by_user_id: orNull(t.createdByUserId),
      dedupe_key: orNull(t.dedupeKey),
      request_id: orNull(t.requestId),
      done_at: orNull(t.doneAt),
      created_at: orNull(t.createdAt),
    });
  });

  doc.inspections?.forEach((s, i) => {
    const path = `/inspections/${i}`;
    unique("inspection", s.id, path);
    known.inspections.set(s.id, {});
    ref("tenancies", s.tenancyId, path, "tenancyId");
    add("inspections", {
      id: s.id,
      tenancy_id: s.tenancyId,
      kind: s.kind,
      reference: s.reference,
      status: s.status,
      outcome: orNull(s.outcome),
      due_on: orNull(s.dueOn),
      booked_for: orNull(s.bookedFor),
      completed_at: orNull(s.completedAt),
    });
    parent("inspection_findings", s.id);
    s.findings?.forEach((f, j) => {
      const fp = `${path}/findings/${j}`;
      unique("finding", f.id, fp);
      claim("inspection_findings", "inspection_id", f.id, s.id, fp);
      ref("repairs", f.repairId, fp, "repairId");
      ref("tasks", f.taskId, fp, "taskId");
      add("inspection_findings", {
        id: f.id,
        inspection_id: s.id,
        area: f.area,
        item: orNull(f.item),
        repair_id: orNull(f.repairId),
        task_id: orNull(f.taskId),
      });
    });
  });

  doc.keySets?.forEach((k, i) => {
    const path = `/keySets/${i}`;
    unique("key set", k.id, path);
    known.keySets.set(k.id, {});
    ref("units", k.unitId, path, "unitId");
    ref("contacts", k.holderContactId, path, "holderContactId");
    ref(
      "tenancies",
      k.tenancyId,
      path,
      "tenancyId",
      k.unitId
        ? { attribute: "unitId", value: k.unitId, message: `must be a tenancy of unit "${k.unitId}"` }
        : undefined,
    );
    add("key_sets", {
      id: k.id,
      reference: k.reference,
      label: k.label,
      unit_id: orNull(k.unitId),
      status: k.status,
      sequence: k.sequence ?? 0,
      holder_type: k.holderType,
      holder_contact_id: orNull(k.holderContactId),
      holder_name: k.holderName ?? "",
      tenancy_id: orNull(k.tenancyId),
    });
  });

  doc.keyReports?.forEach((r, i) => {
    const path = `/keyReports/${i}`;
    unique("key report", r.id, path);
    ref("keySets", r.keySetId, path, "keySetId");
    add("key_reports", {
      id: r.id,
      key_set_id: r.keySetId,
      note: r.note,
      source_kind: r.source.kind,
      source_id: orNull(r.source.id),
      source_label: orNull(r.source.label),
      reported_by: r.reportedBy,
      reported_at: r.reportedAt,
      cleared_note: orNull(r.cleared?.note),
      cleared_by: orNull(r.cleared?.by),
      cleared_at: orNull(r.cleared?.at),
    });
  });

  const authorisations = new Map<string, { value: string; path: string }>();
  doc.contractorInvoices?.forEach((v, i) => {
    const path = `/contractorInvoices/${i}`;
    unique("contractor invoice", v.id, path);
    known.contractorInvoices.set(v.id, {});
    subject(v.subjectKind, v.subjectId, path);
    ref("properties", v.propertyId, path, "propertyId");
    ref("tenancies", v.tenancyId, path, "tenancyId");
    ref("contacts", v.contractorContactId, path, "contractorContactId");
    const lines = v.lines ?? [];
    const payments = v.payments ?? [];
    const creditNotes = v.creditNotes ?? [];
    const recoveries = v.recoveries ?? [];
    for (const [j, p] of payments.entries()) correction(p, `${path}/payments/${j}`);
    for (const [j, c] of creditNotes.entries()) correction(c, `${path}/creditNotes/${j}`);
    for (const [j, r] of recoveries.entries()) correction(r, `${path}/recoveries/${j}`);
    const a = v.authorisation;
    if (a) {
      const value = JSON.stringify([a.basis, a.authorisedMinor, a.authorisedCurrency]);
      const first = authorisations.get(a.id);
      if (first && first.value !== value) {
        throw new ImportRejected({
          path: `${path}/authorisation`,
          message: `Authorisation "${a.id}" differs from the one at ${first.path}`,
        });
      }
      if (!first) {
        authorisations.set(a.id, { value, path: `${path}/authorisation` });
        add("contractor_authorisations", {
          id: a.id,
          basis: a.basis,
          authorised_minor: a.authorisedMinor,
          authorised_currency: a.authorisedCurrency,
        });
      }
    }
    if (v.limitOverride && !a) {
      throw new ImportRejected({
        path: `${path}/limitOverride`,
        message: "A limit override needs the invoice's authorisation",
      });
    }
    const totals = deriveInvoice({
      borneBy: v.borneBy,
      approvedAt: orNull(v.approvedAt),
      disputedAt: orNull(v.disputedAt),
      voidedAt: orNull(v.voidedAt),
      lines,
      payments: payments.map((p) => ({ amountMinor: p.amountMinor, correctedAt: orNull(p.correctedAt) })),
      creditNotes: creditNotes.map((c) => ({
        netMinor: c.netMinor,
        vatMinor: c.vatMinor,
        correctedAt: orNull(c.correctedAt),
      })),
      recoveries: recoveries.map((r) => ({ amountMinor: r.amountMinor, correctedAt: orNull(r.correctedAt) })),
    });
    add("contractor_invoices", {
      id: v.id,
      subject_kind: orNull(v.subjectKind),
      subject_id: orNull(v.subjectId),
      subject_label: orNull(v.subjectLabel),
      property_id: orNull(v.propertyId),
      tenancy_id: orNull(v.tenancyId),
      contractor_contact_id: orNull(v.contractorContactId),
      number: v.number,
      issued_on: orNull(v.issuedOn),
      due_on: orNull(v.dueOn),
      currency: v.currency ?? "GBP",
      borne_by: v.borneBy,
      document_id: orNull(v.documentId),
      approved_at: orNull(v.approvedAt),
      disputed_at: orNull(v.disputedAt),
      dispute_reason: orNull(v.disputeReason),
      disputed_minor: orNull(v.disputedMinor),
      voided_at: orNull(v.voidedAt),
      void_reason: orNull(v.voidReason),
      legacy: v.legacy ?? false,
      legacy_status: orNull(v.legacyStatus),
      legacy_settled: orNull(v.legacySettled),
      authorisation_id: a?.id ?? null,
      net_minor: totals.netMinor,
      vat_minor: totals.vatMinor,
      gross_minor: totals.grossMinor,
      credited_minor: totals.creditedMinor,
      payable_minor: totals.payableMinor,
      paid_minor: totals.paidMinor,
      outstanding_minor: totals.outstandingMinor,
      recovered_minor: totals.recoveredMinor,
      recoverable_minor: totals.recoverableMinor,
      status: totals.status,
      created_at: orNull(v.createdAt),
    });
    for (const table of [
      "contractor_invoice_lines",
      "contractor_payments",
      "contractor_credit_notes",
      "contractor_recoveries",
      "contractor_limit_overrides",
    ] as const) {
      parent(table, v.id);
    }
    lines.forEach((l, j) => {
      const lp = `${path}/lines/${j}`;
      unique("invoice line", l.id, lp);
      claim("contractor_invoice_lines", "invoice_id", l.id, v.id, lp);
      add("contractor_invoice_lines", {
        id: l.id,
        invoice_id: v.id,
        ordinal: l.ordinal ?? j + 1,
        kind: l.kind,
        description: l.description,
        net_minor: l.netMinor,
        vat_minor: l.vatMinor,
      });
    });
    payments.forEach((p, j) => {
      const pp = `${path}/payments/${j}`;
      unique("payment", p.id, pp);
      claim("contractor_payments", "invoice_id", p.id, v.id, pp);
      add("contractor_payments", {
        id: p.id,
        invoice_id: v.id,
        amount_minor: p.amountMinor,
        paid_on: p.paidOn,
        reference: orNull(p.reference),
        legacy: p.legacy ?? false,
        created_at: orNull(p.createdAt),
        corrected_at: orNull(p.correctedAt),
        correction_reason: orNull(p.correctionReason),
      });
    });
    creditNotes.forEach((c, j) => {
      const cp = `${path}/creditNotes/${j}`;
      unique("credit note", c.id, cp);
      claim("contractor_credit_notes", "invoice_id", c.id, v.id, cp);
      add("contractor_credit_notes", {
        id: c.id,
        invoice_id: v.id,
        number: c.number,
        issued_on: c.issuedOn,
        net_minor: c.netMinor,
        vat_minor: c.vatMinor,
        reason: orNull(c.reason),
        document_id: orNull(c.documentId),
        created_at: orNull(c.createdAt),
        corrected_at: orNull(c.correctedAt),
        correction_reason: orNull(c.correctionReason),
      });
    });
    recoveries.forEach((r, j) => {
      const rp = `${path}/recoveries/${j}`;
      unique("recovery", r.id, rp);
      claim("contractor_recoveries", "invoice_id", r.id, v.id, rp);
      add("contractor_recoveries", {
        id: r.id,
        invoice_id: v.id,
        amount_minor: r.amountMinor,
        received_on: r.receivedOn,
        reference: orNull(r.reference),
        created_at: orNull(r.createdAt),
        corrected_at: orNull(r.correctedAt),
        correction_reason: orNull(r.correctionReason),
      });
    });
    const o = v.limitOverride;
    if (o) {
      const op = `${path}/limitOverride`;
      unique("limit override", o.id, op);
      claim("contractor_limit_overrides", "invoice_id", o.id, v.id, op);
      ref("users", o.userId, op, "userId");
      add("contractor_limit_overrides", {
        id: o.id,
        invoice_id: v.id,
        state: o.state,
        basis: o.basis,
        authorised_minor: o.authorisedMinor,
        authorised_currency: o.authorisedCurrency,
        earlier_minor: o.earlierMinor,
        charged_minor: o.chargedMinor,
        excess_minor: o.excessMinor,
        reason: o.reason,
        user_id: orNull(o.userId),
        created_at: orNull(o.createdAt),
      });
    }
  });

  doc.calendarEvents?.forEach((e, i) => {
    const path = `/calendarEvents/${i}`;
    unique("calendar event", e.id, path);
    if (Date.parse(e.endsAt) <= Date.parse(e.startsAt))
      throw new ImportRejected({ path: `${path}/endsAt`, message: "endsAt must be after startsAt" });
    subject(e.subjectKind, e.subjectId, path);
    ref("properties", e.propertyId, path, "propertyId");
    ref("users", e.staffUserId, path, "staffUserId");
    ref("contacts", e.contactId, path, "contactId");
    ref("tasks", e.followUpTaskId, path, "followUpTaskId");
    ref("users", e.createdByUserId, path, "createdByUserId");
    const f = e.feedback;
    add("calendar_events", {
      id: e.id,
      title: e.title,
      kind: e.kind,
      subject_kind: orNull(e.subjectKind),
      subject_id: orNull(e.subjectId),
      starts_at: e.startsAt,
      ends_at: e.endsAt,
      location: orNull(e.location),
      status: e.status ?? "scheduled",
      created_by_user_id: orNull(e.createdByUserId),
      property_id: orNull(e.propertyId),
      staff_user_id: orNull(e.staffUserId),
      contact_id: orNull(e.contactId),
      notes: orNull(e.notes),
      outcome: orNull(e.outcome),
      outcome_note: orNull(e.outcomeNote),
      outcome_recorded_at: orNull(e.outcomeRecordedAt),
      feedback: f
        ? {
            interest: orNull(f.interest),
            themes: f.themes ?? [],
            nextAction: orNull(f.nextAction),
            note: orNull(f.note),
          }
        : null,
      follow_up_task_id: orNull(e.followUpTaskId),
      cancel_reason: orNull(e.cancelReason),
      cancelled_at: orNull(e.cancelledAt),
      created_at: orNull(e.createdAt),
    });
  });

  planCollection(planner, smsThreads, doc);

  planCollection(planner, landlordPortalAccess, doc);

  planCollection(planner, onboardingCheckouts, doc);

  const counts: Record<string, number> = {};
  for (const c of collections) {
    const value = doc[c];
    counts[c] = Array.isArray(value) ? value.length : value ? 1 : 0;
  }
  return {
    counts,
    rows,
    parents,
    refs,
    claims,
    handovers,
    users,
    owner: state.owner,
    regime: doc.hazardSettings?.regime ?? null,
    known,
  };
}
