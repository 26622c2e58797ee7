/**
 * A signed post of the SMS provider, read field by field: every field the service reads must have the shape the
 * provider documents, checked before anything is claimed or stored.
 *
 * Why strict shapes: Twilio's signature concatenates names and values with no separator, so a captured post can be
 * re-cut without breaking it (`MessageSid=SM…NumMedia0` with `NumMedia` dropped signs the same). A sid of exactly
 * its documented form cannot absorb the next field, so the duplicate check keys on the one sid the provider sent.
 */
import { RequestInvalid, WebhookRejected } from "../core/errors.ts";
import { textIssues } from "../core/storable_text.ts";
import { e164 } from "./numbers.ts";
import { providerStatuses } from "./receipts.ts";

/** An inbound message as the provider posts it. */
export interface InboundPost {
  kind: "inbound";
  messageSid: string;
  from: string;
  to: string;
  body: string;
}

/** A delivery receipt as the provider posts it: the status and error code as sent. */
export interface ReceiptPost {
  kind: "receipt";
  messageSid: string;
  /** The provider's MessageStatus, one it documents. */
  messageStatus: string;
  errorCode: string | null;
  /** Our number (the receipt's From) and the recipient (its To). */
  from: string;
  to: string;
}

/** A shape: a pattern or a set of values, and how a refusal names it. */
interface Shape {
  test: (value: string) => boolean;
  what: string;
}

const pattern = (re: RegExp, what: string): Shape => ({ test: (v) => re.test(v), what });

/** The documented form of each kind of field the service reads (OpenAPI shows them too). */
export const fieldPatterns = {
  messageSid: /^(SM|MM)[0-9a-f]{32}$/,
  accountSid: /^AC[0-9a-f]{32}$/,
  number: e164,
  count: /^[0-9]{1,3}$/,
  errorCode: /^[0-9]{0,10}$/,
} as const;

const messageSid = pattern(fieldPatterns.messageSid, "SM or MM and 32 lower-case hex digits");
const accountSid = pattern(fieldPatterns.accountSid, "AC and 32 lower-case hex digits");
const number = pattern(fieldPatterns.number, "an E.164 number");
const count = pattern(fieldPatterns.count, "a count in digits");
const errorCode = pattern(fieldPatterns.errorCode, "an error code in digits (or empty)");
const status: Shape = { test: (v) => providerStatuses.has(v), what: "a MessageStatus the provider documents" };

const rejected = (reason: string) => new WebhookRejected({ integration: "sms", reason });

/** The one value of `name` (repeated: refused), checked against `shape` when given; undefined when absent. */
function optional(form: URLSearchParams, name: string, shape?: Shape): string | undefined {
  const values = form.getAll(name);
  if (values.length > 1) throw rejected(`${name} is repeated`);
  const value = values[0];
  if (value !== undefined && shape && !shape.test(value)) throw rejected(`${name} is not ${shape.what}`);
  return value;
}

/** The one value of `name`, of `shape`; absent or repeated: refused. */
function required(form: URLSearchParams, name: string, shape: Shape): string {
  const value = optional(form, name, shape);
  if (value === undefined) throw rejected(`${name} is missing`);
  return value;
}

/**
 * What a signed post says: an inbound message, or a receipt (a MessageStatus other than `received`). Text the
 * database cannot store, in any field or field name, is RequestInvalid (400, as on every route); a field the
 * service reads without its documented shape, absent or repeated is WebhookRejected (401), the post being none the
 * provider sent: MessageSid (and SmsSid, SmsMessageSid, its legacy copies, when sent) `SM`/`MM` + 32 hex digits,
 * AccountSid `AC` + 32, From and To E.164, NumMedia digits (inbound), MessageStatus and SmsStatus documented
 * statuses, ErrorCode digits (or empty). Other fields (the provider adds some without notice) are not read.
 */
export function providerPost(form: URLSearchParams): InboundPost | ReceiptPost {
  const fields = Object.fromEntries(
    [...new Set(form.keys())].map((name) => {
      const values = form.getAll(name);
      return [name, values.length > 1 ? values : values[0]];
    }),
  );
  const issues = textIssues(fields, "/body");
  if (issues.length) throw new RequestInvalid({ message: "The body does not match its schema.", issues });
  const sid = required(form, "MessageSid", messageSid);
  for (const copy of ["SmsSid", "SmsMessageSid"]) {
    const value = optional(form, copy);
    if (value !== undefined && value !== sid) throw rejected(`${copy} is not MessageSid`);
  }
  required(form, "AccountSid", accountSid);
  const from = required(form, "From", number);
  const to = required(form, "To", number);
  const messageStatus = optional(form, "MessageStatus", status);
  optional(form, "SmsStatus", status);
  if (messageStatus !== undefined && messageStatus !== "received") {
    // Empty is no code, as absent is.
    const code = optional(form, "ErrorCode", errorCode) || null;
    return { kind: "receipt", messageSid: sid, messageStatus, errorCode: code, from, to };
  }
  required(form, "NumMedia", count);
  return { kind: "inbound", messageSid: sid, from, to, body: optional(form, "Body") ?? "" };
}
