/** What the repair tests share: a workspace's property, unit, tenancy and tenant, and calls of the repair operations. */
import type { Harness, TestResponse, TestWorkspace } from "../support/harness.ts";

/** A workspace with a property, its unit, an active tenancy of the unit and a tenant contact. */
export interface RepairWorld {
  ws: TestWorkspace;
  propertyId: string;
  unitId: string;
  tenancyId: string;
  tenantId: string;
}

/** Makes a workspace (or uses the one given) with a property, a unit, a tenancy and a tenant. */
export async function repairWorld(h: Harness, given?: TestWorkspace): Promise<RepairWorld> {
  const ws = given ?? (await h.workspace());
  const rows = h.rows(ws);
  const tenantId = await rows.contact({ name: "Tia Tenant", roles: ["tenant"] });
  const propertyId = await rows.property({ label: "4 Mill Lane" });
  const unitId = await rows.unit({ propertyId, label: "Flat 2" });
  const tenancyId = await rows.tenancy({ unitId, occupants: [{ contactId: tenantId, isLead: true }] });
  return { ws, propertyId, unitId, tenancyId, tenantId };
}

/** A report's body: a damp and mould report by phone from the tenant, with any field replaced or added. */
export function reportBody(world: RepairWorld, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    propertyId: world.propertyId,
    unitId: world.unitId,
    tenancyId: world.tenancyId,
    title: "Black mould on the bedroom wall",
    category: "damp_mould",
    reporter: { kind: "tenant", contactId: world.tenantId },
    channel: "phone",
    ...fields,
  };
}

/** The repair operations, called through app.handle with the world's key (or another). */
export function repairCalls(h: Harness, world: RepairWorld) {
  const key = world.ws.key;
  return {
    report: (fields: Record<string, unknown> = {}, k = key) =>
      h.request("POST", "/maintenance-pro/repairs", { key: k, body: reportBody(world, fields) }),
    get: (id: string, k = key) => h.request("GET", `/maintenance-pro/repairs/${id}`, { key: k }),
    list: (query = "", k = key) => h.request("GET", `/maintenance-pro/repairs${query}`, { key: k }),
    triage: (id: string, body: Record<string, unknown>, k = key) =>
      h.request("POST", `/maintenance-pro/repairs/${id}/triage`, { key: k, body }),
    milestone: (id: string, body: Record<string, unknown>, k = key) =>
      h.request("POST", `/maintenance-pro/repairs/${id}/milestones`, { key: k, body }),
    access: (id: string, body: Record<string, unknown>, k = key) =>
      h.request("POST", `/maintenance-pro/repairs/${id}/access-attempts`, { key: k, body }),
    cancel: (id: string, body: Record<string, unknown>, k = key) =>
      h.request("POST", `/maintenance-pro/repairs/${id}/cancel`, { key: k, body }),
  };
}

/** Fails with the answer's body when the status is not the one expected; returns the body. */
export function expectStatus(res: TestResponse, status: number): TestResponse["body"] {
  if (res.status !== status) throw new Error(`expected ${status}, got ${res.status}: ${res.text}`);
  return res.body;
}

/** An instant `ms` milliseconds from now, as answers give instants. */
export function fromNow(ms: number): string {
  return new Date(Date.now() + ms).toISOString();
}
