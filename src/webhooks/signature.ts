/** Standard Webhooks secrets and signatures: `whsec_` + base64 keys, `v1,<base64 HMAC-SHA256 of id.timestamp.body>`. */
import { createHmac, randomBytes } from "node:crypto";

/** A new signing secret: `whsec_` and 32 random bytes in base64. */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/** The `webhook-signature` header: one `v1,<signature>` for each secret, separated by spaces. */
export function signatureHeader(secrets: readonly string[], id: string, timestamp: number, body: string): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
      return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
    })
    .join(" ");
}
