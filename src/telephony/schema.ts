/** TypeBox schemas of the telephony group. */
import { Type } from "@sinclair/typebox";
import { Id, Instant, Nullable, Strict } from "../core/schema.ts";
import { Cursor, Limit } from "../core/pagination.ts";

/** The longest SMS body: six concatenated GSM-7 segments of 153 characters. */
export const maxSmsLength = 918;

/** An SMS thread. */
export const SmsThread = Strict(
  {
    id: Id,
    localNumber: Type.String({ description: "The workspace's number the thread uses (E.164)." }),
    address: Type.String({ description: "The other party's number (E.164)." }),
    contact: Nullable(Strict({ id: Id, name: Type.String() }, { title: "SmsThreadContact" })),
    revision: Type.Integer({
      minimum: 1,
      description: "Goes up by one with every change, a message sent on the thread included.",
    }),
    lastMessageAt: Nullable(
      Type.String({
        ...Instant,
        description: "When the latest message, either way, was sent or received; null while the thread has none.",
      }),
    ),
    lastInboundAt: Nullable(Type.String({ ...Instant, description: "When the other party last wrote." })),
    preview: Nullable(Type.String({ description: "The start of the latest message (at most 160 characters)." })),
    stopped: Type.Boolean({
      description: "true when the other party texted STOP: nothing more can be sent on the thread.",
    }),
  },
  {
    title: "SmsThread",
    description: "An SMS conversation with one number. Every field is present; a field with no value is null.",
  },
);

/** The thread list's query parameters. */
export const ThreadsQuery = Strict({
  contactId: Type.Optional(Type.String({ ...Id, description: "Only threads linked to this contact." })),
  stopped: Type.Optional(
    Type.Boolean({ description: "`true`: only stopped threads; `false`: only threads that can still be written to." }),
  ),
  limit: Type.Optional(Limit(50, 200)),
  cursor: Type.Optional(Cursor),
});

/** The body of an outgoing SMS. */
export const SendSmsBody = Strict(
  {
    body: Type.String({
      minLength: 1,
      maxLength: maxSmsLength,
      pattern: "\\S",
      description:
        `The text, 1 to ${maxSmsLength} characters counted as UTF-16 code units (an emoji counts 2), ` +
        `not only white space. Long texts go as concatenated SMS.`,
    }),
    requestId: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 128,
        pattern: "^[\\x21-\\x7e][\\x20-\\x7e]*$",
        description:
          "1 to 128 printable characters. A retry with the same requestId (and the same thread and body) replays " +
          "the first answer, byte for byte, with `Idempotent-Replayed: true`, and sends nothing more; with " +
          "another body or thread it is 422 `RequestIdReused`.",
      }),
    ),
  },
  { title: "SendSmsBody" },
);

/** The answer to a send: the message as queued. */
export const QueuedSms = Strict(
  {
    id: Id,
    threadId: Id,
    status: Type.Literal("queued", {
      description: "Always `queued` in this answer: the message is handed to the provider by a worker.",
    }),
    body: Type.String(),
    createdAt: Instant,
  },
  { title: "QueuedSms" },
);

/** Where a message stands: outgoing ones move forward only (see receipts.ts); inbound ones are `received`. */
export const smsStatuses = ["queued", "sending", "sent", "delivered", "undelivered", "failed", "received"] as const;

/** One message of a thread, either way. */
export const SmsMessage = Strict(
  {
    id: Id,
    threadId: Id,
    direction: Type.Union([Type.Literal("inbound"), Type.Literal("outbound")], {
      description: "`inbound`: the other party wrote it; `outbound`: sent from the workspace's number.",
    }),
    body: Type.String({ description: "The text (an inbound message with only a picture has an empty body)." }),
    status: Type.Union(
      smsStatuses.map((s) => Type.Literal(s)),
      {
        description:
          "Inbound: `received`. Outgoing: `queued` → `sending` → `sent` → `delivered`, or `undelivered` / " +
          "`failed`; it never moves backwards, whatever order the provider's receipts arrive in.",
      },
    ),
    errorCode: Nullable(
      Type.String({
        description:
          "Why an outgoing message was not delivered: the provider's ErrorCode, or `stopped` when the recipient " +
          "texted STOP before it was sent. null otherwise.",
      }),
    ),
    createdAt: Instant,
    sentAt: Nullable(Type.String({ ...Instant, description: "When the provider accepted it (outgoing)." })),
    deliveredAt: Nullable(Type.String({ ...Instant, description: "When the provider reported it delivered." })),
  },
  { title: "SmsMessage", description: "An SMS of a thread. Every field is present; a field with no value is null." },
);

/** The message list's query parameters. */
export const MessagesQuery = Strict({
  limit: Type.Optional(Limit(50, 200)),
  cursor: Type.Optional(Cursor),
});
