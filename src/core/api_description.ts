/** The prose at the top of the OpenAPI document: the decisions integrators need (CONTRACT.md). */
export const apiDescription = `
The service UK letting agents and property managers plug their systems into: reactive repairs, planned
maintenance, compliance, keys, handovers and a repairs desk. Data belongs to a workspace; each API key
belongs to exactly one workspace.

## Authentication and the order of the checks
Send the key in \`x-api-key\`. The checks run in this order and the first that fails answers:
1. no \`x-api-key\` → 401 \`Unauthenticated\` (a bearer token is never accepted in its place);
2. a malformed, unknown, revoked or expired key → 401 \`ApiKeyRejected\` (the answer does not say which);
3. \`X-Tenant\` sent and not the slug of the key's workspace → 403 \`TenantMismatch\`;
4. a suspended workspace → 402 \`TenantSuspended\`;
5. the key's request budget spent → 429 \`RateLimited\` with \`Retry-After\`;
6. the key lacks the scope → 403 \`ScopeMissing\` (\`GET\` needs \`<group>:read\`, other methods \`<group>:write\`;
   write does not imply read);
7. the workspace lacks the module of the group → 403 \`EntitlementMissing\` (\`maintenance-pro*\` groups need
   the module \`maintenance-pro\`, \`telephony\` needs \`telephony\`);
8. owner-only operations → 403 \`WorkspaceOwnerRequired\` unless the key's creator is the owner now;
9. then the request is validated (400 \`RequestInvalid\`) and the operation runs.

## Request budget
One token bucket per key, shared by every process of the service and by the MCP server: by default 600
requests, refilled at 10 a second. Every request with a valid key spends one token, whatever it answers.
Each answer carries \`RateLimit-Policy: "default";q=<capacity>;w=60\` and \`RateLimit: "default";r=<left>;t=<s>\`.

## Wire conventions
- JSON in and out, UTF-8. Every listed field is present; a field with no value is \`null\`.
- \`*On\` fields are dates \`YYYY-MM-DD\`; \`*At\` fields are RFC 3339 UTC instants with milliseconds.
  "Today" is the calendar date in Europe/London.
- Identifiers minted here are ULIDs; imported records keep their ids (1 to 64 of \`A-Z a-z 0-9 _ -\`).
- Every answer carries \`X-Request-Id\` (yours when printable and at most 128 characters, else a new ULID);
  5xx bodies include it as \`requestId\`.
- Bodies over 64 KiB → 413 \`PayloadTooLarge\`; a body that is not JSON → 415 \`UnsupportedMediaType\`;
  malformed JSON or a value breaking its schema → 400 \`RequestInvalid {message, issues: [{path, message}]}\`.
  Unknown body and query fields are refused, never silently ignored.
- An unknown path → 404 \`RouteNotFound\`; an unexpected fault → 500 \`InternalError {requestId}\`; a database
  that cannot be reached → 503 \`IntegrationUnavailable\`.
`.trim();
