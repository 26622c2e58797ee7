/** The JSON answers of the API and of MCP over HTTP: the headers every one carries, and the response itself. */
import type { AppError } from "./errors.ts";

/** The headers every JSON answer of the API and of MCP carries, besides its request id. */
export const answerHeaders: Readonly<Record<string, string>> = {
  "content-type": "application/json; charset=utf-8",
  // Answers are for one key at one moment: never sniffed as another type, never kept by a cache.
  "x-content-type-options": "nosniff",
  "cache-control": "no-store",
};

/** A JSON response with the request id and any further headers. */
export function jsonResponse(
  status: number,
  bodyText: string,
  requestId: string,
  headers: Record<string, string> = {},
): Response {
  return new Response(bodyText, { status, headers: { ...answerHeaders, "x-request-id": requestId, ...headers } });
}

/** A tagged error as a JSON response: its status and body, and its own headers over the ones given. */
export function errorResponse(error: AppError, requestId: string, headers: Record<string, string> = {}): Response {
  return jsonResponse(error.status, JSON.stringify(error.toBody()), requestId, { ...headers, ...error.headers });
}
