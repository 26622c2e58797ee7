/**
 * The text rule over every declared operation (core/storable_text.ts): for every string field of its path, query
 * and body schemas, a value holding a NUL character or an unpaired surrogate is 400 RequestInvalid naming that
 * field, over REST and over MCP, and nothing is written (the OpenAPI description's Wire conventions).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TSchema } from "@sinclair/typebox";
import { harness } from "./support/harness.ts";
import { operations } from "../src/operations.ts";
import type { Operation } from "../src/core/operation.ts";
import { toolOf } from "../src/mcp/tools.ts";
import { bodyOf, connectHttp, type HttpSession } from "./mcp/support.ts";
import { countRows } from "./workspace_import/fixtures.ts";

const h = await harness();
const ws = await h.workspace();

type Input = { params: Record<string, unknown>; query: Record<string, unknown>; body?: Record<string, unknown> };

/** A valid input of every operation: each case below breaks one string of it and nothing else. */
const valid: Record<string, Input> = {
  "handovers.forTenancy": { params: { tenancyId: "ten-1" }, query: {} },
  "contractorInvoices.correctPayment": { params: { id: "pay-1" }, query: {}, body: { reason: "Entered twice" } },
  "contacts.createCompany": { params: {}, query: {}, body: { name: "Acme Ltd" } },
  "contacts.duplicateCheck": { params: {}, query: {}, body: { name: "Acme Ltd" } },
  "maintenancePro.hazardSettings": { params: {}, query: {} },
  "maintenancePro.updateHazardSettings": { params: {}, query: {}, body: { expectedRevision: 0, regime: "social" } },
  "maintenancePro.inviteLandlord": { params: { contactId: "con-1" }, query: {} },
  "maintenancePro.reportRepair": {
    params: {},
    query: {},
    body: {
      requestId: "req-1",
      propertyId: "prop-1",
      unitId: "unit-1",
      tenancyId: "ten-1",
      title: "Leak under the sink",
      description: "Dripping",
      location: "Kitchen",
      category: "leak",
      reporter: { kind: "tenant", contactId: "con-1", name: "Tia Tenant" },
      channel: "phone",
      awareAt: "2026-06-01T09:00:00Z",
      hazard: "significant",
      hhsrsHazard: "damp_and_mould_growth",
    },
  },
  "maintenancePro.repair": { params: { id: "rep-1" }, query: {} },
  "maintenancePro.repairPhotos": { params: { id: "rep-1" }, query: {} },
  "maintenancePro.repairPhoto": { params: { id: "rep-1", photoId: "photo-1" }, query: {} },
  "maintenancePro.repairs": { params: {}, query: {} },
  "maintenancePro.triageRepair": {
    params: { id: "rep-1" },
    query: {},
    body: { expectedRevision: 1, hazard: "emergency", hhsrsHazard: "fire", note: "Sparks" },
  },
  "maintenancePro.recordRepairMilestone": {
    params: { id: "rep-1" },
    query: {},
    body: { expectedRevision: 1, kind: "investigated", at: "2026-06-02T09:00:00Z", outcome: "no_hazard", note: "Dry" },
  },
  "maintenancePro.recordAccessAttempt": {
    params: { id: "rep-1" },
    query: {},
    body: { at: "2026-06-02T09:00:00Z", outcome: "no_answer", note: "Knocked twice" },
  },
  "maintenancePro.cancelRepair": { params: { id: "rep-1" }, query: {}, body: { reason: "Duplicate" } },
  "maintenancePro.raiseWorksOrder": {
    params: { id: "rep-1" },
    query: {},
    body: { contractorContactId: "con-1", purpose: "repair", instructions: "Fix it", keySetId: "ks-1" },
  },
  "maintenancePro.worksOrder": { params: { id: "wo-1" }, query: {} },
  "maintenancePro.worksOrders": {
    params: {},
    query: { repairId: "rep-1", contractorContactId: "con-1", status: "raised" },
  },
  "maintenancePro.cancelWorksOrder": { params: { id: "wo-1" }, query: {}, body: { expectedRevision: 1, reason: "No" } },
  "maintenancePro.checkOutWorksOrderKeySet": { params: { id: "wo-1" }, query: {} },
  "maintenancePro.returnWorksOrderKeySet": { params: { id: "wo-1" }, query: {} },
  "tasks.cancel": { params: { id: "task-1" }, query: {} },
  "compliance.blockProfiles": { params: {}, query: {} },
  "calendar.agenda": { params: {}, query: {} },
  "keys.setReports": { params: { id: "set-1" }, query: {} },
  "telephony.smsThreads": { params: {}, query: {} },
  "telephony.sendSms": { params: { id: "thr-1" }, query: {}, body: { body: "Hello" } },
  "telephony.smsMessages": { params: { id: "thr-1" }, query: {} },
  "entitlements.abandonOnboarding": { params: {}, query: {} },
  // Two types, so that REST sends the parameter twice and its first value is /query/type/0 there too.
  "events.list": { params: {}, query: { type: ["company.created", "task.cancelled"] } },
};

/** The JSON pointers of every string a schema holds (through objects, arrays, unions); an array's item is its first. */
function stringPaths(schema: TSchema | undefined, path: string): string[] {
  if (!schema) return [];
  const s = schema as { type?: string; properties?: Record<string, TSchema>; items?: TSchema; anyOf?: TSchema[] };
  if (s.type === "string") return [path];
  if (s.type === "object")
    return Object.entries(s.properties ?? {}).flatMap(([name, p]) => stringPaths(p, `${path}/${name}`));
  if (s.type === "array") return stringPaths(s.items, `${path}/0`);
  if (s.anyOf) return [...new Set(s.anyOf.flatMap((branch) => stringPaths(branch, path)))];
  return [];
}

/** The input with the value at a pointer (`/body/roles/0`) replaced, arrays and objects made on the way. */
function withValue(input: Input, pointer: string, value: string): Input {
  const copy = structuredClone(input) as Record<string, any>;
  copy.body ??= {};
  const tokens = pointer.slice(1).split("/");
  let at = copy;
  for (let i = 0; i < tokens.length - 1; i++) at = at[tokens[i]!] ??= /^\d+$/.test(tokens[i + 1]!) ? [] : {};
  at[tokens.at(-1)!] = value;
  if (Object.keys(copy.body).length === 0 && !input.body) delete copy.body;
  return copy as Input;
}

const bad = [
  { name: "a NUL character", value: "a\u0000b", message: /NUL/ },
  { name: "a lone surrogate", value: "a\ud800b", message: /surrogate/ },
];

/** Calls an operation over REST through app.handle. */
async function rest(op: Operation, input: Input) {
  const path = op.path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) =>
    encodeURIComponent(String(input.params[name])),
  );
  const url = new URL(path, "http://localhost");
  for (const [k, v] of Object.entries(input.query)) {
    for (const one of Array.isArray(v) ? v : [v]) url.searchParams.append(k, String(one));
  }
  const headers: Record<string, string> = { "x-api-key": ws.key };
  if (input.body) headers["content-type"] = "application/json";
  const res = await h.app.handle(
    new Request(url.toString(), {
      method: op.method,
      headers,
      body: input.body ? JSON.stringify(input.body) : undefined,
    }),
  );
  return { status: res.status, body: (await res.json()) as any };
}

let mcp: HttpSession;
beforeAll(async () => {
  mcp = await connectHttp(h.app, { key: ws.key });
});
afterAll(async () => {
  await mcp.close();
});

test("every declared operation has a valid input here", () => {
  expect(operations.map((op) => op.id).filter((id) => !valid[id])).toEqual([]);
});

describe.each(operations.map((op) => [op.id, op] as const))("%s", (id, op) => {
  const paths = [
    ...stringPaths(op.params, "/params"),
    ...stringPaths(op.query, "/query"),
    ...stringPaths(op.body, "/body"),
  ];
  if (paths.length === 0) return;
  const input = valid[id]!;

  test.each(paths)(
    "a NUL character or a lone surrogate in %s is RequestInvalid naming it, over REST and MCP, writing nothing",
    async (pointer) => {
      const before = await countRows(h.database.db);
      for (const { name, value, message } of bad) {
        const sent = withValue(input, pointer, value);
        const answers: { via: string; status: number; body: any }[] = [];
        // A URL cannot carry a lone surrogate (it is UTF-8): over REST it is tried in bodies only.
        if (pointer.startsWith("/body") || name !== "a lone surrogate")
          answers.push({ via: "REST", ...(await rest(op, sent)) });
        const args = { ...sent.params, ...sent.query, ...(sent.body ?? {}) };
        const result: any = await mcp.client.callTool({ name: toolOf(op).definition.name, arguments: args });
        answers.push({ via: "MCP", status: result._meta?.["lettings/status"], body: bodyOf(result) });
        expect(result.structuredContent).toBeUndefined();
        for (const answer of answers) {
          const label = `${name} in ${pointer} over ${answer.via}: ${answer.status} ${JSON.stringify(answer.body)}`;
          expect(answer.status, label).toBe(400);
          expect(answer.body._tag, label).toBe("RequestInvalid");
          // That field, and only it, is named, with the rule.
          expect(answer.body.issues, label).toEqual([{ path: pointer, message: expect.stringMatching(message) }]);
        }
      }
      expect(await countRows(h.database.db)).toEqual(before);
    },
  );
});
