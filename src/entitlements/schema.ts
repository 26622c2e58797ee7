/** TypeBox schemas of the entitlements group. */
import { Type } from "@sinclair/typebox";
import { Strict } from "../core/schema.ts";

/** The answer of abandoning the onboarding checkout (its checkout abandonment result). */
export const AbandonResult = Strict(
  {
    abandoned: Type.Boolean({
      description:
        "true when this call abandoned a started, unpaid checkout; false when there was none to abandon (none at " +
        "all, only paid ones, or already abandoned).",
    }),
  },
  { title: "CheckoutAbandonmentResult" },
);
