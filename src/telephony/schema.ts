/** TypeBox schemas of the telephony group. */
import { Type } from "@sinclair/typebox";
import { Id, Instant, Nullable, Strict } from "../core/operation.ts";
import { Cursor, Limit } from "../core/pagination.ts";

/** The longest SMS body: six concatenated GSM-7 segments of 153 characters. */
export const maxSmsLength = 918;

/** An SMS thread (API.md, SMS thread). */
export const SmsThread = Strict(
  {
    id: Id,
    localNumber: Type.String({ description: "The workspace's number the thread uses (E.164)." }),
    address: Type.String({ description: "The other party's number (E.164)." }),
    contact: Nullable(Strict({ id: Id, name: Type.String() }, { title: "SmsThreadContact" })),
    revision: Type.Integer({ minimum: 1, description: "Goes up by one with every change, a message sent on the thread included." }),
    lastMessageAt: Nullable(Type.String({ ...Instant, description: "When the latest message, either way, was sent or received; null while the thread has none." })),
    lastInboundAt: Nullable(Type.String({ ...Instant, description: "When the other party last wrote." })),
    preview: Nullable(Type.String({ description: "The start of the latest message (at most 160 characters)." })),
    stopped: Type.Boolean({ description: "true when the other party texted STOP: nothing more can be sent on the thread." }),
  },
  { title: "SmsThread", description: "An SMS conversation with one number. Every field is present; a field with no value is null." },
);

/** The thread list's query parameters. */
export const ThreadsQuery = Strict({
  contactId: Type.Optional(Type.String({ ...Id, description: "Only threads linked to this contact." })),
  stopped: Type.Optional(Type.Boolean({ description: "`true`: only stopped threads; `false`: only threads that can still be written to." })),
  limit: Type.Optional(Limit(50, 200)),
  cursor: Type.Optional(Cursor),
});

/** The body of an outgoing SMS. */
export const SendSmsBody = Strict(
  {
    body: Type.String({
      minLength: 1, maxLength: maxSmsLength, pattern: "\\S",
      description: `The text, 1 to ${maxSmsLength} characters counted as UTF-16 code units (an emoji counts 2), not only white space. Long texts go as concatenated SMS.`,
    }),
    requestId: Type.Optional(Type.String({
      minLength: 1, maxLength: 128, pattern: "^[\\x21-\\x7e][\\x20-\\x7e]*$",
      description: "1 to 128 printable characters. A retry with the same requestId (and the same thread and body) replays the first answer, byte for byte, with `Idempotent-Replayed: true`, and sends nothing more; with another body or thread it is 422 `RequestIdReused`.",
    })),
  },
  { title: "SendSmsBody" },
);

/** The answer to a send: the message as queued. */
export const QueuedSms = Strict(
  {
    id: Id,
    threadId: Id,
    status: Type.Literal("queued", { description: "Always `queued` in this answer: the message is handed to the provider by a worker." }),
    body: Type.String(),
    createdAt: Instant,
  },
  { title: "QueuedSms" },
);
