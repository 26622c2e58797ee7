/** The prose at the top of the OpenAPI document: everything an integrator needs besides the operations. */
export const apiDescription = `
The service UK letting agents and property managers plug their systems into: reactive repairs, planned
maintenance, compliance, keys, handovers and a repairs desk. Data belongs to a workspace; each API key
belongs to exactly one workspace and only ever sees that workspace's data.

The operations follow a common lettings interface that other systems implement too. Each operation lists
every error that interface names for it, marked when this service never raises it there. Operations this
service adds are tagged \`(extension)\` and carry \`x-extension: true\`.

## Authentication and the order of the checks
Send the key in \`x-api-key\` (it starts with \`lk_\`); a key in the query string is never read. The checks run
in this order and the first that fails answers:
1. no \`x-api-key\` → 401 \`Unauthenticated\` (a bearer token is never accepted in its place);
2. a malformed, unknown, revoked or expired key → 401 \`ApiKeyRejected\` (the answer does not say which);
3. \`X-Tenant\` sent and not the slug of the key's workspace → 403 \`TenantMismatch\` (the header is optional);
4. a suspended workspace → 402 \`TenantSuspended\`;
5. the key's request budget spent → 429 \`RateLimited\` with \`Retry-After\`;
6. the key lacks the scope → 403 \`ScopeMissing\`: \`GET\` needs \`<group>:read\`, other methods \`<group>:write\`,
   and write does not imply read. Each tag below is a group;
7. the workspace lacks the module of the group → 403 \`EntitlementMissing\` (the \`maintenance-pro*\` groups need
   the module \`maintenance-pro\`, \`telephony\` needs \`telephony\`);
8. owner-only operations → 403 \`WorkspaceOwnerRequired\` unless the key's creator is the workspace owner at the
   time of the request;
9. then the request is validated (400 \`RequestInvalid\`) and the operation runs.

A revoked key is refused from the next request on, by every process of the service and by its MCP server; a
module withdrawn and a change of the workspace's owner count from the next request in the same way (nothing is
cached).

## API keys
A key is \`lk_\` followed by 256 random bits. The service keeps only its SHA-256, so its value is shown once, when
it is made. A key belongs to one workspace, expires 7, 30, 90 or 365 days after it was made, and holds scopes
\`<group>:read\` and \`<group>:write\` (an unknown scope is refused when the key is made). Keys are made, listed
and revoked by the service's operators with its command line: no operation of this API creates or revokes keys
or changes a workspace's settings, modules or billing.

## Request budget
One token bucket per key, shared by every process of the service and by the MCP server: by default 600
requests, refilled at 10 a second (a key may be created with another budget a minute). Every request that
passes check 2 spends one token, whatever it answers. Each answer to an identified key carries the IETF
fields \`RateLimit-Policy: "default";q=<capacity>;w=60\` and \`RateLimit: "default";r=<tokens left>;t=<seconds
until full>\`. An empty bucket answers 429 \`RateLimited {key, retryAfterSeconds, message}\` with
\`Retry-After\` (the same whole number of seconds, at least 1); a retry after that wait is admitted.

## Wire conventions
- JSON in and out, UTF-8; every answer, errors included, is \`application/json\`. Every listed field is present;
  a field with no value is \`null\`, never left out.
- \`*On\` fields are dates \`YYYY-MM-DD\`; \`*At\` fields are RFC 3339 UTC instants with milliseconds
  (\`2026-11-22T09:30:00.000Z\`). "Today" is the calendar date in Europe/London. Amounts are integers in minor
  units (\`*Minor\`, pence).
- Identifiers minted here are ULIDs (26 characters); imported records keep their ids (1 to 64 of
  \`A-Z a-z 0-9 _ -\`).
- Every answer carries \`X-Request-Id\`: yours when you sent a printable one of at most 128 characters, else a new
  ULID. Quote it when reporting a problem; 5xx bodies include it as \`requestId\`.
- Success is 200 unless an operation says otherwise (201 for a creation, 202 for a queued send).
- Compression: with \`Accept-Encoding\`, a JSON answer over 1 KiB comes back compressed in the coding you accept
  with the highest qvalue among \`zstd\`, \`gzip\` and \`br\` (on a tie, in that order) and says so in
  \`Content-Encoding\`; \`q=0\` refuses a coding. Without the header, or accepting none of the three, answers are
  uncompressed. The operations' answers (errors included) carry \`Vary: Accept-Encoding\`; a week's agenda page of
  about 72 KB comes back as 6 to 10 KB. A conditional read's \`ETag\` names its coding (\`"…-gzip"\`), so send it
  back with the same \`Accept-Encoding\` to get 304. MCP's answers and the routes without an API key (the
  portal, tenant and contractor pages, inbound webhooks) are never compressed.
- Framing: an answer whose body (as sent, after compression) is 12 KiB or more comes with
  \`Transfer-Encoding: chunked\` instead of \`Content-Length\` (it leaves the server in one write with its headers); a
  HEAD of it carries the \`Content-Length\` the body has.

## Errors
Every error body is a JSON object with a \`_tag\` naming the error and the fields of that error; each operation
lists its errors under their status, and the schemas are under \`components.schemas\` by tag.
- Bodies over 64 KiB → 413 \`PayloadTooLarge {limit}\`; a body that is not JSON on an operation that takes one →
  415 \`UnsupportedMediaType {contentType}\`.
- Malformed JSON or a body, path or query value breaking its schema → 400
  \`RequestInvalid {message, issues: [{path, message}]}\`. Unknown body and query fields are refused, never
  silently ignored. No string may hold the NUL character (U+0000) or an unpaired UTF-16 surrogate (a lone
  \`\\ud800\`): it is \`RequestInvalid\` naming its path.
- A body that has not arrived whole within the service's deadline (10 seconds unless its operator set another)
  → 408 \`RequestTimeout {timeoutMs}\`, and the connection closes. A request without a usable \`Host\` header → 400
  \`RequestInvalid\`.
- An unknown path → 404 \`RouteNotFound {method, path}\`; an unexpected fault → 500 \`InternalError {requestId}\`
  (never a stack trace; the service logs it); a database that cannot be reached → 503 \`IntegrationUnavailable\`.

## Retries and concurrent writes
- Creations and sends accept a \`requestId\` (1 to 128 printable characters). A retry with the same requestId and
  the same body writes nothing and replays the first answer byte for byte with \`Idempotent-Replayed: true\`; the
  same requestId with another body → 422 \`RequestIdReused\`. A requestId is kept at least 30 days.
- Resources with a \`revision\` count their changes from 1. An update that takes \`expectedRevision\` is refused with
  409 \`RevisionConflict\` when another change came first; of concurrent writers exactly one succeeds.

## Pages
A list that pages takes \`limit\` (its default and maximum are on the operation) and answers a plain JSON array.
When more items follow, the answer carries \`Link: <absolute URL of the next page>; rel="next"\`: follow it as it
is. The URL repeats your query with an opaque \`cursor\` naming the position reached in the list's order, so
following the links lists every item once, even while items are added or changed (one added behind the position
already reached is not listed). No \`Link\` header: that was the last page. A cursor this service did not make →
400 \`RequestInvalid\`. The link's address is the service's public one (PUBLIC_BASE_URL) when the operator configured
it, else the address the request was sent to (its \`Host\` header).
`.trim();
