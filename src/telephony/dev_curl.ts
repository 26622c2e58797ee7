/** `bun run dev`'s ready `curl` line: a signed inbound SMS to the demo workspace, as the provider would post it. */
import { randomBytes } from "node:crypto";
import { twilioSignature } from "./signature.ts";

/** The shell line; `base` is where the service listens, `publicBaseUrl` what the signature covers. */
export function signedInboundCurl(o: {
  base: string;
  publicBaseUrl: string;
  authToken: string;
  from: string;
  to: string;
  body: string;
}): string {
  // The fields the webhook reads, in the provider's shapes: a fresh sid each run, an account sid of zeros.
  const form = new URLSearchParams({
    MessageSid: `SM${randomBytes(16).toString("hex")}`,
    AccountSid: `AC${"0".repeat(32)}`,
    From: o.from,
    To: o.to,
    Body: o.body,
    NumMedia: "0",
  });
  const signature = twilioSignature(o.authToken, `${o.publicBaseUrl}/webhooks/sms`, form);
  return (
    `curl -s -H 'x-twilio-signature: ${signature}' -H 'content-type: application/x-www-form-urlencoded' ` +
    `--data '${form.toString()}' ${o.base}/webhooks/sms`
  );
}
