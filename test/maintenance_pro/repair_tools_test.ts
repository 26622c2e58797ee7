/** The repair operations as MCP tools: generated from the same declarations, answering what REST answers. */
import { afterAll, describe, expect, test } from "bun:test";
import { ulid } from "ulid";
import { harness } from "../support/harness.ts";
import { operations } from "../../src/operations.ts";
import { bodyOf, connectHttp, expectSameAsRest, rest, type Handler, type HttpSession } from "../mcp/support.ts";
import { expectStatus, repairCalls, repairWorld, reportBody } from "./repair_fixtures.ts";

const h = await harness();
const world = await repairWorld(h);
const call = repairCalls(h, world);
const app = h.app as unknown as Handler;
const op = (id: string) => operations.find((o) => o.id === id)!;
const session: HttpSession = await connectHttp(app, { key: world.ws.key });
afterAll(() => session.close());

/** A tool result as these tests read it. */
interface ToolResult {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content: { type: string; text: string }[];
  _meta: Record<string, unknown>;
}

/** Calls a tool with the world's key. */
async function tool(name: string, args: Record<string, unknown>): Promise<ToolResult> {
  return (await session.client.callTool({ name, arguments: args })) as unknown as ToolResult;
}

const repairTools = [
  "maintenancePro_reportRepair",
  "maintenancePro_repair",
  "maintenancePro_repairs",
  "maintenancePro_triageRepair",
  "maintenancePro_recordRepairMilestone",
  "maintenancePro_recordAccessAttempt",
  "maintenancePro_cancelRepair",
];

describe("repair tools", () => {
  test("each operation is a tool; a read-only key is shown the two reads only", async () => {
    const names = (await session.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(repairTools));
    const reader = await connectHttp(app, { key: await h.key(world.ws, ["maintenance-pro:read"]) });
    const readable = (await reader.client.listTools()).tools.map((t) => t.name);
    await reader.close();
    expect(repairTools.filter((t) => readable.includes(t))).toEqual([
      "maintenancePro_repair",
      "maintenancePro_repairs",
    ]);
  });

  test("a report through the tool is the REST creation: a REST retry with its requestId replays it", async () => {
    const body = reportBody(world, {
      requestId: `mcp-${ulid()}`,
      awareAt: "2026-06-01T09:00:00Z",
      hazard: "significant",
      hhsrsHazard: "damp_and_mould_growth",
    });
    const result = await tool("maintenancePro_reportRepair", body);
    expect(result.isError ?? false).toBe(false);
    expect(result._meta["lettings/status"]).toBe(201);
    const replay = await rest(app, op("maintenancePro.reportRepair"), { params: {}, query: {}, body }, world.ws);
    expect(replay.status).toBe(201);
    expect(result.content[0]!.text).toBe(replay.text);
    expect(result.structuredContent).toEqual(replay.body);
  });

  test("reads, writes and the list answer as REST does for the same input", async () => {
    const repair = expectStatus(
      await call.report({ awareAt: "2026-06-01T09:00:00Z", hazard: "emergency", hhsrsHazard: "fire" }),
      201,
    );
    const milestone = op("maintenancePro.recordRepairMilestone");
    const result = await tool("maintenancePro_recordRepairMilestone", {
      id: repair.id,
      expectedRevision: 1,
      kind: "made_safe",
      at: "2026-06-01T20:00:00Z",
    });
    expect(result.structuredContent).toMatchObject({ id: repair.id, revision: 2, status: "in_progress" });
    const key = { key: world.ws.key };
    for (const [id, input] of [
      ["maintenancePro.repair", { params: { id: repair.id }, query: {} }],
      ["maintenancePro.repairs", { params: {}, query: { clock: "breached", limit: 2 } }],
    ] as const) {
      await expectSameAsRest(session.client, op(id), input, await rest(app, op(id), input, key), "legacy");
    }
    // A refusal is a tool error carrying the REST error body.
    const again = {
      params: { id: repair.id },
      query: {},
      body: { expectedRevision: 2, kind: "made_safe", at: "2026-06-01T20:00:00Z" },
    };
    const refused = await rest(app, milestone, again, key);
    expect(refused.body).toEqual({ _tag: "MilestoneRecorded", repairId: repair.id, kind: "made_safe" });
    await expectSameAsRest(session.client, milestone, again, refused, "legacy");
  });

  test("an unknown repair is a tool error with RepairNotFound", async () => {
    const result = await tool("maintenancePro_cancelRepair", { id: "nope", reason: "Duplicate" });
    expect(result.isError).toBe(true);
    expect(bodyOf(result)).toEqual({ _tag: "RepairNotFound", repairId: "nope" });
  });
});
