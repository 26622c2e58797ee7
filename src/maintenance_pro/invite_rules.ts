/** Whether a contact can be invited to the landlord portal, and what an invitation does to its access. */
import type { InviteBlockedReason } from "./schema.ts";

/** What the rules look at: the contact and its current portal access. */
export interface InviteTarget {
  archived: boolean;
  landlord: boolean;
  /** The contact's email, trimmed; null when it has none. */
  email: string | null;
  /** The current access status; null when the contact never had access. */
  accessStatus: "pending" | "active" | "revoked" | null;
}

/** The outcome of an invitation request. */
export type InviteDecision =
  | { kind: "blocked"; reason: InviteBlockedReason }
  | { kind: "active" }
  | { kind: "invite"; replaces: "nothing" | "revoked" | "pending" };

/** Why the contact cannot be invited (first that holds: archived, not a landlord, no email), or null. */
export function inviteBlockedReason(
  target: Pick<InviteTarget, "archived" | "landlord" | "email">,
): InviteBlockedReason | null {
  if (target.archived) return "archived";
  if (!target.landlord) return "not_a_landlord";
  if (!target.email) return "no_email";
  return null;
}

/**
 * The invitation's transition (the invite operation's description in operations.ts): a blocked contact is refused
 * whatever its access; an active access is refused; none or revoked becomes pending with a new invitation; pending
 * gets a new link replacing the old.
 */
export function decideInvite(target: InviteTarget): InviteDecision {
  const reason = inviteBlockedReason(target);
  if (reason) return { kind: "blocked", reason };
  if (target.accessStatus === "active") return { kind: "active" };
  return { kind: "invite", replaces: target.accessStatus ?? "nothing" };
}
