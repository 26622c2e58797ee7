/** Invitations sent for real (the worker's delivery to the outbox folder), and the token read back from the .eml. */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AppContext } from "../../src/core/operation.ts";
import { createMailer, outboxDir } from "../../src/email/transport.ts";
import { deliverInvitationEmail } from "../../src/maintenance_pro/invite_email_worker.ts";
import type { Harness, TestWorkspace } from "../support/harness.ts";
import { parseEmail } from "../email/smtp.ts";
import { invitationsOf } from "./fixtures.ts";

/** A context whose emails go to a fresh outbox folder, with links under `portalBaseUrl`. */
export function outboxContext(h: Harness, portalBaseUrl = "http://localhost/portal"): AppContext {
  const dataDir = mkdtempSync(join(tmpdir(), "portal-outbox-"));
  return { ...h.ctx, config: { ...h.ctx.config, dataDir, portalBaseUrl } };
}

/** The token of the link in an .eml the outbox holds. */
export function tokenOfEml(path: string): string {
  const text = parseEmail(readFileSync(path, "utf8")).text ?? "";
  const token = /\/invitations\/([A-Za-z0-9_-]+)/.exec(text)?.[1];
  if (!token) throw new Error(`no invitation link in ${path}`);
  return token;
}

/**
 * Invites a contact through the API and delivers its email as the worker does (to the outbox); returns the link's
 * token and the invitation id.
 */
export async function sendInvitation(
  h: Harness,
  ctx: AppContext,
  ws: TestWorkspace,
  contactId: string,
): Promise<{ token: string; invitationId: string }> {
  const res = await h.request("POST", `/maintenance-pro/landlords/${contactId}/portal-access/invite`, { key: ws.key });
  if (res.status !== 200) throw new Error(`invite answered ${res.status}: ${JSON.stringify(res.body)}`);
  const invitationId = (await invitationsOf(h.database.db, ws.id, contactId)).at(-1)!.id;
  const mailer = createMailer(ctx.config, ctx.log);
  const outcome = await deliverInvitationEmail(ctx, mailer, { workspaceId: ws.id, invitationId }, { final: false });
  if (outcome !== "sent") throw new Error(`delivery ${outcome}`);
  return { token: tokenOfEml(join(outboxDir(ctx.config), `invitation-${invitationId}.eml`)), invitationId };
}
