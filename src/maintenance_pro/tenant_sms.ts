/**
 * The tenant's messages by SMS (a link, a repair's reference) through the telephony group's own send path: queued
 * on the workspace's thread with the tenant's mobile (opened from the workspace's first number when there is none)
 * in the caller's transaction, and handed to the provider by the SMS worker, once. No SMS when any thread with that
 * mobile is stopped (the tenant texted STOP) or the workspace has no number.
 */
import { ulid } from "ulid";
import type { Tx } from "../core/db.ts";
import type { AppContext } from "../core/operation.ts";
import type { Actor } from "../events/record.ts";
import { queueSms } from "../telephony/operations.ts";
import { lockPairThread, openThread } from "../telephony/queries.ts";
import { addressThreads, workspaceSmsNumber } from "./tenant_queries.ts";

/** The actor of the SMS the tenant's pages send. */
export const tenantSmsActor: Actor = { kind: "worker", id: "tenant-link" };

/** The thread to text `mobile` on, locked, or undefined when the tenant stopped SMS or the workspace has no number. */
export async function tenantSmsThread(tx: Tx, workspaceId: string, mobile: string): Promise<string | undefined> {
  const threads = await addressThreads(tx, workspaceId, mobile);
  if (threads.some((t) => t.stopped)) return undefined;
  if (threads[0]) return threads[0].id;
  const number = await workspaceSmsNumber(tx, workspaceId);
  if (!number) return undefined;
  // Opened as an inbound message opens one: under the pair's lock, linked to the contact whose mobile it is.
  const held = await lockPairThread(tx, workspaceId, number, mobile);
  if (held) return held.stopped ? undefined : held.id;
  const id = ulid();
  await openThread(tx, { workspaceId, id, localNumber: number, address: mobile, mobileNorm: mobile });
  return id;
}

/**
 * Queues `body` to `mobile` in the caller's transaction; the message's id, or undefined when no SMS can go (see
 * tenantSmsThread). The workspace's SMS budget spent throws RateLimited (the job is retried later). The caller
 * ensures the SMS queue.
 */
export async function queueTenantSms(
  tx: Tx,
  app: Pick<AppContext, "config" | "jobs">,
  sms: { workspaceId: string; mobile: string; body: string; requestId: string },
): Promise<string | undefined> {
  const threadId = await tenantSmsThread(tx, sms.workspaceId, sms.mobile);
  if (!threadId) return undefined;
  const sender = { workspaceId: sms.workspaceId, keyId: null, actor: tenantSmsActor };
  const message = await queueSms(tx, app, sender, threadId, sms.body, null, sms.requestId);
  return message.id;
}
