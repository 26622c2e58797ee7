/**
 * Tool calls on the demo workspace that the official-client tests make: a success and a refusal of each tool the
 * issue names, each with the REST answer it must equal. Successes are repeatable (reads, an already-cancelled task,
 * a requestId replay, a hazard-settings write that changes nothing) so every client can make them in turn.
 */
import { expect } from "bun:test";
import type { Operation } from "../../src/core/operation.ts";
import { operations } from "../../src/operations.ts";
import { toolOf } from "../../src/mcp/tools.ts";
import type { Harness } from "../support/harness.ts";
import { rest, type Handler, type Input, type RestAnswer } from "./support.ts";

/** One tool call and what it must answer: a success (`tag` undefined) or the refusal with that `_tag`. */
export interface DemoCase {
  label: string;
  op: Operation;
  tool: string;
  input: Input;
  status: number;
  tag?: string;
}

function op(id: string): Operation {
  const found = operations.find((o) => o.id === id);
  if (!found) throw new Error(`no operation ${id}`);
  return found;
}

function demoCase(label: string, id: string, input: Partial<Input>, status: number, tag?: string): DemoCase {
  const o = op(id);
  return {
    label,
    op: o,
    tool: toolOf(o).definition.name,
    input: { params: {}, query: {}, ...input },
    status,
    ...(tag ? { tag } : {}),
  };
}

/** The cases, given the demo workspace's current hazard-settings revision (read once by the caller). */
export function demoCases(hazardRevision: number, hazardRegime: string): DemoCase[] {
  const hazard = (expectedRevision: number) => ({ body: { expectedRevision, regime: hazardRegime } });
  return [
    demoCase("a tenancy's handover row", "handovers.forTenancy", { params: { tenancyId: "ten-ashby-2b" } }, 200),
    demoCase("an unknown tenancy", "handovers.forTenancy", { params: { tenancyId: "nope" } }, 404, "HandoverNotFound"),
    demoCase(
      "a company replayed by its requestId",
      "contacts.createCompany",
      { body: { requestId: "official-clients-1", name: "Official Clients Ltd" } },
      201,
    ),
    demoCase("a company without a name", "contacts.createCompany", { body: { name: " " } }, 400, "RequestInvalid"),
    demoCase("an already cancelled task", "tasks.cancel", { params: { id: "task-carpet-clean-7" } }, 200),
    demoCase("an unknown task", "tasks.cancel", { params: { id: "nope" } }, 404, "TaskNotFound"),
    demoCase("a done task", "tasks.cancel", { params: { id: "task-ashby-1a-smoke" } }, 409, "TaskNotCancellable"),
    demoCase(
      "hazard settings at the current revision",
      "maintenancePro.updateHazardSettings",
      hazard(hazardRevision),
      200,
    ),
    demoCase(
      "hazard settings at a stale revision",
      "maintenancePro.updateHazardSettings",
      hazard(hazardRevision + 7),
      409,
      "RevisionConflict",
    ),
    demoCase("the agenda (an array)", "calendar.agenda", {}, 200),
    demoCase(
      "an agenda window ending before it starts",
      "calendar.agenda",
      { query: { from: "2026-03-01", to: "2026-01-01" } },
      400,
      "RequestInvalid",
    ),
    demoCase("block profiles (an array)", "compliance.blockProfiles", {}, 200),
    demoCase(
      "block profiles of a malformed property id",
      "compliance.blockProfiles",
      { query: { propertyId: "not an id" } },
      400,
      "RequestInvalid",
    ),
  ];
}

/** The demo cases for the demo workspace of a harness, each checked once against REST so a changed demo shows here. */
export async function demoCasesFor(h: Harness, key: string): Promise<DemoCase[]> {
  const settings = await h.request("GET", "/maintenance-pro/hazard-settings", { key });
  expect(settings.status).toBe(200);
  const cases = demoCases(settings.body.revision, settings.body.regime);
  for (const c of cases) {
    const answer = await restOf(h, c, key);
    expect({ label: c.label, status: answer.status, tag: answer.body._tag }).toEqual({
      label: c.label,
      status: c.status,
      tag: c.tag,
    });
  }
  return cases;
}

/** The REST answer of a case's input. */
export function restOf(h: Harness, c: DemoCase, key: string): Promise<RestAnswer> {
  return rest(h.app as unknown as Handler, c.op, c.input, { key });
}
