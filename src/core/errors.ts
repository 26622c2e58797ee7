/** The tagged error type, every shared error, and their HTTP rendering. */
import { Type, type TProperties, type Static, type TObject } from "@sinclair/typebox";
import { Nullable } from "./schema.ts";

/** An error the service answers with: a `_tag`, an HTTP status and fields. */
export abstract class AppError extends Error {
  abstract readonly tag: string;
  abstract readonly status: number;
  abstract readonly fields: Record<string, unknown>;
  /** Extra response headers (Retry-After, …). */
  headers: Record<string, string> = {};
  /** The JSON body: `{_tag, ...fields}`. */
  toBody(): Record<string, unknown> {
    return { _tag: this.tag, ...this.fields };
  }
}

/** What an error class exposes for OpenAPI and MCP: its tag, status and body schema. */
export interface ErrorClass {
  readonly tag: string;
  readonly status: number;
  readonly schema: TObject;
  readonly description: string;
}

/**
 * Declares an error class from its tag, status and fields:
 * `class HandoverNotFound extends TaggedError("HandoverNotFound", 404, { tenancyId: Type.String() }) {}`.
 */
export function TaggedError<Tag extends string, P extends TProperties = Record<never, never>>(
  tag: Tag,
  status: number,
  fields: P = {} as P,
  description = "",
) {
  const schema = Type.Object({ _tag: Type.Literal(tag), ...fields }, { additionalProperties: false, title: tag });
  return class Tagged extends AppError {
    static readonly tag = tag;
    static readonly status = status;
    static readonly schema = schema as TObject;
    static readonly description = description;
    readonly tag = tag;
    readonly status = status;
    readonly fields: Static<TObject<P>>;
    constructor(
      ...args: Record<never, never> extends Static<TObject<P>>
        ? [fields?: Static<TObject<P>>]
        : [fields: Static<TObject<P>>]
    ) {
      super(tag);
      this.name = tag;
      this.fields = (args[0] ?? {}) as Static<TObject<P>>;
    }
  };
}

const S = Type.String();

// ── Errors of the common lettings interface, every one of them ──
/** 400: a workspace could not be created. */
export class TenantCreateRejected extends TaggedError("TenantCreateRejected", 400, {
  reason: S,
  field: Type.Optional(S),
}) {}
/** 400: a required configuration value is missing. */
export class ConfigMissing extends TaggedError("ConfigMissing", 400, { key: S }) {}
/** 400: an integration refused the request. */
export class IntegrationRejected extends TaggedError("IntegrationRejected", 400, { integration: S, reason: S }) {}
/** 400: the sign-in service refused the request. */
export class AuthRejected extends TaggedError("AuthRejected", 400, { code: S, message: S }) {}
/** 400: a registration was refused. */
export class RegistrationRejected extends TaggedError("RegistrationRejected", 400, {
  message: S,
  field: Type.Optional(S),
}) {}
/** 400: no such integration. */
export class UnknownIntegration extends TaggedError("UnknownIntegration", 400, { integration: S }) {}
/** 400: a webhook could not be routed. */
export class WebhookUnroutable extends TaggedError("WebhookUnroutable", 400, { integration: S, reason: S }) {}
/** 400: no exchange rate for that day. */
export class RateUnavailable extends TaggedError("RateUnavailable", 400, { base: S, quote: S, on: S }) {}
/**
 * The challenge of a key's 401 (RFC 9110 §15.5.2 asks for one): the key goes in the x-api-key header. It names no
 * `resource_metadata` and is not `Bearer`, so nothing in it points an MCP client at OAuth discovery.
 */
export const keyChallenge = { "www-authenticate": 'ApiKey header="x-api-key"' };

/** 401: no x-api-key header (a bearer token is never accepted in its place). */
export class Unauthenticated extends TaggedError(
  "Unauthenticated",
  401,
  {},
  "No `x-api-key` header was sent. A bearer token is refused the same way. The answer carries " +
    '`WWW-Authenticate: ApiKey header="x-api-key"`.',
) {
  override headers = { ...keyChallenge };
}
/** 401: a webhook's signature was refused. */
export class WebhookRejected extends TaggedError("WebhookRejected", 401, { integration: S, reason: S }) {}
/** 401: the key is malformed, unknown, revoked or expired (indistinguishably). */
export class ApiKeyRejected extends TaggedError(
  "ApiKeyRejected",
  401,
  {},
  "The key is malformed, unknown, revoked or past its expiry; the answer does not say which. It carries " +
    '`WWW-Authenticate: ApiKey header="x-api-key"`.',
) {
  override headers = { ...keyChallenge };
}
/** 402: the workspace is suspended. */
export class TenantSuspended extends TaggedError("TenantSuspended", 402, { tenantId: S, reason: S }) {}
/** 403: the workspace lacks the module the group needs. */
export class EntitlementMissing extends TaggedError("EntitlementMissing", 403, { tenantId: S, moduleId: S }) {}
/** 403: a signed-in user is not a member of the workspace. */
export class NotAMember extends TaggedError("NotAMember", 403, { userId: S, slug: S }) {}
/** 403: a scope name that does not exist. */
export class ScopeUnknown extends TaggedError("ScopeUnknown", 403, { scope: S }) {}
/** 403: the key lacks the scope of the operation's group. */
export class ScopeMissing extends TaggedError("ScopeMissing", 403, { scope: S }) {}
/** 403: X-Tenant names another workspace than the key's. */
export class TenantMismatch extends TaggedError("TenantMismatch", 403, { header: S, organizationId: S }) {}
/** 403: the operation is for the workspace owner, and the key's creator is not the owner. */
export class WorkspaceOwnerRequired extends TaggedError("WorkspaceOwnerRequired", 403) {}
/** 403: a role requirement is not met. */
export class WorkspaceRoleRequired extends TaggedError("WorkspaceRoleRequired", 403, {
  role: Nullable(S),
  required: Type.Array(S),
  message: S,
}) {}
/** 404: no workspace with that slug. */
export class TenantNotFound extends TaggedError("TenantNotFound", 404, { slug: S }) {}
/** 404: no such module request. */
export class ModuleRequestNotFound extends TaggedError("ModuleRequestNotFound", 404, { id: S }) {}
/** 404: no such tenancy in the caller's workspace. */
export class HandoverNotFound extends TaggedError("HandoverNotFound", 404, { tenancyId: S }) {}
/** 409: a webhook was already received. */
export class WebhookDuplicate extends TaggedError("WebhookDuplicate", 409, { integration: S, externalId: S }) {}
/** 409: a registration conflicts with an existing one. */
export class RegistrationConflict extends TaggedError("RegistrationConflict", 409, {
  message: S,
  field: Type.Optional(S),
}) {}
/** 409: another money operation holds the invoice; try again. */
export class MoneyBusy extends TaggedError(
  "MoneyBusy",
  409,
  { invoiceId: S },
  "Another money operation holds this invoice right now. Nothing was changed; retry shortly.",
) {}
/** 429: the key's request budget is spent. */
export class RateLimited extends TaggedError(
  "RateLimited",
  429,
  { key: S, retryAfterSeconds: Type.Integer({ minimum: 1 }), message: S },
  "The key's request budget is spent. Wait `retryAfterSeconds` (also sent as `Retry-After`) and retry.",
) {}
/** 503: a dependency (the database, a provider) could not be reached. */
export class IntegrationUnavailable extends TaggedError("IntegrationUnavailable", 503, {
  integration: S,
  detail: S,
  requestId: Type.Optional(S),
}) {}

// ── Errors this service adds (the OpenAPI description's Errors) ──
/** One problem with a request value. */
export const Issue = Type.Object({ path: S, message: S }, { additionalProperties: false });
/** 400: malformed JSON, or a body, path or query value that breaks its schema (unknown fields included). */
export class RequestInvalid extends TaggedError(
  "RequestInvalid",
  400,
  { message: S, issues: Type.Array(Issue) },
  "Malformed JSON, or a body, path or query value that breaks its schema. Unknown body fields are refused, never " +
    "ignored. Every string, field names included, must be text the database can store: one holding the NUL " +
    "character (U+0000, `\\u0000` in JSON, `%00` in a URL) or an unpaired UTF-16 surrogate (a lone `\\ud800` " +
    "to `\\udfff` escape) is refused, whatever its field. `issues` names each offending path (`/body/name`, " +
    "`/query/kind`, `/params/id`).",
) {}
/** 413: the body is larger than 64 KiB. */
export class PayloadTooLarge extends TaggedError("PayloadTooLarge", 413, { limit: Type.Integer() }) {}
/** 408: the body did not arrive in full within the deadline; the connection is closed. */
export class RequestTimeout extends TaggedError(
  "RequestTimeout",
  408,
  { timeoutMs: Type.Integer() },
  "The request body did not arrive in full within `timeoutMs` milliseconds of the request. Nothing was changed, " +
    "and the connection is closed: send the request again.",
) {}
/** 415: a body that is not JSON on an operation that takes one. */
export class UnsupportedMediaType extends TaggedError("UnsupportedMediaType", 415, { contentType: S }) {}
/** 404: no such path. */
export class RouteNotFound extends TaggedError("RouteNotFound", 404, { method: S, path: S }) {}
/** 503 on /health: the process is stopping (SIGTERM) and a load balancer should drain it; requests still run. */
export class ShuttingDown extends TaggedError("ShuttingDown", 503, { detail: S, requestId: Type.Optional(S) }) {}
/** 500: an unexpected fault, logged with its stack on the server. */
export class InternalError extends TaggedError("InternalError", 500, { requestId: S }) {}
/** 422: the requestId was used before with a different body. */
export class RequestIdReused extends TaggedError(
  "RequestIdReused",
  422,
  { requestId: S },
  "This requestId was already used with a different body. Nothing was written. Use a new requestId for a new request.",
) {}
/** 409: expectedRevision is not the current revision. */
export class RevisionConflict extends TaggedError("RevisionConflict", 409, {
  expectedRevision: Type.Integer(),
  currentRevision: Type.Integer(),
}) {}

/** The common interface's error table, which it declares on operation 1 (handovers.forTenancy). */
export const apiErrorTable: ErrorClass[] = [
  TenantCreateRejected,
  ConfigMissing,
  IntegrationRejected,
  AuthRejected,
  RegistrationRejected,
  UnknownIntegration,
  WebhookUnroutable,
  RateUnavailable,
  Unauthenticated,
  WebhookRejected,
  ApiKeyRejected,
  TenantSuspended,
  EntitlementMissing,
  NotAMember,
  ScopeUnknown,
  ScopeMissing,
  TenantMismatch,
  WorkspaceOwnerRequired,
  WorkspaceRoleRequired,
  TenantNotFound,
  ModuleRequestNotFound,
  HandoverNotFound,
  WebhookDuplicate,
  RegistrationConflict,
  MoneyBusy,
  RateLimited,
  IntegrationUnavailable,
];

/** The error bodies the common interface lists, in its order, for operations 2 to 12 (every operation's default). */
export const apiListedErrors: ErrorClass[] = [
  TenantCreateRejected,
  Unauthenticated,
  TenantSuspended,
  EntitlementMissing,
  TenantNotFound,
  WebhookDuplicate,
  RateLimited,
  IntegrationUnavailable,
];
