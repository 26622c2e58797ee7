/** Builds the Elysia app from its parts; never listens (tests call app.handle). */
import { eventTypes } from "./event_types.ts";
import { webhooksDocument } from "./events/webhooks_doc.ts";
import { Elysia } from "elysia";
import { monotonicFactory } from "ulid";
import { bodyLimit, execute, renderError, type Call } from "./core/execute.ts";
import { AppError, RouteNotFound, IntegrationUnavailable, ShuttingDown } from "./core/errors.ts";
import { jsonResponse } from "./core/json_response.ts";
import { bodyNotArrived, hostInvalid, readBody, urlOf } from "./core/http_request.ts";
import { buildOpenApi } from "./core/openapi.ts";
import { docsSite } from "./core/docs_page.ts";
import type { AppContext, Operation } from "./core/operation.ts";
import { operations as allOperations } from "./operations.ts";
import { apiDescription } from "./core/api_description.ts";
import { requestLogFields } from "./core/request_log.ts";
import { serviceName, version } from "./core/version.ts";
import { mcpEndpoint } from "./mcp/http.ts";
import { answerPublic, type PublicRoute } from "./core/public_route.ts";
import { publicRoutes as allPublicRoutes } from "./public_routes.ts";

/** ULIDs for request ids: within a millisecond the next is the last plus one, not 80 fresh random bits. */
const ulid = monotonicFactory();

/** The request id to echo: the caller's when printable and at most 128 characters, else a new ULID. */
export function requestIdOf(request: Request): string {
  const sent = request.headers.get("x-request-id");
  return sent && /^[\x21-\x7e][\x20-\x7e]{0,127}$/.test(sent) ? sent : ulid();
}

/** What `GET /` answers: the service and where its documentation is. */
const rootBody = JSON.stringify({
  name: serviceName,
  version,
  docs: "/docs",
  openapi: "/openapi.json",
  health: "/health",
  mcp: "/mcp",
});

/** The path of a request, also when its URL is not absolute. */
function pathOf(request: Request): string {
  // Not through URL: a Host with a port out of range makes the whole URL invalid, and the path is still wanted.
  return request.url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, "").replace(/[?#].*$/, "") || "/";
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

/**
 * Turns an HTTP request into an operation call, or into the refusal of a request that cannot become one: no usable
 * Host, a body that did not arrive in full within the deadline, or a connection that closed during the body.
 */
async function toCall(
  op: Operation,
  request: Request,
  requestId: string,
  bodyTimeoutMs: number,
): Promise<Call | AppError> {
  const url = urlOf(request);
  if (!url) return hostInvalid();
  const query: Record<string, unknown> = {};
  for (const [k, v] of url.searchParams) {
    query[k] = k in query ? ([] as unknown[]).concat(query[k], v) : v;
  }
  const hasBody = request.method !== "GET" && request.method !== "HEAD" && request.body !== null;
  let body: Call["body"] = { kind: "none" };
  if (hasBody) {
    const read = await readBody(request, bodyLimit, bodyTimeoutMs);
    if (read.kind === "timedOut" || read.kind === "aborted") return bodyNotArrived(read.kind, bodyTimeoutMs);
    // Over the limit: refused after the key checks, as every other body fault is.
    body =
      read.kind === "tooLarge"
        ? { kind: "tooLarge" }
        : { kind: "text", text: read.text, contentType: request.headers.get("content-type") };
  }
  return {
    apiKey: request.headers.get("x-api-key"),
    tenantHeader: request.headers.get("x-tenant"),
    params: pathParams(op.path, url.pathname),
    query,
    body,
    requestId,
    url,
    ifNoneMatch: request.headers.get("if-none-match"),
    acceptEncoding: request.headers.get("accept-encoding"),
  };
}

/** Builds the app: every operation's route, the health check, the OpenAPI document and its page. */
export function buildApp(
  ctx: AppContext,
  options: { operations?: readonly Operation[]; publicRoutes?: readonly PublicRoute[] } = {},
) {
  const operations = options.operations ?? allOperations;
  const document = buildOpenApi(
    operations,
    { version, description: apiDescription },
    options.publicRoutes ?? allPublicRoutes,
    webhooksDocument(eventTypes),
  );
  const docs = docsSite(document);
  // Elysia finds the path of the requests its own router serves (/mcp, unknown paths) after the 11th character of
  // the URL by default, assuming a host of at least 4 characters: `Host: api` made POST /mcp a RouteNotFound.
  let app: any = new Elysia({ handler: { standardHostname: false } })
    // The answers no route gave (an unknown path, a fault outside the handlers) are logged like the others, so that
    // their request id can be found; the path is logged too, cut short.
    .onError(({ code, request, error }) => {
      const requestId = requestIdOf(request);
      const path = pathOf(request);
      const out =
        code === "NOT_FOUND"
          ? renderError(ctx, new RouteNotFound({ method: request.method, path }), requestId, "http")
          : renderError(ctx, error, requestId, "http");
      ctx.log.info("request", {
        requestId,
        method: request.method,
        ...requestLogFields(null, undefined, out),
        path: path.slice(0, 200),
      });
      return jsonResponse(out.status, out.bodyText, requestId, {}, request);
    })
    .get("/health", async ({ request }) => {
      const requestId = requestIdOf(request);
      if (ctx.draining?.active) {
        const detail = "The process is stopping: send requests to another replica.";
        const body = JSON.stringify(new ShuttingDown({ detail, requestId }).toBody());
        return jsonResponse(503, body, requestId, {}, request);
      }
      try {
        await ctx.db`select 1`;
        return jsonResponse(200, JSON.stringify({ status: "ok", version }), requestId, {}, request);
      } catch (error) {
        // Through renderError: an unauthenticated caller learns that the database is unreachable, not where it is.
        const out = renderError(ctx, error, requestId, "health");
        const body =
          out.status === 503
            ? out.bodyText
            : JSON.stringify(
                new IntegrationUnavailable({
                  integration: "database",
                  detail: "The database did not answer.",
                  requestId,
                }).toBody(),
              );
        return jsonResponse(503, body, requestId, {}, request);
      }
    })
    // The root points people to the documentation (JSON, like every other answer).
    .get("/", ({ request }) => jsonResponse(200, rootBody, requestIdOf(request), {}, request));
  for (const op of operations) {
    app = app.route(
      op.method,
      op.path,
      async ({ request }: { request: Request }) => {
        const started = performance.now();
        const requestId = requestIdOf(request);
        const call = await toCall(op, request, requestId, ctx.config.bodyTimeoutMs);
        const out =
          call instanceof AppError
            ? { ...renderError(ctx, call, requestId, op.id), headers: call.headers, keyId: undefined }
            : await execute(ctx, op, call);
        ctx.log.info("request", {
          requestId,
          method: op.method,
          ...requestLogFields(op.id, pathParams(op.path, pathOf(request)), out),
          durationMs: Math.round((performance.now() - started) * 10) / 10,
        });
        return jsonResponse(out.status, out.bodyText, requestId, out.headers, request);
      },
      { parse: "none" } as any,
    );
  }
  for (const route of options.publicRoutes ?? allPublicRoutes) {
    app = app.route(
      route.method,
      route.path,
      async ({
        request,
        server,
      }: {
        request: Request;
        server: { requestIP(r: Request): { address: string } | null } | null;
      }) => {
        const started = performance.now();
        const requestId = requestIdOf(request);
        const params = pathParams(route.path, pathOf(request));
        const out = await answerPublic(
          ctx,
          route,
          request,
          params,
          requestId,
          server?.requestIP(request)?.address ?? null,
        );
        ctx.log.info("request", {
          requestId,
          method: route.method,
          ...requestLogFields(route.id, undefined, {
            status: out.response.status,
            error: out.error,
            workspaceId: out.workspaceId,
          }),
          bucket: out.bucket,
          durationMs: Math.round((performance.now() - started) * 10) / 10,
        });
        return out.response;
      },
      { parse: "none" } as any,
    );
  }
  for (const path of docs.paths) {
    app = app.get(path, ({ request }: { request: Request }) => docs.answer(path, request, requestIdOf(request)));
  }
  const mcp = mcpEndpoint(ctx, operations);
  app = app.all("/mcp", ({ request }: { request: Request }) => mcp.handle(request, requestIdOf(request)), {
    parse: "none",
  } as any);
  return app as Elysia;
}

/** The app type. */
export type App = ReturnType<typeof buildApp>;
