/** The OpenAPI 3.1 document, built from the operation declarations. */
import type { TSchema, TObject } from "@sinclair/typebox";
import {
  ApiKeyRejected,
  EntitlementMissing,
  IntegrationUnavailable,
  InternalError,
  PayloadTooLarge,
  RateLimited,
  RequestInvalid,
  RequestTimeout,
  RouteNotFound,
  ScopeMissing,
  TenantMismatch,
  TenantSuspended,
  Unauthenticated,
  UnsupportedMediaType,
  WorkspaceOwnerRequired,
  apiListedErrors,
  type ErrorClass,
} from "./errors.ts";
import { moduleFor, scopeFor, type Group } from "./groups.ts";
import type { Operation } from "./operation.ts";
import type { PublicRoute, PublicRouteDoc } from "./public_route.ts";

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
  const list: ErrorClass[] = [
    Unauthenticated,
    ApiKeyRejected,
    TenantMismatch,
    TenantSuspended,
    RateLimited,
    ScopeMissing,
  ];
  if (moduleFor(op.group)) list.push(EntitlementMissing);
  if (op.ownerOnly) list.push(WorkspaceOwnerRequired);
  list.push(RequestInvalid);
  if (op.body) list.push(RequestTimeout, PayloadTooLarge, UnsupportedMediaType);
  list.push(InternalError, IntegrationUnavailable);
  return list;
}

const statusText: Record<number, string> = {
  400: "Bad request",
  401: "Unauthenticated",
  402: "Workspace suspended",
  403: "Forbidden",
  404: "Not found",
  408: "Request timeout",
  409: "Conflict",
  413: "Payload too large",
  415: "Unsupported media type",
  422: "Unprocessable",
  429: "Too many requests",
  500: "Internal error",
  503: "Unavailable",
};

const rateLimitHeaders = {
  RateLimit: {
    description: 'IETF RateLimit field: `"default";r=<tokens left>;t=<seconds until full>`.',
    schema: { type: "string" },
  },
  "RateLimit-Policy": {
    description: 'IETF RateLimit-Policy field: `"default";q=<capacity>;w=60`.',
    schema: { type: "string" },
  },
  "X-Request-Id": {
    description: "The caller's request id when it sent a printable one of at most 128 characters, else a new ULID.",
    schema: { type: "string" },
  },
};

/** Said of an error the common interface lists for an operation that this service never raises there. */
const neverRaised = " (in the common interface's list for this operation; this service never raises it here)";
/** Said of an operation this service adds to the common interface. */
const extensionNote = "\n\nExtension: an operation this service adds; it is not part of the common interface.";

function operationObject(op: Operation) {
  const parameters: unknown[] = [];
  for (const [where, schema] of [
    ["path", op.params],
    ["query", op.query],
  ] as const) {
    if (!schema) continue;
    const obj = schema as TObject;
    for (const [name, prop] of Object.entries(obj.properties)) {
      const p = jsonSchema(prop as TSchema);
      parameters.push({
        name,
        in: where,
        required: where === "path" || (obj.required ?? []).includes(name),
        description: p.description,
        schema: p,
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
      headers: {
        ...rateLimitHeaders,
        ...(op.conditional ? { ETag: etagHeader } : {}),
        ...Object.fromEntries(
          Object.entries(op.responseHeaders ?? {}).map(([name, h]) => [name, { schema: { type: "string" }, ...h }]),
        ),
      },
      content: { "application/json": { schema: jsonSchema(op.response) } },
    },
  };
  if (op.conditional) {
    responses["304"] = {
      description:
        "Not Modified: `If-None-Match` named the current `ETag`. No body; the budget was spent as for any read.",
      headers: { ...rateLimitHeaders, ETag: etagHeader },
    };
    parameters.push({
      name: "If-None-Match",
      in: "header",
      required: false,
      description: "The `ETag` of an earlier answer (or a list of them): unchanged content answers 304 with no body.",
      schema: { type: "string" },
    });
  }
  for (const [status, list] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const schemas = list.map((e) => jsonSchema(e.schema));
    responses[String(status)] = {
      description: `${statusText[status] ?? "Error"}: ${list
        .map((e) => `\`${e.tag}\`${raisedTags.has(e.tag) ? (e.description ? ` (${e.description})` : "") : neverRaised}`)
        .join(", ")}.`,
      headers:
        status === 429
          ? {
              ...rateLimitHeaders,
              "Retry-After": { description: "Seconds to wait; equals retryAfterSeconds.", schema: { type: "integer" } },
            }
          : rateLimitHeaders,
      content: { "application/json": { schema: schemas.length === 1 ? schemas[0] : { oneOf: schemas } } },
    };
  }
  const scope = scopeFor(op.group, op.method);
  const moduleId = moduleFor(op.group);
  const requirements = [
    `Scope \`${scope}\`.`,
    moduleId ? `Module \`${moduleId}\`.` : "",
    op.ownerOnly ? "Only keys created by the workspace owner (checked at each request)." : "",
  ]
    .filter(Boolean)
    .join(" ");
  return {
    operationId: op.id,
    tags: [tagOf(op)],
    summary: op.summary,
    description: `${op.description}\n\n${requirements}${op.extension ? extensionNote : ""}`,
    parameters,
    ...(op.body
      ? { requestBody: { required: true, content: { "application/json": { schema: jsonSchema(op.body) } } } }
      : {}),
    responses,
    security: [{ apiKey: [] }],
    ...(op.extension ? { "x-extension": true } : {}),
  };
}

/** The ETag header of a conditional read. */
const etagHeader = {
  description:
    "A strong entity tag of this answer's body (it differs whenever the content, or what this key may see of it, " +
    'differs; a compressed answer\'s names its coding, `"…-gzip"`). Send it back in `If-None-Match`, with the ' +
    "same `Accept-Encoding`, to get 304 while nothing changed.",
  schema: { type: "string" },
};

/** What each group's operations are about, shown as its tag's description. */
const groupPurpose: Partial<Record<Group, string>> = {
  handovers:
    "Move-in and move-out handovers of a tenancy: meter readings, the check-in and check-out visits, keys and " +
    "what is still outstanding.",
  "contractor-invoices":
    "Contractor invoices with their lines, credit notes, payments and recoveries. Amounts are integers in minor " +
    "units (pence).",
  contacts:
    "People and companies the workspace deals with: creating companies, and looking for duplicates before " +
    "creating a contact.",
  "maintenance-pro": "The maintenance-pro module: the hazard clocks' settings and the landlords' portal.",
  tasks: "Tasks assigned to staff or contractors.",
  compliance:
    "Compliance facts of blocks (height, age, fire alarm, emergency lighting, communal water), with where each " +
    "value comes from.",
  calendar: "The workspace's calendar: viewings, inspections, contractor visits, meetings and calls.",
  keys: "Physical key sets of units, and reports about them.",
  telephony: "SMS threads with contacts.",
  entitlements: "The modules a workspace is entitled to, and its onboarding checkout.",
};

/** The tag of an operation: its group, marked when the operation is an extension. */
function tagOf(op: Operation): string {
  return op.extension ? `${op.group} (extension)` : op.group;
}

/** A tag's description: what its group is for, the scopes and the module it needs. */
function tagDescription(op: Operation): string {
  const moduleId = moduleFor(op.group);
  return [
    op.extension
      ? `Operations this service adds to the \`${op.group}\` group, beyond the common interface.`
      : (groupPurpose[op.group] ?? `The \`${op.group}\` group.`),
    `Scopes: \`${op.group}:read\` for GET, \`${op.group}:write\` for other methods.`,
    moduleId ? `Needs the module \`${moduleId}\`.` : "",
  ]
    .filter(Boolean)
    .join(" ");
}

/** A public route's operation object: no API key (`security: []`), its refusals grouped by status. */
function publicRouteObject(route: PublicRoute, doc: PublicRouteDoc) {
  const errors = [...doc.errors, RateLimited, PayloadTooLarge, RequestTimeout];
  const responses: Record<string, unknown> = { [String(doc.success.status)]: doc.success.response };
  for (const status of [...new Set(errors.map((e) => e.status))].sort((a, b) => a - b)) {
    const list = errors.filter((e) => e.status === status);
    const schemas = list.map((e) => jsonSchema(e.schema));
    responses[String(status)] = {
      description: `${statusText[status] ?? "Error"}: ${list
        .map((e) => `\`${e.tag}\`${e.description ? ` (${e.description})` : ""}`)
        .join(", ")}.`,
      content: { "application/json": { schema: schemas.length === 1 ? schemas[0] : { oneOf: schemas } } },
    };
  }
  return {
    operationId: route.id,
    tags: [doc.tag],
    summary: doc.summary,
    description: doc.description,
    parameters: doc.parameters,
    requestBody: { required: true, content: doc.requestBody },
    responses,
    security: [],
  };
}

/**
 * The whole OpenAPI document for a set of operations, the documented public routes and the `webhooks` the service
 * sends (as OpenAPI objects); each titled schema becomes a named component.
 */
export function buildOpenApi(
  operations: readonly Operation[],
  info: { version: string; description: string },
  publicRoutes: readonly PublicRoute[] = [],
  webhooks: Record<string, Record<string, unknown>> = {},
) {
  const named = new NamedSchemas();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const path = openApiPath(op.path);
    paths[path] ??= {};
    paths[path][op.method.toLowerCase()] = named.refer(operationObject(op));
  }
  const publicTags = new Map<string, string>();
  for (const route of publicRoutes) {
    if (!route.openapi) continue;
    const path = openApiPath(route.path);
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = named.refer(publicRouteObject(route, route.openapi));
    publicTags.set(route.openapi.tag, "Public routes: no API key; the caller is authenticated otherwise.");
  }
  const namedWebhooks = mapValues(webhooks, (item) => mapValues(item, (op) => named.refer(op)));
  named.schema(jsonSchema(RouteNotFound.schema)); // answered on any unknown path, so no operation lists it
  const tags = new Map<string, string>();
  for (const op of operations) if (!tags.has(tagOf(op))) tags.set(tagOf(op), tagDescription(op));
  for (const [tag, description] of publicTags) if (!tags.has(tag)) tags.set(tag, description);
  return {
    openapi: "3.1.0",
    info: {
      title: "Lettings and Property Maintenance Service API",
      version: info.version,
      description: info.description,
    },
    servers: [{ url: "/", description: "This service: the host that serves this document." }],
    tags: [...tags].map(([name, description]) => ({ name, description })),
    paths,
    ...(Object.keys(webhooks).length ? { webhooks: namedWebhooks } : {}),
    components: {
      schemas: named.components(),
      securitySchemes: {
        apiKey: {
          type: "apiKey",
          in: "header",
          name: "x-api-key",
          description: "The workspace API key (`lk_…`). A bearer token is refused.",
        },
      },
    },
    security: [{ apiKey: [] }],
  };
}

/** Keywords whose value is a map of name → schema, a list of schemas, or one schema (JSON Schema 2020-12). */
const schemaMaps = ["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"];
const schemaLists = ["anyOf", "oneOf", "allOf", "prefixItems"];
const schemaOne = [
  "items",
  "additionalProperties",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "unevaluatedProperties",
  "unevaluatedItems",
];

/**
 * The named schemas of a document: every schema with a `title` becomes `components.schemas.<title>` and each of
 * its occurrences `{"$ref": "#/components/schemas/<title>"}`. Two different schemas under one title are an error.
 */
class NamedSchemas {
  private readonly byTitle = new Map<string, { schema: Record<string, unknown>; text: string }>();

  /** An OpenAPI object (operation, response, parameter…) with the schemas it holds named. */
  refer<T>(node: T): T {
    if (Array.isArray(node)) return node.map((item) => this.refer(item)) as T;
    if (node === null || typeof node !== "object") return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === "schema") out[key] = this.schema(value);
      else if (key === "responses" || key === "content" || key === "headers")
        out[key] = mapValues(value, (v) => this.refer(v));
      else if (key === "parameters" || key === "requestBody") out[key] = this.refer(value);
      else out[key] = value;
    }
    return out as T;
  }

  /** A JSON Schema with every titled subschema replaced by a reference. */
  schema(node: unknown): unknown {
    if (node === null || typeof node !== "object" || Array.isArray(node)) return node;
    const out: Record<string, unknown> = { ...(node as Record<string, unknown>) };
    for (const key of schemaMaps) if (key in out) out[key] = mapValues(out[key], (v) => this.schema(v));
    for (const key of schemaLists)
      if (Array.isArray(out[key])) out[key] = (out[key] as unknown[]).map((v) => this.schema(v));
    for (const key of schemaOne) {
      if (key in out)
        out[key] = Array.isArray(out[key]) ? (out[key] as unknown[]).map((v) => this.schema(v)) : this.schema(out[key]);
    }
    const title = out.title;
    if (typeof title !== "string") return out;
    if (!/^[A-Za-z0-9._-]+$/.test(title))
      throw new Error(`The schema title ${JSON.stringify(title)} cannot name an OpenAPI component`);
    const text = JSON.stringify(out);
    const seen = this.byTitle.get(title);
    if (seen && seen.text !== text) {
      throw new Error(
        `Two different schemas are titled ${title}: give one of them another title\n${seen.text}\n${text}`,
      );
    }
    if (!seen) this.byTitle.set(title, { schema: out, text });
    return { $ref: `#/components/schemas/${title}` };
  }

  /** `components.schemas`, by name. */
  components(): Record<string, Record<string, unknown>> {
    return Object.fromEntries(
      [...this.byTitle].sort(([a], [b]) => a.localeCompare(b)).map(([name, { schema }]) => [name, schema]),
    );
  }
}

/** An object with each value mapped. */
function mapValues(node: unknown, f: (value: unknown) => unknown): unknown {
  if (node === null || typeof node !== "object" || Array.isArray(node)) return node;
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, f(v)]));
}
