/** What the provider's webhooks change: an inbound message on its thread (STOP and START included), a receipt. */
import { ulid } from "ulid";
import type { Db } from "../core/db.ts";
import { WebhookDuplicate, WebhookUnroutable } from "../core/errors.ts";
import { normaliseMobile } from "../contacts/normalise.ts";
import { recordEvent, type Actor } from "../events/record.ts";
import { recordStatusChanged, smsReceived, smsThreadStarted, smsThreadStopped } from "./events.ts";
import { optKeyword } from "./keywords.ts";
import {
  applyReceipt,
  awaitSendsInFlight,
  claimDelivery,
  failStopped,
  insertInboundMessage,
  lockMessageBySid,
  lockPairThread,
  messageView,
  openThread,
  setStopped,
  threadView,
  workspaceOfNumber,
} from "./queries.ts";
import { movesForward } from "./receipts.ts";

const integration = "sms";
const actor: Actor = { kind: "provider", id: "sms" };

/** An inbound message as the provider posts it. */
export interface InboundSms {
  messageSid: string;
  from: string;
  to: string;
  body: string;
}

/** A delivery receipt: the provider's id of a message we sent, its new status (ours) and error code. */
export interface SmsReceipt {
  messageSid: string;
  /** The provider's MessageStatus, as received (part of the receipt's identity). */
  providerStatus: string;
  status: string;
  errorCode: string | null;
  /** Our number (the receipt's From) and the recipient (its To). */
  from: string;
  to: string;
}

/** Where a webhook's handling notes the workspace as soon as it is known (for its request log line). */
export interface Found {
  workspaceId?: string;
}

/**
 * Stores an inbound message, in one transaction: the delivery is claimed (a second one is WebhookDuplicate), the
 * thread found or opened, the message stored and the thread moved; an opt-out keyword stops the thread and fails
 * its queued messages, an opt-in keyword clears it; the events are recorded. Returns the message id.
 */
export async function receiveSms(db: Db, sms: InboundSms, requestId: string, found: Found = {}): Promise<string> {
  const workspaceId = await workspaceOfNumber(db, sms.to);
  if (!workspaceId) throw new WebhookUnroutable({ integration, reason: "To is not a number of this service" });
  found.workspaceId = workspaceId;
  return db.begin(async (tx) => {
    if (!(await claimDelivery(tx, { integration, externalId: sms.messageSid, workspaceId }))) {
      throw new WebhookDuplicate({ integration, externalId: sms.messageSid });
    }
    let thread = await lockPairThread(tx, workspaceId, sms.to, sms.from);
    if (!thread) {
      const id = ulid();
      const mobileNorm = normaliseMobile(sms.from);
      await openThread(tx, { workspaceId, id, localNumber: sms.to, address: sms.from, mobileNorm });
      thread = { id, stopped: false };
    }
    const id = ulid();
    await insertInboundMessage(tx, {
      workspaceId,
      id,
      threadId: thread.id,
      body: sms.body,
      providerMessageId: sms.messageSid,
    });
    const data = await messageView(tx, workspaceId, id);
    await recordEvent(tx, smsReceived, { workspaceId, subjectId: id, data, requestId, actor });
    const keyword = optKeyword(sms.body);
    if (keyword && (await setStopped(tx, workspaceId, thread.id, keyword === "stop"))) {
      const failed = keyword === "stop" ? await failStopped(tx, workspaceId, { threadId: thread.id }) : [];
      for (const messageId of failed) await recordStatusChanged(tx, workspaceId, messageId, requestId, actor);
      await recordEvent(tx, keyword === "stop" ? smsThreadStopped : smsThreadStarted, {
        workspaceId,
        subjectId: thread.id,
        data: await threadView(tx, workspaceId, thread.id),
        requestId,
        actor,
      });
    }
    return id;
  });
}

/**
 * Applies a delivery receipt, in one transaction: the receipt is claimed (the same MessageSid and MessageStatus
 * again is WebhookDuplicate), the message found (waiting for a send still in flight between the same numbers,
 * whose provider id is not recorded yet) and moved if the status is ahead of its own. A receipt behind it is
 * accepted and changes nothing.
 */
export async function applySmsReceipt(
  db: Db,
  receipt: SmsReceipt,
  requestId: string,
  found: Found = {},
): Promise<void> {
  const externalId = `${receipt.messageSid}:${receipt.providerStatus}`;
  await db.begin(async (tx) => {
    if (!(await claimDelivery(tx, { integration, externalId, workspaceId: null }))) {
      throw new WebhookDuplicate({ integration, externalId });
    }
    let message = await lockMessageBySid(tx, receipt.messageSid);
    if (!message) {
      await awaitSendsInFlight(tx, receipt.from, receipt.to);
      message = await lockMessageBySid(tx, receipt.messageSid);
    }
    if (!message) {
      throw new WebhookUnroutable({ integration, reason: "MessageSid is not a message this service sent" });
    }
    found.workspaceId = message.workspaceId;
    if (!movesForward(message.status, receipt.status)) return;
    await applyReceipt(tx, { workspaceId: message.workspaceId, id: message.id, ...receipt });
    await recordStatusChanged(tx, message.workspaceId, message.id, requestId, actor);
  });
}
