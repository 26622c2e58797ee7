/** The OpenAPI document agrees with every operation declaration (CONTRACT.md §7), and /docs renders it. */
import { describe, expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import { operations } from "../../src/operations.ts";
import { jsonSchema, openApiPath, sharedErrors } from "../../src/core/openapi.ts";
import { pathOf } from "../support/calls.ts";

const h = await harness();
const doc = (await h.request("GET", "/openapi.json")).body;

describe.each(operations.map((op) => [op.id, op] as const))("%s in OpenAPI", (_id, op) => {
  const entry = doc.paths[openApiPath(op.path)]?.[op.method.toLowerCase()];

  test("is listed under its path and method with its operationId, its group's tag and the key scheme", () => {
    expect(entry.operationId).toBe(op.id);
    expect(entry.tags).toEqual([op.extension ? `${op.group} (extension)` : op.group]);
    expect(entry.security).toEqual([{ apiKey: [] }]);
  });

  test("declares its path and query parameters and its body", () => {
    const names = (entry.parameters as { name: string; in: string }[]).map((p) => `${p.in}:${p.name}`).sort();
    const declared = [
      ...Object.keys(op.params?.properties ?? {}).map((n) => `path:${n}`),
      ...Object.keys(op.query?.properties ?? {}).map((n) => `query:${n}`),
    ].sort();
    expect(names).toEqual(declared);
    if (op.body) expect(entry.requestBody.content["application/json"].schema).toEqual(jsonSchema(op.body));
    else expect(entry.requestBody).toBeUndefined();
  });

  test("answers its success status with the declared response schema", () => {
    expect(entry.responses[String(op.status ?? 200)].content["application/json"].schema).toEqual(jsonSchema(op.response));
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

test("the document declares the x-api-key scheme and /docs renders it", async () => {
  expect(doc.openapi).toMatch(/^3\.1/);
  expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: "apiKey", in: "header", name: "x-api-key" });
  const page = await h.request("GET", "/docs");
  expect(page.status).toBe(200);
  expect(page.headers.get("content-type")).toContain("text/html");
  expect(page.text).toContain("openapi.json");
});
