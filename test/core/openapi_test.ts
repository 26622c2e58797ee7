/** The OpenAPI document agrees with every operation declaration, names its schemas, and stands alone. */
import { describe, expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import { harness } from "../support/harness.ts";
import { inlineRefs, refsIn } from "../support/openapi.ts";
import { operations } from "../../src/operations.ts";
import { publicRoutes } from "../../src/public_routes.ts";
import { operation } from "../../src/core/operation.ts";
import { Strict } from "../../src/core/schema.ts";
import { buildOpenApi, jsonSchema, openApiPath, sharedErrors } from "../../src/core/openapi.ts";
import { toolOf } from "../../src/mcp/tools.ts";
import { pathOf } from "../support/calls.ts";

const h = await harness();
/** The document as served, with its named schemas referenced. */
const raw = (await h.request("GET", "/openapi.json")).body;
/** The same with every reference replaced by the schema it names, to compare with the declarations. */
const doc = inlineRefs(raw);

describe.each(operations.map((op) => [op.id, op] as const))("%s in OpenAPI", (_id, op) => {
  const entry = doc.paths[openApiPath(op.path)]?.[op.method.toLowerCase()];

  test("is listed under its path and method with its operationId, its group's tag and the key scheme", () => {
    expect(entry.operationId).toBe(op.id);
    expect(entry.tags).toEqual([op.extension ? `${op.group} (extension)` : op.group]);
    expect(entry.security).toEqual([{ apiKey: [] }]);
  });

  test("declares its path, query and header parameters and its body", () => {
    const names = (entry.parameters as { name: string; in: string }[]).map((p) => `${p.in}:${p.name}`).sort();
    const declared = [
      ...Object.keys(op.params?.properties ?? {}).map((n) => `path:${n}`),
      ...Object.keys(op.query?.properties ?? {}).map((n) => `query:${n}`),
      ...(op.conditional ? ["header:If-None-Match"] : []),
    ].sort();
    expect(names).toEqual(declared);
    if (op.body) expect(entry.requestBody.content["application/json"].schema).toEqual(jsonSchema(op.body));
    else expect(entry.requestBody).toBeUndefined();
  });

  test("answers its success status with the declared response schema", () => {
    expect(entry.responses[String(op.status ?? 200)].content["application/json"].schema).toEqual(
      jsonSchema(op.response),
    );
  });

  test("a conditional read documents its ETag and 304; no other operation does", () => {
    expect(entry.responses["304"] !== undefined).toBe(op.conditional === true);
    expect(entry.responses[String(op.status ?? 200)].headers.ETag !== undefined).toBe(op.conditional === true);
  });

  test("lists every error it can raise under that error's status", () => {
    for (const e of [...sharedErrors(op), ...(op.errors ?? [])]) {
      const schema = entry.responses[String(e.status)]?.content["application/json"].schema;
      const schemas = schema?.oneOf ?? [schema];
      expect(schemas.map((s: any) => s.properties._tag.const)).toContain(e.tag);
    }
  });

  test("refuses in JSON, like every other answer", async () => {
    const res = await h.request(op.method, pathOf(op), { body: op.method === "GET" ? undefined : {} });
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(res.headers.get("x-request-id")).toBeTruthy();
  });
});

test("the document declares the x-api-key scheme and a server", () => {
  expect(doc.openapi).toMatch(/^3\.1/);
  expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: "apiKey", in: "header", name: "x-api-key" });
  expect(raw.servers).toEqual([{ url: "/", description: expect.any(String) }]);
});

describe("named schemas", () => {
  test("the resources, bodies and error bodies integrators handle are components, referenced where used", () => {
    const names = Object.keys(raw.components.schemas);
    for (const name of [
      "HandoverRow",
      "ContractorInvoice",
      "Company",
      "CreateCompanyBody",
      "Task",
      "SmsThread",
      "CalendarEvent",
      "RequestInvalid",
      "RateLimited",
      "Unauthenticated",
      "RouteNotFound",
    ]) {
      expect(names).toContain(name);
    }
    const cancel = raw.paths["/tasks/{id}/cancel"].post;
    expect(cancel.responses["200"].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/Task" });
    expect(cancel.responses["400"].content["application/json"].schema.oneOf).toContainEqual({
      $ref: "#/components/schemas/RequestInvalid",
    });
    expect(raw.paths["/companies"].post.requestBody.content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/CreateCompanyBody",
    });
    expect(raw.components.schemas.SmsThreads.items).toEqual({ $ref: "#/components/schemas/SmsThread" });
  });

  test("every schema with a title is a component: no titled schema is left inline", () => {
    const inlineTitles: string[] = [];
    const walk = (node: unknown, path: string) => {
      if (Array.isArray(node)) {
        for (const [i, v] of node.entries()) walk(v, `${path}/${i}`);
        return;
      }
      if (node === null || typeof node !== "object") return;
      const o = node as Record<string, unknown>;
      if (typeof o.title === "string" && ["type", "anyOf", "oneOf", "allOf", "const"].some((k) => k in o))
        inlineTitles.push(`${path}: ${o.title}`);
      for (const [k, v] of Object.entries(o)) walk(v, `${path}/${k}`);
    };
    walk(raw.paths, "#/paths");
    for (const [name, schema] of Object.entries(raw.components.schemas as Record<string, Record<string, unknown>>)) {
      expect(schema.title).toBe(name);
      walk({ ...schema, title: undefined }, `#/components/schemas/${name}`);
    }
    expect(inlineTitles).toEqual([]);
  });

  test("every reference names a component, and every component is a schema of the declarations", () => {
    const names = new Set(Object.keys(raw.components.schemas));
    const refs = refsIn(raw);
    expect(refs.length).toBeGreaterThan(operations.length);
    expect(refs.filter((r) => !r.startsWith("#/components/schemas/") || !names.has(r.slice(21)))).toEqual([]);
  });

  test("two different schemas under one title stop the document from being built", () => {
    const a = Strict({ n: Type.Number() }, { title: "Clash" });
    const b = Strict({ n: Type.String() }, { title: "Clash" });
    const op = (id: string, response: typeof a | typeof b) =>
      operation({
        id,
        group: "tasks",
        method: "GET",
        path: `/${id}`,
        summary: id,
        description: id,
        response,
        run: async () => ({ n: 1 }) as any,
      });
    expect(() => buildOpenApi([op("one", a), op("two", a)], { version: "1", description: "" })).not.toThrow();
    expect(() => buildOpenApi([op("one", a), op("two", b)], { version: "1", description: "" })).toThrow(
      /Two different schemas are titled Clash/,
    );
  });

  test("MCP tools keep self-contained schemas, equal to the document's once its references are resolved", () => {
    for (const op of operations) {
      const { definition } = toolOf(op);
      expect(refsIn(definition.inputSchema)).toEqual([]);
      expect(refsIn(definition.outputSchema ?? {})).toEqual([]);
      const entry = doc.paths[openApiPath(op.path)][op.method.toLowerCase()];
      expect(definition.outputSchema as unknown).toEqual(
        entry.responses[String(op.status ?? 200)].content["application/json"].schema,
      );
    }
  });
});

describe("standing alone", () => {
  test("names no file a user of the service does not have", () => {
    const text = JSON.stringify(raw);
    for (const name of ["API.md", "CONTRACT.md", "STYLE.md", "shared/", "§"]) expect(text).not.toContain(name);
  });

  test("every tag has a description, and every operation a summary", () => {
    const used = new Set(operations.map((op) => (op.extension ? `${op.group} (extension)` : op.group)));
    for (const route of publicRoutes) if (route.openapi) used.add(route.openapi.tag);
    expect(raw.tags.map((t: { name: string }) => t.name).sort()).toEqual([...used].sort());
    for (const tag of raw.tags) expect(tag.description.length).toBeGreaterThan(20);
    for (const op of operations)
      expect(doc.paths[openApiPath(op.path)][op.method.toLowerCase()].summary).toBe(op.summary);
  });

  test("the top description tells the conventions integrators need", () => {
    for (const heading of [
      "## Authentication and the order of the checks",
      "## Request budget",
      "## Wire conventions",
      "## Errors",
      "## Retries and concurrent writes",
      "## Pages",
    ]) {
      expect(raw.info.description).toContain(heading);
    }
  });
});
