/**
 * Every declared event type: the feed's `type` filter, the webhook subscriptions and OpenAPI `webhooks` use this
 * list. It lives beside `operations.ts`, not in `events/`, so the events layer imports no feature folder.
 */
import type { EventType } from "./events/event_type.ts";
import { maintenanceProEvents } from "./maintenance_pro/events.ts";
import { telephonyEvents } from "./telephony/events.ts";
import { companyCreated } from "./contacts/events.ts";
import { contractorPaymentCorrected } from "./contractor_invoices/events.ts";
import { taskCancelled } from "./tasks/events.ts";
import { onboardingAbandoned } from "./entitlements/events.ts";
import { workspaceImported } from "./workspace_import/events.ts";
import { webhookDisabled } from "./webhooks/events.ts";

/** All event types, by name. Each feature adds the types its writes record. */
export const eventTypes: readonly EventType[] = [
  ...maintenanceProEvents,
  ...telephonyEvents,
  companyCreated,
  contractorPaymentCorrected,
  taskCancelled,
  onboardingAbandoned,
  workspaceImported,
  webhookDisabled,
];
