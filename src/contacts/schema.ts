/** TypeBox schemas of the contacts group: the company, its creation body, the duplicate check. */
import { Type } from "@sinclair/typebox";
import { Strict, Nullable, Id, Instant, RequestId } from "../core/schema.ts";

/** The roles a contact may hold. */
export const roles = ["landlord", "tenant", "contractor", "supplier", "guarantor", "agent", "other"] as const;

/** One role of a contact. */
export const Role = Type.Union(
  roles.map((r) => Type.Literal(r)),
  { description: `A role: ${roles.join(", ")}.` },
);

/** The kind of a contact. */
export const ContactKind = Type.Union([Type.Literal("person"), Type.Literal("company")], {
  description: "`person` or `company`.",
});

const text = (maxLength: number, description: string) => Type.String({ maxLength, description });

/** A person attached to a company. */
export const CompanyPerson = Strict(
  {
    contactId: Id,
    name: Type.String({ description: "The person's contact name." }),
    email: Nullable(Type.String({ description: "The person's contact email." })),
    role: Nullable(Type.String({ description: "Their role at the company, free text." })),
    archivedAt: Nullable(Instant),
    kind: Type.String({ description: "The attached contact's kind: `person` or `company`." }),
  },
  {
    title: "CompanyPerson",
    description:
      "A contact attached to the company. `archivedAt` is when the link was archived, else when the contact " +
      "itself was, else null.",
  },
);

/** A company contact, as the common interface lists it. */
export const Company = Strict(
  {
    id: Id,
    legacyContactId: Nullable(
      Type.String({
        description: "The contact's id in a system it was imported from; null for companies created here.",
      }),
    ),
    name: Type.String(),
    email: Nullable(Type.String()),
    mobile: Nullable(Type.String({ description: "As sent; matching uses its E.164 form." })),
    addressLine1: Nullable(Type.String()),
    addressLine2: Nullable(Type.String()),
    addressTown: Nullable(Type.String()),
    addressPostcode: Nullable(
      Type.String({
        description:
          "A UK postcode is stored normalised: upper case, one space before the last three characters (`SW1A " +
          "1AA`). Other postcodes as sent, trimmed.",
      }),
    ),
    overseas: Type.Boolean(),
    roles: Type.Array(Role),
    registrationNumber: Nullable(
      Type.String({
        description:
          "Stored normalised: upper case, spaces removed, an all-digit number left-padded with zeros to 8 " +
          "(`1234567` → `01234567`).",
      }),
    ),
    registrationJurisdiction: Nullable(Type.String()),
    website: Nullable(Type.String()),
    notes: Nullable(Type.String()),
    revision: Type.Integer({ minimum: 1, description: "Starts at 1; goes up by one with each change." }),
    archivedAt: Nullable(Instant),
    createdAt: Instant,
    people: Type.Array(CompanyPerson, {
      description:
        "Contacts attached to the company, ordered by name (case-insensitive) then contactId; empty for a new company.",
    }),
  },
  { title: "Company", description: "A company contact. Every field is present; a field with no value is null." },
);

/** The body of POST /companies. */
export const CreateCompanyBody = Strict(
  {
    requestId: RequestId,
    name: Type.String({
      minLength: 1,
      maxLength: 200,
      pattern: "\\S",
      description: "Required: 1 to 200 characters, not only spaces. Stored trimmed.",
    }),
    email: Type.Optional(
      Type.String({
        maxLength: 254,
        pattern: "^[^\\s@]{1,64}@[^\\s@.]+(\\.[^\\s@.]+)+$",
        description:
          "An email address (`local@domain.tld`), at most 254 characters. Stored as sent; matched lower-cased.",
      }),
    ),
    mobile: Type.Optional(text(40, "At most 40 characters. Stored as sent; matched in its E.164 form.")),
    addressLine1: Type.Optional(text(200, "At most 200 characters.")),
    addressLine2: Type.Optional(text(200, "At most 200 characters.")),
    addressTown: Type.Optional(text(100, "At most 100 characters.")),
    addressPostcode: Type.Optional(
      text(20, "At most 20 characters. A UK postcode is stored normalised (`sw1a1aa` → `SW1A 1AA`)."),
    ),
    overseas: Type.Optional(Type.Boolean({ description: "Whether the address is outside the UK. Default false." })),
    roles: Type.Optional(
      Type.Array(Role, {
        maxItems: roles.length,
        uniqueItems: true,
        description: "Distinct roles from the allowed list. Default empty.",
      }),
    ),
    registrationNumber: Type.Optional(
      text(
        40,
        "At most 40 characters. Stored upper-cased without spaces; an all-digit number is left-padded with zeros to 8.",
      ),
    ),
    registrationJurisdiction: Type.Optional(text(100, "At most 100 characters (e.g. `England and Wales`).")),
    website: Type.Optional(text(500, "At most 500 characters.")),
    notes: Type.Optional(text(10_000, "At most 10,000 characters.")),
  },
  {
    title: "CreateCompanyBody",
    description:
      "A new company. Only `name` is required. Unknown fields are refused. Optional text fields are stored " +
      "trimmed; one left empty (or only spaces) is stored as null.",
  },
);

/** The body of POST /contacts/duplicate-check. */
export const DuplicateCheckBody = Strict(
  {
    name: Type.Optional(
      text(
        200,
        "Matched lower-cased, accents folded, without punctuation, repeated spaces or a trailing ltd/limited/plc/llp.",
      ),
    ),
    kind: Type.Optional(ContactKind),
    email: Type.Optional(
      text(254, "Matched lower-cased and trimmed; Gmail addresses also match with dots and +tags removed."),
    ),
    mobile: Type.Optional(text(40, "Matched in E.164 (`07…`, `447…`, `0044…`, `+44 (0)…` → `+447…`).")),
    addressPostcode: Type.Optional(text(20, "Only used together with name (`name_postcode`) and for `conflicting`.")),
    registrationNumber: Type.Optional(text(40, "Matched upper-cased, spaces removed, all-digit numbers padded to 8.")),
  },
  {
    title: "DuplicateCheckBody",
    description:
      "What to look for. At least one of name, email, mobile or registrationNumber must hold a value (an empty " +
      "string counts as absent), else RequestInvalid. `kind`, when sent, restricts candidates to that kind.",
  },
);

/** A contact as a duplicate-check candidate shows it. */
export const CandidateContact = Strict(
  {
    id: Id,
    kind: ContactKind,
    name: Type.String(),
    email: Nullable(Type.String()),
    mobile: Nullable(Type.String()),
    addressPostcode: Nullable(Type.String()),
    archivedAt: Nullable(Instant),
    roles: Type.Array(Type.String()),
  },
  { title: "DuplicateCandidateContact" },
);

/** What a candidate matched on. */
export const MatchKind = Type.Union(
  ["email", "mobile", "registrationNumber", "name_postcode", "name"].map((m) => Type.Literal(m)),
  {
    description:
      "`email` (the same address, or a Gmail variant of it), `mobile`, `registrationNumber`, `name_postcode` " +
      "(name and postcode both equal), `name` (name equal, postcode not).",
  },
);

/** One possible duplicate. */
export const Candidate = Strict(
  {
    contact: CandidateContact,
    matchedOn: Type.Array(MatchKind),
    exact: Type.Boolean({
      description:
        "True when the candidate has the same email (not merely a Gmail variant), the same mobile or the same " +
        "registration number.",
    }),
    conflicting: Type.Array(Type.String(), {
      description:
        "Request fields among name, email, mobile, addressPostcode, registrationNumber that the candidate holds " +
        "with a different normalised value. A Gmail variant of the same mailbox is not a conflict; a field " +
        "the candidate leaves empty is not either.",
    }),
  },
  { title: "DuplicateCandidate" },
);

/** The answer of the duplicate check. */
export const DuplicateCheckResult = Strict(
  {
    candidates: Type.Array(Candidate, {
      maxItems: 20,
      description:
        "At most 20, ordered: exact first, then more matchedOn entries, then name (case-insensitive), then id. " +
        "Archived contacts are candidates too.",
    }),
    totalMatched: Type.Integer({ minimum: 0, description: "How many contacts matched in all." }),
    truncated: Type.Boolean({ description: "True when totalMatched exceeds the candidates listed." }),
  },
  { title: "DuplicateCheckResult" },
);
