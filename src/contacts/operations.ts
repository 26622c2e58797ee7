/** The contacts group's operations. */
import { ulid } from "ulid";
import type { Tx } from "../core/db.ts";
import { RequestIdReused, RequestInvalid } from "../core/errors.ts";
import { isLedgerConflict, ledgerReply, replay, type LedgerAnswer } from "../core/idempotency.ts";
import { operation } from "../core/operation.ts";
import { keyActor } from "../events/record.ts";
import { companyFields } from "./company_fields.ts";
import { contactNorms } from "./normalise.ts";
import { findDuplicates, insertCompany, type DuplicateProbe } from "./queries.ts";
import { Company, CreateCompanyBody, DuplicateCheckBody, DuplicateCheckResult } from "./schema.ts";

/** Errors the common interface lists for operations 2 to 12 that these operations never raise. */

/** Creates a company contact; a retry with the same requestId replays the first answer. */
export const createCompany = operation({
  id: "contacts.createCompany",
  group: "contacts",
  method: "POST",
  path: "/companies",
  summary: "Creates a company contact; a retry with the same requestId replays the first answer.",
  description: [
    "Creates a company contact and answers 201 with it: `revision` 1, `people` empty, `archivedAt` null, every " +
      "optional field absent from the body null.",
    "Only `name` is required. Unknown fields, an email that is not `local@domain.tld`, roles outside the list " +
      "and over-long fields are refused with RequestInvalid (400).",
    "Text fields are stored trimmed (an empty one as null). A UK postcode is stored normalised (`sw1a1aa` → " +
      "`SW1A 1AA`); the registration number is stored upper-cased without spaces, an all-digit one left-padded " +
      "with zeros to 8.",
    "Idempotency: send a `requestId` to make retries safe. The first request with it creates the company; a " +
      "retry with the same requestId and the same body (compared as JSON, key order ignored) creates nothing " +
      "and answers 201 with the first answer byte for byte and the header `Idempotent-Replayed: true`. A retry " +
      "sent while the first is still running waits for it and replays it. The same requestId with a different " +
      "body is refused with RequestIdReused (422) and writes nothing. A requestId is scoped to the workspace " +
      "and remembered for at least 30 days; a daily job forgets older ones.",
    "The creation is recorded in the activity log (`contacts.created`) with the key's id, and as the event " +
      "`company.created` (a replay records nothing).",
  ].join("\n\n"),
  body: CreateCompanyBody,
  response: Company,
  status: 201,
  errors: [RequestIdReused],
  responseHeaders: {
    "Idempotent-Replayed": {
      description:
        "`true` when this answer replays an earlier creation with the same requestId (nothing new was written); " +
        "absent otherwise.",
    },
  },
  run: async ({ db, principal, body, requestId: xRequestId }) => {
    const fields = companyFields(body);
    const { requestId } = body;
    const ledger =
      requestId === undefined
        ? undefined
        : { workspaceId: principal.workspaceId, operationId: "contacts.createCompany", requestId, body };
    // The company, its activity entry, its event and (with a requestId) its ledger row: one statement (insertCompany).
    // It still runs in a transaction (BEGIN, the statement, COMMIT): sent alone it went into the pool's pipelines like
    // any query, and p99 of concurrent creations doubled (bench/README.md).
    const create = async (tx: Tx) => {
      const id = ulid();
      const bodyText = await insertCompany(
        tx,
        principal.workspaceId,
        id,
        fields,
        {
          workspaceId: principal.workspaceId,
          keyId: principal.keyId,
          action: "contacts.created",
          subjectKind: "contact",
          subjectId: id,
          detail: { kind: "company", requestId: requestId ?? null },
        },
        ledger,
        { workspaceId: principal.workspaceId, subjectId: id, requestId: xRequestId, actor: keyActor(principal) },
      );
      return bodyText;
    };
    let answer: LedgerAnswer;
    try {
      answer = { status: 201, bodyText: (await db.begin(create)) as string, replayed: false };
    } catch (error) {
      // Another request with this requestId came first (its transaction has committed): replay its answer.
      if (!ledger || !isLedgerConflict(error)) throw error;
      answer = await replay(db, ledger);
    }
    // Postgres writes JSON with spaces (`"id" : …`); first or replayed, the answer goes out compact like every other.
    return ledgerReply<typeof Company.static>({ ...answer, bodyText: JSON.stringify(JSON.parse(answer.bodyText)) });
  },
});

/** The normalised values a check looks for; refuses a request with nothing to match on. */
function probeOf(body: typeof DuplicateCheckBody.static): DuplicateProbe {
  const sent = (v: string | undefined) => v !== undefined && v.trim() !== "";
  if (![body.name, body.email, body.mobile, body.registrationNumber].some(sent)) {
    throw new RequestInvalid({
      message: "Send at least one of name, email, mobile or registrationNumber.",
      issues: [
        { path: "/body", message: "At least one of name, email, mobile or registrationNumber must hold a value." },
      ],
    });
  }
  return { kind: body.kind ?? null, ...contactNorms(body) };
}

/** Lists existing contacts that may be the one described; writes nothing. */
export const duplicateCheck = operation({
  id: "contacts.duplicateCheck",
  group: "contacts",
  method: "POST",
  path: "/contacts/duplicate-check",
  summary: "Lists existing contacts that may be the one described; writes nothing.",
  description: [
    "Looks for contacts of the workspace (archived ones included) that may be the contact described, before " +
      "creating it. Nothing is written, not even a log row.",
    "Values are normalised before comparing: email lower-cased and trimmed; UK phone numbers to E.164 (`07…`, " +
      "`447…`, `0044…`, `+44 (0)…` → `+447…`); postcodes upper-cased with one space before the last three " +
      "characters; registration numbers upper-cased without spaces, all-digit ones padded to 8; names with " +
      "accents folded, lower-cased, without punctuation, repeated spaces or a trailing " +
      "`ltd`/`limited`/`plc`/`llp`.",
    "`matchedOn`: `email` (same address, or for `gmail.com`/`googlemail.com` the same mailbox once dots and " +
      "`+tags` are removed from the local part), `mobile`, `registrationNumber`, `name_postcode` (name and " +
      "postcode both equal) or `name` (name equal without the postcode). `exact` is true for the same email " +
      "(not a Gmail variant), mobile or registration number. `conflicting` lists request fields the candidate " +
      "holds with another normalised value.",
    "Order: exact first, then more matchedOn entries, then name (case-insensitive), then id. At most 20 " +
      "candidates; `totalMatched` counts every match and `truncated` says whether some were cut. `kind` " +
      "restricts candidates to persons or companies.",
  ].join("\n\n"),
  body: DuplicateCheckBody,
  response: DuplicateCheckResult,
  hints: { idempotent: true },
  run: ({ db, principal, body }) => findDuplicates(db, principal.workspaceId, probeOf(body)),
});

/** Every operation of the group. */
export const operations = [createCompany, duplicateCheck];
