/**
 * Collections of the workspace document as declarations (where in the document, which table, the record's id,
 * the references it makes, its rules, how a record becomes its row, its nested lists) and the one loop that plans
 * them. planImport runs `declarations`, in order, through planCollection.
 */
import { contactFields, storedPostcode } from "../contacts/company_fields.ts";
import { contactRow } from "../contacts/table.ts";
import { deriveInvoice } from "../contractor_invoices/derive.ts";
import { ImportRejected } from "./errors.ts";
import { repairRow } from "./repair_records.ts";
import type { Attributes, Plan, Ref, Target } from "./plan.ts";
import type { WorkspaceDoc } from "./schema.ts";
import type { Row, TableName } from "./tables.ts";

/** A list of the document. */
type ListName = {
  [K in keyof WorkspaceDoc]-?: NonNullable<WorkspaceDoc[K]> extends unknown[] ? K : never;
}[keyof WorkspaceDoc];
/** One record of a list. */
type Item<L extends ListName> = NonNullable<WorkspaceDoc[L]>[number];

/**
 * A reference a record makes: the field naming it, as a path below the record ("reporter/contactId"; "" in a nested
 * list of ids: the item itself), its target, the id, and a rule the target must meet.
 */
export interface Reference {
  field: string;
  target: Target;
  id: string | null | undefined;
  expect?: Ref["expect"];
}

/** One collection: its list, table, id (unique within `kind`), references, and row. */
export interface Collection<L extends ListName, N extends TableName> {
  list: L;
  table: N;
  /** The record's id and the kind named in duplicate messages; a list of plain values has none. */
  id?: (r: Item<L>) => string;
  kind?: string;
  /** The kind of record other records may name this one as, with the facts their rules look at. */
  known?: { target: Target; attributes: (r: Item<L>) => Attributes };
  /** The record's rules beyond its own id and references (ImportRejected at its path), checked before its row. */
  check?: (r: Item<L>, path: string, p: Planner) => void;
  references?: (r: Item<L>) => Reference[];
  /** The record's row; `path` is where it is in the document, for the refusals of its row builder. */
  row: (r: Item<L>, path: string) => Row<N>;
  /** Lists inside a record, each given in full: the writer replaces the parent's old list. */
  nested?: Nested<Item<L>>[];
}

/** A declared collection with its types erased, as the planner runs it. */
export interface Declared {
  list: ListName;
  plan: (p: Planner, doc: WorkspaceDoc) => void;
}

/** Declares a collection for the planner's list (the types checked here, erased after). */
export function collection<L extends ListName, N extends TableName>(c: Collection<L, N>): Declared {
  return { list: c.list, plan: (p, doc) => planCollection(p, c, doc) };
}

/** A list inside a record of a collection (a property's landlords, a tenancy's occupants). */
export interface Nested<P> {
  /** The field holding the list, for paths. */
  field: string;
  table: TableName;
  /** Plans the parent's children: each unique where it has an id, its references checked, its row added. */
  plan: (parent: P, parentId: string, planner: Planner, path: string) => void;
}

/** Declares a nested list: `items` of a parent, each child's id, references and row. */
export function nested<P, C, N extends TableName>(d: {
  field: string;
  table: N;
  items: (parent: P) => readonly C[] | null | undefined;
  /** A single record, not a list: its path is the field's, without an index. */
  single?: boolean;
  /** `at`: where below the child the duplicate is said to be ("meter"); the child itself when absent. */
  unique?: { kind: (parent: P) => string; id: (child: C) => string; at?: string };
  /** The child's own id is claimed for its parent (by this column): it cannot move from another parent. */
  claim?: string;
  references?: (child: C) => Reference[];
  row: (child: C, parent: P, index: number) => Row<N>;
}): Nested<P> {
  return {
    field: d.field,
    table: d.table,
    plan: (parent, parentId, p, path) => {
      d.items(parent)?.forEach((child, j) => {
        const childPath = d.single ? `${path}/${d.field}` : `${path}/${d.field}/${j}`;
        if (d.unique) {
          const id = d.unique.id(child);
          p.unique(d.unique.kind(parent), id, d.unique.at ? `${childPath}/${d.unique.at}` : childPath);
          if (d.claim) p.claim(d.table, d.claim, id, parentId, childPath);
        }
        for (const x of d.references?.(child) ?? []) {
          if (x.field === "") p.ref(x.target, x.id, `${path}/${d.field}`, String(j), x.expect);
          else p.ref(x.target, x.id, childPath, x.field, x.expect);
        }
        p.add(d.table, d.row(child, parent, j));
      });
    },
  };
}

/** What the loop needs from the plan being built. */
export interface Planner {
  add: <N extends TableName>(table: N, row: Row<N>) => void;
  unique: (kind: string, id: string, path: string) => void;
  ref: (target: Target, id: string | null | undefined, path: string, field: string, expect?: Ref["expect"]) => void;
  claim: (table: TableName, parentColumn: string, id: string, parentId: string, path: string) => void;
  known: Record<Target, Map<string, Attributes>>;
  /** Records that the parent `id` gives its `table` list in full. */
  parent: (table: TableName, id: string) => void;
  /** What the checks against the workspace need besides references: users, the owner, handovers. */
  plan: Pick<Plan, "users" | "owner" | "handovers">;
  /** Contractor authorisations met so far, each with its value and where it was first given. */
  authorisations: Map<string, { value: string; path: string }>;
}

/** Plans every record of one declared collection: its id checked unique, made known, referenced, added. */
export function planCollection<L extends ListName, N extends TableName>(
  p: Planner,
  c: Collection<L, N>,
  doc: WorkspaceDoc,
): void {
  const items = (doc[c.list] ?? []) as Item<L>[];
  items.forEach((r, i) => {
    const path = `/${c.list}/${i}`;
    const id = c.id?.(r) ?? "";
    if (c.id) p.unique(c.kind ?? c.list, id, path);
    c.check?.(r, path, p);
    if (c.known) p.known[c.known.target].set(id, c.known.attributes(r));
    for (const x of c.references?.(r) ?? []) p.ref(x.target, x.id, path, x.field, x.expect);
    p.add(c.table, c.row(r, path));
    for (const n of c.nested ?? []) {
      p.parent(n.table, id);
      n.plan(r, id, p, path);
    }
  });
}

/** Record kinds a `subjectKind` may name, checked when used. */
const subjectTargets: Record<string, Target> = {
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

/** The reference a `subjectKind` and `subjectId` make, if the kind names a record kind. */
function subject(kind: string | null | undefined, id: string | null | undefined): Reference[] {
  const target = kind ? subjectTargets[kind] : undefined;
  return target ? [{ field: "subjectId", target, id }] : [];
}

/** A value the document may leave out, as a column value: null when absent. */
const orNull = <T>(v: T | null | undefined): T | null => (v === undefined ? null : v);

/** Contacts: stored through contactFields and contactRow, the row builders POST /companies uses. */
export const contacts = collection({
  list: "contacts",
  table: "contacts",
  kind: "contact",
  id: (c) => c.id,
  known: { target: "contacts", attributes: (c) => ({ kind: c.kind }) },
  row: (c) =>
    contactRow(
      {
        id: c.id,
        kind: c.kind,
        legacyContactId: orNull(c.legacyContactId),
        archivedAt: orNull(c.archivedAt),
        createdAt: orNull(c.createdAt),
      },
      contactFields(c),
    ),
});

/** Properties, with their landlords. */
export const properties = collection({
  list: "properties",
  table: "properties",
  kind: "property",
  id: (p) => p.id,
  known: { target: "properties", attributes: () => ({}) },
  row: (p) => ({
    id: p.id,
    label: p.label,
    address_line1: orNull(p.addressLine1),
    address_town: orNull(p.addressTown),
    address_postcode: storedPostcode(p.addressPostcode),
    facts: p.facts ?? {},
    created_at: orNull(p.createdAt),
  }),
  nested: [
    nested({
      field: "landlordContactIds",
      table: "property_landlords",
      items: (p: Item<"properties">) => p.landlordContactIds,
      references: (c: string) => [{ field: "", target: "contacts", id: c }],
      row: (c, p) => ({ property_id: p.id, contact_id: c }),
    }),
  ],
});

/** Units, with their meters. */
export const units = collection({
  list: "units",
  table: "units",
  kind: "unit",
  id: (u) => u.id,
  known: { target: "units", attributes: (u) => ({ propertyId: u.propertyId }) },
  references: (u) => [
    { field: "propertyId", target: "properties", id: u.propertyId },
    {
      field: "blockId",
      target: "blocks",
      id: u.blockId,
      expect: {
        attribute: "propertyId",
        value: u.propertyId,
        message: `must be a block of property "${u.propertyId}"`,
      },
    },
  ],
  row: (u) => ({ id: u.id, property_id: u.propertyId, block_id: orNull(u.blockId), label: u.label }),
  nested: [
    nested({
      field: "meters",
      table: "unit_meters",
      items: (u: Item<"units">) => u.meters,
      row: (m, u) => ({ unit_id: u.id, meter: m }),
    }),
  ],
});

/** Tenancies, with their occupants (one entry per contact). */
export const tenancies = collection({
  list: "tenancies",
  table: "tenancies",
  kind: "tenancy",
  id: (t) => t.id,
  known: { target: "tenancies", attributes: (t) => ({ unitId: t.unitId }) },
  references: (t) => [{ field: "unitId", target: "units", id: t.unitId }],
  row: (t) => ({
    id: t.id,
    unit_id: t.unitId,
    status: t.status,
    starts_on: orNull(t.startsOn),
    ends_on: orNull(t.endsOn),
    notice_given_on: orNull(t.noticeGivenOn),
  }),
  nested: [
    nested({
      field: "occupants",
      table: "tenancy_occupants",
      items: (t: Item<"tenancies">) => t.occupants,
      unique: { kind: (t) => `occupant of tenancy ${t.id}`, id: (o) => o.contactId },
      references: (o) => [{ field: "contactId", target: "contacts", id: o.contactId }],
      row: (o, t) => ({
        tenancy_id: t.id,
        contact_id: o.contactId,
        role: o.role ?? "tenant",
        is_lead: o.isLead ?? false,
      }),
    }),
  ],
});

/** A company's people, keyed by (companyId, contactId). */
export const companyPeople = collection({
  list: "companyPeople",
  table: "company_people",
  kind: "company person",
  id: (p) => `${p.companyId}/${p.contactId}`,
  references: (p) => [
    {
      field: "companyId",
      target: "contacts",
      id: p.companyId,
      expect: { attribute: "kind", value: "company", message: "must be a contact of kind company" },
    },
    { field: "contactId", target: "contacts", id: p.contactId },
  ],
  row: (p) => ({
    company_id: p.companyId,
    contact_id: p.contactId,
    role: orNull(p.role),
    archived_at: orNull(p.archivedAt),
  }),
});

/** SMS threads. */
export const smsThreads = collection({
  list: "smsThreads",
  table: "sms_threads",
  kind: "SMS thread",
  id: (s) => s.id,
  references: (s) => [{ field: "contactId", target: "contacts", id: s.contactId }],
  row: (s) => ({
    id: s.id,
    local_number: s.localNumber,
    address: s.address,
    contact_id: orNull(s.contactId),
    last_message_at: orNull(s.lastMessageAt),
    last_inbound_at: orNull(s.lastInboundAt),
    preview: orNull(s.preview),
    stopped: s.stopped ?? false,
  }),
});

/** Landlords' portal access, one per contact. */
export const landlordPortalAccess = collection({
  list: "landlordPortalAccess",
  table: "landlord_portal_access",
  kind: "portal access of contact",
  id: (a) => a.contactId,
  references: (a) => [{ field: "contactId", target: "contacts", id: a.contactId }],
  row: (a) => ({
    contact_id: a.contactId,
    status: a.status,
    invited_at: orNull(a.invitedAt),
    accepted_at: orNull(a.acceptedAt),
    revoked_at: orNull(a.revokedAt),
  }),
});

/** Onboarding checkouts. */
export const onboardingCheckouts = collection({
  list: "onboardingCheckouts",
  table: "onboarding_checkouts",
  kind: "onboarding checkout",
  id: (c) => c.id,
  row: (c) => ({
    id: c.id,
    module_id: c.moduleId,
    status: c.status,
    started_at: orNull(c.startedAt),
    abandoned_at: orNull(c.abandonedAt),
  }),
});

/**
 * Repairs: each record checked by the API's rules of a repair and stored as the API stores it (repairRow, with the
 * API's normalisation: repair_rules.ts). Their due instants are computed where the working calendar is read.
 */
export const repairs = collection({
  list: "repairs",
  table: "repairs",
  kind: "repair",
  id: (r) => r.id,
  known: { target: "repairs", attributes: () => ({}) },
  check: (r, path, p) => {
    r.accessAttempts?.forEach((a, j) => {
      p.unique(`access attempt of repair ${r.id}`, a.id, `${path}/accessAttempts/${j}`);
    });
  },
  references: (r) => [
    { field: "propertyId", target: "properties", id: r.propertyId },
    {
      field: "unitId",
      target: "units",
      id: r.unitId,
      expect: r.propertyId
        ? { attribute: "propertyId", value: r.propertyId, message: `must be a unit of property "${r.propertyId}"` }
        : undefined,
    },
    {
      field: "tenancyId",
      target: "tenancies",
      id: r.tenancyId,
      expect: r.unitId
        ? { attribute: "unitId", value: r.unitId, message: `must be a tenancy of unit "${r.unitId}"` }
        : undefined,
    },
    { field: "reporter/contactId", target: "contacts", id: r.reporter?.contactId },
    { field: "triagedByUserId", target: "users", id: r.triagedByUserId },
    ...(r.milestones ?? []).map((m, j) => ({
      field: `milestones/${j}/recordedByUserId`,
      target: "users" as const,
      id: m.recordedByUserId,
    })),
  ],
  row: repairRow,
});

/** Users: a document names one owner at most. */
export const users = collection({
  list: "users",
  table: "users",
  kind: "user",
  id: (u) => u.id,
  check: (u, path, p) => {
    if (u.role === "owner") {
      if (p.plan.owner)
        throw new ImportRejected({
          path: `${path}/role`,
          message: `A workspace has one owner; ${p.plan.owner.path} is already the owner`,
        });
      p.plan.owner = { id: u.id, path };
    }
    p.plan.users.push({ id: u.id, role: u.role, path });
  },
  known: { target: "users", attributes: () => ({}) },
  row: (u) => ({
    id: u.id,
    name: u.name,
    email: u.email?.trim() ?? null,
    role: u.role,
    created_at: orNull(u.createdAt),
  }),
});

/** The modules granted: plain module ids. */
export const entitlements = collection({
  list: "entitlements",
  table: "workspace_modules",
  row: (m) => ({ module_id: m }),
});

/** The policy a block's facts follow when the document names none. */
const blockPolicy = "block-facts-2025-1";

/** Blocks, with their fact history (each entry keeps its block). */
export const blocks = collection({
  list: "blocks",
  table: "blocks",
  kind: "block",
  id: (b) => b.id,
  known: { target: "blocks", attributes: (b) => ({ propertyId: b.propertyId }) },
  references: (b) => [
    { field: "propertyId", target: "properties", id: b.propertyId },
    { field: "updatedByUserId", target: "users", id: b.updatedByUserId },
  ],
  row: (b) => ({
    id: b.id,
    property_id: b.propertyId,
    label: b.label,
    facts: b.facts ?? {},
    policy_version: b.policyVersion ?? blockPolicy,
    updated_at: orNull(b.updatedAt),
    updated_by_user_id: orNull(b.updatedByUserId),
  }),
  nested: [
    nested({
      field: "history",
      table: "block_fact_history",
      items: (b: Item<"blocks">) => b.history,
      unique: { kind: () => "block history entry", id: (h) => h.id },
      claim: "block_id",
      references: (h) => [{ field: "actorUserId", target: "users", id: h.actorUserId }],
      row: (h, b) => ({
        id: h.id,
        block_id: b.id,
        kind: h.kind,
        detail: h.detail,
        actor_user_id: orNull(h.actorUserId),
        policy_version: h.policyVersion ?? b.policyVersion ?? blockPolicy,
        created_at: h.createdAt,
      }),
    }),
  ],
});

/** Handovers (one per tenancy and direction), with their meter readings (one per meter). */
export const handovers = collection({
  list: "handovers",
  table: "handovers",
  kind: "handover",
  id: (h) => h.id,
  check: (h, path, p) => {
    p.unique("handover of a tenancy and direction", `${h.tenancyId} ${h.direction}`, `${path}/direction`);
    p.plan.handovers.push({ id: h.id, tenancyId: h.tenancyId, direction: h.direction, path });
  },
  references: (h) => [{ field: "tenancyId", target: "tenancies", id: h.tenancyId }],
  row: (h) => ({
    id: h.id,
    tenancy_id: h.tenancyId,
    direction: h.direction,
    status: h.status,
    due_on: orNull(h.dueOn),
    completed_at: orNull(h.completedAt),
    forwarding_address: orNull(h.forwardingAddress),
    notice_evidence_document_id: orNull(h.noticeEvidenceDocumentId),
  }),
  nested: [
    nested({
      field: "meterReadings",
      table: "handover_meter_readings",
      items: (h: Item<"handovers">) => h.meterReadings,
      unique: { kind: (h) => `meter reading of handover ${h.id}`, id: (r) => r.meter, at: "meter" },
      row: (r, h) => ({ handover_id: h.id, meter: r.meter, reading: String(r.reading), read_on: orNull(r.readOn) }),
    }),
  ],
});

/** Tasks. */
export const tasks = collection({
  list: "tasks",
  table: "tasks",
  kind: "task",
  id: (t) => t.id,
  known: { target: "tasks", attributes: () => ({}) },
  references: (t) => [
    ...subject(t.subjectKind, t.subjectId),
    { field: "assigneeContactId", target: "contacts", id: t.assigneeContactId },
    { field: "assigneeUserId", target: "users", id: t.assigneeUserId },
    { field: "createdByUserId", target: "users", id: t.createdByUserId },
  ],
  row: (t) => ({
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
  }),
});

/** Inspections, with their findings (each keeps its inspection). */
export const inspections = collection({
  list: "inspections",
  table: "inspections",
  kind: "inspection",
  id: (s) => s.id,
  known: { target: "inspections", attributes: () => ({}) },
  references: (s) => [{ field: "tenancyId", target: "tenancies", id: s.tenancyId }],
  row: (s) => ({
    id: s.id,
    tenancy_id: s.tenancyId,
    kind: s.kind,
    reference: s.reference,
    status: s.status,
    outcome: orNull(s.outcome),
    due_on: orNull(s.dueOn),
    booked_for: orNull(s.bookedFor),
    completed_at: orNull(s.completedAt),
  }),
  nested: [
    nested({
      field: "findings",
      table: "inspection_findings",
      items: (s: Item<"inspections">) => s.findings,
      unique: { kind: () => "finding", id: (f) => f.id },
      claim: "inspection_id",
      references: (f) => [
        { field: "repairId", target: "repairs", id: f.repairId },
        { field: "taskId", target: "tasks", id: f.taskId },
      ],
      row: (f, s) => ({
        id: f.id,
        inspection_id: s.id,
        area: f.area,
        item: orNull(f.item),
        repair_id: orNull(f.repairId),
        task_id: orNull(f.taskId),
      }),
    }),
  ],
});

/** Key sets. */
export const keySets = collection({
  list: "keySets",
  table: "key_sets",
  kind: "key set",
  id: (k) => k.id,
  known: { target: "keySets", attributes: () => ({}) },
  references: (k) => [
    { field: "unitId", target: "units", id: k.unitId },
    { field: "holderContactId", target: "contacts", id: k.holderContactId },
    {
      field: "tenancyId",
      target: "tenancies",
      id: k.tenancyId,
      expect: k.unitId
        ? { attribute: "unitId", value: k.unitId, message: `must be a tenancy of unit "${k.unitId}"` }
        : undefined,
    },
  ],
  row: (k) => ({
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
  }),
});

/** Reports about key sets. */
export const keyReports = collection({
  list: "keyReports",
  table: "key_reports",
  kind: "key report",
  id: (r) => r.id,
  references: (r) => [{ field: "keySetId", target: "keySets", id: r.keySetId }],
  row: (r) => ({
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
  }),
});

/** A corrected entry of an invoice needs its reason. */
function checkCorrection(c: { correctedAt?: string | null; correctionReason?: string | null }, path: string): void {
  if (c.correctedAt && !c.correctionReason?.trim()) {
    throw new ImportRejected({
      path: `${path}/correctionReason`,
      message: "A corrected entry needs a correctionReason",
    });
  }
}

/** An invoice record. */
type Invoice = Item<"contractorInvoices">;

/**
 * Contractor invoices with their lines, payments, credit notes, recoveries and limit override (each keeps its
 * invoice); totals and status from deriveInvoice, as the API stores them; authorisations shared by invoices, each
 * written once and given the same everywhere.
 */
export const contractorInvoices = collection({
  list: "contractorInvoices",
  table: "contractor_invoices",
  kind: "contractor invoice",
  id: (v) => v.id,
  known: { target: "contractorInvoices", attributes: () => ({}) },
  check: (v, path, p) => {
    for (const [j, e] of (v.payments ?? []).entries()) checkCorrection(e, `${path}/payments/${j}`);
    for (const [j, e] of (v.creditNotes ?? []).entries()) checkCorrection(e, `${path}/creditNotes/${j}`);
    for (const [j, e] of (v.recoveries ?? []).entries()) checkCorrection(e, `${path}/recoveries/${j}`);
    const a = v.authorisation;
    if (a) {
      const value = JSON.stringify([a.basis, a.authorisedMinor, a.authorisedCurrency]);
      const first = p.authorisations.get(a.id);
      if (first && first.value !== value) {
        throw new ImportRejected({
          path: `${path}/authorisation`,
          message: `Authorisation "${a.id}" differs from the one at ${first.path}`,
        });
      }
      if (!first) {
        p.authorisations.set(a.id, { value, path: `${path}/authorisation` });
        p.add("contractor_authorisations", {
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
  },
  references: (v) => [
    ...subject(v.subjectKind, v.subjectId),
    { field: "propertyId", target: "properties", id: v.propertyId },
    { field: "tenancyId", target: "tenancies", id: v.tenancyId },
    { field: "contractorContactId", target: "contacts", id: v.contractorContactId },
  ],
  row: (v) => {
    const totals = deriveInvoice({
      borneBy: v.borneBy,
      approvedAt: orNull(v.approvedAt),
      disputedAt: orNull(v.disputedAt),
      voidedAt: orNull(v.voidedAt),
      lines: v.lines ?? [],
      payments: (v.payments ?? []).map((e) => ({ amountMinor: e.amountMinor, correctedAt: orNull(e.correctedAt) })),
      creditNotes: (v.creditNotes ?? []).map((e) => ({
        netMinor: e.netMinor,
        vatMinor: e.vatMinor,
        correctedAt: orNull(e.correctedAt),
      })),
      recoveries: (v.recoveries ?? []).map((e) => ({ amountMinor: e.amountMinor, correctedAt: orNull(e.correctedAt) })),
    });
    return {
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
      authorisation_id: v.authorisation?.id ?? null,
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
    };
  },
  nested: [
    nested({
      field: "lines",
      table: "contractor_invoice_lines",
      items: (v: Invoice) => v.lines,
      unique: { kind: () => "invoice line", id: (l) => l.id },
      claim: "invoice_id",
      row: (l, v, j) => ({
        id: l.id,
        invoice_id: v.id,
        ordinal: l.ordinal ?? j + 1,
        kind: l.kind,
        description: l.description,
        net_minor: l.netMinor,
        vat_minor: l.vatMinor,
      }),
    }),
    nested({
      field: "payments",
      table: "contractor_payments",
      items: (v: Invoice) => v.payments,
      unique: { kind: () => "payment", id: (e) => e.id },
      claim: "invoice_id",
      row: (e, v) => ({
        id: e.id,
        invoice_id: v.id,
        amount_minor: e.amountMinor,
        paid_on: e.paidOn,
        reference: orNull(e.reference),
        legacy: e.legacy ?? false,
        created_at: orNull(e.createdAt),
        corrected_at: orNull(e.correctedAt),
        correction_reason: orNull(e.correctionReason),
      }),
    }),
    nested({
      field: "creditNotes",
      table: "contractor_credit_notes",
      items: (v: Invoice) => v.creditNotes,
      unique: { kind: () => "credit note", id: (e) => e.id },
      claim: "invoice_id",
      row: (e, v) => ({
        id: e.id,
        invoice_id: v.id,
        number: e.number,
        issued_on: e.issuedOn,
        net_minor: e.netMinor,
        vat_minor: e.vatMinor,
        reason: orNull(e.reason),
        document_id: orNull(e.documentId),
        created_at: orNull(e.createdAt),
        corrected_at: orNull(e.correctedAt),
        correction_reason: orNull(e.correctionReason),
      }),
    }),
    nested({
      field: "recoveries",
      table: "contractor_recoveries",
      items: (v: Invoice) => v.recoveries,
      unique: { kind: () => "recovery", id: (e) => e.id },
      claim: "invoice_id",
      row: (e, v) => ({
        id: e.id,
        invoice_id: v.id,
        amount_minor: e.amountMinor,
        received_on: e.receivedOn,
        reference: orNull(e.reference),
        created_at: orNull(e.createdAt),
        corrected_at: orNull(e.correctedAt),
        correction_reason: orNull(e.correctionReason),
      }),
    }),
    nested({
      field: "limitOverride",
      table: "contractor_limit_overrides",
      items: (v: Invoice) => (v.limitOverride ? [v.limitOverride] : []),
      single: true,
      unique: { kind: () => "limit override", id: (o) => o.id },
      claim: "invoice_id",
      references: (o) => [{ field: "userId", target: "users", id: o.userId }],
      row: (o, v) => ({
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
      }),
    }),
  ],
});

/** Calendar events: each ends after it starts. */
export const calendarEvents = collection({
  list: "calendarEvents",
  table: "calendar_events",
  kind: "calendar event",
  id: (e) => e.id,
  check: (e, path) => {
    if (Date.parse(e.endsAt) <= Date.parse(e.startsAt))
      throw new ImportRejected({ path: `${path}/endsAt`, message: "endsAt must be after startsAt" });
  },
  references: (e) => [
    ...subject(e.subjectKind, e.subjectId),
    { field: "propertyId", target: "properties", id: e.propertyId },
    { field: "staffUserId", target: "users", id: e.staffUserId },
    { field: "contactId", target: "contacts", id: e.contactId },
    { field: "followUpTaskId", target: "tasks", id: e.followUpTaskId },
    { field: "createdByUserId", target: "users", id: e.createdByUserId },
  ],
  row: (e) => {
    const f = e.feedback;
    return {
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
    };
  },
});

/** Every collection of the document, in the order they are planned (a record's refusal is found in this order). */
export const declarations: Declared[] = [
  users,
  entitlements,
  contacts,
  companyPeople,
  properties,
  blocks,
  units,
  tenancies,
  handovers,
  repairs,
  tasks,
  inspections,
  keySets,
  keyReports,
  contractorInvoices,
  calendarEvents,
  smsThreads,
  landlordPortalAccess,
  onboardingCheckouts,
];
