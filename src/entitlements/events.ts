/** The event types the entitlements group's writes record. */
import { eventType } from "../events/event_type.ts";
import { AbandonResult } from "./schema.ts";

/** A started onboarding checkout was abandoned. */
export const onboardingAbandoned = eventType({
  name: "onboarding.abandoned",
  subjectKind: "onboarding_checkout",
  data: AbandonResult,
  description:
    "A started, unpaid onboarding checkout was abandoned (`subject.id` is the checkout; one event a checkout). " +
    "`data` is the answer of `POST /entitlements/onboarding/abandon`.",
});
