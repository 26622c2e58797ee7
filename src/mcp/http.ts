/**
 * `POST /mcp`: MCP over Streamable HTTP, stateless, answering in JSON. The key is checked before the SDK sees the
 * request: no key or a rejected one refuses the request with 401 and the tagged body, as REST does.
 */
import {
  createMcpHandler, isLegacyRequest, WebStandardStreamableHTTPServerTransport, type Server,
} from "@modelcontextprotocol/server";
import { authenticate } from "../core/auth.ts";
import { rateLimitHeaders, retryAfterSeconds } from "../core/budget.ts";
import { bodyLimit } from "../core/execute.ts";
import { ApiKeyRejected, PayloadTooLarge, RateLimited, Unauthenticated, type AppError } from "../core/errors.ts";
import type { AppContext, Operation } from "../core/operation.ts";
import { MethodNotAllowed } from "./errors.ts";
import { mcpServer, type Caller } from "./server.ts";
import { toolsOf } from "./tools.ts";

/** The largest MCP message accepted: a 64 KiB operation body and its JSON-RPC envelope. */
export const messageLimit = 2 * bodyLimit;

const json = "application/json; charset=utf-8";

function refuse(error: AppError, requestId: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(error.toBody()), {
    status: error.status,
    headers: { "content-type": json, "x-request-id": requestId, ...headers, ...error.headers },
  });
}

/** The handler of `/mcp` for a set of operations: `handle(request, requestId)` answers one HTTP request. */
export function mcpEndpoint(app: AppContext, operations: readonly Operation[]) {
  const tools = toolsOf(operations);
  const callers = new WeakMap<Request, Caller>();
  const factory = ({ requestInfo }: { requestInfo?: Request }): Server => {
    const caller = requestInfo && callers.get(requestInfo);
    if (!caller) throw new Error("an MCP request reached the SDK without its caller");
    return mcpServer(app, tools, caller);
  };
  const onerror = (error: Error) => app.log.warn("mcp", { error: error.message });
  // 2026-07-28 traffic (per-request envelope); 2025-era traffic is routed below to a stateless JSON transport.
  // "auto" answers with one JSON body: no handler here emits a message before its result.
  const modern = createMcpHandler(factory, { legacy: "reject", maxRequestBodySize: messageLimit, onerror });

  async function legacy(request: Request, parsedBody: unknown): Promise<Response> {
    const server = factory({ requestInfo: request });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize: messageLimit,
    });
    transport.onerror = onerror;
    await server.connect(transport);
    try {
      const res = await transport.handleRequest(request, parsedBody === undefined ? {} : { parsedBody });
      // The JSON answer is complete once handleRequest resolves; read it before the server is closed.
      const text = await res.text();
      return new Response(text, { status: res.status, headers: res.headers });
    } finally {
      await server.close();
    }
  }

  /** Answers one HTTP request to /mcp, logged as REST requests are. */
  async function handle(request: Request, requestId: string): Promise<Response> {
    const started = performance.now();
    const seen: { keyId?: string; rpc?: string } = {};
    const response = await answer(request, requestId, seen);
    app.log.info("request", {
      requestId, keyId: seen.keyId ?? null, route: "mcp", rpc: seen.rpc ?? null, method: request.method,
      status: response.status, durationMs: Math.round((performance.now() - started) * 10) / 10,
    });
    return response;
  }

  async function answer(request: Request, requestId: string, seen: { keyId?: string; rpc?: string }): Promise<Response> {
    if (request.method !== "POST") {
      return refuse(new MethodNotAllowed({ method: request.method, allow: ["POST"] }), requestId, { allow: "POST" });
    }
    // CONTRACT.md §2, checks 1 and 2: they refuse the request itself, before any MCP message is read.
    const apiKey = request.headers.get("x-api-key");
    if (!apiKey) return refuse(new Unauthenticated(), requestId);
    const found = await authenticate(app.db, apiKey, app.leases);
    if (!found.found) return refuse(new ApiKeyRejected(), requestId);
    seen.keyId = found.principal.keyId;
    const limits = rateLimitHeaders(found.bucket);
    const text = await request.text();
    if (Buffer.byteLength(text, "utf8") > messageLimit) return refuse(new PayloadTooLarge({ limit: messageLimit }), requestId, limits);
    let parsedBody: unknown;
    try {
      parsedBody = JSON.parse(text);
    } catch {
      parsedBody = undefined; // the SDK answers the JSON-RPC parse error
    }
    const rpc = (parsedBody as { method?: unknown } | null)?.method;
    if (typeof rpc === "string") seen.rpc = rpc;
    // The request spent its token above. A tool call on an empty bucket is a RateLimited tool error; any other
    // message (initialize, tools/list, notifications) is refused here with 429, as a REST request would be.
    if (!found.bucket.admitted && rpc !== "tools/call") {
      const wait = retryAfterSeconds(found.bucket);
      const error = new RateLimited({
        key: found.principal.keyId, retryAfterSeconds: wait,
        message: `The request budget of this key (${found.bucket.capacity} a minute) is spent; retry in ${wait} s.`,
      });
      return refuse(error, requestId, { ...limits, "retry-after": String(wait) });
    }
    const sdkRequest = new Request(request.url, { method: "POST", headers: request.headers, body: text });
    callers.set(sdkRequest, {
      apiKey, tenantHeader: request.headers.get("x-tenant"), requestId, origin: new URL(request.url).origin, lookup: found,
    });
    const res = (await isLegacyRequest(sdkRequest.clone() as Request, parsedBody, { maxRequestBodySize: messageLimit }))
      ? await legacy(sdkRequest, parsedBody)
      : await modern.fetch(sdkRequest, parsedBody === undefined ? {} : { parsedBody });
    const headers = new Headers(res.headers);
    headers.set("x-request-id", requestId);
    for (const [name, value] of Object.entries(limits)) headers.set(name, value);
    return new Response(res.body, { status: res.status, headers });
  }

  return { handle, close: () => modern.close() };
}
