/**
 * The fields of a request's log line: who asked (key, workspace), for
 * what (route, the path's record ids), how it ended.
 */

/** Path parameters longer than this are cut in the log (valid ids are at most 64 characters). */
const longest = 100;

/** The `_tag` of an error body, or null. */
export function errorTagOf(body: unknown): string | null {
  const tag = (body as { _tag?: unknown } | null)?._tag;
  return typeof tag === "string" ? tag : null;
}

/** The path's record ids as logged: each parameter as sent, cut to a bounded length. */
function recordIds(params: Record<string, unknown>): Record<string, string> {
  const ids: Record<string, string> = {};
  for (const [name, value] of Object.entries(params)) ids[name] = String(value).slice(0, longest);
  return ids;
}

/**
 * The log fields of one request: `workspaceId` (null before a key was found, or when a public route found none),
 * `route` (null for an unknown path), the path's record ids under `params` (when the route has any), and for an answer
 * of 400 and up the error's `_tag` under `error` (from `error` when given, else from the body), so that one 409 can be
 * told from another.
 */
export function requestLogFields(
  route: string | null,
  params: Record<string, unknown> | undefined,
  out: { status: number; body?: unknown; error?: string | null; keyId?: string; workspaceId?: string | null },
): Record<string, unknown> {
  const fields: Record<string, unknown> = { keyId: out.keyId ?? null, workspaceId: out.workspaceId ?? null, route };
  if (params && Object.keys(params).length > 0) fields.params = recordIds(params);
  fields.status = out.status;
  if (out.status >= 400) fields.error = out.error ?? errorTagOf(out.body);
  return fields;
}
