/**
 * Collections of the workspace document as declarations (where in the document, which table, the record's id,
 * the references it makes, how a record becomes its row) and the one loop that plans them. planImport runs the
 * declared collections through planCollection; the collections not yet declared are still planned by hand there.
 */
import { contactFields } from "../contacts/company_fields.ts";
import type { Attributes, Ref, Target } from "./plan.ts";
import type { WorkspaceDoc } from "./schema.ts";
import type { Row, TableName } from "./tables.ts";

/** A list of the document. */
type ListName = {
  [K in keyof WorkspaceDoc]-?: NonNullable<WorkspaceDoc[K]> extends unknown[] ? K : never;
}[keyof WorkspaceDoc];
/** One record of a list. */
type Item<L extends ListName> = NonNullable<WorkspaceDoc[L]>[number];

/** A reference a record makes: the field naming it, its target, the id, and a rule the target must meet. */
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
  /** The record kind named in duplicate messages. */
  kind: string;
  id: (r: Item<L>) => string;
  /** The kind of record other records may name this one as, with the facts their rules look at. */
  known?: { target: Target; attributes: (r: Item<L>) => Attributes };
  references?: (r: Item<L>) => Reference[];
  row: (r: Item<L>) => Row<N>;
}

/** What the loop needs from the plan being built. */
export interface Planner {
  add: <N extends TableName>(table: N, row: Row<N>) => void;
  unique: (kind: string, id: string, path: string) => void;
  ref: (target: Target, id: string | null | undefined, path: string, field: string, expect?: Ref["expect"]) => void;
  known: Record<Target, Map<string, Attributes>>;
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
    const id = c.id(r);
    p.unique(c.kind, id, path);
    if (c.known) p.known[c.known.target].set(id, c.known.attributes(r));
    for (const x of c.references?.(r) ?? []) p.ref(x.target, x.id, path, x.field, x.expect);
    p.add(c.table, c.row(r));
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
