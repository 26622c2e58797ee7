/** How an invoice stands against the authorisation it is charged to (an approved quote, a works order limit). */

/** The stored authorisation and what the invoices charged to it before this one already took. */
export interface AuthorisationFacts {
  basis: string;
  authorisedMinor: number;
  authorisedCurrency: string;
  /** Σ payableMinor of the earlier, not void invoices of the workspace charged to it, in its currency. */
  earlierMinor: number;
}

/** Whether an invoice keeps within its authorisation. */
export type AuthorisationState = "within" | "exceeded" | "currency_mismatch";

/** The authorisation as the invoice shows it. */
export interface AuthorisationStanding {
  state: AuthorisationState;
  basis: string;
  authorisedMinor: number;
  authorisedCurrency: string;
  earlierMinor: number;
  chargedMinor: number;
  remainingMinor: number;
  excessMinor: number;
}

/**
 * The invoice's standing: it charges its payableMinor (nothing when void). `remainingMinor` is what is left of
 * the authorised amount after the earlier invoices and this one (not below 0), `excessMinor` what they take
 * beyond it. An invoice in another currency than the authorisation cannot be compared: `currency_mismatch`,
 * it uses up nothing and exceeds nothing.
 */
export function assessAuthorisation(
  a: AuthorisationFacts,
  invoice: { currency: string; voided: boolean; payableMinor: number },
): AuthorisationStanding {
  const chargedMinor = invoice.voided ? 0 : invoice.payableMinor;
  const base = {
    basis: a.basis,
    authorisedMinor: a.authorisedMinor,
    authorisedCurrency: a.authorisedCurrency,
    earlierMinor: a.earlierMinor,
    chargedMinor,
  };
  if (invoice.currency !== a.authorisedCurrency) {
    return {
      state: "currency_mismatch",
      ...base,
      remainingMinor: Math.max(0, a.authorisedMinor - a.earlierMinor),
      excessMinor: 0,
    };
  }
  const taken = a.earlierMinor + chargedMinor;
  const excessMinor = Math.max(0, taken - a.authorisedMinor);
  return {
    state: excessMinor > 0 ? "exceeded" : "within",
    ...base,
    remainingMinor: Math.max(0, a.authorisedMinor - taken),
    excessMinor,
  };
}
