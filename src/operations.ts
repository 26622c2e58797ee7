/** Every declared operation: REST routes, the OpenAPI document and the MCP tools are generated from this list. */
import type { Operation } from "./core/operation.ts";
import { operations as handovers } from "./handovers/operations.ts";
import { operations as contractorInvoices } from "./contractor_invoices/operations.ts";
import { operations as contacts } from "./contacts/operations.ts";
import { operations as maintenancePro } from "./maintenance_pro/operations.ts";
import { operations as tasks } from "./tasks/operations.ts";
import { operations as compliance } from "./compliance/operations.ts";
import { operations as calendar } from "./calendar/operations.ts";
import { operations as keys } from "./keys/operations.ts";
import { operations as telephony } from "./telephony/operations.ts";
import { operations as entitlements } from "./entitlements/operations.ts";
import { operations as events } from "./events/operations.ts";
import { eventTypes } from "./event_types.ts";

/** All operations, in the common interface's order of the twelve (plus the hazard settings GET and the SMS send). */
export const operations: readonly Operation[] = [
  ...handovers,
  ...contractorInvoices,
  ...contacts,
  ...maintenancePro,
  ...tasks,
  ...compliance,
  ...calendar,
  ...keys,
  ...telephony,
  ...entitlements,
  ...events(eventTypes),
];
