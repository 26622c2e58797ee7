/** The telephony group's operations. */
import { Type } from "@sinclair/typebox";
import { ulid } from "ulid";
import { recordActivity } from "../core/activity.ts";
import { rateLimited } from "../core/budget.ts";
import type { Tx } from "../core/db.ts";
import { RateLimited, RequestIdReused } from "../core/errors.ts";
import { idempotent, ledgerReply } from "../core/idempotency.ts";
import { queues } from "../core/jobs.ts";
import { operation, Reply, type AppContext } from "../core/operation.ts";
import { Id } from "../core/schema.ts";
import { cursorFields, decodeCursor, encodeCursor, linkHeader, nextLink } from "../core/pagination.ts";
import { type Actor, recordEvent, keyActor } from "../events/record.ts";
import { SmsStopped, SmsThreadNotFound } from "./errors.ts";
import { smsQueued } from "./events.ts";
import { insertQueuedMessage, lockThread, messagesPage, takeSendToken, threadExists, threadsPage } from "./queries.ts";
import { MessagesQuery, QueuedSms, SendSmsBody, SmsMessage, SmsThread, ThreadsQuery, maxSmsLength } from "./schema.ts";
import { ensureSmsQueue, type SmsJob } from "./worker.ts";

/**
 * A list page from `limit + 1` rows: the first `limit` without their position, and a `Link` to the next page
 * (cursor: the last one's position and id) when the extra row says one follows.
 */
function pageAnswer<T extends { cursorAt: string | null; id: string }>(rows: T[], limit: number, url: URL) {
  const page = rows.slice(0, limit);
  const items = page.map(({ cursorAt: _, ...item }) => item);
  if (rows.length <= limit) return items;
  const last = page[page.length - 1]!;
  return new Reply(items, undefined, { link: nextLink(url, encodeCursor([last.cursorAt, last.id])) });
}

/** SMS threads, most recent first. */
export const smsThreads = operation({
  id: "telephony.smsThreads",
  group: "telephony",
  method: "GET",
  path: "/telephony/sms/threads",
  summary: "SMS threads, most recent first.",
  description: [
    "Lists the workspace's SMS threads.",
    "",
    "- Order: `lastMessageAt` descending, then `id` descending; threads without any message (`lastMessageAt` " +
      "null) come last.",
    "- Filters: `contactId`; `stopped=true` (only threads whose recipient texted STOP) or `stopped=false`. " +
      "Unknown query parameters are refused (400).",
    "- Pages: `limit` (default 50, at most 200). When more threads follow, the answer carries `Link: <…>; " +
      'rel="next"`, an',
    "  absolute URL repeating the query with a `cursor`. The body stays a plain array. A cursor names a position " +
      "in the",
    "  order, so a thread is never listed twice unless a new message moved it ahead of the position between two pages.",
  ].join("\n"),
  query: ThreadsQuery,
  response: Type.Array(SmsThread, { title: "SmsThreads" }),
  responseHeaders: linkHeader,
  errors: [],
  run: async ({ db, principal, query, url }) => {
    // The last thread listed: its last_message_at (null for a thread without messages) and id.
    const after =
      query.cursor === undefined
        ? undefined
        : decodeCursor(query.cursor, [cursorFields.instantOrNull, cursorFields.id]);
    const limit = query.limit ?? 50;
    const rows = await threadsPage(db, {
      workspaceId: principal.workspaceId,
      contactId: query.contactId,
      stopped: query.stopped,
      after: after ? { at: after[0]!, id: after[1]! } : undefined,
      take: limit + 1,
    });
    return pageAnswer(rows, limit, url);
  },
});

/** Who queues an SMS: the workspace, the API key (null for the service's own workers) and the events' actor. */
export interface SmsSender {
  workspaceId: string;
  keyId: string | null;
  actor: Actor;
}

/**
 * Queues one SMS on a thread, in the caller's transaction: the message, the thread's move, the job and the log
 * (the API's send, and the service's own messages such as a tenant's link). A stopped thread is SmsStopped, a spent
 * workspace SMS budget RateLimited; then nothing is queued. The caller ensures the SMS queue (ensureSmsQueue).
 */
export async function queueSms(
  tx: Tx,
  app: Pick<AppContext, "config" | "jobs">,
  sender: SmsSender,
  threadId: string,
  body: string,
  requestId: string | null,
  xRequestId: string,
) {
  const thread = await lockThread(tx, sender.workspaceId, threadId);
  if (!thread) throw new SmsThreadNotFound({ threadId });
  if (thread.stopped) throw new SmsStopped({ threadId });
  const bucket = await takeSendToken(tx, sender.workspaceId, app.config.smsPerMinute);
  if (!bucket.admitted) {
    const budget = `This workspace's SMS budget (${bucket.capacity} messages a minute)`;
    throw rateLimited(bucket, `sms:${sender.workspaceId}`, budget);
  }
  const message = await insertQueuedMessage(tx, {
    workspaceId: sender.workspaceId,
    id: ulid(),
    threadId,
    body,
    requestId,
  });
  await app.jobs.send(tx, queues.smsSend, {
    workspaceId: sender.workspaceId,
    messageId: message.id,
  } satisfies SmsJob);
  await recordActivity(tx, {
    workspaceId: sender.workspaceId,
    keyId: sender.keyId,
    action: "telephony.sms_queued",
    subjectKind: "sms_thread",
    subjectId: threadId,
    detail: { messageId: message.id },
  });
  await recordEvent(tx, smsQueued, {
    workspaceId: sender.workspaceId,
    subjectId: message.id,
    data: message,
    requestId: xRequestId,
    actor: sender.actor,
  });
  return message;
}

/** Sends an SMS on a thread (extension). */
export const sendSms = operation({
  id: "telephony.sendSms",
  group: "telephony",
  method: "POST",
  path: "/telephony/sms/threads/:id/messages",
  summary: "Queues an SMS on a thread.",
  extension: true,
  status: 202,
  description: [
    'Queues an outgoing SMS on a thread and answers 202 with the message as queued (`status: "queued"`).',
    "",
    "- In one transaction: the message is recorded, the thread's `lastMessageAt` and `preview` move (its " +
      "`revision` goes up",
    "  by one), the send job is queued, the activity log records it, and so does the event `sms.queued`. Nothing of",
    "  it exists if any step fails.",
    "- A worker then hands the message to the SMS provider: at least once, never twice. Failed attempts are " +
      "retried with",
    "  backoff (5 s doubling, at most 15 minutes apart, 9 attempts in all); a provider's permanent refusal, or " +
      "the last",
    "  failed attempt, leaves the message `failed` with its error. The provider receives the message id as its",
    "  idempotency key: across a crash between the provider accepting a message and the service recording it,",
    "  never twice relies on the provider honouring that key.",
    `- \`body\`: 1 to ${maxSmsLength} characters (UTF-16 code units), not only white space.`,
    "- The recipient texted STOP (`stopped` on the thread) → 409 `SmsStopped {threadId}`; unknown thread → 404 " +
      "`SmsThreadNotFound {threadId}`.",
    "- Each workspace may queue `SMS_PER_MINUTE` messages a minute (60 unless configured), refilled " +
      "continuously, whatever",
    '  its keys: beyond that 429 `RateLimited {key: "sms:<workspace id>", retryAfterSeconds, message}` with ' +
      "`Retry-After`.",
    "  This comes on top of the key's request budget; a refused send queues nothing and spends no SMS budget.",
    "- `requestId`: a retry with the same requestId, thread and body answers 202 with the first answer's bytes and",
    "  `Idempotent-Replayed: true`, and queues nothing; concurrent duplicates wait for the first. The same " +
      "requestId with",
    "  another body or thread → 422 `RequestIdReused`. Kept at least 30 days.",
  ].join("\n"),
  params: Type.Object({ id: Id }, { additionalProperties: false }),
  body: SendSmsBody,
  response: QueuedSms,
  errors: [SmsThreadNotFound, SmsStopped, RateLimited, RequestIdReused],
  responseHeaders: {
    "Idempotent-Replayed": {
      description: "`true` when this answer replays an earlier request with the same requestId.",
    },
  },
  run: async ({ app, db, principal: key, params, body, requestId: xRequestId }) => {
    await ensureSmsQueue(app.jobs);
    const sender: SmsSender = { workspaceId: key.workspaceId, keyId: key.keyId, actor: keyActor(key) };
    const requestId = body.requestId;
    if (requestId === undefined) {
      return db.begin((tx) => queueSms(tx, app, sender, params.id, body.body, null, xRequestId)) as Promise<{
        id: string;
        threadId: string;
        status: "queued";
        body: string;
        createdAt: string;
      }>;
    }
    const answer = await db.begin((tx) =>
      idempotent(
        tx,
        {
          workspaceId: sender.workspaceId,
          operationId: "telephony.sendSms",
          requestId,
          body: { threadId: params.id, ...body },
        },
        async () => ({
          status: 202,
          body: await queueSms(tx, app, sender, params.id, body.body, requestId, xRequestId),
        }),
      ),
    );
    return ledgerReply(answer);
  },
});

/** A thread's messages both ways, newest first (extension). */
export const smsMessages = operation({
  id: "telephony.smsMessages",
  group: "telephony",
  method: "GET",
  path: "/telephony/sms/threads/:id/messages",
  summary: "A thread's messages, newest first.",
  extension: true,
  description: [
    "Lists the messages of a thread both ways: what the workspace sent and what the other party replied (STOP and",
    "START included: they are stored like any message, and set or clear the thread's `stopped`).",
    "",
    "- Order: `createdAt` descending, then `id` descending.",
    "- Outgoing messages move `queued` → `sending` → `sent` → `delivered`, or end `undelivered` / `failed` with the",
    "  provider's `errorCode` (`stopped`: still queued when the recipient texted STOP, so never sent). The provider's",
    "  delivery receipts never move a message backwards. Inbound messages are `received`.",
    "- Pages: `limit` (default 50, at most 200). When more messages follow, the answer carries",
    '  `Link: <…>; rel="next"`, an absolute URL repeating the query with a `cursor`. The body stays a plain array.',
    "- Unknown thread → 404 `SmsThreadNotFound {threadId}`.",
  ].join("\n"),
  params: Type.Object({ id: Id }, { additionalProperties: false }),
  query: MessagesQuery,
  response: Type.Array(SmsMessage, { title: "SmsMessages" }),
  responseHeaders: linkHeader,
  errors: [SmsThreadNotFound],
  run: async ({ db, principal, params, query, url }) => {
    // The last message listed: its created_at and id.
    const after =
      query.cursor === undefined ? undefined : decodeCursor(query.cursor, [cursorFields.instant, cursorFields.id]);
    if (!(await threadExists(db, principal.workspaceId, params.id))) {
      throw new SmsThreadNotFound({ threadId: params.id });
    }
    const limit = query.limit ?? 50;
    const rows = await messagesPage(db, {
      workspaceId: principal.workspaceId,
      threadId: params.id,
      after: after ? { at: after[0]!, id: after[1]! } : undefined,
      take: limit + 1,
    });
    return pageAnswer(rows, limit, url);
  },
});

/** Every operation of the group. */
export const operations = [smsThreads, sendSms, smsMessages];
