/**
 * The MCP server of one caller: tools/list filtered by the key's scopes, tools/call through the same pipeline as REST.
 */
import { ProtocolError, ProtocolErrorCode, Server, type CallToolResult } from "@modelcontextprotocol/server";
import { ulid } from "ulid";
import { execute, executeListing, type KeyLookup, type Outcome } from "../core/execute.ts";
import type { AppContext } from "../core/operation.ts";
import { errorTagOf, requestLogFields } from "../core/request_log.ts";
import { serviceName, version } from "../core/version.ts";
import { restPath, splitArguments, toolsAllowed, type Tool } from "./tools.ts";

/** The server's name and version as `initialize` reports them. */
export const serverInfo = { name: serviceName, version };

const instructions =
  "Each tool is one operation of the Lettings and Property Maintenance Service API, named after its operationId " +
  "with `.` replaced by `_`. A successful call's structuredContent is the operation's JSON response; a refusal is a " +
  "tool error (isError: true) without structuredContent whose text content is the tagged error body as JSON (`_tag` " +
  "names the error). Every call spends one request of the API key's budget.";

/**
 * Who calls, as one transport knows it: the key, the X-Tenant header, and the key lookup already made for this request.
 */
export interface Caller {
  apiKey: string | null;
  tenantHeader: string | null;
  /** The HTTP request's id; on stdio each call gets a new one. */
  requestId?: string;
  /** The base of the URLs handlers build (links to the next page): the service's address. */
  origin: string;
  /**
   * A lookup made for this HTTP request before the SDK saw it (it spent the request's token). The first tool call
   * uses it; any further call in the same request authenticates, and spends, on its own.
   */
  lookup?: KeyLookup;
}

/** The refusal of a tools/list, as a JSON-RPC error whose message is the tag and whose data is the tagged body. */
function refusal(out: Outcome): ProtocolError {
  const code = out.status >= 500 ? ProtocolErrorCode.InternalError : ProtocolErrorCode.InvalidRequest;
  return new ProtocolError(code, errorTagOf(out.body) ?? "Refused", out.body);
}

/**
 * An operation's outcome as a tool result: its JSON, byte for byte, as text and, for a success, as structuredContent.
 * A refusal is a tool error whose text is the tagged body and which has no structuredContent: the official clients
 * (SDK 1.x, the Inspector) check any structuredContent against the tool's outputSchema, errors included, and throw
 * when the success schema does not match the tagged body (README, MCP).
 */
export function toolResult(out: Outcome): CallToolResult {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(out.headers)) headers[name.toLowerCase()] = value;
  const meta = { "lettings/status": out.status, "lettings/headers": headers };
  const content: CallToolResult["content"] = [{ type: "text", text: out.bodyText }];
  if (out.status >= 400) return { content, isError: true, _meta: meta };
  return { content, structuredContent: out.body as Record<string, unknown>, _meta: meta };
}

/** Builds the server for one caller (one HTTP request, or one stdio connection). */
export function mcpServer(app: AppContext, tools: ReadonlyMap<string, Tool>, caller: Caller): Server {
  const server = new Server(serverInfo, { capabilities: { tools: { listChanged: false } }, instructions });
  const takeLookup = () => {
    const taken = caller.lookup;
    caller.lookup = undefined;
    return taken;
  };

  // Key checks 1 to 5 as for a call (the key, X-Tenant, suspension, the budget), then the tools the
  // key's scopes allow.
  server.setRequestHandler("tools/list", async () => {
    const out = await executeListing(
      app,
      {
        apiKey: caller.apiKey,
        tenantHeader: caller.tenantHeader,
        requestId: caller.requestId ?? ulid(),
        lookup: takeLookup(),
      },
      "tools/list",
      (principal) => toolsAllowed(tools, principal.scopes),
    );
    if (out.status >= 400) throw refusal(out);
    return { tools: out.body as ReturnType<typeof toolsAllowed> };
  });

  server.setRequestHandler("tools/call", async (request) => {
    const tool = tools.get(request.params.name);
    if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    const { params, query, body } = splitArguments(tool, args);
    const url = new URL(restPath(tool.op, params), caller.origin);
    for (const [name, value] of Object.entries(query)) {
      for (const v of Array.isArray(value) ? value : [value]) url.searchParams.append(name, String(v));
    }
    const started = performance.now();
    const requestId = caller.requestId ?? ulid();
    const out = await execute(app, tool.op, {
      apiKey: caller.apiKey,
      tenantHeader: caller.tenantHeader,
      params,
      query,
      body,
      requestId,
      url,
      lookup: takeLookup(),
    });
    app.log.info("request", {
      requestId,
      transport: "mcp",
      ...requestLogFields(tool.op.id, params, out),
      durationMs: Math.round((performance.now() - started) * 10) / 10,
    });
    const result = toolResult(out);
    // The wire codec of the connection's protocol revision shapes a success (2025-era connections need an object).
    return result.isError ? result : server.projectCallToolResult(result, tool.definition.outputSchema);
  });

  return server;
}
