/** Tools are generated from the operation declarations: names, input and output schemas, annotations, input split. */
import { describe, expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import { operations } from "../../src/operations.ts";
import { jsonSchema } from "../../src/core/openapi.ts";
import { operation } from "../../src/core/operation.ts";
import { Id, Strict } from "../../src/core/schema.ts";
import { scopeFor } from "../../src/core/groups.ts";
import { splitArguments, toolOf, toolsAllowed, toolsOf, toolName } from "../../src/mcp/tools.ts";
import { echo, guarded, list, probes, replay } from "./fixtures.ts";

describe("tool generation", () => {
  test("every declared operation is one tool named after its operationId with . replaced by _", () => {
    const tools = toolsOf(operations);
    expect([...tools.keys()]).toEqual(operations.map((op) => op.id.replaceAll(".", "_")));
    expect(tools.get("handovers_forTenancy")?.op.id).toBe("handovers.forTenancy");
    expect(toolName("maintenancePro.updateHazardSettings")).toBe("maintenancePro_updateHazardSettings");
  });

  test("every declared operation's tool has an object input schema of its path, query and body fields", () => {
    for (const op of operations) {
      const { definition } = toolOf(op);
      const expected = [
        ...Object.keys((op.params as any)?.properties ?? {}),
        ...Object.keys((op.query as any)?.properties ?? {}),
        ...Object.keys((op.body as any)?.properties ?? {}),
      ];
      expect(definition.inputSchema.type).toBe("object");
      expect(Object.keys(definition.inputSchema.properties ?? {}).sort()).toEqual(expected.sort());
      for (const name of Object.keys((op.params as any)?.properties ?? {}))
        expect(definition.inputSchema.required).toContain(name);
      expect(definition.description).toContain(op.summary);
      expect(definition.description).toContain(op.description);
      expect(definition.description).toContain(scopeFor(op.group, op.method));
      expect(definition.annotations?.readOnlyHint).toBe(op.method === "GET");
    }
  });

  test("the input schema merges params, query and body from the same TypeBox schemas, with their requiredness", () => {
    const { definition } = toolOf(echo);
    expect(definition.inputSchema).toEqual({
      type: "object",
      properties: {
        probeId: jsonSchema(Id),
        limit: jsonSchema(Type.Integer({ minimum: 1 })),
        loud: jsonSchema(Type.Boolean()),
        note: jsonSchema(Type.String({ minLength: 1 })),
        tags: jsonSchema(Type.Array(Type.String())),
        nested: jsonSchema(Strict({ n: Type.Number() })),
      },
      required: ["probeId", "note", "tags"],
      additionalProperties: false,
    } as any);
  });

  test("the output schema is the response schema", () => {
    expect(toolOf(echo).definition.outputSchema).toEqual(jsonSchema(echo.response) as any);
    expect(toolOf(list).definition.outputSchema).toEqual(jsonSchema(list.response) as any);
  });

  test("annotations: GETs are read-only; writes carry the declaration's destructive and idempotent hints", () => {
    expect(toolOf(list).definition.annotations).toEqual({ title: "Lists probes.", readOnlyHint: true });
    expect(toolOf(echo).definition.annotations).toEqual({
      title: "Echoes its input.",
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
    });
    expect(toolOf(replay).definition.annotations).toEqual({
      title: "Replays stored bytes.",
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
    });
    expect(toolOf(guarded).definition.annotations).toEqual({ title: "Owner only.", readOnlyHint: false });
  });

  test("module and owner requirements are stated in the description", () => {
    expect(toolOf(guarded).definition.description).toContain("`maintenance-pro`");
    expect(toolOf(guarded).definition.description).toContain("workspace owner");
  });

  test("a field name used by two parts of a declaration is refused when the tools are built", () => {
    const clash = operation({
      id: "probes.clash",
      group: "tasks",
      method: "POST",
      path: "/probes/:id",
      summary: "s",
      description: "d",
      params: Strict({ id: Id }),
      body: Strict({ id: Type.String() }),
      response: Type.Object({}),
      run: async () => ({}),
    });
    expect(() => toolOf(clash)).toThrow(/"id" is both a params and a body field/);
  });

  test("tools/list shows exactly the tools whose scope the key holds", () => {
    const tools = toolsOf(probes);
    const names = (scopes: string[]) => toolsAllowed(tools, new Set(scopes)).map((t) => t.name);
    expect(names([])).toEqual([]);
    expect(names(["tasks:write", "calendar:write", "contacts:read"])).toEqual(["probes_echo"]);
    expect(names(["calendar:read", "maintenance-pro:write"])).toEqual(["probes_list", "probes_guarded"]);
  });
});

describe("splitting a tool's input", () => {
  const tool = toolOf(echo);

  test("path, query and body fields go where the declaration puts them", () => {
    const split = splitArguments(tool, { probeId: "p1", limit: 3, note: "n", tags: ["a"] });
    expect(split).toEqual({
      params: { probeId: "p1" },
      query: { limit: 3 },
      body: { kind: "value", value: { note: "n", tags: ["a"] } },
    });
  });

  test("undeclared fields go to the body, where validation names them", () => {
    expect(splitArguments(tool, { probeId: "p1", revision: 2 }).body).toEqual({
      kind: "value",
      value: { revision: 2 },
    });
    expect(splitArguments(toolOf(list), { surprise: true }).body).toEqual({ kind: "value", value: { surprise: true } });
  });

  test("an operation without a body gets none when no undeclared field is sent", () => {
    expect(splitArguments(toolOf(list), { cursor: "c" })).toEqual({
      params: {},
      query: { cursor: "c" },
      body: { kind: "none" },
    });
  });
});
