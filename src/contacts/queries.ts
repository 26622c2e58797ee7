/** The contacts group's SQL. */
import type { Static } from "@sinclair/typebox";
import { activityInsert, type ActivityEntry } from "../core/activity.ts";
import type { Db, Tx } from "../core/db.ts";
import { ledgerInsert, type LedgerKey } from "../core/idempotency.ts";
import { rowInsert } from "../core/table_queries.ts";
import { eventInsert, type EventInput } from "../events/record.ts";
import { companyCreated } from "./events.ts";
import type { CompanyFields } from "./company_fields.ts";
import type { ContactNorms } from "./normalise.ts";
import type { Candidate, Company } from "./schema.ts";
import { contactRow, contactsTable } from "./table.ts";

type Sql = Db | Tx;

/** The people of the company `c` as a JSON array, ordered by name. */
function peopleJson(sql: Sql) {
  return sql`coalesce((
      select json_agg(json_build_object(
               'contactId', p.id, 'name', p.name, 'email', p.email, 'role', cp.role,
               'archivedAt', iso(coalesce(cp.archived_at, p.archived_at)), 'kind', p.kind)
             order by lower(p.name) collate "C", p.name collate "C", p.id collate "C")
      from company_people cp
      join contacts p on p.workspace_id = cp.workspace_id and p.id = cp.contact_id
      where cp.workspace_id = c.workspace_id and cp.company_id = c.id), '[]'::json)`;
}

/**
 * The company JSON (the Company schema) from a contacts row aliased `c`, with its people; `people: false` for a
 * company made in the same statement (its id was just minted, so no person can be linked to it yet): `[]` without
 * reading.
 */
function companyJson(sql: Sql, people = true) {
  return sql`json_build_object(
    'id', c.id, 'legacyContactId', c.legacy_contact_id, 'name', c.name, 'email', c.email, 'mobile', c.mobile,
    'addressLine1', c.address_line1, 'addressLine2', c.address_line2, 'addressTown', c.address_town,
    'addressPostcode', c.address_postcode, 'overseas', c.overseas, 'roles', to_json(c.roles),
    'registrationNumber', c.registration_number, 'registrationJurisdiction', c.registration_jurisdiction,
    'website', c.website, 'notes', c.notes, 'revision', c.revision, 'archivedAt', iso(c.archived_at),
    'createdAt', iso(c.created_at), 'people', ${people ? peopleJson(sql) : sql`'[]'::json`}
  )`;
}

/**
 * Inserts a company and returns its answer, the Company schema's shape as JSON text, in one statement that also
 * appends `activity`, records `event` (company.created, the answer as its data) and, given a requestId's `ledger`
 * key, the ledger row holding that answer (ledgerInsert: a request that came first with the same key makes it fail
 * with a unique violation, and nothing is written).
 */
export async function insertCompany(
  tx: Sql,
  workspaceId: string,
  id: string,
  f: CompanyFields,
  activity: ActivityEntry,
  ledger?: LedgerKey,
  event?: Omit<EventInput<typeof companyCreated>, "data">,
): Promise<string> {
  const record = { id, kind: "company", legacyContactId: null, archivedAt: null, createdAt: null } as const;
  const answer = tx`select body from answer`;
  const evented = event ? eventInsert(tx, companyCreated, event, tx`(select body::jsonb from answer)`) : undefined;
  const [row] = await tx<{ body: string }[]>`
    with c as (
      insert into contacts ${rowInsert(tx, contactsTable, workspaceId, contactRow(record, f))}
      returning *
    ), answer as (
      select (${companyJson(tx, false)})::text as body from c
    ), logged as (${activityInsert(tx, activity)})
    ${evented ? tx`, evented as (${evented})` : tx``}
    ${ledger ? tx`, ledgered as (${ledgerInsert(tx, ledger, 201, answer)}) select body from ledgered` : answer}`;
  return row!.body;
}

/** A company of the workspace in the Company schema's shape, or undefined. */
export async function companyById(
  db: Sql,
  workspaceId: string,
  id: string,
): Promise<Static<typeof Company> | undefined> {
  const [row] = await db<{ company: Static<typeof Company> }[]>`
    select ${companyJson(db)} as company from contacts c
    where c.workspace_id = ${workspaceId} and c.id = ${id} and c.kind = 'company'`;
  return row?.company;
}

/** The normalised values a duplicate check looks for (the columns stored with a contact); null means not sent. */
export type DuplicateProbe = ContactNorms & { kind: "person" | "company" | null };

/** The candidates of a duplicate check: at most `limit`, ordered, with the count of all matches. */
export async function findDuplicates(db: Sql, workspaceId: string, p: DuplicateProbe, limit = 20) {
  const equal = (column: string, value: string | null) => (value === null ? db`false` : db`c.${db(column)} = ${value}`);
  const differs = (column: string, value: string | null) =>
    value === null ? db`false` : db`(c.${db(column)} is not null and c.${db(column)} <> ${value})`;
  const onEmail = equal("email_canon", p.emailCanon);
  const onMobile = equal("mobile_norm", p.mobileNorm);
  const onRegistration = equal("registration_norm", p.registrationNorm);
  const onName = equal("name_norm", p.nameNorm);
  // Why one OR of equalities on the indexed normalised columns: the planner answers it with a BitmapOr
  // of the (workspace_id, <column>) indexes, so the cost follows the matches, not the workspace's size.
  const rows = await db<{ candidate: Static<typeof Candidate>; total: number }[]>`
    with m as (
      select c.id, c.kind, c.name, c.email, c.mobile, c.address_postcode, c.archived_at, c.roles,
             ${onEmail} as on_email, ${onMobile} as on_mobile, ${onRegistration} as on_registration,
             ${onName} as on_name, ${equal("postcode_norm", p.postcodeNorm)} as on_postcode,
             ${equal("email_norm", p.emailNorm)} as on_email_exact,
             array_remove(array[
               case when ${differs("name_norm", p.nameNorm)} then 'name' end,
               case when ${differs("email_canon", p.emailCanon)} then 'email' end,
               case when ${differs("mobile_norm", p.mobileNorm)} then 'mobile' end,
               case when ${differs("postcode_norm", p.postcodeNorm)} then 'addressPostcode' end,
               case when ${differs("registration_norm", p.registrationNorm)} then 'registrationNumber' end
             ], null) as conflicting
      from contacts c
      where c.workspace_id = ${workspaceId}
        and (${onEmail} or ${onMobile} or ${onRegistration} or ${onName})
        ${p.kind === null ? db`` : db`and c.kind = ${p.kind}`}
    ), s as (
      select m.*,
             array_remove(array[
               case when on_email then 'email' end,
               case when on_mobile then 'mobile' end,
               case when on_registration then 'registrationNumber' end,
               case when on_name and on_postcode then 'name_postcode' when on_name then 'name' end
             ], null) as matched_on,
             coalesce(on_email_exact or on_mobile or on_registration, false) as exact
      from m
    )
    select json_build_object(
             'contact', json_build_object(
               'id', id, 'kind', kind, 'name', name, 'email', email, 'mobile', mobile,
               'addressPostcode', address_postcode, 'archivedAt', iso(archived_at), 'roles', to_json(roles)),
             'matchedOn', to_json(matched_on), 'exact', exact, 'conflicting', to_json(conflicting)) as candidate,
           (count(*) over ())::int as total
    from s
    order by exact desc, cardinality(matched_on) desc, lower(name) collate "C", name collate "C", id collate "C"
    limit ${limit}`;
  const totalMatched = rows[0]?.total ?? 0;
  return { candidates: rows.map((r) => r.candidate), totalMatched, truncated: totalMatched > rows.length };
}
