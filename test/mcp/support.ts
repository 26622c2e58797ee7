/** MCP clients for tests (the SDK's own, over HTTP through app.handle or over stdio), and the REST-equivalence check. */
import { expect } from "bun:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { join } from "node:path";
import type { Operation } from "../../src/core/operation.ts";
import { toolOf } from "../../src/mcp/tools.ts";

/** The protocol eras a client can speak: the 2025 `initialize` handshake, or 2026-07-28 with per-request envelopes. */
export type Era = "legacy" | "modern";

/** One HTTP exchange the client made, as the server answered it. */
export interface Exchange {
  method: string;
  /** The JSON-RPC method of a POST (or null). */
  rpc: string | null;
  status: number;
  body: any;
  headers: Headers;
}

/** Something that answers HTTP requests like the app does. */
export interface Handler {
  handle(request: Request): Promise<Response>;
}

/** An SDK client connected over Streamable HTTP, with every exchange recorded. */
export interface HttpSession {
  client: Client;
  exchanges: Exchange[];
  close(): Promise<void>;
}

/** Options of an MCP client: the key, extra headers, the era. */
export interface ClientOptions {
  key?: string | null;
  headers?: Record<string, string>;
  era?: Era;
}

function clientFor(era: Era) {
  return new Client(
    { name: "lettings-tests", version: "1.0.0" },
    era === "modern" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {},
  );
}

/** Connects the SDK's client to `/mcp` of an app, over a fetch that calls app.handle. */
export async function connectHttp(app: Handler, options: ClientOptions = {}): Promise<HttpSession> {
  const exchanges: Exchange[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input as string, init);
    let rpc: string | null = null;
    if (request.method === "POST") {
      try {
        rpc = JSON.parse(await request.clone().text()).method ?? null;
      } catch {}
    }
    const res = await app.handle(request);
    const text = await res.clone().text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {}
    exchanges.push({ method: request.method, rpc, status: res.status, body, headers: res.headers });
    return res;
  };
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.key) headers["x-api-key"] = options.key;
  const client = clientFor(options.era ?? "legacy");
  const transport = new StreamableHTTPClientTransport(new URL("http://localhost/mcp"), {
    fetch: fetch as any,
    requestInit: { headers },
  });
  await client.connect(transport);
  return { client, exchanges, close: () => client.close() };
}

/** Connects the SDK's client to `bun run mcp` spawned with a key and a database. */
export async function connectStdio(env: { databaseUrl: string; key?: string; era?: Era }) {
  const stderr: string[] = [];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ["run", "mcp"],
    cwd: join(import.meta.dir, "..", ".."),
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      DATABASE_URL: env.databaseUrl,
      CHECK_RESPONSES: "true",
      LOG_LEVEL: "warn",
      ...(env.key ? { LETTINGS_API_KEY: env.key } : {}),
    },
    stderr: "pipe",
  });
  transport.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk.toString()));
  const client = clientFor(env.era ?? "legacy");
  await client.connect(transport);
  return { client, stderr, pid: transport.pid, close: () => client.close() };
}

/** A REST answer. */
export interface RestAnswer {
  status: number;
  text: string;
  body: any;
}

/** The path of an operation with every path parameter set to `id`. */
export function restPathOf(op: Operation, values: Record<string, string>): string {
  return op.path.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => encodeURIComponent(values[name]!));
}

/** An operation's input, as REST and as one MCP tool argument object. */
export interface Input {
  params: Record<string, string>;
  query: Record<string, string | number | boolean>;
  body?: Record<string, unknown>;
}

/** Calls an operation over REST. */
export async function rest(
  app: Handler,
  op: Operation,
  input: Input,
  options: ClientOptions = {},
): Promise<RestAnswer> {
  const url = new URL(restPathOf(op, input.params), "http://localhost");
  for (const [k, v] of Object.entries(input.query)) url.searchParams.set(k, String(v));
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.key) headers["x-api-key"] = options.key;
  let body: string | undefined;
  if (input.body !== undefined) {
    body = JSON.stringify(input.body);
    headers["content-type"] = "application/json";
  }
  const res = await app.handle(new Request(url.toString(), { method: op.method, headers, body }));
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) };
}

/** The tool arguments of an input: path, query and body fields in one object. */
export function argumentsOf(input: Input): Record<string, unknown> {
  return { ...input.params, ...input.query, ...(input.body ?? {}) };
}

/** What structuredContent must be for a REST success body on an era (2025-era results must be objects, so the SDK wraps others). */
export function expectedStructured(op: Operation, body: unknown, era: Era): unknown {
  const schema = toolOf(op).definition.outputSchema;
  const nonObjectValue = typeof body !== "object" || body === null || Array.isArray(body);
  const nonObjectSchema = schema !== undefined && schema.type !== "object";
  return era === "legacy" && (nonObjectValue || nonObjectSchema) ? { result: body } : body;
}

/** The JSON a tool result carries in its text: the operation's JSON for a success, the tagged body for a refusal. */
export function bodyOf(result: unknown): any {
  const content = (result as { content?: { type: string; text?: string }[] }).content;
  const text = content?.find((c) => c.type === "text")?.text;
  if (text === undefined) throw new Error(`no text content in ${JSON.stringify(result)}`);
  return JSON.parse(text);
}

/**
 * Checks a tool result (from any client) against the REST answer for the same input: a success's structuredContent
 * is the REST body (byte for byte once serialised) and its text is the REST body's bytes; a refusal is a tool error
 * with no structuredContent whose text is the REST error body's bytes (README, MCP).
 */
export function expectAnswerOfRest(result: any, op: Operation, answer: RestAnswer, era: Era) {
  const label = `${op.id} (${era}) answered REST ${answer.status} ${answer.text}`;
  expect(result._meta?.["lettings/status"], label).toBe(answer.status);
  if (answer.status < 400) {
    expect(result.isError ?? false, label).toBe(false);
    const expected = expectedStructured(op, answer.body, era);
    expect(result.structuredContent, label).toEqual(expected as any);
    const serialised = JSON.stringify(result.structuredContent);
    expect(serialised, label).toBe(
      expected === answer.body ? answer.text : JSON.stringify({ result: JSON.parse(answer.text) }),
    );
  } else {
    expect(result.isError, label).toBe(true);
    expect(result.structuredContent, label).toBeUndefined();
    expect(bodyOf(result), label).toEqual(answer.body);
  }
  const text = result.content.find((c: any) => c.type === "text")?.text;
  expect(text, label).toBe(answer.text);
  return result;
}

/** Calls the operation's tool with the 2.x client and checks it against the REST answer for the same input. */
export async function expectSameAsRest(client: Client, op: Operation, input: Input, answer: RestAnswer, era: Era) {
  const result: any = await client.callTool({ name: toolOf(op).definition.name, arguments: argumentsOf(input) });
  return expectAnswerOfRest(result, op, answer, era);
}
