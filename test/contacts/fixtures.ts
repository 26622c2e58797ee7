/** Seeds contacts and company links straight into a test database, with their normalised columns. */
import { ulid } from "ulid";
import type { Db } from "../../src/core/db.ts";
import { contactNorms } from "../../src/contacts/normalise.ts";

/** A contact to seed; only name is needed. */
export interface SeedContact {
  id?: string;
  kind?: "person" | "company";
  name: string;
  email?: string | null;
  mobile?: string | null;
  addressPostcode?: string | null;
  registrationNumber?: string | null;
  roles?: string[];
  archivedAt?: string | null;
}

/** Inserts contacts into a workspace as a writer of contacts would (normalised columns included); returns their ids. */
export async function seedContacts(db: Db, workspaceId: string, contacts: SeedContact[]): Promise<string[]> {
  const rows = contacts.map((c) => {
    const n = contactNorms(c);
    return {
      workspace_id: workspaceId,
      id: c.id ?? ulid(),
      kind: c.kind ?? "person",
      name: c.name,
      email: c.email ?? null,
      mobile: c.mobile ?? null,
      address_postcode: c.addressPostcode ?? null,
      registration_number: c.registrationNumber ?? null,
      roles: `{${(c.roles ?? []).join(",")}}`,
      archived_at: c.archivedAt ?? null,
      name_norm: n.nameNorm,
      email_norm: n.emailNorm,
      email_canon: n.emailCanon,
      mobile_norm: n.mobileNorm,
      postcode_norm: n.postcodeNorm,
      registration_norm: n.registrationNorm,
    };
  });
  if (rows.length > 0) await db`insert into contacts ${db(rows)}`;
  return rows.map((r) => r.id);
}

/** Attaches a contact to a company. */
export async function linkPerson(db: Db, workspaceId: string, companyId: string, contactId: string, role: string | null, archivedAt: string | null = null) {
  await db`
    insert into company_people (workspace_id, company_id, contact_id, role, archived_at)
    values (${workspaceId}, ${companyId}, ${contactId}, ${role}, ${archivedAt})`;
}

/** Every contact row of a workspace, for before/after comparisons. */
export async function contactRows(db: Db, workspaceId: string) {
  return db`select * from contacts where workspace_id = ${workspaceId} order by id`;
}
