/** Rows the maintenance-pro tests need, written with SQL: landlord contacts, portal access, invitations. */
import { ulid } from "ulid";
import type { Db } from "../../src/core/db.ts";
import type { TestWorkspace } from "../support/harness.ts";
import { Rows } from "../support/rows.ts";

/** Adds a contact; a landlord with an email unless told otherwise. */
export async function addContact(
  db: Db,
  ws: TestWorkspace,
  options: { name?: string; email?: string | null; roles?: string[]; archived?: boolean } = {},
): Promise<{ id: string; email: string | null; name: string }> {
  const id = ulid();
  const name = options.name ?? `Landlord ${id.slice(-6)}`;
  const email = options.email === undefined ? `${id.toLowerCase()}@landlords.test` : options.email;
  const archivedAt = options.archived ? new Date().toISOString() : null;
  await new Rows(db, ws.id).contact({ id, name, email, roles: options.roles ?? ["landlord"], archivedAt });
  return { id, email, name };
}

/**
 * Invites a new landlord of the workspace through a running service at `base` and waits, at most `withinMs`, for its
 * job workers to email the invitation: the email's last status ("sent" once sent) and how long it took.
 */
export async function invitationEmailed(
  db: Db,
  base: string,
  ws: TestWorkspace,
  withinMs = 30_000,
): Promise<{ status: string | undefined; ms: number }> {
  const landlord = await addContact(db, ws);
  const invited = performance.now();
  const res = await fetch(`${base}/maintenance-pro/landlords/${landlord.id}/portal-access/invite`, {
    method: "POST",
    headers: { "x-api-key": ws.key, "content-type": "application/json" },
    body: "{}",
  });
  if (res.status !== 200) throw new Error(`the invitation answered ${res.status}: ${await res.text()}`);
  let status: string | undefined;
  while (status !== "sent" && performance.now() - invited < withinMs) {
    await Bun.sleep(100);
    const [row] = await db<{ status: string }[]>`
      select d.status from portal_invitations i
      join email_deliveries d on d.workspace_id = i.workspace_id and d.invitation_id = i.id
      where i.workspace_id = ${ws.id} and i.contact_id = ${landlord.id}`;
    status = row?.status;
  }
  return { status, ms: performance.now() - invited };
}

/** Gives a contact portal access in a state. */
export async function setAccess(
  db: Db,
  ws: TestWorkspace,
  contactId: string,
  status: "pending" | "active" | "revoked",
): Promise<void> {
  await db`
    insert into landlord_portal_access (workspace_id, contact_id, status, invited_at, accepted_at, revoked_at)
    values (${ws.id}, ${contactId}, ${status}, now() - interval '10 days',
            ${status !== "pending" ? db`now() - interval '9 days'` : null},
            ${status === "revoked" ? db`now() - interval '1 day'` : null})`;
}

/** The invitation email jobs of a workspace, oldest first. */
export async function inviteJobs(db: Db, workspaceId: string) {
  return db<{ id: string; state: string; data: { workspaceId: string; invitationId: string } }[]>`
    select id::text, state::text, data from pgboss.job
    where name = 'invite-email' and data->>'workspaceId' = ${workspaceId}
    order by created_on`;
}

/** The invitations of a contact, oldest first, with their ledger rows. */
export async function invitationsOf(db: Db, workspaceId: string, contactId: string) {
  return db<
    {
      id: string;
      email: string;
      tokenHash: Buffer | null;
      expiresAt: string | null;
      supersededAt: string | null;
      status: string;
      attempts: number;
      lastError: string | null;
      jobId: string;
      transport: string | null;
      messageId: string | null;
      deadLetteredAt: string | null;
      expiresInDays: number | null;
    }[]
  >`
    select i.id, i.email, i.token_hash, iso(i.expires_at) as expires_at, iso(i.superseded_at) as superseded_at,
           d.status, d.attempts, d.last_error, d.job_id::text, d.transport, d.message_id, iso(d.dead_lettered_at) as dead_lettered_at,
           extract(epoch from i.expires_at - d.sent_at)::float8 / 86400 as expires_in_days
    from portal_invitations i join email_deliveries d on d.workspace_id = i.workspace_id and d.invitation_id = i.id
    where i.workspace_id = ${workspaceId} and i.contact_id = ${contactId}
    order by i.id`;
}

/** Polls until `check` returns a value other than undefined/false (for work done by a job worker). */
export async function eventually<T>(
  check: () => Promise<T | undefined | false>,
  what: string,
  limitMs = 20_000,
): Promise<T> {
  const until = Date.now() + limitMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > until) throw new Error(`gave up waiting for ${what}`);
    await Bun.sleep(100);
  }
}
