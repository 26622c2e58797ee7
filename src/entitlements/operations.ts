/** The entitlements group's operations. */
import { recordActivity } from "../core/activity.ts";
import { operation } from "../core/operation.ts";
import { recordEvent, keyActor } from "../events/record.ts";
import { onboardingAbandoned } from "./events.ts";
import { abandonStartedCheckouts } from "./queries.ts";
import { AbandonResult } from "./schema.ts";

/** Forgets a started but unpaid checkout. */
export const abandonOnboarding = operation({
  id: "entitlements.abandonOnboarding",
  group: "entitlements",
  method: "POST",
  path: "/entitlements/onboarding/abandon",
  summary: "Forgets a started but unpaid checkout.",
  description: [
    "Abandons the workspace's onboarding checkout when one was started and not paid.",
    "",
    "- A started, unpaid checkout → it is marked abandoned (recorded in the activity log and as the event " +
      "`onboarding.abandoned`) and the answer is " +
      "`{abandoned: true}`.",
    "  Should several be started, all of them are abandoned by the one call.",
    "- No checkout, or only paid or already abandoned ones → `{abandoned: false}`; nothing changes.",
    "",
    "Safe to repeat: the second call answers `{abandoned: false}`. Of concurrent calls exactly one answers `true`.",
    "No request body.",
  ].join("\n"),
  response: AbandonResult,
  hints: { idempotent: true },
  run: ({ db, principal, requestId }) =>
    db.begin(async (tx) => {
      const ids = await abandonStartedCheckouts(tx, principal.workspaceId);
      for (const id of ids) {
        await recordActivity(tx, {
          workspaceId: principal.workspaceId,
          keyId: principal.keyId,
          action: "entitlements.checkout_abandoned",
          subjectKind: "onboarding_checkout",
          subjectId: id,
        });
        await recordEvent(tx, onboardingAbandoned, {
          workspaceId: principal.workspaceId,
          subjectId: id,
          data: { abandoned: true },
          requestId,
          actor: keyActor(principal),
        });
      }
      return { abandoned: ids.length > 0 };
    }) as Promise<{ abandoned: boolean }>,
});

/** Every operation of the group. */
export const operations = [abandonOnboarding];
