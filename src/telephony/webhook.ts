/**
 * `POST /webhooks/{integration}`: the SMS provider's signed form posts (inbound messages and delivery receipts),
 * answered with empty TwiML. Public: the signature, not an API key, authenticates the provider.
 */
import {
  AppError,
  RequestInvalid,
  UnknownIntegration,
  WebhookDuplicate,
  WebhookRejected,
  WebhookUnroutable,
} from "../core/errors.ts";
import type { PublicRequest, PublicRoute, PublicRouteDoc } from "../core/public_route.ts";
import { applySmsReceipt, receiveSms } from "./inbound.ts";
import { fieldPatterns, providerPost } from "./provider_post.ts";
import { providerStatuses, statusOfReceipt } from "./receipts.ts";
import { signatureValid } from "./signature.ts";

/** The integrations that post webhooks. */
export const webhookIntegrations = ["sms"] as const;

/** The answer to an accepted post: empty TwiML, which tells the provider to do nothing more. */
export const emptyTwiml = '<?xml version="1.0" encoding="UTF-8"?><Response/>';

const integration = "sms";

const rejected = (reason: string) => new WebhookRejected({ integration, reason });
const unroutable = (reason: string) => new WebhookUnroutable({ integration, reason });

/** The form of a post whose signature checks out with SMS_AUTH_TOKEN, else WebhookRejected. */
function verifiedForm(req: PublicRequest): URLSearchParams {
  const token = req.app.config.smsAuthToken;
  if (!token) throw rejected("SMS_AUTH_TOKEN is not set: no signature can be checked");
  const type = (req.request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") throw rejected("the body is not application/x-www-form-urlencoded");
  const header = req.request.headers.get("x-twilio-signature");
  if (!header) throw rejected("no X-Twilio-Signature header");
  const form = new URLSearchParams(req.body ?? "");
  const url = req.app.config.publicBaseUrl + req.url.pathname + req.url.search;
  if (!signatureValid(token, url, form, header)) throw rejected("the signature does not match");
  return form;
}

async function receive(req: PublicRequest): Promise<void> {
  const post = providerPost(verifiedForm(req));
  if (post.kind === "receipt") {
    const status = statusOfReceipt(post.messageStatus);
    if (!status) throw unroutable("MessageStatus is not one this service knows");
    const { messageSid, messageStatus, errorCode, from, to } = post;
    const receipt = { messageSid, providerStatus: messageStatus, status, errorCode, from, to };
    await applySmsReceipt(req.app.db, receipt, req.requestId, req.logged);
    return;
  }
  if (post.body.length > 1600) throw unroutable("Body is longer than 1600 characters");
  await receiveSms(req.app.db, post, req.requestId, req.logged);
}

const form = (description: string, shape: { pattern?: string; enum?: string[] } = {}) => ({
  type: "string",
  description,
  ...shape,
});
const sid = fieldPatterns.messageSid.source;
const e164 = fieldPatterns.number.source;

/** What OpenAPI says of the webhook route. */
const webhookDoc: PublicRouteDoc = {
  tag: "webhooks",
  summary: "Receives the SMS provider's inbound messages and delivery receipts.",
  description: [
    "Public: no API key. The SMS provider (Twilio, or one posting Twilio's shape) calls this for each inbound",
    "message and each delivery receipt of a message the service sent. Paste `PUBLIC_BASE_URL/webhooks/sms` into the",
    "provider's console as the number's *A message comes in* webhook (HTTP POST) and as the *Status callback URL*;",
    "the service also names it as each message's `StatusCallback`.",
    "",
    "- Authentication: `X-Twilio-Signature`, the base64 HMAC-SHA1, keyed with `SMS_AUTH_TOKEN`, of the public URL",
    "  (`PUBLIC_BASE_URL` + path + query, as the provider saw it) followed by every form field's name and value,",
    "  names sorted. Missing, wrong, or no token configured → 401 `WebhookRejected {integration, reason}`.",
    "- Only `application/x-www-form-urlencoded` bodies (the one route that takes no JSON), at most 64 KiB (413).",
    "- `integration`: `sms` only; anything else → 400 `UnknownIntegration {integration}`.",
    "- A field or field name holding the NUL character (`%00`) → 400 `RequestInvalid` naming it (`/body/Body`).",
    "- Every field the service reads must have the shape the provider documents, once: `MessageSid` (and `SmsSid`,",
    "  `SmsMessageSid`, equal to it, when sent) `SM` or `MM` + 32 lower-case hex digits, `AccountSid` `AC` + 32,",
    "  `From` and `To` E.164, `NumMedia` (inbound) digits, `MessageStatus` and `SmsStatus` statuses the provider",
    "  documents, `ErrorCode` digits. Otherwise → 401 `WebhookRejected`: the signature signs names and values run",
    "  together, so a post re-cut to move fields into `MessageSid` still verifies; it is no post the provider sent.",
    "  Other fields are not read.",
    "- A post with `MessageStatus` (other than `received`) is a receipt: the message the service sent with that",
    "  `MessageSid` moves to `sent`, `delivered`, `undelivered` or `failed` (with `ErrorCode`), never backwards; a",
    "  receipt behind the message's status is accepted and changes nothing. Unknown `MessageSid`, or a status no",
    "  receipt moves to (`receiving`, `partially_delivered`) → 400 `WebhookUnroutable`.",
    "- Any other post is an inbound message: stored on the thread of its `To` (a workspace's number, from the",
    "  import or `bun run cli sms-number add`) and `From` (a new sender opens a thread, linked to the contact whose",
    "  normalised mobile matches if exactly one does). `To` that is no workspace's number → 400 `WebhookUnroutable`.",
    "  First word STOP, STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT, OPTOUT or REVOKE stops the thread and fails its",
    "  queued messages (errorCode `stopped`); START, UNSTOP or YES clears it. The word is matched in any case and",
    "  form (NFKC: full-width `ＳＴＯＰ` is `STOP`), invisible format characters removed, punctuation, symbols and",
    "  emoji around it dropped (`“Stop”`, `STOP🛑`, `stop。`); inside it they stay (`End-of-tenancy` is no keyword).",
    "- The same `MessageSid` again (for receipts: the same `MessageSid` and `MessageStatus`) → 409",
    "  `WebhookDuplicate {integration, externalId}`; concurrent duplicates store one. Every refusal changes nothing.",
    "- Each client address may post `WEBHOOK_BUDGET_PER_MINUTE` times a minute (600 unless configured) to an",
    "  integration (bucket `webhooks/<integration>`): beyond that 429 `RateLimited` with `Retry-After`.",
    "- Success: 200 with empty TwiML (`<Response/>`, `text/xml`, `nosniff`, `no-store`): the provider sends no",
    "  reply of its own.",
  ].join("\n"),
  parameters: [
    {
      name: "integration",
      in: "path",
      required: true,
      description: "The integration posting: `sms`.",
      schema: { type: "string", enum: [...webhookIntegrations] },
    },
    {
      name: "X-Twilio-Signature",
      in: "header",
      required: true,
      description: "The provider's signature of the request (see the description).",
      schema: { type: "string" },
    },
  ],
  requestBody: {
    "application/x-www-form-urlencoded": {
      schema: {
        type: "object",
        required: ["MessageSid", "AccountSid", "From", "To"],
        properties: {
          MessageSid: form("The provider's id of the message.", { pattern: sid }),
          SmsSid: form("The same id (legacy); when sent, equal to MessageSid.", { pattern: sid }),
          SmsMessageSid: form("The same id (legacy); when sent, equal to MessageSid.", { pattern: sid }),
          AccountSid: form("The provider's account.", { pattern: fieldPatterns.accountSid.source }),
          From: form("Inbound: the sender. Receipt: the workspace's number.", { pattern: e164 }),
          To: form("Inbound: the workspace's number. Receipt: the recipient.", { pattern: e164 }),
          NumMedia: form("Inbound (required there): the number of pictures, which are not kept.", {
            pattern: fieldPatterns.count.source,
          }),
          Body: form("Inbound: the text (at most 1600 characters; empty for a picture alone)."),
          MessageStatus: form("Receipt: the message's status; `received` (or none) is an inbound message.", {
            enum: [...providerStatuses],
          }),
          SmsStatus: form("The status (legacy).", { enum: [...providerStatuses] }),
          ErrorCode: form("Receipt: the provider's error code of an undelivered or failed message (or empty).", {
            pattern: fieldPatterns.errorCode.source,
          }),
        },
        additionalProperties: { type: "string" },
      },
    },
  },
  success: {
    status: 200,
    response: {
      description: "Accepted: empty TwiML.",
      content: {
        "text/xml": { schema: { type: "string", example: '<?xml version="1.0" encoding="UTF-8"?><Response/>' } },
      },
    },
  },
  errors: [UnknownIntegration, RequestInvalid, WebhookUnroutable, WebhookRejected, WebhookDuplicate],
};

/** The webhook route: budget `webhooks/<integration>` per address (WEBHOOK_BUDGET_PER_MINUTE). */
export const webhookRoute: PublicRoute = {
  id: "webhooks.receive",
  method: "POST",
  path: "/webhooks/:integration",
  budget: {
    // Unknown integrations share one bucket, so made-up names cannot create buckets.
    name: (p) =>
      `webhooks/${(webhookIntegrations as readonly string[]).includes(p.integration!) ? p.integration : "unknown"}`,
    perMinute: (config) => config.webhookBudgetPerMinute,
  },
  openapi: webhookDoc,
  async handle(req) {
    try {
      if (req.params.integration !== integration) {
        throw new UnknownIntegration({ integration: String(req.params.integration).slice(0, 100) });
      }
      await receive(req);
    } catch (error) {
      if (error instanceof AppError) {
        req.app.log.warn("webhook refused", { requestId: req.requestId, ...error.toBody() });
      }
      throw error;
    }
    return new Response(emptyTwiml, {
      status: 200,
      headers: {
        "content-type": "text/xml; charset=utf-8",
        // For the provider only: never sniffed as another type, never kept by a cache.
        "x-content-type-options": "nosniff",
        "cache-control": "no-store",
        "x-request-id": req.requestId,
      },
    });
  },
};
