/** Delivery receipts: the provider's MessageStatus values and the order an outgoing message moves in. */

/** Every MessageStatus the provider documents (Twilio's Message resource): what a post's MessageStatus may be. */
export const providerStatuses: ReadonlySet<string> = new Set([
  "queued",
  "sending",
  "sent",
  "failed",
  "delivered",
  "undelivered",
  "receiving",
  "received",
  "accepted",
  "scheduled",
  "read",
  "partially_delivered",
  "canceled",
]);

/** Our status for each MessageStatus a receipt may carry (receiving, received and partially_delivered: none). */
const fromProvider: Record<string, string> = {
  accepted: "queued",
  scheduled: "queued",
  queued: "queued",
  sending: "sending",
  sent: "sent",
  delivered: "delivered",
  read: "delivered",
  undelivered: "undelivered",
  failed: "failed",
  canceled: "failed",
};

const rank: Record<string, number> = { queued: 0, sending: 1, sent: 2, delivered: 3, undelivered: 3, failed: 3 };

/** Our status for a provider's MessageStatus; undefined for one this service does not know. */
export function statusOfReceipt(messageStatus: string): string | undefined {
  return Object.hasOwn(fromProvider, messageStatus) ? fromProvider[messageStatus] : undefined;
}

/**
 * Whether a message at `current` moves to `next`: only forward (receipts arrive out of order), and never out of
 * an end state (delivered, undelivered, failed).
 */
export function movesForward(current: string, next: string): boolean {
  return (rank[next] ?? -1) > (rank[current] ?? 3);
}
