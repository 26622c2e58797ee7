/**
 * Runs a declared operation for a request, REST or MCP alike: the key checks in order (src/core/api_description.ts),
 * then validation, the handler and the answer. MCP's tools/list goes through the same checks (1 to 5); no surface
 * checks a key itself.
 */
import { Type, type TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { findKey, hashKey, keyCheckReadOf, type KeyFound, type Principal } from "./auth.ts";
import {
  leasedBucket,
  processLeases,
  rateLimited,
  rateLimitHeaders,
  type BucketState,
  type TokenLeases,
} from "./budget.ts";
import type { Db } from "./db.ts";
import { isConnectionError } from "./db.ts";
import {
  AppError,
  ApiKeyRejected,
  EntitlementMissing,
  IntegrationUnavailable,
  InternalError,
  PayloadTooLarge,
  RequestInvalid,
  ScopeMissing,
  TenantMismatch,
  TenantSuspended,
  Unauthenticated,
  UnsupportedMediaType,
  WorkspaceOwnerRequired,
} from "./errors.ts";
import { moduleFor, scopeFor } from "./groups.ts";
import type { ReadSql, WorkspaceScope } from "./key_check_read.ts";
import { RawJson, Reply, type AppContext, type Operation } from "./operation.ts";
import { textIssues } from "./storable_text.ts";
import { entityTag, noneMatchHits } from "./conditional.ts";
import { codingFor } from "./compression.ts";

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
  /** The If-None-Match header (REST), for conditional reads. */
  ifNoneMatch?: string | null;
  /** The Accept-Encoding header (REST): a conditional read's ETag names the coding its answer goes out in. */
  acceptEncoding?: string | null;
  /**
   * The key lookup a transport already made for this request (MCP over HTTP checks the key first); it spent the token.
   */
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

/**
 * Validates a value against a schema and the rule every string keeps (core/storable_text.ts); refuses with
 * RequestInvalid naming each offending path.
 */
export function check(schema: TSchema, value: unknown, where: string): unknown {
  const checker = compiledCheck(schema);
  const valid = checker.Check(value);
  const text = textIssues(value, `/${where}`);
  if (valid && text.length === 0) return value;
  // A string breaking the rule is named once, with the rule, whatever its schema says of it too.
  const named = new Set(text.map((i) => i.path));
  const issues = valid
    ? []
    : [...checker.Errors(value)]
        .slice(0, 20)
        .map((e) => ({ path: `/${where}${e.path}`.toWellFormed(), message: e.message }))
        .filter((i) => !named.has(i.path));
  throw new RequestInvalid({
    message: `The ${where} does not match its schema.`,
    issues: [...issues, ...text].slice(0, 20),
  });
}

/** Whether a value passes check() (without building the issues). */
function accepts(schema: TSchema, value: unknown): boolean {
  return compiledCheck(schema).Check(value) && textIssues(value, "", 1).length === 0;
}

/** Query strings arrive as text: numbers and booleans are converted before validation. */
function convertQuery(schema: TSchema, query: Record<string, unknown>): unknown {
  return Object.keys(query).length === 0 ? {} : Value.Convert(schema, { ...query });
}

function checkQuery(schema: TSchema, query: Record<string, unknown>) {
  return check(schema, convertQuery(schema, query), "query");
}

/** The query as step 9 will take it when it passes, else undefined (the key-check read is then not made). */
function acceptedQuery(schema: TSchema, query: Record<string, unknown>): Record<string, unknown> | undefined {
  const converted = convertQuery(schema, query);
  return accepts(schema, converted) ? (converted as Record<string, unknown>) : undefined;
}

function parseBody(op: Operation, body: Call["body"]): unknown {
  const schema = op.body ?? emptyBody;
  if (body.kind === "none") return check(schema, op.body ? undefined : {}, "body");
  if (body.kind === "value") {
    if (Buffer.byteLength(JSON.stringify(body.value ?? {}), "utf8") > bodyLimit)
      throw new PayloadTooLarge({ limit: bodyLimit });
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
    throw new RequestInvalid({
      message: "The body is not valid JSON.",
      issues: [{ path: "/body", message: String((error as Error).message) }],
    });
  }
  return check(schema, value, "body");
}

/**
 * What a key lookup found: nothing usable, or the principal and its bucket after this request, and what the
 * key-check read found when one was made (`value` null when it found nothing).
 */
export type KeyLookup =
  | { found: false }
  | { found: true; principal: Principal; bucket: BucketState; keyCheckRead?: { value: unknown } };

/**
 * Looks a key up and spends one token of its budget: a token this process leased, with a statement that only reads
 * the key (it is checked on every request, so a revocation counts at once), or else a statement that also takes a
 * lease from the bucket row, tracked in the book while in flight. Unknown, revoked and expired keys spend nothing and
 * drop the book's lease. `read`, when given, is an operation's key-check read, made in the same statement.
 */
export async function authenticate(
  db: Db,
  keyValue: string,
  leases: TokenLeases = processLeases,
  read?: (workspace: WorkspaceScope) => ReadSql | undefined,
): Promise<KeyLookup> {
  const keyCheckRead = keyCheckReadOf(db, read);
  const hash = hashKey(keyValue);
  const hex = hash.toString("hex");
  // One lease write per key at a time in this process: the others wait for it and spend from the book. The request
  // that finds neither a token nor a write starts its write in the same turn, so no other starts one meanwhile.
  let lease = leases.spend(hex);
  for (let writing = leases.writing(hex); !lease && writing; writing = leases.writing(hex)) {
    await writing;
    lease = leases.spend(hex);
  }
  let found: KeyFound | undefined;
  let bucket: BucketState | undefined;
  if (lease) {
    found = await findKey(db, hash, { takeLease: false, keyCheckRead });
    if (found) bucket = leasedBucket(lease, found.capacity);
  } else {
    const write = findKey(db, hash, { takeLease: true, keyCheckRead }).then((f) => {
      if (f) leases.keepGranted(hex, f.taken!, f.capacity);
      return f;
    });
    leases.track(hex, write);
    found = await write;
    if (found) bucket = leases.bucketAfterWrite(hex, found.taken!, found.capacity);
  }
  if (!found || !bucket) {
    leases.drop(hex);
    return { found: false };
  }
  return {
    found: true,
    principal: found.principal,
    bucket,
    ...(found.keyCheckRead ? { keyCheckRead: found.keyCheckRead } : {}),
  };
}

/** A key lookup that found a live key. */
export type FoundKey = Extract<KeyLookup, { found: true }>;

/**
 * Key checks 1 and 2: a key must be sent in x-api-key (a bearer token is refused the same way), and be
 * live. Malformed, unknown, revoked and expired keys take the same path: one lookup by hash, which spends the
 * request's token and makes `read` in the same statement. A lookup the transport already made is taken as it is.
 */
export async function checkKey(
  app: AppContext,
  apiKey: string | null,
  lookup?: KeyLookup,
  read?: (workspace: WorkspaceScope) => ReadSql | undefined,
): Promise<FoundKey> {
  if (!apiKey) throw new Unauthenticated();
  const found = lookup ?? (await authenticate(app.db, apiKey, app.leases, read));
  if (!found.found) throw new ApiKeyRejected();
  return found;
}

/** Key checks 3 and 4, after the key was found: X-Tenant, then suspension. */
export function checkWorkspace(principal: Principal, tenantHeader: string | null): void {
  if (tenantHeader !== null && tenantHeader !== principal.workspaceSlug) {
    throw new TenantMismatch({ header: tenantHeader, organizationId: principal.workspaceId });
  }
  if (principal.suspended) {
    throw new TenantSuspended({ tenantId: principal.workspaceId, reason: principal.suspended.reason });
  }
}

/** Key check 5: the budget (the key's lookup spent the request's token). */
export function checkBudget(found: FoundKey): void {
  if (!found.bucket.admitted) throw rateLimited(found.bucket, found.principal.keyId);
}

/**
 * The request's URL as handlers build links from it (the next page): on PUBLIC_BASE_URL when it is set, since the
 * Host header is whatever the caller sent; unset, the URL the request was sent to.
 */
function linkUrl(app: AppContext, url: URL): URL {
  return app.config.publicBaseUrlSet ? new URL(app.config.publicBaseUrl + url.pathname + url.search) : url;
}

/** A request that lists what the key may do rather than run an operation (MCP's tools/list). */
export interface ListCall {
  apiKey: string | null;
  tenantHeader: string | null;
  requestId: string;
  lookup?: KeyLookup;
}

/**
 * Runs a listing (MCP's tools/list): key checks 1 to 5, as execute makes them and in the same order,
 * then `list` with the caller's principal; scope, module and owner checks do not apply (the list is what they allow).
 * Never throws.
 */
export async function executeListing(
  app: AppContext,
  call: ListCall,
  where: string,
  list: (principal: Principal) => unknown,
): Promise<Outcome> {
  const headers: Record<string, string> = {};
  let keyId: string | undefined;
  let workspaceId: string | undefined;
  try {
    const found = await checkKey(app, call.apiKey, call.lookup);
    keyId = found.principal.keyId;
    workspaceId = found.principal.workspaceId;
    Object.assign(headers, rateLimitHeaders(found.bucket));
    checkWorkspace(found.principal, call.tenantHeader);
    checkBudget(found);
    const body = list(found.principal);
    return { status: 200, body, bodyText: JSON.stringify(body), headers, keyId, workspaceId };
  } catch (error) {
    return {
      ...renderError(app, error, call.requestId, where),
      headers: { ...headers, ...(error instanceof AppError ? error.headers : {}) },
      keyId,
      workspaceId,
    };
  }
}

/** Runs one operation call and renders the answer; never throws. */
export async function execute(app: AppContext, op: Operation, call: Call): Promise<Outcome> {
  const headers: Record<string, string> = {};
  let keyId: string | undefined;
  let workspaceId: string | undefined;
  try {
    // 1, 2. The key (see checkKey). The lookup also makes the operation's key-check read, used only once every
    //    check passed. That read binds the path parameters and the query, so it is made only when they match their
    //    schemas and the text rule: a value Postgres cannot take (a NUL byte) would fail the key check's statement;
    //    invalid input is refused at step 9.
    const keyCheckRead = op.keyCheckRead;
    const readQuery =
      keyCheckRead && !call.lookup && accepts(op.params ?? emptyBody, call.params)
        ? acceptedQuery(op.query ?? emptyBody, call.query)
        : undefined;
    const read =
      keyCheckRead && readQuery
        ? (workspace: WorkspaceScope) => keyCheckRead(app.db, workspace, call.params, readQuery)
        : undefined;
    const found = await checkKey(app, call.apiKey, call.lookup, read);
    const { principal, bucket } = found;
    keyId = principal.keyId;
    workspaceId = principal.workspaceId;
    Object.assign(headers, rateLimitHeaders(bucket));
    // 3, 4. X-Tenant, suspension.
    checkWorkspace(principal, call.tenantHeader);
    // 5. The budget (the token was spent by the lookup).
    checkBudget(found);
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
    const query = readQuery ?? checkQuery(op.query ?? emptyBody, call.query);
    const body = parseBody(op, call.body);
    const result = await op.run({
      app,
      db: app.db,
      principal,
      params,
      query,
      body,
      requestId: call.requestId,
      // Made only when a handler reads it (the links of a page).
      get url() {
        return linkUrl(app, call.url);
      },
      keyCheckRead: call.lookup ? undefined : found.keyCheckRead,
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
      return op.conditional ? conditionalOutcome(outcome, call) : outcome;
    }
    if (app.config.checkResponses && status === (op.status ?? 200)) checkResponse(op, reply.body);
    const outcome = { status, body: reply.body, bodyText: JSON.stringify(reply.body), headers, keyId, workspaceId };
    return op.conditional ? conditionalOutcome(outcome, call) : outcome;
  } catch (error) {
    return {
      ...renderError(app, error, call.requestId, op.id),
      headers: { ...headers, ...(error instanceof AppError ? error.headers : {}) },
      keyId,
      workspaceId,
    };
  }
}

/**
 * A conditional read's answer: with the ETag of the coding it goes out in, and 304 with no body when If-None-Match
 * names it.
 */
function conditionalOutcome(outcome: Outcome, call: Call): Outcome {
  if (outcome.status !== 200) return outcome;
  const etag = entityTag(outcome.bodyText, codingFor(call.acceptEncoding, outcome.bodyText.length));
  outcome.headers.etag = etag;
  if (!noneMatchHits(call.ifNoneMatch, etag)) return outcome;
  return { ...outcome, status: 304, body: undefined, bodyText: "" };
}

/** Refuses an answer that breaks the operation's declared response schema (on when CHECK_RESPONSES is set). */
function checkResponse(op: Operation, body: unknown): void {
  const checker = compiledCheck(op.response);
  if (checker.Check(body)) return;
  const first = [...checker.Errors(body)].slice(0, 5).map((e) => `${e.path}: ${e.message}`);
  throw new Error(`response of ${op.id} breaks its schema: ${first.join("; ")}`);
}

/**
 * The "database unreachable" log line, at most once every 5 s with the number of failures it stands for: during an
 * outage every request fails the same way, and a line each (hundreds a second) would bury everything else.
 */
const unreachable = {
  last: 0,
  since: 0,
  note(log: AppContext["log"], fields: Record<string, unknown>, now = Date.now()) {
    this.since += 1;
    if (now - this.last < 5000) return;
    log.error("database unreachable", { ...fields, failures: this.since });
    this.last = now;
    this.since = 0;
  },
};

/** Any thrown value as a tagged error: a database out of reach is 503, an unexpected fault is logged with its stack. */
export function asAppError(app: Pick<AppContext, "log">, error: unknown, requestId: string, where: string): AppError {
  if (error instanceof AppError) return error;
  if (isConnectionError(error)) {
    unreachable.note(app.log, { requestId, where, error: String((error as Error)?.message ?? error) });
    return new IntegrationUnavailable({
      integration: "database",
      detail:
        (error as { code?: unknown }).code === "ANSWER_TIMEOUT"
          ? "The database did not answer in time."
          : "The database cannot be reached.",
      requestId,
    });
  }
  app.log.error("unexpected fault", { requestId, where, error: String(error), stack: (error as Error)?.stack });
  return new InternalError({ requestId });
}

/** Renders any thrown value as a tagged error answer (see asAppError). */
export function renderError(
  app: Pick<AppContext, "log">,
  error: unknown,
  requestId: string,
  where: string,
): Omit<Outcome, "headers"> {
  const appError = asAppError(app, error, requestId, where);
  const body = appError.toBody();
  return { status: appError.status, body, bodyText: JSON.stringify(body) };
}
