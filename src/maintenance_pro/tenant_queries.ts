/** The SQL of the tenant's repair page: matching a link request, storing links, reading a link's tenancy. */
import type { Db, Tx } from "../core/db.ts";

/** An occupant a link request matched: where the link goes. */
export interface TenantMatch {
  workspaceId: string;
  workspaceName: string;
  tenancyId: string;
  contactId: string;
  email: string | null;
}

/**
 * The occupants of `active` or `notice_given` tenancies of the workspace `slug` whose property is at the postcode
 * (compared without spaces, upper-cased) and whose email or mobile (normalised) is the one given.
 */
export async function matchTenants(
  db: Db | Tx,
  input: { slug: string; postcode: string; emailNorm: string | null; mobileNorm: string | null },
): Promise<TenantMatch[]> {
  const compact = input.postcode.replace(/\s+/g, "").toUpperCase();
  return db<TenantMatch[]>`
    select w.id as "workspaceId", w.name as "workspaceName", t.id as "tenancyId", c.id as "contactId", c.email
    from workspaces w
    join tenancies t on t.workspace_id = w.id and t.status in ('active', 'notice_given')
    join units u on u.workspace_id = t.workspace_id and u.id = t.unit_id
    join properties p on p.workspace_id = u.workspace_id and p.id = u.property_id
    join tenancy_occupants o on o.workspace_id = t.workspace_id and o.tenancy_id = t.id
    join contacts c on c.workspace_id = o.workspace_id and c.id = o.contact_id and c.archived_at is null
    where w.slug = ${input.slug} and w.suspended_at is null
      and upper(regexp_replace(coalesce(p.address_postcode, ''), '\\s', '', 'g')) = ${compact}
      and (c.email_norm = ${input.emailNorm} or c.mobile_norm = ${input.mobileNorm})
    order by t.id, c.id`;
}

/**
 * Stores the link of a request's job for one occupant (its token's hash) working until `expiresAt`, and returns the
 * expiry as an instant; undefined when the job already stored that occupant's link (a retry), after waiting for a
 * concurrent run's transaction.
 */
export async function claimTenantLink(
  db: Db | Tx,
  link: {
    workspaceId: string;
    id: string;
    jobId: string;
    tenancyId: string;
    contactId: string;
    tokenHash: Buffer;
    hours: number;
  },
): Promise<string | undefined> {
  const [row] = await db<{ expiresAt: string }[]>`
    insert into tenant_links (workspace_id, id, job_id, tenancy_id, contact_id, token_hash, expires_at)
    values (${link.workspaceId}, ${link.id}, ${link.jobId}, ${link.tenancyId}, ${link.contactId}, ${link.tokenHash},
            now() + make_interval(hours => ${link.hours}))
    on conflict (workspace_id, job_id, tenancy_id, contact_id) do nothing
    returning iso(expires_at) as "expiresAt"`;
  return row?.expiresAt;
}

/** A link's tenancy as its page needs it. */
export interface TenantLinkView {
  workspaceId: string;
  workspaceName: string;
  workspaceSlug: string;
  tenancyId: string;
  contactId: string;
  tenantName: string;
  propertyId: string;
  unitId: string;
  unitLabel: string;
  propertyLabel: string;
  tenancyStatus: "active" | "notice_given" | "ended";
  expired: boolean;
}

/** The link of a token's hash, or undefined (a suspended workspace's links, like its report page, are not found). */
export async function tenantLinkByHash(db: Db | Tx, tokenHash: Buffer): Promise<TenantLinkView | undefined> {
  const [row] = await db<TenantLinkView[]>`
    select l.workspace_id as "workspaceId", w.name as "workspaceName", w.slug as "workspaceSlug",
           l.tenancy_id as "tenancyId", l.contact_id as "contactId", c.name as "tenantName",
           p.id as "propertyId", u.id as "unitId",
           u.label as "unitLabel", p.label as "propertyLabel", t.status as "tenancyStatus",
           l.expires_at <= now() as expired
    from tenant_links l
    join workspaces w on w.id = l.workspace_id
    join tenancies t on t.workspace_id = l.workspace_id and t.id = l.tenancy_id
    join units u on u.workspace_id = t.workspace_id and u.id = t.unit_id
    join properties p on p.workspace_id = u.workspace_id and p.id = u.property_id
    join contacts c on c.workspace_id = l.workspace_id and c.id = l.contact_id
    where l.token_hash = ${tokenHash} and w.suspended_at is null`;
  return row;
}

/** Whether a workspace of the slug exists and is not suspended. */
export async function reportWorkspace(db: Db | Tx, slug: string): Promise<{ id: string; name: string } | undefined> {
  const [row] = await db<{ id: string; name: string }[]>`
    select id, name from workspaces where slug = ${slug} and suspended_at is null`;
  return row;
}
