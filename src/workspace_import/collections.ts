/**
 * Collections of the workspace document as declarations (where in the document, which table, the record's id,
 * the references it makes, how a record becomes its row) and the one loop that plans them. planImport runs the
 * declared collections through planCollection; the collections not yet declared are still planned by hand there.
 */
import { contactFields, storedPostcode } from "../contacts/company_fields.ts";
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

/** A value the document may leave out, as a column value: null when absent. */
const orNull = <T>(v: T | null | undefined): T | null => (v === undefined ? null : v);

/** Contacts: stored through contactFields, the row builder POST /companies uses. */
export const contacts: Collection<"contacts", "contacts"> = {
  list: "contacts",
  table: "contacts",
  kind: "contact",
  id: (c) => c.id,
  known: { target: "contacts", attributes: (c) => ({ kind: c.kind }) },
  row: (c) => {
    const f = contactFields(c);
    return {
      id: c.id,
      kind: c.kind,
      name: f.name,
      email: f.email,
      mobile: f.mobile,
      address_line1: f.addressLine1,
      address_line2: f.addressLine2,
      address_town: f.addressTown,
      address_postcode: f.addressPostcode,
      overseas: f.overseas,
      roles: f.roles,
      registration_number: f.registrationNumber,
      registration_jurisdiction: f.registrationJurisdiction,
      website: f.website,
      notes: f.notes,
      legacy_contact_id: orNull(c.legacyContactId),
      name_norm: f.norms.nameNorm,
      email_norm: f.norms.emailNorm,
      email_canon: f.norms.emailCanon,
      mobile_norm: f.norms.mobileNorm,
      postcode_norm: f.norms.postcodeNorm,
      registration_norm: f.norms.registrationNorm,
      archived_at: orNull(c.archivedAt),
      created_at: orNull(c.createdAt),
    };
  },
};

/** Properties, with their landlords. */
export const properties: Collection<"properties", "properties"> = {
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
};

/** Units, with their meters. */
export const units: Collection<"units", "units"> = {
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
};

/** Tenancies, with their occupants (one entry per contact). */
export const tenancies: Collection<"tenancies", "tenancies"> = {
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
};

/** A company's people, keyed by (companyId, contactId). */
export const companyPeople: Collection<"companyPeople", "company_people"> = {
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
};

/** SMS threads. */
export const smsThreads: Collection<"smsThreads", "sms_threads"> = {
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
};

/** Landlords' portal access, one per contact. */
export const landlordPortalAccess: Collection<"landlordPortalAccess", "landlord_portal_access"> = {
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
};

/** Onboarding checkouts. */
export const onboardingCheckouts: Collection<"onboardingCheckouts", "onboarding_checkouts"> = {
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
};

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
