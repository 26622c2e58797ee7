/**
 * Sending a link email once, by its delivery ledger (the landlord's invitation, the contractor's works order): the
 * ledger row is locked, the link's token minted, the message sent and the row marked sent (with the token's hash) in
 * one transaction, so concurrent or repeated runs of the job send it once. Only the token's hash is stored.
 */
import type { Tx } from "../core/db.ts";
import { errorText } from "../core/error_text.ts";
import type { AppContext } from "../core/operation.ts";
import type { LinkEmail } from "../email/link_email.ts";
import { type Mailer, messageIdOf, type SentEmail } from "../email/transport.ts";
import { hashInvitationToken, newInvitationToken } from "./invitation_token.ts";

/** What one run of a link's job did. */
export type LinkDeliveryOutcome = "sent" | "already_sent" | "skipped" | "missing";

/** A ledger row as its lock reads it. */
export interface LedgerRow {
  status: "queued" | "sent" | "skipped" | "failed";
}

/** A link email's ledger: its queries, by workspace and the id of what the link is for. */
export interface LinkLedger<R extends LedgerRow> {
  /** The row, locked until the transaction ends; undefined when it is gone. */
  lock: (tx: Tx, workspaceId: string, id: string) => Promise<R | undefined>;
  markSkipped: (tx: Tx, workspaceId: string, id: string, reason: string) => Promise<void>;
  /** `final`: the job's last attempt. */
  markFailed: (tx: Tx, workspaceId: string, id: string, error: string, final: boolean) => Promise<void>;
  markSent: (tx: Tx, workspaceId: string, id: string, sent: SentEmail & { tokenHash: Buffer }) => Promise<void>;
}

/** One link email: its ledger row, whom it goes to and what it says. */
export interface LinkMessage<R extends LedgerRow> {
  workspaceId: string;
  id: string;
  /** Whom to send it to, or why it is not worth sending now (recorded as skipped). */
  address: (row: R) => { to: string } | { skip: string };
  /** The message carrying the link of `token`. */
  compose: (row: R, token: string) => LinkEmail;
  /** Names the message (its Message-ID and its outbox file), the same for every attempt. */
  reference: string;
}

/**
 * Sends one link email unless its ledger says it was sent or skipped. A failure to send is recorded on the row, then
 * thrown (for the queue to retry).
 */
export async function deliverLinkOnce<R extends LedgerRow>(
  ctx: Pick<AppContext, "db" | "config">,
  mailer: Mailer,
  ledger: LinkLedger<R>,
  message: LinkMessage<R>,
  attempt: { final: boolean },
): Promise<LinkDeliveryOutcome> {
  const { workspaceId, id, reference } = message;
  const result = await ctx.db.begin(async (tx) => {
    const row = await ledger.lock(tx, workspaceId, id);
    if (!row) return { outcome: "missing" as const };
    if (row.status === "sent") return { outcome: "already_sent" as const };
    if (row.status === "skipped") return { outcome: "skipped" as const };
    const address = message.address(row);
    if ("skip" in address) {
      await ledger.markSkipped(tx, workspaceId, id, address.skip);
      return { outcome: "skipped" as const };
    }
    const token = newInvitationToken();
    let sent: SentEmail;
    try {
      sent = await mailer.send({
        to: address.to,
        ...message.compose(row, token),
        messageId: messageIdOf(ctx.config.emailFrom, reference),
        reference,
      });
    } catch (error) {
      await ledger.markFailed(tx, workspaceId, id, errorText(error), attempt.final);
      return { outcome: "failed" as const, error };
    }
    await ledger.markSent(tx, workspaceId, id, { tokenHash: hashInvitationToken(token), ...sent });
    return { outcome: "sent" as const };
  });
  if (result.outcome === "failed") throw result.error;
  return result.outcome;
}
