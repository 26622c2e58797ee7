/** The entitlements group's operations. */
import { Type } from "@sinclair/typebox";
import { NotImplemented } from "../core/errors.ts";
import { operation, Id } from "../core/operation.ts";

/** Forgets a started but unpaid checkout. */
export const abandonOnboarding = operation({
  id: "entitlements.abandonOnboarding", group: "entitlements", method: "POST", path: "/entitlements/onboarding/abandon",
  summary: "Forgets a started but unpaid checkout.",
  description: "Declared; not built yet.",
  
  response: Type.Unknown(),
  errors: [NotImplemented],
  run: async () => {
    throw new NotImplemented({ operationId: "entitlements.abandonOnboarding" });
  },
});

/** Every operation of the group. */
export const operations = [abandonOnboarding];
