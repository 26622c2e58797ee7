/** `bun run dev`'s ready `curl` line: a signed inbound SMS to the demo workspace, as the provider would post it. */
import { ulid } from "ulid";
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
  const form = new URLSearchParams({ MessageSid: `SM${ulid()}`, From: o.from, To: o.to, Body: o.body });
  const signature = twilioSignature(o.authToken, `${o.publicBaseUrl}/webhooks/sms`, form);
  return (
    `curl -s -H 'x-twilio-signature: ${signature}' -H 'content-type: application/x-www-form-urlencoded' ` +
    `--data '${form.toString()}' ${o.base}/webhooks/sms`
  );
}
