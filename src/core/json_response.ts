/** The JSON answers of the API and of MCP over HTTP: the headers every one carries, and the response itself. */
import type { AppError } from "./errors.ts";
import { codingFor, compress } from "./compression.ts";
import { oneWriteBody } from "./one_write_body.ts";

/** The headers every JSON answer of the API and of MCP carries, besides its request id. */
export const answerHeaders: Readonly<Record<string, string>> = {
  "content-type": "application/json; charset=utf-8",
  // Answers are for one key at one moment: never sniffed as another type, never kept by a cache.
  "x-content-type-options": "nosniff",
  "cache-control": "no-store",
};

/**
 * A JSON response with the request id and any further headers. Given the request it answers, it varies by its
 * Accept-Encoding: a body over the threshold goes out compressed in the coding the client prefers
 * (core/compression.ts), with Content-Encoding; a 304 has no body and goes out as it is. A large body goes out in
 * one write with its headers, chunked (core/one_write_body.ts); a HEAD's keeps the Content-Length GET's body has.
 */
export function jsonResponse(
  status: number,
  bodyText: string,
  requestId: string,
  headers: Record<string, string> = {},
  request?: Request,
): Response {
  if (!request) {
    return new Response(bodyText, { status, headers: { ...answerHeaders, "x-request-id": requestId, ...headers } });
  }
  const all = { ...answerHeaders, vary: "accept-encoding", "x-request-id": requestId, ...headers };
  const coding = status === 304 ? "identity" : codingFor(request.headers.get("accept-encoding"), bodyText.length);
  const sent = (body: string | Uint8Array) => (request.method === "HEAD" ? body : oneWriteBody(body));
  if (coding === "identity") return new Response(sent(bodyText), { status, headers: all });
  return new Response(sent(compress(bodyText, coding)), {
    status,
    headers: { ...all, "content-encoding": coding },
  });
}

/** A tagged error as a JSON response: its status and body, and its own headers over the ones given. */
export function errorResponse(error: AppError, requestId: string, headers: Record<string, string> = {}): Response {
  return jsonResponse(error.status, JSON.stringify(error.toBody()), requestId, { ...headers, ...error.headers });
}
