/**
 * An error as the one line kept with a failed attempt (an email's, a webhook's): its code, an SMTP reply code, and
 * its message, the code left out when the message already says it; at most 2,000 characters.
 */
export function errorText(error: unknown): string {
  const e = error as { message?: unknown; responseCode?: unknown; code?: unknown } | null;
  const message = String(e?.message ?? error);
  const code = typeof e?.code === "string" && e.code && !message.includes(e.code) ? e.code : undefined;
  return [code, e?.responseCode, message]
    .filter((x) => x !== undefined && x !== null && x !== "")
    .join(" ")
    .slice(0, 2000);
}
