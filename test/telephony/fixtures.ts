/** Threads and a fake SMS provider for the telephony tests. */
import { ulid } from "ulid";
import twilio from "twilio";
import type { Db } from "../../src/core/db.ts";

/** The fields a test may set on a thread. */
export interface ThreadFields {
  id?: string;
  localNumber?: string;
  address?: string;
  contactId?: string | null;
  lastMessageAt?: string | null;
  lastInboundAt?: string | null;
  preview?: string | null;
  stopped?: boolean;
}

/** An account sid of the provider's documented shape (AC and 32 hex digits), for the posts the tests sign. */
export const testAccountSid = `AC${"0".repeat(32)}`;

/** Inserts an SMS thread and returns its id. */
export async function insertThread(db: Db, workspaceId: string, fields: ThreadFields = {}): Promise<string> {
  const id = fields.id ?? ulid();
  await db`
    insert into sms_threads (workspace_id, id, local_number, address, contact_id, last_message_at, last_inbound_at, preview, stopped)
    values (${workspaceId}, ${id}, ${fields.localNumber ?? "+447700900001"}, ${fields.address ?? "+447700900123"}, ${fields.contactId ?? null},
            ${fields.lastMessageAt ?? null}::text::timestamptz, ${fields.lastInboundAt ?? null}::text::timestamptz,
            ${fields.preview ?? null}, ${fields.stopped ?? false})`;
  return id;
}

/** One request the fake provider received. */
export interface ProviderRequest {
  path: string;
  authorization: string | null;
  idempotencyKey: string | null;
  to: string | null;
  from: string | null;
  body: string | null;
  statusCallback: string | null;
}

/** What the fake answers one request with: a status and JSON, or "create" (201 with a sid, deduplicated by key). */
export type FakeAnswer = "create" | { status: number; json: unknown };

/** A Twilio-shaped provider on 127.0.0.1: it creates one message per Idempotency-Key, like a real provider. */
export interface FakeProvider {
  url: string;
  /** Every request received, in order. */
  requests: ProviderRequest[];
  /** The messages created, by idempotency key, with the sid given. */
  created: Map<string, { sid: string; request: ProviderRequest }>;
  /** Answers for the next requests, in order; once used up every request is answered "create". */
  answers: FakeAnswer[];
  /** When set, the next request is held (after being recorded and created) until `release()`. */
  holdNext: boolean;
  /**
   * Delivery receipts to post back, signed with `token`, to a created message's StatusCallback once it is answered:
   * the statuses in order, one after the other. The service's answers are kept in `receiptAnswers`.
   */
  receipts: { token: string; statuses: string[] } | undefined;
  receiptAnswers: { status: string; answer: number }[];
  /** Resolves once `n` requests were received. */
  received(n: number): Promise<void>;
  /** Answers a held request. */
  release(): void;
  stop(): void;
}

/** Starts the fake provider on a free port. */
export function startFakeProvider(): FakeProvider {
  const waiters: { n: number; resolve: () => void }[] = [];
  let releaseHeld: (() => void) | undefined;
  let sids = 0;
  const fake: FakeProvider = {
    url: "",
    requests: [],
    created: new Map(),
    answers: [],
    holdNext: false,
    receipts: undefined,
    receiptAnswers: [],
    received: (n) =>
      new Promise<void>((resolve) => {
        if (fake.requests.length >= n) resolve();
        else waiters.push({ n, resolve });
      }),
    release: () => releaseHeld?.(),
    stop: () => server.stop(true),
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const form = new URLSearchParams(await request.text());
      const req: ProviderRequest = {
        path: new URL(request.url).pathname,
        authorization: request.headers.get("authorization"),
        idempotencyKey: request.headers.get("idempotency-key"),
        to: form.get("To"),
        from: form.get("From"),
        body: form.get("Body"),
        statusCallback: form.get("StatusCallback"),
      };
      fake.requests.push(req);
      const answer = fake.answers.shift() ?? "create";
      let response: Response;
      if (answer === "create") {
        const key = req.idempotencyKey ?? `anonymous-${fake.requests.length}`;
        let made = fake.created.get(key);
        if (!made) {
          made = { sid: `SM${String(++sids).padStart(32, "0")}`, request: req };
          fake.created.set(key, made);
        }
        response = Response.json(
          { sid: made.sid, status: "queued", to: req.to, from: req.from, body: req.body },
          { status: 201 },
        );
        const plan = fake.receipts;
        const { sid } = made;
        if (plan && req.statusCallback) {
          // After this answer is on its way: the service may see a receipt before its worker recorded the sid.
          setTimeout(async () => {
            for (const status of plan.statuses) {
              // `undelivered:30003`: a status with the provider's ErrorCode
              const [messageStatus, errorCode] = status.split(":");
              const fields: Record<string, string> = {
                MessageSid: sid,
                MessageStatus: messageStatus!,
                From: req.from!,
                To: req.to!,
                AccountSid: testAccountSid,
                ...(errorCode ? { ErrorCode: errorCode } : {}),
              };
              const answer = await postSigned(req.statusCallback!, plan.token, fields);
              fake.receiptAnswers.push({ status, answer: answer.status });
            }
          }, 0);
        }
      } else {
        response = Response.json(answer.json, { status: answer.status });
      }
      for (const w of waiters.filter((w) => fake.requests.length >= w.n)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
      if (fake.holdNext) {
        fake.holdNext = false;
        await new Promise<void>((resolve) => (releaseHeld = resolve));
      }
      return response;
    },
  });
  fake.url = `http://127.0.0.1:${server.port}`;
  return fake;
}

/** Waits until `check` returns a value that is not undefined; fails after `timeoutMs`. */
export async function until<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

/** Posts form fields to `url` signed as Twilio does, the signature computed by the official `twilio` package. */
export function postSigned(
  url: string,
  token: string,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "x-twilio-signature": twilio.getExpectedTwilioSignature(token, url, fields),
      ...headers,
    },
    body: new URLSearchParams(fields).toString(),
  });
}
