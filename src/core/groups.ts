/** The 29 API groups (the OpenAPI document's tags), their scopes and the modules some of them need. */

/** Every group, in the common interface's order (the OpenAPI document's). */
export const groups = [
  "tenants",
  "entitlements",
  "events",
  "workspace-settings",
  "operational-catalogues",
  "money",
  "contacts",
  "properties",
  "address-lookup",
  "tenancies",
  "contractor-invoices",
  "keys",
  "inspections",
  "handovers",
  "planned-maintenance",
  "contractors",
  "documents",
  "compliance",
  "activity",
  "tasks",
  "today",
  "reports",
  "workspace-search",
  "calendar",
  "telephony",
  "maintenance-pro",
  "front-desk",
  "maintenance-pro-public",
  "maintenance-pro-contractor",
] as const;

/** One API group. */
export type Group = (typeof groups)[number];

/** Every grantable scope: `<group>:read` and `<group>:write`. */
export const allScopes: readonly string[] = groups.flatMap((g) => [`${g}:read`, `${g}:write`]);

const scopeSet = new Set(allScopes);

/** Whether a scope name exists. */
export function isScope(scope: string): boolean {
  return scopeSet.has(scope);
}

/** The scope a method on a group needs: GET reads, every other method writes. */
export function scopeFor(group: Group, method: string): string {
  return `${group}:${method === "GET" ? "read" : "write"}`;
}

/** The module a group needs, if any (check 7 of the key checks; their order is in src/core/api_description.ts). */
export function moduleFor(group: Group): string | undefined {
  if (group === "maintenance-pro" || group === "maintenance-pro-public" || group === "maintenance-pro-contractor") {
    return "maintenance-pro";
  }
  if (group === "telephony") return "telephony";
  return undefined;
}
