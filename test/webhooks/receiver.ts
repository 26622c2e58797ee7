/** A real local webhook receiver for the tests: records every request and answers from a script. */
import { afterAll } from "bun:test";
import { loadConfig } from "../../src/config.ts";
import type { AppContext } from "../../src/core/operation.ts";
import type { Db } from "../../src/core/db.ts";
import { createSubscription } from "../../src/webhooks/subscriptions.ts";
import type { Harness, TestWorkspace } from "../support/harness.ts";

/** One request the receiver got. */
export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  at: number;
}

/**
 * How the receiver answers one request: a status, a hang (never answers), a slow, endless body, or a 200 whose body
 * stalls after its first bytes.
 */
export type Answer = number | "hang" | "endless" | "stall";

/** A receiver on 127.0.0.1. */
export interface Receiver {
  url: string;
  received: Received[];
  /** Answers for the next requests, in order; then `fallback`. */
  answers: Answer[];
  fallback: Answer;
  /** Requests being answered right now, by webhook-id (to see overlapping attempts). */
  inFlight: Map<string, number>;
  /** The most requests with one webhook-id in flight at once. */
  maxOverlap: number;
  /** Resolves once `n` requests arrived. */
  count(n: number, timeoutMs?: number): Promise<void>;
  stop(): void;
}

/** Starts a receiver; `delayMs` holds every answer that long (to widen windows). */
export function startReceiver(options: { delayMs?: number } = {}): Receiver {
  const receiver: Receiver = {
    url: "",
    received: [],
    answers: [],
    fallback: 200,
    inFlight: new Map(),
    maxOverlap: 0,
    async count(n, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      while (receiver.received.length < n) {
        if (Date.now() > deadline) throw new Error(`the receiver got ${receiver.received.length} of ${n} requests`);
        await Bun.sleep(25);
      }
    },
    stop: () => server.stop(true),
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(request) {
      const id = request.headers.get("webhook-id") ?? "";
      const body = await request.text();
      receiver.received.push({
        id,
        timestamp: request.headers.get("webhook-timestamp") ?? "",
        signature: request.headers.get("webhook-signature") ?? "",
        body,
        at: Date.now(),
      });
      const now = (receiver.inFlight.get(id) ?? 0) + 1;
      receiver.inFlight.set(id, now);
      receiver.maxOverlap = Math.max(receiver.maxOverlap, now);
      const answer = receiver.answers.shift() ?? receiver.fallback;
      try {
        if (options.delayMs) await Bun.sleep(options.delayMs);
        if (answer === "hang") {
          await new Promise(() => {});
        }
        if (answer === "stall") {
          const stream = new ReadableStream({
            start(controller) {
              controller.enqueue(new TextEncoder().encode("accepted, and then"));
            },
            pull: () => new Promise<void>(() => {}),
          });
          return new Response(stream, { status: 200 });
        }
        if (answer === "endless") {
          let sent = 0;
          const stream = new ReadableStream({
            async pull(controller) {
              await Bun.sleep(5);
              sent++;
              controller.enqueue(new TextEncoder().encode(`${"x".repeat(4096)}${sent}`));
            },
          });
          return new Response(stream, { status: 200 });
        }
        return new Response(`answer ${answer} ${"é".repeat(2000)}`, { status: answer as number });
      } finally {
        receiver.inFlight.set(id, (receiver.inFlight.get(id) ?? 1) - 1);
      }
    },
  });
  receiver.url = `http://127.0.0.1:${server.port}/hooks`;
  return receiver;
}

/**
 * The app context of a webhook test: the harness's, with private receivers allowed (they listen on 127.0.0.1), a
 * 1.5 s attempt timeout and the given retry delays (seconds).
 */
export function webhookContext(h: Harness, retryDelays: string): AppContext {
  const config = loadConfig({
    ...process.env,
    DATABASE_URL: h.database.url,
    WEBHOOKS_ALLOW_PRIVATE: "true",
    WEBHOOK_RETRY_DELAYS: retryDelays,
    WEBHOOK_TIMEOUT_MS: "1500",
  });
  return { ...h.ctx, config };
}

/** A function that starts receivers for the calling test file, every one of them stopped after its last test. */
export function fileReceivers(): (options?: { delayMs?: number }) => Receiver {
  const started: Receiver[] = [];
  afterAll(() => {
    for (const r of started) r.stop();
  });
  return (options) => {
    const r = startReceiver(options);
    started.push(r);
    return r;
  };
}

/** Subscribes `ws` to `url` for `events` (every type by default); receivers on 127.0.0.1 are allowed. */
export function subscribe(db: Db, ws: TestWorkspace, url: string, events = "*") {
  return createSubscription(db, { workspace: ws.slug, url, events }, { allowPrivate: true });
}
