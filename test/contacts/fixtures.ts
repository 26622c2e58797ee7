/** Company links and contact rows for the contacts tests (contacts themselves: test/support/rows.ts). */
import type { Db } from "../../src/core/db.ts";
import type { ContactFields } from "../support/rows.ts";

/** A contact to seed, named (the tests find it by its name). */
export type SeedContact = ContactFields & { name: string };

/** Attaches a contact to a company. */
export async function linkPerson(
  db: Db,
  workspaceId: string,
  companyId: string,
  contactId: string,
  role: string | null,
  archivedAt: string | null = null,
) {
  await db`
    insert into company_people (workspace_id, company_id, contact_id, role, archived_at)
    values (${workspaceId}, ${companyId}, ${contactId}, ${role}, ${archivedAt})`;
}

/** Every contact row of a workspace, for before/after comparisons. */
export async function contactRows(db: Db, workspaceId: string) {
  return db`select * from contacts where workspace_id = ${workspaceId} order by id`;
}
