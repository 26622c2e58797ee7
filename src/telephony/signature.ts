/** Twilio's request signature (X-Twilio-Signature), computed and checked. */
import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * The signature Twilio sends for a form POST: HMAC-SHA1 with the auth token over the full URL followed by each
 * field's name and value, names in code-unit order (a repeated field's distinct values sorted), in base64.
 */
export function twilioSignature(authToken: string, url: string, form: URLSearchParams): string {
  let data = url;
  for (const name of [...new Set(form.keys())].sort()) {
    for (const value of [...new Set(form.getAll(name))].sort()) data += name + value;
  }
  return createHmac("sha1", authToken).update(Buffer.from(data, "utf8")).digest("base64");
}

/** Whether `header` is the signature of the request, compared in constant time. */
export function signatureValid(authToken: string, url: string, form: URLSearchParams, header: string): boolean {
  const expected = Buffer.from(twilioSignature(authToken, url, form));
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
