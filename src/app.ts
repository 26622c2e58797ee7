/** Builds the Elysia app from its parts; never listens (tests call app.handle). */
import { Elysia } from "elysia";
import { openapi } from "@elysiajs/openapi";
import { monotonicFactory } from "ulid";
import { bodyLimit, execute, renderError, type Call } from "./core/execute.ts";
import { RouteNotFound, IntegrationUnavailable } from "./core/errors.ts";
import { buildOpenApi } from "./core/openapi.ts";
import type { AppContext, Operation } from "./core/operation.ts";
import { operations as allOperations } from "./operations.ts";
import { apiDescription } from "./core/api_description.ts";
import { mcpEndpoint } from "./mcp/http.ts";

/** ULIDs for request ids: within a millisecond the next is the last plus one, not 80 fresh random bits. */
const ulid = monotonicFactory();

/** The request id to echo: the caller's when printable and at most 128 characters, else a new ULID. */
export function requestIdOf(request: Request): string {
  const sent = request.headers.get("x-request-id");
  return sent && /^[\x21-\x7e][\x20-\x7e]{0,127}$/.test(sent) ? sent : ulid();
}

const json = "application/json; charset=utf-8";

/** A JSON response with the request id. */
function respond(status: number, bodyText: string, requestId: string, headers: Record<string, string> = {}): Response {
  return new Response(bodyText, { status, headers: { "content-type": json, "x-request-id": requestId, ...headers } });
}

/** A path parameter decoded; a malformed escape is kept as sent (validation then refuses it). */
function decodeParam(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * The path parameters of an operation's route, read from the path as sent and decoded once. The router only
 * picks the route: Bun's router (the server) and Elysia's (app.handle) decode differently, and Elysia turns a
 * malformed escape into null.
 */
function pathParams(pattern: string, pathname: string): Record<string, string> {
  const names = pattern.split("/");
  const parts = pathname.split("/");
  const params: Record<string, string> = {};
  for (let i = 0; i < names.length; i++) {
    if (names[i]!.startsWith(":")) params[names[i]!.slice(1)] = decodeParam(parts[i] ?? "");
  }
  return params;
}

/** Turns an HTTP request into an operation call. */
async function toCall(op: Operation, request: Request, requestId: string): Promise<Call> {
  const url = new URL(request.url);
  const query: Record<string, unknown> = {};
  for (const [k, v] of url.searchParams) {
    query[k] = k in query ? ([] as unknown[]).concat(query[k], v) : v;
  }
  const hasBody = request.body !== null && request.method !== "GET" && request.method !== "HEAD";
  const declared = Number(request.headers.get("content-length") ?? 0);
  let body: Call["body"] = { kind: "none" };
  if (hasBody && declared > bodyLimit) body = { kind: "tooLarge" };
  else if (hasBody) body = { kind: "text", text: await request.text(), contentType: request.headers.get("content-type") };
  return {
    apiKey: request.headers.get("x-api-key"),
    tenantHeader: request.headers.get("x-tenant"),
    params: pathParams(op.path, url.pathname),
    query,
    body,
    requestId,
    url,
  };
}

/** Builds the app: every operation's route, the health check, the OpenAPI document and its page. */
export function buildApp(ctx: AppContext, options: { operations?: readonly Operation[] } = {}) {
  const operations = options.operations ?? allOperations;
  const document = buildOpenApi(operations, { version: "1.0.0", description: apiDescription });
  let app: any = new Elysia()
    .use(
      openapi({
        path: "/docs",
        specPath: "/openapi.json",
        documentation: document as any,
        exclude: { paths: [/.*/] },
      }),
    )
    .onError(({ code, request, error }) => {
      const requestId = requestIdOf(request);
      if (code === "NOT_FOUND") {
        const body = new RouteNotFound({ method: request.method, path: new URL(request.url).pathname }).toBody();
        return respond(404, JSON.stringify(body), requestId);
      }
      const out = renderError(ctx, error, requestId, "http");
      return respond(out.status, out.bodyText, requestId);
    })
    .get(
      "/health",
      async ({ request }) => {
        const requestId = requestIdOf(request);
        try {
          await ctx.db`select 1`;
          return respond(200, JSON.stringify({ status: "ok" }), requestId);
        } catch (error) {
          const body = new IntegrationUnavailable({ integration: "database", detail: String((error as Error).message ?? error), requestId }).toBody();
          return respond(503, JSON.stringify(body), requestId);
        }
      },
      { detail: { hide: true } },
    );
  for (const op of operations) {
    app = app.route(
      op.method,
      op.path,
      async ({ request }: { request: Request }) => {
        const started = performance.now();
        const requestId = requestIdOf(request);
        const out = await execute(ctx, op, await toCall(op, request, requestId));
        ctx.log.info("request", {
          requestId, keyId: out.keyId ?? null, route: op.id, method: op.method, status: out.status,
          durationMs: Math.round((performance.now() - started) * 10) / 10,
        });
        return respond(out.status, out.bodyText, requestId, out.headers);
      },
      { parse: "none", detail: { hide: true } } as any,
    );
  }
  const mcp = mcpEndpoint(ctx, operations);
  app = app.all("/mcp", ({ request }: { request: Request }) => mcp.handle(request, requestIdOf(request)), { parse: "none", detail: { hide: true } } as any);
  return app as Elysia;
}

/** The app type. */
export type App = ReturnType<typeof buildApp>;
