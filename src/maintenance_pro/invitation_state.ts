/** What an invitation link stands for now: the one state its page shows. */
import type { AppError } from "../core/errors.ts";
import {
  InvitationAccepted,
  InvitationExpired,
  InvitationNotFound,
  InvitationSuperseded,
  PortalAccessRevoked,
} from "./errors.ts";
import type { InvitationView } from "./queries.ts";

/** The states of a link: only `pending` can be accepted. */
export type InvitationState = "pending" | "expired" | "superseded" | "accepted" | "revoked" | "unknown";

/**
 * The state of an invitation (undefined: no invitation has the link). In this order: a newer invitation replaced
 * it; the access was revoked; it was accepted (or the access is active anyway); its 7 days are over; else pending.
 */
export function invitationState(view: InvitationView | undefined): InvitationState {
  if (!view || view.accessStatus === null) return "unknown";
  if (view.superseded) return "superseded";
  if (view.accessStatus === "revoked") return "revoked";
  if (view.accepted || view.accessStatus === "active") return "accepted";
  if (view.expired) return "expired";
  return "pending";
}

/** The refusal of an accept in a state other than `pending`. */
export function stateRefusal(state: Exclude<InvitationState, "pending">): AppError {
  switch (state) {
    case "expired":
      return new InvitationExpired();
    case "superseded":
      return new InvitationSuperseded();
    case "accepted":
      return new InvitationAccepted();
    case "revoked":
      return new PortalAccessRevoked();
    case "unknown":
      return new InvitationNotFound();
  }
}
