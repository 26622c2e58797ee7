/** MCP tools generated from the operation declarations: names, schemas, annotations, and splitting a tool's input. */
import type { TObject, TSchema } from "@sinclair/typebox";
import type { Tool as McpTool } from "@modelcontextprotocol/server";
import { jsonSchema } from "../core/openapi.ts";
import { moduleFor, scopeFor } from "../core/groups.ts";
import type { Operation } from "../core/operation.ts";

/** A tool as `tools/list` shows it. */
export type ToolDefinition = McpTool;

/** Where each input field of a tool goes in the operation call. */
type Placement = "params" | "query" | "body";

/** A tool and the operation it runs. */
export interface Tool {
  op: Operation;
  definition: ToolDefinition;
  /** The scope the operation needs (tools/list shows the tool only to keys holding it). */
  scope: string;
  placement: ReadonlyMap<string, Placement>;
  /**
   * Whether the operation's body is one object whose fields are the
   * tool's body fields (else the body is the `body` field).
   */
  bodyIsObject: boolean;
}

/** `handovers.forTenancy` → `handovers_forTenancy`. */
export function toolName(operationId: string): string {
  return operationId.replaceAll(".", "_");
}

function objectProperties(schema: TSchema | undefined): [Record<string, TSchema>, string[]] {
  if (!schema) return [{}, []];
  const obj = schema as TObject;
  return [obj.properties ?? {}, obj.required ?? []];
}

function isObjectSchema(schema: TSchema): boolean {
  return (schema as { type?: unknown }).type === "object" && typeof (schema as TObject).properties === "object";
}

/** What the key needs, in the words of the OpenAPI document. */
function requirements(op: Operation): string {
  const moduleId = moduleFor(op.group);
  return [
    `Needs the scope \`${scopeFor(op.group, op.method)}\`.`,
    moduleId ? `The workspace needs the module \`${moduleId}\`.` : "",
    op.ownerOnly ? "Only keys created by the workspace owner." : "",
  ]
    .filter(Boolean)
    .join(" ");
}

/**
 * The tool of an operation: its path, query and body fields as one input object (a field name used twice is a
 * declaration error and throws), the response schema as output schema, and annotations from the method and hints.
 */
export function toolOf(op: Operation): Tool {
  const placement = new Map<string, Placement>();
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const add = (name: string, schema: TSchema, where: Placement, isRequired: boolean) => {
    if (placement.has(name)) {
      throw new Error(
        `${op.id}: the field "${name}" is both a ${placement.get(name)} and a ${where} field; an MCP tool needs ` +
          `one input object`,
      );
    }
    placement.set(name, where);
    properties[name] = jsonSchema(schema);
    if (isRequired) required.push(name);
  };
  const [params] = objectProperties(op.params);
  for (const [name, schema] of Object.entries(params)) add(name, schema, "params", true);
  const [query, queryRequired] = objectProperties(op.query);
  for (const [name, schema] of Object.entries(query)) add(name, schema, "query", queryRequired.includes(name));
  const bodyIsObject = !op.body || isObjectSchema(op.body);
  if (op.body && bodyIsObject) {
    const [body, bodyRequired] = objectProperties(op.body);
    for (const [name, schema] of Object.entries(body)) add(name, schema, "body", bodyRequired.includes(name));
  } else if (op.body) {
    add("body", op.body, "body", true);
  }
  const readOnly = op.method === "GET";
  const title = op.summary;
  const annotations: NonNullable<ToolDefinition["annotations"]> = { title, readOnlyHint: readOnly };
  if (!readOnly) {
    if (op.hints?.destructive !== undefined) annotations.destructiveHint = op.hints.destructive;
    if (op.hints?.idempotent !== undefined) annotations.idempotentHint = op.hints.idempotent;
  }
  const output = jsonSchema(op.response);
  const definition: ToolDefinition = {
    name: toolName(op.id),
    title,
    description: [op.summary, op.description, requirements(op)].filter((s) => s?.trim()).join("\n\n"),
    inputSchema: {
      type: "object",
      properties,
      ...(required.length ? { required } : {}),
      additionalProperties: false,
    } as ToolDefinition["inputSchema"],
    // An unconstrained response schema ({}) says nothing a client could check against.
    ...(Object.keys(output).length ? { outputSchema: output as ToolDefinition["outputSchema"] } : {}),
    annotations,
  };
  return { op, definition, scope: scopeFor(op.group, op.method), placement, bodyIsObject };
}

/** The tools of a list of operations, by name. */
export function toolsOf(operations: readonly Operation[]): ReadonlyMap<string, Tool> {
  const tools = new Map<string, Tool>();
  for (const op of operations) {
    const tool = toolOf(op);
    if (tools.has(tool.definition.name)) throw new Error(`two operations make the tool ${tool.definition.name}`);
    tools.set(tool.definition.name, tool);
  }
  return tools;
}

/** The tools a key's scopes allow, in declaration order. */
export function toolsAllowed(tools: ReadonlyMap<string, Tool>, scopes: ReadonlySet<string>): ToolDefinition[] {
  return [...tools.values()].filter((t) => scopes.has(t.scope)).map((t) => t.definition);
}

/**
 * Splits a tool's input into the operation's path, query and body values. Fields the tool does not declare go to
 * the body, where validation refuses them by name as it does for REST (unknown fields are never dropped).
 */
export function splitArguments(tool: Tool, args: Record<string, unknown>) {
  const params: Record<string, string> = {};
  const query: Record<string, unknown> = {};
  let body: Record<string, unknown> | undefined;
  let whole: unknown;
  let wholeSent = false;
  for (const [name, value] of Object.entries(args)) {
    const where = tool.placement.get(name) ?? "body";
    if (where === "params") {
      // Path segments are text; any other value is passed on as sent, so validation names it.
      params[name] = value as string;
    } else if (where === "query") {
      query[name] = value;
    } else if (!tool.bodyIsObject && name === "body") {
      whole = value;
      wholeSent = true;
    } else {
      body ??= {};
      body[name] = value;
    }
  }
  const hasBody = tool.op.body !== undefined || body !== undefined;
  const value = tool.bodyIsObject ? (body ?? {}) : wholeSent ? whole : undefined;
  return { params, query, body: hasBody ? { kind: "value" as const, value } : { kind: "none" as const } };
}

/**
 * The REST path of an operation for its path values (for links a handler builds, e.g. the next page). A lone
 * surrogate, which a URL cannot carry, becomes U+FFFD here; validation refuses the value itself.
 */
export function restPath(op: Operation, params: Record<string, unknown>): string {
  return op.path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) =>
    encodeURIComponent(String(params[name] ?? "").toWellFormed()),
  );
}
