/** The OpenAPI 3.1 document, built from the operation declarations. */
import type { TSchema, TObject } from "@sinclair/typebox";
import {
  ApiKeyRejected, EntitlementMissing, IntegrationUnavailable, InternalError, PayloadTooLarge, RateLimited,
  RequestInvalid, ScopeMissing, TenantMismatch, TenantSuspended, Unauthenticated, UnsupportedMediaType,
  WorkspaceOwnerRequired, apiListedErrors, type ErrorClass,
} from "./errors.ts";
import { moduleFor, scopeFor } from "./groups.ts";
import type { Operation } from "./operation.ts";

/** Strips TypeBox's symbol keys and makes a plain JSON Schema. */
export function jsonSchema(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema));
}

/** `/tasks/:id/cancel` → `/tasks/{id}/cancel`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
}

/** The errors every operation can answer, besides its own, in the order of the checks. */
export function sharedErrors(op: Operation): ErrorClass[] {
  const list: ErrorClass[] = [Unauthenticated, ApiKeyRejected, TenantMismatch, TenantSuspended, RateLimited, ScopeMissing];
  if (moduleFor(op.group)) list.push(EntitlementMissing);
  if (op.ownerOnly) list.push(WorkspaceOwnerRequired);
  list.push(RequestInvalid);
  if (op.body) list.push(PayloadTooLarge, UnsupportedMediaType);
  list.push(InternalError, IntegrationUnavailable);
  return list;
}

const statusText: Record<number, string> = {
  400: "Bad request", 401: "Unauthenticated", 402: "Workspace suspended", 403: "Forbidden", 404: "Not found",
  409: "Conflict", 413: "Payload too large", 415: "Unsupported media type", 422: "Unprocessable", 429: "Too many requests",
  500: "Internal error", 503: "Unavailable",
};

const rateLimitHeaders = {
  RateLimit: { description: 'IETF RateLimit field: `"default";r=<tokens left>;t=<seconds until full>`.', schema: { type: "string" } },
  "RateLimit-Policy": { description: 'IETF RateLimit-Policy field: `"default";q=<capacity>;w=60`.', schema: { type: "string" } },
  "X-Request-Id": { description: "The caller's request id when it sent a printable one of at most 128 characters, else a new ULID.", schema: { type: "string" } },
};

function operationObject(op: Operation) {
  const parameters: unknown[] = [];
  for (const [where, schema] of [["path", op.params], ["query", op.query]] as const) {
    if (!schema) continue;
    const obj = schema as TObject;
    for (const [name, prop] of Object.entries(obj.properties)) {
      const p = jsonSchema(prop as TSchema);
      parameters.push({
        name, in: where, required: where === "path" || (obj.required ?? []).includes(name),
        description: p.description, schema: p,
      });
    }
  }
  const raised = [...sharedErrors(op), ...(op.errors ?? [])];
  const raisedTags = new Set(raised.map((e) => e.tag));
  const errors = [...raised, ...(op.listedErrors ?? apiListedErrors)];
  const byStatus = new Map<number, ErrorClass[]>();
  for (const e of errors) {
    const list = byStatus.get(e.status) ?? [];
    if (!list.some((x) => x.tag === e.tag)) list.push(e);
    byStatus.set(e.status, list);
  }
  const responses: Record<string, unknown> = {
    [String(op.status ?? 200)]: {
      description: "Success.",
      headers: { ...rateLimitHeaders, ...Object.fromEntries(Object.entries(op.responseHeaders ?? {}).map(([name, h]) => [name, { schema: { type: "string" }, ...h }])) },
      content: { "application/json": { schema: jsonSchema(op.response) } },
    },
  };
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const schemas = list.map((e) => jsonSchema(e.schema));
    responses[String(status)] = {
      description: `${statusText[status] ?? "Error"}: ${list
        .map((e) => `\`${e.tag}\`${raisedTags.has(e.tag) ? (e.description ? ` (${e.description})` : "") : " (listed by the interface description; this service does not raise it here)"}`)
        .join(", ")}.`,
      headers: status === 429 ? { ...rateLimitHeaders, "Retry-After": { description: "Seconds to wait; equals retryAfterSeconds.", schema: { type: "integer" } } } : rateLimitHeaders,
      content: { "application/json": { schema: schemas.length === 1 ? schemas[0] : { oneOf: schemas } } },
    };
  }
  const scope = scopeFor(op.group, op.method);
  const moduleId = moduleFor(op.group);
  const requirements = [
    `Scope \`${scope}\`.`,
    moduleId ? `Module \`${moduleId}\`.` : "",
    op.ownerOnly ? "Only keys created by the workspace owner (checked at each request)." : "",
  ].filter(Boolean).join(" ");
  return {
    operationId: op.id,
    tags: [op.extension ? `${op.group} (extension)` : op.group],
    summary: op.summary,
    description: `${op.description}\n\n${requirements}${op.extension ? "\n\nExtension: not part of the interface description (API.md) this service implements." : ""}`,
    parameters,
    ...(op.body ? { requestBody: { required: true, content: { "application/json": { schema: jsonSchema(op.body) } } } } : {}),
    responses,
    security: [{ apiKey: [] }],
    ...(op.extension ? { "x-extension": true } : {}),
  };
}

/** The whole OpenAPI document for a set of operations. */
export function buildOpenApi(operations: readonly Operation[], info: { version: string; description: string }) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const path = openApiPath(op.path);
    paths[path] ??= {};
    paths[path][op.method.toLowerCase()] = operationObject(op);
  }
  return {
    openapi: "3.1.0",
    info: { title: "Lettings and Property Maintenance Service API", version: info.version, description: info.description },
    tags: [...new Set(operations.map((o) => (o.extension ? `${o.group} (extension)` : o.group)))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: "apiKey", in: "header", name: "x-api-key", description: "The workspace API key (`lk_…`). A bearer token is refused." },
      },
    },
    security: [{ apiKey: [] }],
  };
}
