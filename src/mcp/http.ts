/**
 * `POST /mcp`: MCP over Streamable HTTP, stateless, answering in JSON. The key is checked before the SDK sees the
 * request: no key or a rejected one refuses the request with 401 and the tagged body, as REST does, and with a
 * `WWW-Authenticate` challenge naming the header the key goes in.
 */
import {
  createMcpHandler,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type Server,
} from "@modelcontextprotocol/server";
import { rateLimitHeaders } from "../core/budget.ts";
import { bodyLimit, checkBudget, checkKey, checkWorkspace, type FoundKey } from "../core/execute.ts";
import { AppError, PayloadTooLarge } from "../core/errors.ts";
import { answerHeaders, errorResponse } from "../core/json_response.ts";
import { bodyNotArrived, hostInvalid, readBody, urlOf } from "../core/http_request.ts";
import type { AppContext, Operation } from "../core/operation.ts";
import { MethodNotAllowed } from "./errors.ts";
import { requestLogFields } from "../core/request_log.ts";
import { mcpServer, type Caller } from "./server.ts";
import { toolsOf } from "./tools.ts";

/** The largest MCP message accepted: a 64 KiB operation body and its JSON-RPC envelope. */
export const messageLimit = 2 * bodyLimit;

/**
 * The key checks (src/core/api_description.ts) a message is refused on before the SDK reads it, after the key's
 * (checks 1, 2): a tools/list is refused as a whole on X-Tenant, suspension and the budget (checks 3 to 5), like a
 * REST request; a tools/call answers those as a tool error instead (its result is the operation's answer); any
 * other message (initialize, notifications) on the budget alone, so that a client of a suspended workspace or with
 * a wrong X-Tenant still connects and learns why from its calls.
 */
function checkMessage(found: FoundKey, rpc: unknown, tenantHeader: string | null): void {
  if (rpc === "tools/call") return;
  if (rpc === "tools/list") checkWorkspace(found.principal, tenantHeader);
  checkBudget(found);
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
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: messageLimit,
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
    const seen: { keyId?: string; workspaceId?: string; rpc?: string } = {};
    const response = await answer(request, requestId, seen);
    // A refusal's body is small JSON; read a copy of it for its tag.
    const body =
      response.status >= 400
        ? await response
            .clone()
            .json()
            .catch(() => null)
        : undefined;
    app.log.info("request", {
      requestId,
      method: request.method,
      rpc: seen.rpc ?? null,
      ...requestLogFields("mcp", undefined, {
        status: response.status,
        body,
        keyId: seen.keyId,
        workspaceId: seen.workspaceId,
      }),
      durationMs: Math.round((performance.now() - started) * 10) / 10,
    });
    return response;
  }

  async function answer(
    request: Request,
    requestId: string,
    seen: { keyId?: string; workspaceId?: string; rpc?: string },
  ): Promise<Response> {
    if (request.method !== "POST") {
      return errorResponse(new MethodNotAllowed({ method: request.method, allow: ["POST"] }), requestId, {
        allow: "POST",
      });
    }
    const url = urlOf(request);
    if (!url) return errorResponse(hostInvalid(), requestId);
    // Key checks 1 and 2: they refuse the request itself, before any MCP message is read.
    const apiKey = request.headers.get("x-api-key");
    let found: FoundKey;
    try {
      found = await checkKey(app, apiKey);
    } catch (error) {
      if (error instanceof AppError) return errorResponse(error, requestId);
      throw error;
    }
    seen.keyId = found.principal.keyId;
    seen.workspaceId = found.principal.workspaceId;
    const limits = rateLimitHeaders(found.bucket);
    const read = await readBody(request, messageLimit, app.config.bodyTimeoutMs);
    if (read.kind === "tooLarge") return errorResponse(new PayloadTooLarge({ limit: messageLimit }), requestId, limits);
    if (read.kind !== "text")
      return errorResponse(bodyNotArrived(read.kind, app.config.bodyTimeoutMs), requestId, limits);
    const text = read.text;
    let parsedBody: unknown;
    try {
      parsedBody = JSON.parse(text);
    } catch {
      parsedBody = undefined; // the SDK answers the JSON-RPC parse error
    }
    const rpc = (parsedBody as { method?: unknown } | null)?.method;
    if (typeof rpc === "string") seen.rpc = rpc;
    const tenantHeader = request.headers.get("x-tenant");
    try {
      checkMessage(found, rpc, tenantHeader);
    } catch (error) {
      return errorResponse(error as AppError, requestId, limits);
    }
    const sdkRequest = new Request(request.url, { method: "POST", headers: request.headers, body: text });
    callers.set(sdkRequest, {
      apiKey,
      tenantHeader,
      requestId,
      origin: url.origin,
      lookup: found,
    });
    const res = (await isLegacyRequest(sdkRequest.clone() as Request, parsedBody, { maxRequestBodySize: messageLimit }))
      ? await legacy(sdkRequest, parsedBody)
      : await modern.fetch(sdkRequest, parsedBody === undefined ? {} : { parsedBody });
    const headers = new Headers(res.headers);
    headers.set("x-request-id", requestId);
    for (const [name, value] of Object.entries(answerHeaders)) if (name !== "content-type") headers.set(name, value);
    for (const [name, value] of Object.entries(limits)) headers.set(name, value);
    return new Response(res.body, { status: res.status, headers });
  }

  return { handle, close: () => modern.close() };
}
