/**
 * The official TypeScript SDK 1.x client (`@modelcontextprotocol/sdk`), which validates every structuredContent
 * against the tool's outputSchema with ajv, errors included: over Streamable HTTP to the real service and over stdio
 * to `bun src/mcp/stdio.ts`, each success validates and equals REST, and each refusal is a tool error it reads
 * without throwing, its tagged body in the text (README, MCP).
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { ensureDemo } from "../../src/workspace_import/demo.ts";
import { operations } from "../../src/operations.ts";
import { harness, type TestWorkspace } from "../support/harness.ts";
import { demoCasesFor, restOf } from "./demo_cases.ts";
import { argumentsOf, bodyOf, expectAnswerOfRest } from "./support.ts";
import { startService, type RunningService } from "../support/service.ts";

const h = await harness();
// These tests start processes (the Inspector, the service): longer than the harness's 30 s under load.
setDefaultTimeout(60_000);
const demo = await ensureDemo(h.database.db);
const cases = await demoCasesFor(h, demo.key);

let service: RunningService;
beforeAll(async () => {
  service = await startService(h.database.url);
});
afterAll(async () => {
  await service?.stop();
});

function client() {
  return new Client({ name: "lettings-tests-sdk1", version: "1.0.0" });
}

async function overHttp(key: string) {
  const c = client();
  await c.connect(
    new StreamableHTTPClientTransport(new URL(`${service.base}/mcp`), {
      requestInit: { headers: { "x-api-key": key } },
    }),
  );
  return c;
}

async function overStdio(key: string) {
  const c = client();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["src/mcp/stdio.ts"],
    cwd: join(import.meta.dir, "..", ".."),
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      DATABASE_URL: h.database.url,
      LETTINGS_API_KEY: key,
      CHECK_RESPONSES: "true",
      LOG_LEVEL: "warn",
    },
    stderr: "inherit",
  });
  await c.connect(transport);
  return c;
}

describe.each([
  ["Streamable HTTP (the real service)", overHttp],
  ["stdio (bun src/mcp/stdio.ts)", overStdio],
] as const)("the SDK 1.x client over %s", (_, connect) => {
  test("initializes on the 2025 revision it speaks and lists every tool, each output schema compiled by its ajv", async () => {
    const c = await connect(demo.key);
    try {
      expect(c.getServerVersion()).toMatchObject({ name: "lettings-service", version: "1.0.0" });
      // The client refuses a server answering a revision it does not know; over HTTP the transport shows the one agreed.
      if (c.transport instanceof StreamableHTTPClientTransport)
        expect(c.transport.protocolVersion).toBe(LATEST_PROTOCOL_VERSION);
      expect(c.getInstructions()).toContain("without structuredContent");
      // listTools compiles every outputSchema with the client's ajv (strict: false, ajv-formats) and throws on a failure.
      const { tools } = await c.listTools();
      expect(tools).toHaveLength(operations.length);
      for (const tool of tools) {
        expect(tool.outputSchema, tool.name).toBeDefined();
        expect(() => new AjvJsonSchemaValidator().getValidator(tool.outputSchema!), tool.name).not.toThrow();
      }
    } finally {
      await c.close();
    }
  });

  test("each success validates against its outputSchema and equals REST; each refusal is a tool error with its tagged body", async () => {
    const c = await connect(demo.key);
    try {
      await c.listTools();
      for (const k of cases) {
        const result = await c.callTool({ name: k.tool, arguments: argumentsOf(k.input) });
        const answer = await restOf(h, k, demo.key);
        expectAnswerOfRest(result, k.op, answer, "legacy");
        if (k.tag) expect(bodyOf(result)._tag, k.label).toBe(k.tag);
      }
    } finally {
      await c.close();
    }
  });

  test("a refusal beyond the key's scopes is a tool error the client reads, for a tool it was never shown", async () => {
    const key = await h.key({ slug: demo.slug } as TestWorkspace, ["calendar:read"]);
    const c = await connect(key);
    try {
      const { tools } = await c.listTools();
      expect(tools.map((t) => t.name)).toEqual(["calendar_agenda"]);
      const result = await c.callTool({ name: "tasks_cancel", arguments: { id: "task-carpet-clean-7" } });
      expect(result.isError).toBe(true);
      expect(result.structuredContent).toBeUndefined();
      expect(bodyOf(result)).toEqual({ _tag: "ScopeMissing", scope: "tasks:write" });
    } finally {
      await c.close();
    }
  });
});
