/** Seeds one workspace at benchmark scale with set-based SQL, straight into the tables of sql/0001_core.sql. */
import type { Db, Tx } from "../src/core/db.ts";
import { contactNorms } from "../src/contacts/normalise.ts";
import { deriveInvoice, type InvoiceFacts } from "../src/contractor_invoices/derive.ts";
import type { RepairsDuePages } from "./repairs_due.ts";
import { seedRepairs, verifyRepairs, type RepairSeedSummary } from "./seed_repairs.ts";

/** How many rows of each kind a scale gives (scale 1: the sizes issue 9 names). */
export interface SeedCounts {
  tenancies: number;
  properties: number;
  contacts: number;
  keySets: number;
  invoices: number;
  calendarEvents: number;
  smsThreads: number;
  staff: number;
  contractors: number;
  landlords: number;
  /** Repairs with hazard clocks (bench/seed_repairs.ts), besides the inspections' legacy repair records. */
  repairs: number;
}

/** The row counts for a scale (0.05 seeds 5% of the rows). */
export function countsFor(scale: number): SeedCounts {
  const n = (full: number, min: number) => Math.max(min, Math.round(full * scale));
  const tenancies = n(10_000, 40);
  const properties = Math.ceil(tenancies / 20);
  const landlords = Math.ceil(properties / 2);
  const contractors = n(300, 5);
  // Occupants (2 a tenancy), landlords and contractors come first; the rest are other people and companies.
  const contacts = Math.max(n(100_000, 200), 2 * tenancies + landlords + contractors + 10);
  return {
    tenancies,
    properties,
    contacts,
    keySets: tenancies * 5,
    invoices: n(5_000, 20),
    calendarEvents: n(100_000, 200),
    smsThreads: n(10_000, 20),
    staff: 50,
    contractors,
    landlords,
    repairs: n(100_000, 1_000),
  };
}

const firstNames = [
  "Olivia",
  "Amelia",
  "Isla",
  "Ava",
  "Mia",
  "Grace",
  "Freya",
  "Lily",
  "Ella",
  "Sophia",
  "Noah",
  "Oliver",
  "George",
  "Arthur",
  "Leo",
  "Harry",
  "Oscar",
  "Jack",
  "Charlie",
  "Theo",
  "Priya",
  "Aisha",
  "Mohammed",
  "Yusuf",
  "Zofia",
  "Tomasz",
  "Chloe",
  "Ruby",
  "Evie",
  "Alfie",
  "Joshua",
  "Ethan",
  "Hannah",
  "Emily",
  "Daniel",
  "Samuel",
  "Fatima",
  "Ibrahim",
  "Niamh",
  "Cerys",
];
const lastNames = [
  "Smith",
  "Jones",
  "Taylor",
  "Brown",
  "Williams",
  "Wilson",
  "Johnson",
  "Davies",
  "Patel",
  "Robinson",
  "Wright",
  "Thompson",
  "Evans",
  "Walker",
  "White",
  "Roberts",
  "Green",
  "Hall",
  "Thomas",
  "Clarke",
  "Jackson",
  "Wood",
  "Harris",
  "Edwards",
  "Turner",
  "Martin",
  "Cooper",
  "Hill",
  "Ward",
  "Hughes",
  "Moore",
  "Clark",
  "King",
  "Harrison",
  "Lewis",
  "Baker",
  "Lee",
  "Allen",
  "Morris",
  "Khan",
  "Scott",
  "Watson",
  "Davis",
  "Parker",
  "James",
  "Bennett",
  "Young",
  "Phillips",
  "Richardson",
  "Mitchell",
  "Kowalski",
  "Nowak",
  "O'Brien",
  "Murphy",
  "Kelly",
  "Ahmed",
  "Ali",
  "Singh",
  "Campbell",
  "Stewart",
];
const companyWords = [
  "Property Services",
  "Building",
  "Plumbing & Heating",
  "Electrical",
  "Lettings",
  "Estates",
  "Maintenance",
  "Roofing",
  "Locksmiths",
  "Cleaning",
];
const companySuffixes = ["Ltd", "Limited", "LLP", "", "PLC", "& Sons"];
const streets = [
  "High Street",
  "Station Road",
  "Church Lane",
  "Victoria Road",
  "Mill Lane",
  "Park Avenue",
  "Queens Road",
  "The Crescent",
  "Albert Street",
  "Kings Road",
];
const towns = [
  "London",
  "Manchester",
  "Birmingham",
  "Leeds",
  "Bristol",
  "Nottingham",
  "Liverpool",
  "Cardiff",
  "Edinburgh",
  "Glasgow",
];
const postcodeAreas = ["SW1A", "M1", "B33", "LS6", "BS8", "NG7", "L17", "CF10", "EH1", "G12"];
const letters = "ABDEFGHJLNPQRSTUWXYZ";

/** A deterministic pseudo-random integer in [0, n) for a seed value. */
export function pick(seed: number, n: number): number {
  let h = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return ((h ^ (h >>> 16)) >>> 0) % n;
}

function postcodeOf(i: number): string {
  const area = postcodeAreas[pick(i, postcodeAreas.length)]!;
  return `${area} ${pick(i + 1, 10)}${letters[pick(i + 2, letters.length)]}${letters[pick(i + 3, letters.length)]}`;
}

/** Contact i (1-based) as entered; its normalised columns come from contactNorms, as the service writes them. */
function contactRow(i: number, c: SeedCounts) {
  const occupants = 2 * c.tenancies;
  const landlordEnd = occupants + c.landlords;
  const contractorEnd = landlordEnd + c.contractors;
  const first = firstNames[pick(i, firstNames.length)]!;
  const last = lastNames[pick(i * 3, lastNames.length)]!;
  let kind: "person" | "company" = "person";
  let roles: string[];
  if (i <= occupants) roles = ["tenant"];
  else if (i <= landlordEnd) {
    roles = ["landlord"];
    if (i % 3 === 0) kind = "company";
  } else if (i <= contractorEnd) {
    roles = ["contractor"];
    kind = "company";
  } else {
    const r = i % 10;
    if (r < 3) kind = "company";
    roles = r < 2 ? ["supplier"] : r === 2 ? ["agent"] : r < 6 ? ["guarantor"] : r < 8 ? ["other"] : [];
  }
  const name =
    kind === "person"
      ? `${first} ${last}`
      : `${last} ${companyWords[pick(i, companyWords.length)]} ${companySuffixes[pick(i * 7, companySuffixes.length)]}`.trim();
  const handle = `${first}.${last}`.toLowerCase().replace(/[^a-z.]/g, "");
  // Emails and mobiles are unique per contact, so a duplicate check on one finds it; some Gmail addresses
  // (matched loosely without dots), some mobiles entered in national or spaced form.
  const email =
    i % 10 === 9
      ? null
      : kind === "company"
        ? `accounts${i}@${last.toLowerCase().replace(/[^a-z]/g, "")}-co.example.com`
        : i % 7 === 0
          ? `${handle}.${i}@gmail.com`
          : `person${i}@example.com`;
  const digits = String(i).padStart(6, "0");
  const mobile =
    i % 8 === 7 ? null : i % 4 === 1 ? `07700 ${digits}` : i % 4 === 2 ? `+44 7700 ${digits}` : `+447700${digits}`;
  const hasAddress = i % 5 !== 4;
  const rawPostcode = hasAddress ? (i % 6 === 0 ? postcodeOf(i).toLowerCase().replace(" ", "") : postcodeOf(i)) : null;
  const registrationNumber =
    kind === "company"
      ? i % 4 === 0
        ? `SC${String(i % 1_000_000).padStart(6, "0")}`
        : String((i * 7919) % 10_000_000)
      : null;
  const norms = contactNorms({ name, email, mobile, addressPostcode: rawPostcode, registrationNumber });
  return {
    id: `con-${i}`,
    kind,
    name,
    email,
    mobile,
    addressLine1: hasAddress ? `${1 + pick(i, 180)} ${streets[pick(i * 5, streets.length)]}` : null,
    addressTown: hasAddress ? towns[pick(i * 11, towns.length)]! : null,
    addressPostcode: rawPostcode,
    roles,
    registrationNumber,
    registrationJurisdiction: registrationNumber
      ? registrationNumber.startsWith("SC")
        ? "scotland"
        : "england_wales"
      : null,
    website: kind === "company" ? `https://www.${last.toLowerCase().replace(/[^a-z]/g, "")}${i}.example.com` : null,
    ...norms,
    archivedAt: i % 97 === 0 ? new Date(Date.now() - 86_400_000 * (i % 300)).toISOString() : null,
  };
}

/**
 * Inserts the contacts (their norms computed in TS by contactNorms) a column array per parameter, 20,000 rows a
 * statement: c.contacts people and companies, the first ones the tenants, landlords and contractors of c.
 */
export async function seedContacts(tx: Tx, workspaceId: string, c: SeedCounts) {
  const batch = 20_000;
  for (let start = 1; start <= c.contacts; start += batch) {
    const rows: ReturnType<typeof contactRow>[] = [];
    for (let i = start; i < start + batch && i <= c.contacts; i++) rows.push(contactRow(i, c));
    const col = <K extends keyof ReturnType<typeof contactRow>>(k: K) =>
      rows.map((r) => r[k] ?? null) as (string | null)[];
    await tx`
      insert into contacts (workspace_id, id, kind, name, email, mobile, address_line1, address_town, address_postcode, roles,
                            registration_number, registration_jurisdiction, website, name_norm, email_norm, email_canon,
                            mobile_norm, postcode_norm, registration_norm, archived_at)
      select ${workspaceId}, id, kind, name, email, mobile, line1, town, postcode, coalesce(string_to_array(roles, ','), '{}'),
             reg, jurisdiction, website, name_norm, email_norm, email_canon, mobile_norm, postcode_norm, registration_norm,
             archived_at::timestamptz
      from unnest(${col("id")}::text[], ${col("kind")}::text[], ${col("name")}::text[], ${col("email")}::text[],
                  ${col("mobile")}::text[], ${col("addressLine1")}::text[], ${col("addressTown")}::text[],
                  ${col("addressPostcode")}::text[], ${rows.map((r) => (r.roles.length ? r.roles.join(",") : null))}::text[],
                  ${col("registrationNumber")}::text[], ${col("registrationJurisdiction")}::text[], ${col("website")}::text[],
                  ${col("nameNorm")}::text[], ${col("emailNorm")}::text[], ${col("emailCanon")}::text[], ${col("mobileNorm")}::text[],
                  ${col("postcodeNorm")}::text[], ${col("registrationNorm")}::text[], ${col("archivedAt")}::text[])
        as x(id, kind, name, email, mobile, line1, town, postcode, roles, reg, jurisdiction, website, name_norm, email_norm,
             email_canon, mobile_norm, postcode_norm, registration_norm, archived_at)`;
  }
}

/**
 * Seeds the workspace (staff, contacts, the property tree with tenancies, inspections, repairs, keys, handovers,
 * money, calendar, SMS) in one transaction, then ANALYZE. Returns the counts, the milliseconds of each step and how
 * the repairs came out.
 */
export async function seedWorkspace(
  db: Db,
  input: { workspaceId: string; ownerUserId: string; scale: number },
): Promise<{ counts: SeedCounts; timings: Record<string, number>; repairs: RepairSeedSummary }> {
  const c = countsFor(input.scale);
  const ws = input.workspaceId;
  const T = c.tenancies;
  const P = c.properties;
  const occupantEnd = 2 * T;
  const contractorStart = occupantEnd + c.landlords + 1;
  const timings: Record<string, number> = {};
  let last = performance.now();
  const mark = (name: string) => {
    const now = performance.now();
    timings[name] = Math.round(now - last + (timings[name] ?? 0));
    last = now;
  };
  let repairs: RepairSeedSummary | undefined;
  const facts = ["storeyOver11m", "builtBefore2000", "fireAlarm", "emergencyLighting", "communalWater"];
  await db.begin(async (tx) => {
    await tx`
      insert into users (workspace_id, id, name, email, role)
      select ${ws}, 'staff-' || s, (${firstNames}::text[])[1 + s % ${firstNames.length}::int] || ' '
               || (${lastNames}::text[])[1 + (s * 7) % ${lastNames.length}::int],
             'staff' || s || '@agency.example.com', case when s <= 2 then 'admin' else 'staff' end
      from generate_series(1, ${c.staff}::int) s`;
    mark("users");

    await seedContacts(tx, ws, c);
    // Statistics mid-transaction, so the joins below get hash joins instead of nested loops over "empty" tables.
    await tx`analyze contacts, users`;
    mark("contacts");

    // Properties of ~20 units; four in five have two blocks of ~10 units each. Facts are set on some.
    await tx`
      insert into properties (workspace_id, id, label, address_line1, address_town, address_postcode, facts)
      select ${ws}, 'prop-' || p,
             (1 + p % 180) || ' ' || (${streets}::text[])[1 + p % 10] || ', ' || (${towns}::text[])[1 + (p / 10) % 10],
             (1 + p % 180) || ' ' || (${streets}::text[])[1 + p % 10],
             (${towns}::text[])[1 + (p / 10) % 10],
             (${postcodeAreas}::text[])[1 + (p / 10) % 10] || ' ' || (p % 10) || 'AB',
             case when p % 3 = 0 then jsonb_build_object('builtBefore2000', 'yes', 'communalWater', 'no') else '{}' end
      from generate_series(1, ${P}::int) p`;
    mark("properties");
    await tx`
      insert into property_landlords (workspace_id, property_id, contact_id)
      select ${ws}, 'prop-' || p, 'con-' || (${occupantEnd}::int + (p + 1) / 2)
      from generate_series(1, ${P}::int) p`;
    mark("property_landlords");
    await tx`
      insert into blocks (workspace_id, id, property_id, label, facts, revision, updated_at, updated_by_user_id)
      select ${ws}, 'blk-' || p || '-' || b, 'prop-' || p, 'Block ' || upper(b),
             case when p % 2 = 0 then jsonb_build_object(
               (${facts}::text[])[1 + p % 5], 'yes', (${facts}::text[])[1 + (p + 2) % 5], 'no') else '{}' end,
             case when p % 2 = 0 then 1 else 0 end,
             case when p % 2 = 0 then now() - make_interval(days => p % 200) end,
             case when p % 2 = 0 then ${input.ownerUserId} end
      from generate_series(1, ${P}::int) p, unnest(array['a', 'b']) b
      where p % 5 <> 0`;
    mark("blocks");
    await tx`
      insert into block_fact_history (workspace_id, id, block_id, kind, detail, actor_user_id, policy_version, created_at)
      select ${ws}, 'bfh-' || b.id, b.id, 'facts_changed', 'Facts recorded from the fire risk assessment',
             b.updated_by_user_id, b.policy_version, b.updated_at
      from blocks b where b.workspace_id = ${ws} and b.revision > 0`;
    mark("block_fact_history");
    await tx`
      insert into units (workspace_id, id, property_id, block_id, label)
      select ${ws}, 'unit-' || u, 'prop-' || p,
             case when p % 5 <> 0 then 'blk-' || p || case when (u - 1) % 20 < 10 then '-a' else '-b' end end,
             'Flat ' || (1 + (u - 1) % 20)
      from generate_series(1, ${T}::int) u, lateral (select (u - 1) / 20 + 1 as p) x`;
    mark("units");
    await tx`
      insert into unit_meters (workspace_id, unit_id, meter)
      select ${ws}, 'unit-' || u, m
      from generate_series(1, ${T}::int) u, unnest(array['electricity', 'gas', 'water']) m
      where m <> 'gas' or u % 5 <> 0`;
    mark("unit_meters");

    // One tenancy a unit: 70% active, 15% notice given, 15% ended; one in twenty starts in the future.
    await tx`
      insert into tenancies (workspace_id, id, unit_id, status, starts_on, ends_on, notice_given_on)
      select ${ws}, 'ten-' || t, 'unit-' || t, s.status,
             case when s.status = 'ended' then london_today() - (400 + t * 37 % 800)
                  when t % 20 = 5 then london_today() + (1 + t % 30)
                  else london_today() - (30 + t * 37 % 1000) end,
             case when s.status = 'ended' then london_today() - (35 + t * 37 % 400)
                  when s.status = 'notice_given' then london_today() + (1 + t % 60) end,
             case when s.status = 'ended' then london_today() - (95 + t * 37 % 400)
                  when s.status = 'notice_given' then london_today() - (1 + t % 30) end
      from generate_series(1, ${T}::int) t,
           lateral (select case when t % 20 < 14 then 'active' when t % 20 < 17 then 'notice_given' else 'ended' end as status) s`;
    mark("tenancies");
    await tx`
      insert into tenancy_occupants (workspace_id, tenancy_id, contact_id, role, is_lead)
      select ${ws}, 'ten-' || t, 'con-' || (2 * t - k), 'tenant', k = 1
      from generate_series(1, ${T}::int) t, generate_series(0, 1) k`;
    await tx`analyze properties, blocks, units, unit_meters, tenancies, tenancy_occupants`;
    mark("tenancy_occupants");

    // Inspections: a check-in each (one in 23 cancelled and rebooked, some booked or due), a check-out for
    // tenancies under notice or ended.
    await tx`
      create temp table bench_inspections on commit drop as
      select 'insp-ci-' || t as id, t, 'check_in' as kind, 'CI-' || t as reference,
             case when t % 23 = 0 then 'cancelled' when t % 20 = 5 or t % 23 = 1 then 'booked'
                  when t % 23 = 2 then 'due' else 'completed' end as status,
             tn.starts_on - 1 as due_on, true as effective
      from generate_series(1, ${T}::int) t join tenancies tn on tn.workspace_id = ${ws} and tn.id = 'ten-' || t
      union all
      select 'insp-ci2-' || t, t, 'check_in', 'CI-' || t || '-R', 'completed', tn.starts_on, true
      from generate_series(1, ${T}::int) t join tenancies tn on tn.workspace_id = ${ws} and tn.id = 'ten-' || t
      where t % 23 = 0
      union all
      select 'insp-co-' || t, t, 'check_out', 'CO-' || t,
             case when tn.status = 'ended' then 'completed' when t % 3 = 0 then 'due' else 'booked' end,
             tn.ends_on, true
      from generate_series(1, ${T}::int) t join tenancies tn on tn.workspace_id = ${ws} and tn.id = 'ten-' || t
      where tn.status = 'ended' or (tn.status = 'notice_given' and t % 3 <> 2)`;
    mark("bench_inspections");
    await tx`
      insert into inspections (workspace_id, id, tenancy_id, kind, reference, status, outcome, due_on, booked_for, completed_at)
      select ${ws}, id, 'ten-' || t, kind, reference, status,
             case when status = 'completed' then (array['satisfactory', 'minor_actions', 'unsatisfactory'])[1 + t % 3] end,
             due_on,
             case when status in ('booked', 'completed') then (due_on + time '10:00') at time zone 'Europe/London' end,
             case when status = 'completed' then (due_on + time '11:30') at time zone 'Europe/London' end
      from bench_inspections`;
    mark("inspections");
    // ~3 findings a completed check-in, 2 a completed check-out; half of them followed up by a repair or a task.
    await tx`
      create temp table bench_findings on commit drop as
      select 'fnd-' || i.id || '-' || k as id, i.id as inspection_id, i.t, k,
             (array['Kitchen', 'Bathroom', 'Bedroom 1', 'Living room', 'Hallway', 'Bedroom 2'])[1 + (i.t + k) % 6] as area,
             (array['Oven', 'Extractor fan', 'Window', 'Carpet', 'Door', 'Sink', 'Radiator'])[1 + (i.t * 3 + k) % 7] as item,
             case when (i.kind = 'check_in' and k = 1 and i.t % 2 = 0) or (i.kind = 'check_out' and k = 1) then 'repair'
                  when i.kind = 'check_in' and ((k = 1 and i.t % 2 = 1) or (k = 2 and i.t % 2 = 0)) then 'task' end as link
      from bench_inspections i, generate_series(1, 3) k
      where i.status = 'completed' and (i.kind = 'check_in' or k <= 2)`;
    mark("bench_findings");
    await tx`
      insert into repairs (workspace_id, id, reference, status, property_id, unit_id)
      select ${ws}, 'rep-' || f.id, 'R-' || f.t || '-' || f.k,
             (array['reported', 'in_progress', 'completed', 'completed', 'cancelled'])[1 + (f.t / 2) % 5],
             'prop-' || ((f.t - 1) / 20 + 1), 'unit-' || f.t
      from bench_findings f where f.link = 'repair'`;
    mark("repairs");
    await tx`
      insert into tasks (workspace_id, id, title, subject_kind, subject_id, assignee_user_id, priority, due_on, status,
                         created_by_user_id, done_at)
      select ${ws}, 'task-' || f.id, 'Follow up: ' || f.item || ' in ' || lower(f.area), 'inspection_finding', f.id,
             'staff-' || (1 + f.t % ${c.staff}::int), (array['urgent', 'high', 'normal', 'normal', 'low'])[1 + f.t % 5],
             london_today() + (f.t % 40 - 20), s.status, ${input.ownerUserId},
             case when s.status = 'done' then now() - make_interval(days => f.t % 30) end
      from bench_findings f, lateral (select (array['open', 'in_progress', 'done', 'done', 'cancelled'])[1 + (f.t / 2 + f.k) % 5] as status) s
      where f.link = 'task'`;
    mark("tasks");
    await tx`
      insert into inspection_findings (workspace_id, id, inspection_id, area, item, repair_id, task_id)
      select ${ws}, id, inspection_id, area, item,
             case when link = 'repair' then 'rep-' || id end, case when link = 'task' then 'task-' || id end
      from bench_findings`;
    await tx`analyze inspections, inspection_findings, repairs, tasks`;
    mark("inspection_findings");

    // Repairs with hazard clocks in realistic states, their stored dues computed by the service's clock rules.
    repairs = await seedRepairs(tx, ws, c);
    await tx`analyze repairs, hazard_clock_moments`;
    mark("repairs_with_clocks");

    // Five key sets a unit. While a tenancy runs its tenant holds the first two (one in ten without the tenancy
    // recorded: ambiguous); one ended tenancy in five still holds one. The rest: mostly in the office, some
    // with contractors, staff or the landlord, one in twenty lost.
    await tx`
      insert into key_sets (workspace_id, id, reference, label, unit_id, status, sequence, holder_type, holder_contact_id, holder_name, tenancy_id)
      select ${ws}, 'ks-' || u || '-' || n, 'K' || u || '-' || n,
             (array['Front door', 'Back door', 'Window locks', 'Communal entrance', 'Garage'])[n], 'unit-' || u,
             case when x.holder = 'lost' then 'lost' when x.holder = 'office' then 'in_office' else 'checked_out' end,
             n,
             case when x.holder in ('held', 'ambiguous') then 'tenant' when x.holder = 'lost' then 'other' else x.holder end,
             case when x.holder in ('held', 'ambiguous') then 'con-' || (2 * u - 1)
                  when x.holder = 'contractor' then 'con-' || (${contractorStart}::int + u % ${c.contractors}::int)
                  when x.holder = 'landlord' then 'con-' || (${occupantEnd}::int + ((u - 1) / 20 + 2) / 2) end,
             case when x.holder = 'staff' then 'Staff member ' || (1 + u % ${c.staff}::int)
                  when x.holder = 'office' then 'Office' else '' end,
             case when x.holder = 'held' then tn.id end
      from generate_series(1, ${T}::int) u
      join tenancies tn on tn.workspace_id = ${ws} and tn.id = 'ten-' || u
      cross join generate_series(1, 5) n
      cross join lateral (select abs(hashtext('ks' || u || '-' || n)) % 20 as h) r
      cross join lateral (select case
        when n <= 2 and tn.status <> 'ended' and tn.starts_on <= london_today() then case when r.h = 0 then 'ambiguous' else 'held' end
        when n = 1 and tn.status = 'ended' and r.h < 4 then 'held'
        when r.h = 1 then 'lost'
        when r.h in (2, 3) then 'contractor'
        when r.h = 4 then 'staff'
        when r.h = 5 then 'landlord'
        else 'office' end as holder) x`;
    mark("key_sets");
    await tx`
      insert into key_reports (workspace_id, id, key_set_id, note, source_kind, source_id, source_label, reported_by, reported_at,
                               cleared_note, cleared_by, cleared_at)
      select ${ws}, 'kr-' || u || '-' || n, 'ks-' || u || '-' || n, 'Key does not turn in the lock',
             (array['contractor', 'tenant', 'staff', 'inspection', 'repair'])[1 + u % 5], null, null,
             'Reporter ' || u, now() - make_interval(days => 2 + u % 90),
             case when u % 2 = 0 then 'Replaced the barrel' end, case when u % 2 = 0 then 'Office' end,
             case when u % 2 = 0 then now() - make_interval(days => 1 + u % 2) end
      from generate_series(1, ${T}::int) u, generate_series(1, 5) n where (u + n * 7) % 40 = 0`;
    mark("key_reports");

    // Handovers: a move-in for nine tenancies in ten (most completed, readings for two in three), a move-out
    // for ended tenancies and half of those under notice.
    await tx`
      insert into handovers (workspace_id, id, tenancy_id, direction, status, due_on, completed_at, forwarding_address, notice_evidence_document_id)
      select ${ws}, 'ho-in-' || t, tn.id, 'move_in',
             case when tn.starts_on <= london_today() and t % 10 < 7 then 'completed' else 'open' end,
             tn.starts_on,
             case when tn.starts_on <= london_today() and t % 10 < 7 then (tn.starts_on + time '12:00') at time zone 'Europe/London' end,
             null, null
      from generate_series(1, ${T}::int) t join tenancies tn on tn.workspace_id = ${ws} and tn.id = 'ten-' || t
      where t % 10 <> 9
      union all
      select ${ws}, 'ho-out-' || t, tn.id, 'move_out',
             case when tn.status = 'ended' then 'completed' else 'open' end,
             tn.ends_on,
             case when tn.status = 'ended' then (tn.ends_on + time '12:00') at time zone 'Europe/London' end,
             case when tn.status = 'ended' or t % 4 = 0 then (1 + t % 90) || ' Forwarding Road, ' || (${towns}::text[])[1 + t % 10] end,
             case when t % 3 <> 0 then 'doc-notice-' || t end
      from generate_series(1, ${T}::int) t join tenancies tn on tn.workspace_id = ${ws} and tn.id = 'ten-' || t
      where tn.status = 'ended' or (tn.status = 'notice_given' and t % 2 = 0)`;
    mark("handovers");
    await tx`
      insert into handover_meter_readings (workspace_id, handover_id, meter, reading, read_on)
      select ${ws}, h.id, m.meter, lpad((abs(hashtext(h.id || m.meter)) % 99999)::text, 5, '0'), coalesce(h.completed_at::date, h.due_on)
      from handovers h
      join tenancies tn on tn.workspace_id = h.workspace_id and tn.id = h.tenancy_id
      join unit_meters m on m.workspace_id = h.workspace_id and m.unit_id = tn.unit_id
      where h.workspace_id = ${ws} and h.status = 'completed' and abs(hashtext(h.id)) % 3 <> 0`;
    mark("handover_meter_readings");

    await seedInvoices(tx, ws, c, contractorStart, mark);

    // Calendar: events over ±60 days in working hours, spread over the staff; 1 in 20 cancelled.
    await tx`
      insert into calendar_events (workspace_id, id, title, kind, subject_kind, subject_id, starts_at, ends_at, location, status,
                                   created_by_user_id, property_id, staff_user_id, contact_id, notes, outcome, outcome_recorded_at,
                                   cancel_reason, cancelled_at)
      select ${ws}, 'evt-' || e, initcap(replace(k.kind, '_', ' ')) || ' at ' || p.label, k.kind,
             case when k.kind in ('check_in', 'check_out') then 'tenancy' end,
             case when k.kind in ('check_in', 'check_out') then 'ten-' || (1 + e % ${T}::int) end,
             x.starts_at, x.starts_at + make_interval(mins => (array[30, 45, 60, 90])[1 + e % 4]),
             p.label, x.status, ${input.ownerUserId},
             case when e % 10 <> 0 then p.id end,
             'staff-' || (1 + e % ${c.staff}::int),
             case when k.kind = 'viewing' then 'con-' || (1 + e * 17 % ${c.contacts}::int) end,
             case when e % 6 = 0 then 'Bring the spare keys' end,
             case when x.status = 'completed' and k.kind = 'viewing' then (array['attended', 'no_show'])[1 + e % 2] end,
             case when x.status = 'completed' and k.kind = 'viewing' then x.starts_at + interval '2 hours' end,
             case when x.status = 'cancelled' then 'Rescheduled at the tenant''s request' end,
             case when x.status = 'cancelled' then x.starts_at - interval '1 day' end
      from generate_series(1, ${c.calendarEvents}::int) e
      cross join lateral (select (array['viewing', 'viewing', 'inspection', 'maintenance', 'valuation', 'meeting', 'check_in', 'check_out'])[1 + e % 8] as kind) k
      cross join lateral (select id, label from properties where workspace_id = ${ws} and id = 'prop-' || (1 + e * 31 % ${P}::int)) p
      cross join lateral (
        select ((london_today() + ((e * 7919::bigint) % 121 - 60)::int)::timestamp + time '08:00'
                  + make_interval(mins => 15 * ((e * 104729::bigint) % 40)::int)) at time zone 'Europe/London' as starts_at,
               case when e % 20 = 0 then 'cancelled' when (e * 7919::bigint) % 121 < 60 and e % 5 <> 0 then 'completed' else 'scheduled' end as status
      ) x`;
    mark("calendar_events");

    // SMS threads with contacts' mobiles (or unknown numbers), last messages over 90 days; 1 in 33 stopped.
    await tx`
      insert into sms_threads (workspace_id, id, local_number, address, contact_id, revision, last_message_at, last_inbound_at, preview, stopped)
      select ${ws}, 'sms-' || s, '+44770090000' || (s % 3),
             coalesce(c.mobile_norm, '+447800' || lpad((s % 1000000)::text, 6, '0')),
             case when c.mobile_norm is not null then c.id end,
             1 + s % 5,
             now() - make_interval(mins => (s * 7919) % (90 * 24 * 60)),
             case when s % 3 <> 0 then now() - make_interval(mins => (s * 7919) % (90 * 24 * 60) + 5) end,
             (array['Thanks, see you then', 'Is the boiler engineer still coming today?', 'Your viewing is confirmed for tomorrow at 10:00', 'STOP', 'Can I get a copy of the inventory?'])[1 + s % 5],
             s % 33 = 0
      from generate_series(1, ${c.smsThreads}::int) s
      left join contacts c on c.workspace_id = ${ws} and c.id = 'con-' || (1 + (s * 7) % ${c.contacts}::int)`;
    mark("sms_threads");
  });
  mark("commit");
  await db.unsafe("analyze");
  mark("analyze");
  return { counts: c, timings, repairs: repairs! };
}

/** Invoices with lines, payments (some corrected), credit notes and recoveries; derived columns as deriveInvoice computes them. */
async function seedInvoices(tx: Tx, ws: string, c: SeedCounts, contractorStart: number, mark: (step: string) => void) {
  const T = c.tenancies;
  await tx`
    insert into contractor_invoices (workspace_id, id, subject_kind, subject_id, subject_label, property_id, tenancy_id,
                                     contractor_contact_id, number, issued_on, due_on, borne_by, approved_at, disputed_at,
                                     dispute_reason, voided_at, void_reason)
    select ${ws}, 'inv-' || i, 'property', 'prop-' || ((t - 1) / 20 + 1), 'Flat ' || (1 + (t - 1) % 20),
           'prop-' || ((t - 1) / 20 + 1), case when i % 2 = 0 then 'ten-' || t end,
           'con-' || (${contractorStart}::int + i % ${c.contractors}::int), 'INV-' || (10000 + i),
           london_today() - (i * 13 % 365), london_today() - (i * 13 % 365) + 30,
           (array['landlord', 'tenant', 'agency'])[1 + i % 3],
           case when i % 10 < 6 then now() - make_interval(days => greatest(0, i * 13 % 365 - 2)) end,
           case when i % 33 = 0 then now() - make_interval(days => i % 20) end,
           case when i % 33 = 0 then 'Work not completed' end,
           case when i % 50 = 7 then now() - make_interval(days => i % 10) end,
           case when i % 50 = 7 then 'Raised in error' end
    from generate_series(1, ${c.invoices}::int) i, lateral (select 1 + i * 7 % ${T}::int as t) x`;
  mark("contractor_invoices");
  await tx`
    insert into contractor_invoice_lines (workspace_id, id, invoice_id, ordinal, kind, description, net_minor, vat_minor)
    select ${ws}, 'inl-' || i || '-' || l, 'inv-' || i, l, (array['labour', 'materials', 'callout'])[l],
           (array['Labour', 'Parts and materials', 'Call-out charge'])[l], n.net, case when l = 3 then 0 else n.net / 5 end
    from generate_series(1, ${c.invoices}::int) i, generate_series(1, 3) l,
         lateral (select 2000 + (i * 37 + l * 101) % 48000 as net) n
    where l <= 1 + i % 3`;
  mark("contractor_invoice_lines");
  await tx`
    with g as (
      select invoice_id, sum(net_minor + vat_minor) as gross from contractor_invoice_lines
      where workspace_id = ${ws} group by invoice_id
    ), i as (select g.*, substr(invoice_id, 5)::int as n from g)
    insert into contractor_payments (workspace_id, id, invoice_id, amount_minor, paid_on, reference, corrected_at, correction_reason)
    select ${ws}, 'pay-' || n || '-1', invoice_id, case when n % 10 < 3 then gross else gross / 2 end,
           london_today() - (n % 60), 'BACS ' || n, null, null
    from i where n % 10 < 5
    union all
    select ${ws}, 'pay-' || n || '-2', invoice_id, 1000, london_today() - (n % 60), 'Duplicate ' || n, now(), 'Recorded twice'
    from i where n % 50 = 0`;
  mark("contractor_payments");
  await tx`
    insert into contractor_credit_notes (workspace_id, id, invoice_id, number, issued_on, net_minor, vat_minor, reason)
    select ${ws}, 'cn-' || substr(invoice_id, 5), invoice_id, 'CN-' || substr(invoice_id, 5), london_today(),
           sum(net_minor), sum(vat_minor), 'Credited in full'
    from contractor_invoice_lines
    where workspace_id = ${ws} and substr(invoice_id, 5)::int % 25 = 0
    group by invoice_id`;
  mark("contractor_credit_notes");
  await tx`
    insert into contractor_recoveries (workspace_id, id, invoice_id, amount_minor, received_on, reference)
    select ${ws}, 'rec-' || substr(invoice_id, 5), invoice_id, sum(net_minor + vat_minor) / 2, london_today(), 'Deposit deduction'
    from contractor_invoice_lines l
    where workspace_id = ${ws} and substr(invoice_id, 5)::int % 12 = 1
    group by invoice_id`;
  await tx`analyze contractor_invoices, contractor_invoice_lines, contractor_payments, contractor_credit_notes, contractor_recoveries`;
  mark("contractor_recoveries");
  // The same formulas as contractor_invoices/derive.ts, over entries that are not corrected.
  await tx`
    with l as (
      select invoice_id, sum(net_minor) as net, sum(vat_minor) as vat from contractor_invoice_lines where workspace_id = ${ws} group by 1
    ), cn as (
      select invoice_id, sum(net_minor + vat_minor) as credited from contractor_credit_notes
      where workspace_id = ${ws} and corrected_at is null group by 1
    ), p as (
      select invoice_id, sum(amount_minor) as paid from contractor_payments where workspace_id = ${ws} and corrected_at is null group by 1
    ), r as (
      select invoice_id, sum(amount_minor) as recovered from contractor_recoveries where workspace_id = ${ws} and corrected_at is null group by 1
    ), d as (
      select i.id, i.borne_by, i.approved_at, i.disputed_at, i.voided_at,
             coalesce(l.net, 0) as net, coalesce(l.vat, 0) as vat, coalesce(l.net, 0) + coalesce(l.vat, 0) as gross,
             coalesce(cn.credited, 0) as credited, coalesce(p.paid, 0) as paid, coalesce(r.recovered, 0) as recovered
      from contractor_invoices i
      left join l on l.invoice_id = i.id left join cn on cn.invoice_id = i.id
      left join p on p.invoice_id = i.id left join r on r.invoice_id = i.id
      where i.workspace_id = ${ws}
    ), e as (select d.*, greatest(0, gross - credited) as payable from d)
    update contractor_invoices x set
      net_minor = e.net, vat_minor = e.vat, gross_minor = e.gross, credited_minor = e.credited,
      payable_minor = e.payable, paid_minor = e.paid, outstanding_minor = greatest(0, e.payable - e.paid),
      recovered_minor = e.recovered,
      recoverable_minor = case when e.borne_by = 'tenant' then greatest(0, e.payable - e.recovered) else 0 end,
      status = case when e.voided_at is not null then 'void'
                    when e.disputed_at is not null then 'disputed'
                    when e.gross > 0 and e.credited >= e.gross then 'credited'
                    when e.payable > 0 and e.paid >= e.payable then 'paid'
                    when e.paid > 0 then 'part_paid'
                    when e.approved_at is not null then 'approved'
                    else 'received' end
    from e where x.workspace_id = ${ws} and x.id = e.id`;
  mark("contractor_invoices");
}

/**
 * Checks the seeded rows against the service's own rules on a sample: each invoice's stored totals equal
 * deriveInvoice over its entries, each contact's norm columns equal contactNorms of its fields.
 */
export async function verifySeed(db: Db, workspaceId: string): Promise<void> {
  const invoices = await db<(InvoiceFacts & { id: string; stored: Record<string, unknown> })[]>`
    select i.id, i.borne_by, iso(i.approved_at) as approved_at, iso(i.disputed_at) as disputed_at, iso(i.voided_at) as voided_at,
      coalesce((select json_agg(json_build_object('netMinor', net_minor, 'vatMinor', vat_minor)) from contractor_invoice_lines
                where workspace_id = i.workspace_id and invoice_id = i.id), '[]') as lines,
      coalesce((select json_agg(json_build_object('amountMinor', amount_minor, 'correctedAt', iso(corrected_at))) from contractor_payments
                where workspace_id = i.workspace_id and invoice_id = i.id), '[]') as payments,
      coalesce((select json_agg(json_build_object('netMinor', net_minor, 'vatMinor', vat_minor, 'correctedAt', iso(corrected_at)))
                from contractor_credit_notes where workspace_id = i.workspace_id and invoice_id = i.id), '[]') as credit_notes,
      coalesce((select json_agg(json_build_object('amountMinor', amount_minor, 'correctedAt', iso(corrected_at))) from contractor_recoveries
                where workspace_id = i.workspace_id and invoice_id = i.id), '[]') as recoveries,
      json_build_object('netMinor', i.net_minor, 'vatMinor', i.vat_minor, 'grossMinor', i.gross_minor, 'creditedMinor', i.credited_minor,
        'payableMinor', i.payable_minor, 'paidMinor', i.paid_minor, 'outstandingMinor', i.outstanding_minor,
        'recoveredMinor', i.recovered_minor, 'recoverableMinor', i.recoverable_minor, 'status', i.status) as stored
    from contractor_invoices i where i.workspace_id = ${workspaceId}
    order by i.id limit 300`;
  for (const invoice of invoices) {
    const derived = deriveInvoice(invoice) as unknown as Record<string, unknown>;
    if (Object.entries(derived).some(([k, v]) => invoice.stored[k] !== v)) {
      throw new Error(
        `seed: invoice ${invoice.id} stores ${JSON.stringify(invoice.stored)}, deriveInvoice gives ${JSON.stringify(derived)}`,
      );
    }
  }
  const contacts = await db`
    select name, email, mobile, address_postcode, registration_number,
           name_norm, email_norm, email_canon, mobile_norm, postcode_norm, registration_norm
    from contacts where workspace_id = ${workspaceId} order by id limit 500`;
  for (const row of contacts) {
    const expected = contactNorms(row as any);
    for (const [k, v] of Object.entries(expected)) {
      if (row[k] !== v) throw new Error(`seed: contact ${row.name} has ${k} ${row[k]}, contactNorms gives ${v}`);
    }
  }
  await verifyRepairs(db, workspaceId);
}

/**
 * Ids and values the load generator draws from: every tenancy, the staff, a sample of existing emails and mobiles, and
 * where repairs are reported (a sample of units with their property, tenancy and lead tenant).
 */
export interface LoadPools {
  tenancyIds: string[];
  staffIds: string[];
  emails: string[];
  mobiles: string[];
  repairTargets: { propertyId: string; unitId: string; tenancyId: string; contactId: string }[];
  /**
   * The due list's pages (bench/repairs_due.ts), walked through the running service before the `repairsDue` scenario;
   * absent until then.
   */
  repairsDue?: RepairsDuePages;
  /**
   * Tenancy id → the ETag of its handover row, read from the running service before a conditional scenario
   * (bench/etags.ts); absent until then.
   */
  handoverEtags?: Record<string, string>;
}

/** Reads the pools from the seeded workspace. */
export async function loadPools(db: Db, workspaceId: string): Promise<LoadPools> {
  const tenancies = await db<{ id: string }[]>`select id from tenancies where workspace_id = ${workspaceId}`;
  const staff = await db<{ id: string }[]>`
    select distinct staff_user_id as id from calendar_events where workspace_id = ${workspaceId} and staff_user_id is not null`;
  const emails = await db<{ v: string }[]>`
    select email as v from contacts where workspace_id = ${workspaceId} and email is not null order by random() limit 5000`;
  const mobiles = await db<{ v: string }[]>`
    select mobile as v from contacts where workspace_id = ${workspaceId} and mobile is not null order by random() limit 5000`;
  const repairTargets = await db<LoadPools["repairTargets"]>`
    select u.property_id, u.id as unit_id, t.id as tenancy_id, o.contact_id
    from tenancies t
    join units u on u.workspace_id = t.workspace_id and u.id = t.unit_id
    join tenancy_occupants o on o.workspace_id = t.workspace_id and o.tenancy_id = t.id and o.is_lead
    where t.workspace_id = ${workspaceId} and t.status <> 'ended'
    order by random() limit 2000`;
  return {
    tenancyIds: tenancies.map((r) => r.id),
    staffIds: staff.map((r) => r.id),
    emails: emails.map((r) => r.v),
    mobiles: mobiles.map((r) => r.v),
    repairTargets: [...repairTargets],
  };
}
