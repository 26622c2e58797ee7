/** Runs a declared operation for a request, REST or MCP alike: the checks of CONTRACT.md §2 in order, then validation, the handler and the answer. */
import { Type, type TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { authenticate, type KeyLookup, type Principal } from "./auth.ts";
import { rateLimitHeaders, retryAfterSeconds } from "./budget.ts";
import { isConnectionError } from "./db.ts";
import {
  AppError, ApiKeyRejected, EntitlementMissing, IntegrationUnavailable, InternalError, PayloadTooLarge,
  RateLimited, RequestInvalid, ScopeMissing, TenantMismatch, TenantSuspended, Unauthenticated,
  UnsupportedMediaType, WorkspaceOwnerRequired,
} from "./errors.ts";
import { moduleFor, scopeFor } from "./groups.ts";
import { RawJson, Reply, type AppContext, type Operation } from "./operation.ts";

/** The largest request body accepted, in bytes. */
export const bodyLimit = 64 * 1024;

/** A request as the transports hand it over. */
export interface Call {
  apiKey: string | null;
  /** The X-Tenant header, when sent. */
  tenantHeader: string | null;
  params: Record<string, string>;
  query: Record<string, unknown>;
  /** The raw body (REST) or an already parsed value (MCP); none when nothing was sent. */
  body:
    | { kind: "none" }
    | { kind: "text"; text: string; contentType: string | null }
    | { kind: "tooLarge" }
    | { kind: "value"; value: unknown };
  requestId: string;
  url: URL;
  /** The key lookup a transport already made for this request (MCP over HTTP checks the key first); it spent the token. */
  lookup?: KeyLookup;
}

/** What to answer: status, JSON body (as text and as value), headers. */
export interface Outcome {
  status: number;
  body: unknown;
  bodyText: string;
  headers: Record<string, string>;
  keyId?: string;
  workspaceId?: string;
}

const emptyBody = Type.Object({}, { additionalProperties: false });

/** Each schema's compiled check, made on first use (an interpreted check walked the schema on every request). */
const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();
function compiledCheck(schema: TSchema): TypeCheck<TSchema> {
  let checker = compiled.get(schema);
  if (!checker) {
    checker = TypeCompiler.Compile(schema);
    compiled.set(schema, checker);
  }
  return checker;
}

/** Validates a value against a schema; refuses with RequestInvalid naming each offending path. */
export function check(schema: TSchema, value: unknown, where: string): unknown {
  const checker = compiledCheck(schema);
  if (checker.Check(value)) return value;
  const issues = [...checker.Errors(value)].slice(0, 20).map((e) => ({
    path: `/${where}${e.path}`,
    message: e.message,
  }));
  throw new RequestInvalid({ message: `The ${where} does not match its schema.`, issues });
}

/** Query strings arrive as text: numbers and booleans are converted before validation. */
function checkQuery(schema: TSchema, query: Record<string, unknown>) {
  const converted = Object.keys(query).length === 0 ? {} : Value.Convert(schema, { ...query });
  return check(schema, converted, "query");
}

function parseBody(op: Operation, body: Call["body"]): unknown {
  const schema = op.body ?? emptyBody;
  if (body.kind === "none") return check(schema, op.body ? undefined : {}, "body");
  if (body.kind === "value") {
    if (Buffer.byteLength(JSON.stringify(body.value ?? {}), "utf8") > bodyLimit) throw new PayloadTooLarge({ limit: bodyLimit });
    return check(schema, body.value ?? {}, "body");
  }
  if (body.kind === "tooLarge") throw new PayloadTooLarge({ limit: bodyLimit });
  if (body.text.trim() === "" && !op.body) return {};
  if (Buffer.byteLength(body.text, "utf8") > bodyLimit) throw new PayloadTooLarge({ limit: bodyLimit });
  const type = (body.contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/json" && !type.endsWith("+json")) {
    throw new UnsupportedMediaType({ contentType: body.contentType ?? "" });
  }
  let value: unknown;
  try {
    value = JSON.parse(body.text);
  } catch (error) {
    throw new RequestInvalid({ message: "The body is not valid JSON.", issues: [{ path: "/body", message: String((error as Error).message) }] });
  }
  return check(schema, value, "body");
}

/** Checks 3 and 4 of CONTRACT.md §2, after the key was found: X-Tenant, then suspension. */
function checkWorkspace(principal: Principal, tenantHeader: string | null) {
  if (tenantHeader !== null && tenantHeader !== principal.workspaceSlug) {
    throw new TenantMismatch({ header: tenantHeader, organizationId: principal.workspaceId });
  }
  if (principal.suspended) {
    throw new TenantSuspended({ tenantId: principal.workspaceId, reason: principal.suspended.reason });
  }
}

/** Runs one operation call and renders the answer; never throws. */
export async function execute(app: AppContext, op: Operation, call: Call): Promise<Outcome> {
  const headers: Record<string, string> = {};
  let keyId: string | undefined;
  let workspaceId: string | undefined;
  try {
    // 1. A key must be sent in x-api-key; a bearer token is refused the same way.
    if (!call.apiKey) throw new Unauthenticated();
    // 2. Malformed, unknown, revoked and expired keys take the same path: one lookup by hash (which also
    //    reads the operation's prefetch, used only once every check passed). The prefetch binds the path
    //    parameters, so it is made only when they match their schema: a value Postgres cannot take (a NUL
    //    byte) would fail the key check's statement; invalid parameters are refused at step 9, as ever.
    const prefetch = op.prefetch && !call.lookup && compiledCheck(op.params ?? emptyBody).Check(call.params)
      ? op.prefetch(app.db, call.params)
      : undefined;
    const found = call.lookup ?? (await authenticate(app.db, call.apiKey, app.leases, prefetch));
    if (!found.found) throw new ApiKeyRejected();
    const { principal, bucket } = found;
    keyId = principal.keyId;
    workspaceId = principal.workspaceId;
    Object.assign(headers, rateLimitHeaders(bucket));
    // 3, 4. X-Tenant, suspension.
    checkWorkspace(principal, call.tenantHeader);
    // 5. The budget (the token was spent by the lookup).
    if (!bucket.admitted) {
      const wait = retryAfterSeconds(bucket);
      const error = new RateLimited({
        key: principal.keyId,
        retryAfterSeconds: wait,
        message: `The request budget of this key (${bucket.capacity} a minute) is spent; retry in ${wait} s.`,
      });
      error.headers["retry-after"] = String(wait);
      throw error;
    }
    // 6. Scope.
    const scope = scopeFor(op.group, op.method);
    if (!principal.scopes.has(scope)) throw new ScopeMissing({ scope });
    // 7. Module.
    const moduleId = moduleFor(op.group);
    if (moduleId && !principal.modules.has(moduleId)) {
      throw new EntitlementMissing({ tenantId: principal.workspaceId, moduleId });
    }
    // 8. Owner-only.
    if (op.ownerOnly && !principal.ownerCreated) throw new WorkspaceOwnerRequired();
    // 9. Validation.
    const params = check(op.params ?? emptyBody, call.params, "params");
    const query = checkQuery(op.query ?? emptyBody, call.query);
    const body = parseBody(op, call.body);
    const result = await op.run({
      app, db: app.db, principal, params, query, body, requestId: call.requestId, url: call.url,
      prefetched: call.lookup ? undefined : found.prefetched,
    } as any);
    const reply = result instanceof Reply ? result : new Reply(result);
    const status = reply.status ?? op.status ?? 200;
    Object.assign(headers, reply.headers);
    if (reply.body instanceof RawJson) {
      // Text built elsewhere (the database, the idempotency ledger) goes out as it is; it is parsed only
      // when something reads `body` (MCP's structuredContent, the response check).
      const text = reply.body.text;
      let parsed: unknown;
      const outcome = { status, bodyText: text, headers, keyId, workspaceId } as Outcome;
      Object.defineProperty(outcome, "body", { enumerable: true, get: () => (parsed ??= JSON.parse(text)) });
      if (app.config.checkResponses && status === (op.status ?? 200)) checkResponse(op, outcome.body);
      return outcome;
    }
    if (app.config.checkResponses && status === (op.status ?? 200)) checkResponse(op, reply.body);
    return { status, body: reply.body, bodyText: JSON.stringify(reply.body), headers, keyId, workspaceId };
  } catch (error) {
    return { ...renderError(app, error, call.requestId, op.id), headers: { ...headers, ...(error instanceof AppError ? error.headers : {}) }, keyId, workspaceId };
  }
}

/** Refuses an answer that breaks the operation's declared response schema (on when CHECK_RESPONSES is set). */
function checkResponse(op: Operation, body: unknown): void {
  const checker = compiledCheck(op.response);
  if (checker.Check(body)) return;
  const first = [...checker.Errors(body)].slice(0, 5).map((e) => `${e.path}: ${e.message}`);
  throw new Error(`response of ${op.id} breaks its schema: ${first.join("; ")}`);
}

/** Renders any thrown value as a tagged error answer; unexpected faults are logged with their stack. */
export function renderError(app: Pick<AppContext, "log">, error: unknown, requestId: string, where: string): Omit<Outcome, "headers"> {
  let appError: AppError;
  if (error instanceof AppError) {
    appError = error;
  } else if (isConnectionError(error)) {
    app.log.error("database unreachable", { requestId, where, error: String((error as Error)?.message ?? error) });
    appError = new IntegrationUnavailable({ integration: "database", detail: "The database cannot be reached.", requestId });
  } else {
    app.log.error("unexpected fault", { requestId, where, error: String(error), stack: (error as Error)?.stack });
    appError = new InternalError({ requestId });
  }
  const body = appError.toBody();
  return { status: appError.status, body, bodyText: JSON.stringify(body) };
}
