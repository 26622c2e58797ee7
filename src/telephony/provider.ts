/** SMS providers: the outbox (a table row and a log line, for running offline) and a Twilio-shaped HTTP API. */
import type { Config } from "../config.ts";
import type { Tx } from "../core/db.ts";
import type { Logger } from "../core/log.ts";
import { writeOutbox } from "./queries.ts";

/** One message to hand to a provider. */
export interface OutgoingSms {
  workspaceId: string;
  messageId: string;
  from: string;
  to: string;
  body: string;
}

/** A provider refused or failed a message; `permanent` ones are not retried. */
export class SmsSendError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
    this.name = "SmsSendError";
  }
}

/** Something that sends SMS. `send` runs inside the transaction that marks the message sent. */
export interface SmsProvider {
  kind: "outbox" | "http";
  /** Hands the message over and returns the provider's id for it; the message id is the idempotency key. */
  send(tx: Tx, sms: OutgoingSms): Promise<{ providerMessageId: string }>;
}

/** The offline provider: the message is written to `sms_outbox` (once) and logged. */
export function outboxProvider(log: Logger): SmsProvider {
  return {
    kind: "outbox",
    async send(tx, sms) {
      await writeOutbox(tx, sms);
      // Numbers and text are personal data: only at debug level, for a developer reading the outbox.
      log.info("sms outbox", { workspaceId: sms.workspaceId, messageId: sms.messageId, characters: sms.body.length });
      log.debug("sms outbox message", {
        workspaceId: sms.workspaceId,
        messageId: sms.messageId,
        from: sms.from,
        to: sms.to,
        body: sms.body,
      });
      return { providerMessageId: `outbox:${sms.messageId}` };
    },
  };
}

/** Where and how the HTTP provider is reached. */
export interface HttpProviderOptions {
  /** Base URL, e.g. https://api.twilio.com. */
  url: string;
  accountSid: string;
  authToken: string;
  /** Give up on one request after this long (it is then retried). */
  timeoutMs?: number;
  /** Where the provider posts the message's delivery receipts (`StatusCallback`): PUBLIC_BASE_URL/webhooks/sms. */
  statusCallbackUrl?: string;
}

/**
 * Twilio's Messages API shape: `POST {url}/2010-04-01/Accounts/{sid}/Messages.json`, form-encoded To, From
 * and Body (and StatusCallback, where receipts go), HTTP Basic with the account sid and token, and the message id
 * as `Idempotency-Key`, so a retried request cannot create a second message. 2xx with a `sid` is accepted; 408,
 * 429, 5xx and network faults are retried; any other 4xx is a permanent refusal.
 */
export function httpProvider(options: HttpProviderOptions): SmsProvider {
  const base = options.url.replace(/\/+$/, "");
  const endpoint = `${base}/2010-04-01/Accounts/${encodeURIComponent(options.accountSid)}/Messages.json`;
  const authorization = `Basic ${Buffer.from(`${options.accountSid}:${options.authToken}`).toString("base64")}`;
  return {
    kind: "http",
    async send(_tx, sms) {
      let response: Response;
      try {
        response = await fetch(endpoint, {
          method: "POST",
          headers: {
            authorization,
            "content-type": "application/x-www-form-urlencoded",
            accept: "application/json",
            "idempotency-key": sms.messageId,
          },
          body: new URLSearchParams({
            To: sms.to,
            From: sms.from,
            Body: sms.body,
            ...(options.statusCallbackUrl ? { StatusCallback: options.statusCallbackUrl } : {}),
          }).toString(),
          signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
        });
      } catch (error) {
        throw new SmsSendError(`provider unreachable: ${(error as Error)?.message ?? error}`, false);
      }
      const text = await response.text().catch(() => "");
      let parsed: { sid?: unknown; code?: unknown; message?: unknown } = {};
      try {
        parsed = JSON.parse(text);
      } catch {}
      if (response.ok) {
        if (typeof parsed.sid === "string" && parsed.sid) return { providerMessageId: parsed.sid };
        throw new SmsSendError(`provider answered ${response.status} without a message sid`, false);
      }
      const detail = [
        response.status,
        parsed.code,
        typeof parsed.message === "string" ? parsed.message : text.slice(0, 200),
      ]
        .filter((x) => x !== undefined && x !== "")
        .join(" ");
      const retryable = response.status === 408 || response.status === 429 || response.status >= 500;
      throw new SmsSendError(`provider refused: ${detail}`, !retryable);
    },
  };
}

/** The provider the configuration names: HTTP when SMS_PROVIDER_URL is set, else the outbox. */
export function smsProviderFor(config: Readonly<Config>, log: Logger): SmsProvider {
  if (!config.smsProviderUrl) return outboxProvider(log);
  return httpProvider({
    url: config.smsProviderUrl,
    accountSid: config.smsAccountSid ?? "",
    authToken: config.smsAuthToken ?? "",
    statusCallbackUrl: `${config.publicBaseUrl}/webhooks/sms`,
  });
}
