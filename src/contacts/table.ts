/** The contacts table as every writer writes it: its declared columns, and the one row builder of a contact. */
import type { RowOf, TableSpec } from "../core/table_spec.ts";
import type { CompanyFields } from "./company_fields.ts";

/** The written columns of `contacts` (the import upserts them; POST /companies inserts them). */
export const contactsTable = {
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
} satisfies TableSpec;

/** What a contact's row holds besides its fields; null for a contact made through the API. */
export interface ContactRecord {
  id: string;
  kind: "person" | "company";
  legacyContactId: string | null;
  archivedAt: string | null;
  /** null: now(). */
  createdAt: string | null;
}

/** A contact's row from its fields (contactFields: trimmed, normalised, with its matching columns). */
export function contactRow(r: ContactRecord, f: CompanyFields): RowOf<typeof contactsTable> {
  return {
    id: r.id,
    kind: r.kind,
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
    legacy_contact_id: r.legacyContactId,
    name_norm: f.norms.nameNorm,
    email_norm: f.norms.emailNorm,
    email_canon: f.norms.emailCanon,
    mobile_norm: f.norms.mobileNorm,
    postcode_norm: f.norms.postcodeNorm,
    registration_norm: f.norms.registrationNorm,
    archived_at: r.archivedAt,
    created_at: r.createdAt,
  };
}
