/** Every public route (no API key; see core/public_route.ts), in the order they are mounted. */
import type { PublicRoute } from "./core/public_route.ts";
import { contractorRoutes } from "./maintenance_pro/contractor_routes.ts";
import { portalRoutes } from "./maintenance_pro/portal_routes.ts";
import { tenantRoutes } from "./maintenance_pro/tenant_routes.ts";
import { webhookRoute } from "./telephony/webhook.ts";

/** The public routes of the service. Each feature appends its own. */
export const publicRoutes: readonly PublicRoute[] = [
  ...portalRoutes,
  ...tenantRoutes,
  ...contractorRoutes,
  webhookRoute,
];
