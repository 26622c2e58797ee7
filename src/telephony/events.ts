/** The telephony group's event types. */
import type { Tx } from "../core/db.ts";
import { eventType } from "../events/event_type.ts";
import { type Actor, recordEvent } from "../events/record.ts";
import { messageView } from "./queries.ts";
import { QueuedSms, SmsMessage, SmsThread } from "./schema.ts";

/** An inbound SMS was stored on its thread (a reply, STOP and START included). */
export const smsReceived = eventType({
  name: "sms.received",
  subjectKind: "sms",
  data: SmsMessage,
  description:
    "The other party texted the workspace's number; `data` is the message as " +
    "`GET /telephony/sms/threads/{id}/messages` lists it.",
});

/** An outgoing SMS changed status: a delivery receipt, or failed because the thread was stopped. */
export const smsStatusChanged = eventType({
  name: "sms.status_changed",
  subjectKind: "sms",
  data: SmsMessage,
  description:
    "An outgoing message moved on: the provider accepted it (`sent`) or refused it for good (`failed`), its " +
    "receipts reported it `delivered`, `undelivered` or `failed` (with the provider's ErrorCode), or it was still " +
    "queued when the recipient texted STOP (`failed`, errorCode `stopped`). `data` is the message after the change.",
});

/** Records `sms.status_changed` for a message, as it now is, in the transaction that changed it. */
export async function recordStatusChanged(
  tx: Tx,
  workspaceId: string,
  messageId: string,
  requestId: string | null,
  actor: Actor,
): Promise<void> {
  const data = await messageView(tx, workspaceId, messageId);
  await recordEvent(tx, smsStatusChanged, { workspaceId, subjectId: messageId, data, requestId, actor });
}

/** The other party texted STOP (or another opt-out keyword): nothing more may be sent on the thread. */
export const smsThreadStopped = eventType({
  name: "sms_thread.stopped",
  subjectKind: "sms_thread",
  data: SmsThread,
  description: "The other party opted out (STOP, STOPALL, UNSUBSCRIBE, CANCEL, END or QUIT); `data` is the thread.",
});

/** The other party opted back in (START, UNSTOP or YES): sending works again. */
export const smsThreadStarted = eventType({
  name: "sms_thread.started",
  subjectKind: "sms_thread",
  data: SmsThread,
  description: "The other party of a stopped thread opted back in (START, UNSTOP or YES); `data` is the thread.",
});

/** An outgoing SMS was queued; data is the message as queued. */
export const smsQueued = eventType({
  name: "sms.queued",
  subjectKind: "sms",
  data: QueuedSms,
  description:
    "An outgoing SMS was queued on a thread (`subject.id` is the message). `data` is the message as " +
    "`POST /telephony/sms/threads/{id}/messages` answered it.",
});

/** Every event type of the group. */
export const telephonyEvents = [smsReceived, smsStatusChanged, smsThreadStopped, smsThreadStarted, smsQueued];
