/**
 * Public routes: the requests that carry no API key (a provider's signed webhooks, the landlord portal). Each is
 * declared with its budget; the app counts every request against the route's per-address bucket first, then reads
 * the body with the API's size cap and deadline, then hands over to the route.
 */
import type { Config } from "../config.ts";
import { takeAddressToken } from "./address_budget.ts";
import { rateLimited, rateLimitHeaders } from "./budget.ts";
import { clientAddress } from "./client_address.ts";
import { type AppError, type ErrorClass, PayloadTooLarge, RequestInvalid } from "./errors.ts";
import { asAppError, bodyLimit } from "./execute.ts";
import { bodyNotArrived, hostInvalid, readBody, readBodyBytes, urlOf } from "./http_request.ts";
import { errorResponse } from "./json_response.ts";
import type { AppContext } from "./operation.ts";
import { errorTagOf } from "./request_log.ts";

/** A form as Bun parses one (its entries are strings and Files). */
export type Form = Awaited<ReturnType<Response["formData"]>>;

/** A public request as its route receives it: budget paid, body read in full. */
export interface PublicRequest {
  app: AppContext;
  request: Request;
  url: URL;
  /** Path parameters, decoded once. */
  params: Record<string, string>;
  /** The body as text; null for GET and HEAD, and for an upload route. */
  body: string | null;
  /** An upload route's form (multipart/form-data or urlencoded, read by Bun's own parser); null otherwise. */
  form: Form | null;
  /** What an upload route's `admit` answered (what it found of the request); null for other routes. */
  admitted: unknown;
  requestId: string;
  /** The client's address (see core/client_address.ts). */
  clientAddress: string;
  /**
   * What the route adds to the request's log line: the workspace the request concerned once it found it, and the tag
   * of the error an answer of its own stands for (a page for people; a JSON refusal is read for its `_tag`).
   */
  logged: { workspaceId?: string; error?: string };
}

/** The declaration of a public route. */
export interface PublicRoute {
  /** Names the route in logs, e.g. `webhooks.receive`. */
  id: string;
  method: "GET" | "POST";
  /** Elysia-style path: `/webhooks/:integration`. */
  path: string;
  /** The bucket a request is counted against: one per name and client address. */
  budget: {
    /** The bucket's name for a request's path parameters, e.g. `webhooks/sms`. */
    name: (params: Record<string, string>) => string;
    /** Its capacity a minute, from the configuration. */
    perMinute: (config: Readonly<Config>) => number;
  };
  /**
   * An upload route (a form with files): its body is read as bytes, up to `limit` (413 above it), and parsed as a
   * form. Other routes read at most the API's 64 KiB, as text.
   */
  upload?: {
    limit: number;
    /**
     * Runs before the body is read (with `body` and `form` still null): the route's checks that need no body (its
     * link or session, cross-site posts), so that no large body is read for a request that would be refused. A
     * Response answered is the answer; anything else reaches `handle` as `req.admitted`.
     */
    admit?: (req: PublicRequest) => Promise<unknown>;
  };
  /** The answer; a thrown AppError is answered by `refuse`, anything else as asAppError says. */
  handle: (req: PublicRequest) => Promise<Response>;
  /** How a refusal is answered (default: the tagged error as JSON). The portal answers people with a page. */
  refuse?: (error: AppError, req: Pick<PublicRequest, "requestId" | "request">) => Response;
  /** Its OpenAPI operation object, when it is documented there (security none: see core/openapi.ts). */
  openapi?: PublicRouteDoc;
}

/** What OpenAPI says of a public route: its own prose and body, and the refusals it answers with. */
export interface PublicRouteDoc {
  summary: string;
  description: string;
  tag: string;
  /** The request body by media type (OpenAPI `content`). */
  requestBody: Record<string, unknown>;
  parameters: Record<string, unknown>[];
  /** The success answer (OpenAPI response object). */
  success: { status: number; response: Record<string, unknown> };
  /** The tagged errors it answers with. */
  errors: ErrorClass[];
}

/** What the app needs of a public route's answer to log it. */
export interface PublicOutcome {
  response: Response;
  /** The error's tag when refused (any answer of 400 and up). */
  error: string | null;
  bucket: string | null;
  /** The workspace the request concerned, when the route found it. */
  workspaceId: string | null;
}

/** The `_tag` of an answer's JSON body, or null (not JSON, or no tag). */
async function jsonTag(response: Response): Promise<string | null> {
  if (!(response.headers.get("content-type") ?? "").includes("json")) return null;
  return errorTagOf(
    await response
      .clone()
      .json()
      .catch(() => null),
  );
}

/**
 * Answers a request for a public route: Host, budget (RateLimited with Retry-After when spent), an upload route's
 * admission, body (413 over 64 KiB or the upload's limit, 408 past the deadline), then the route. `socketAddress` is
 * the peer of the connection, when there is one.
 */
export async function answerPublic(
  app: AppContext,
  route: PublicRoute,
  request: Request,
  params: Record<string, string>,
  requestId: string,
  socketAddress: string | null,
): Promise<PublicOutcome> {
  const logged: PublicRequest["logged"] = {};
  const refuse = (error: AppError): PublicOutcome => ({
    response: route.refuse ? route.refuse(error, { requestId, request }) : errorResponse(error, requestId),
    error: error.tag,
    bucket,
    workspaceId: logged.workspaceId ?? null,
  });
  let bucket: string | null = null;
  const answered = async (response: Response): Promise<PublicOutcome> => ({
    response,
    error: response.status >= 400 ? (logged.error ?? (await jsonTag(response))) : null,
    bucket,
    workspaceId: logged.workspaceId ?? null,
  });
  try {
    const url = urlOf(request);
    if (!url) return refuse(hostInvalid());
    const address = clientAddress(request, socketAddress, app.config.trustedProxyHops);
    bucket = route.budget.name(params);
    const state = await takeAddressToken(app.db, bucket, address, route.budget.perMinute(app.config));
    if (!state.admitted) {
      const error = rateLimited(state, bucket, `The request budget of ${bucket} for your address`);
      Object.assign(error.headers, rateLimitHeaders(state));
      return refuse(error);
    }
    const req: PublicRequest = {
      app,
      request,
      url,
      params,
      body: null,
      form: null,
      admitted: null,
      requestId,
      clientAddress: address,
      logged,
    };
    if (route.upload?.admit) {
      const admitted = await route.upload.admit(req);
      if (admitted instanceof Response) return answered(admitted);
      req.admitted = admitted;
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      const limit = route.upload?.limit ?? bodyLimit;
      const read = route.upload
        ? await readBodyBytes(request, limit, app.config.bodyTimeoutMs)
        : await readBody(request, limit, app.config.bodyTimeoutMs);
      if (read.kind === "timedOut" || read.kind === "aborted") {
        return refuse(bodyNotArrived(read.kind, app.config.bodyTimeoutMs));
      }
      if (read.kind === "tooLarge") return refuse(new PayloadTooLarge({ limit }));
      if (read.kind === "text") req.body = read.text;
      else req.form = await formOf(request, read.bytes);
    }
    return answered(await route.handle(req));
  } catch (error) {
    return refuse(asAppError(app, error, requestId, route.id));
  }
}

/** An upload's form, parsed by Bun (multipart/form-data or urlencoded); RequestInvalid when it is neither or broken. */
async function formOf(request: Request, bytes: Uint8Array): Promise<Form> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^(multipart\/form-data|application\/x-www-form-urlencoded)\b/i.test(type))
    throw new RequestInvalid({
      message: "The body must be a form: multipart/form-data or application/x-www-form-urlencoded.",
      issues: [{ path: "/headers/content-type", message: "not a form" }],
    });
  try {
    return await new Response(bytes, { headers: { "content-type": type } }).formData();
  } catch {
    throw new RequestInvalid({
      message: "The form could not be read.",
      issues: [{ path: "/body", message: "malformed" }],
    });
  }
}
