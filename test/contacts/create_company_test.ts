/** POST /companies: the company answered, validation, and requestId replays. */
import { describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { harness } from "../support/harness.ts";
import { inlineRefs } from "../support/openapi.ts";
import { Company } from "../../src/contacts/schema.ts";
import { companyById } from "../../src/contacts/queries.ts";
import { linkPerson } from "./fixtures.ts";

const h = await harness();
const db = h.database.db;

const full = {
  name: "  Acme Lettings Ltd ",
  email: "Office@Acme.example",
  mobile: "07700 900123",
  addressLine1: "1 High Street",
  addressLine2: "Floor 2",
  addressTown: "Leeds",
  addressPostcode: "ls1 4ap",
  overseas: false,
  roles: ["landlord", "supplier"],
  registrationNumber: "1234 567",
  registrationJurisdiction: "England and Wales",
  website: "https://acme.example",
  notes: "Prefers email.",
};

async function counts(workspaceId: string) {
  const [row] = await db<{ contacts: number; ledger: number; activity: number }[]>`
    select (select count(*)::int from contacts where workspace_id = ${workspaceId}) as contacts,
           (select count(*)::int from idempotency_ledger where workspace_id = ${workspaceId}) as ledger,
           (select count(*)::int from activity_log where workspace_id = ${workspaceId}) as activity`;
  return row!;
}

describe("creating a company", () => {
  test("answers 201 with the company schema's fields: every field, revision 1, no people, not archived", async () => {
    const ws = await h.workspace();
    const res = await h.request("POST", "/companies", { key: ws.key, body: full });
    expect(res.status).toBe(201);
    expect(Value.Check(Company, res.body)).toBe(true);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{26}$/),
      legacyContactId: null,
      name: "Acme Lettings Ltd",
      email: "Office@Acme.example",
      mobile: "07700 900123",
      addressLine1: "1 High Street",
      addressLine2: "Floor 2",
      addressTown: "Leeds",
      addressPostcode: "LS1 4AP",
      overseas: false,
      roles: ["landlord", "supplier"],
      registrationNumber: "01234567",
      registrationJurisdiction: "England and Wales",
      website: "https://acme.example",
      notes: "Prefers email.",
      revision: 1,
      archivedAt: null,
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      people: [],
    });
    expect(Object.keys(res.body)).toHaveLength(19);
    expect(res.headers.get("idempotent-replayed")).toBeNull();
    expect(res.headers.get("content-type")).toContain("application/json");
  });

  test("only name is required; every absent optional field is null and roles empty", async () => {
    const ws = await h.workspace();
    const res = await h.request("POST", "/companies", { key: ws.key, body: { name: "Bare Co" } });
    expect(res.status).toBe(201);
    const { id, createdAt, ...rest } = res.body;
    expect(rest).toEqual({
      legacyContactId: null,
      name: "Bare Co",
      email: null,
      mobile: null,
      addressLine1: null,
      addressLine2: null,
      addressTown: null,
      addressPostcode: null,
      overseas: false,
      roles: [],
      registrationNumber: null,
      registrationJurisdiction: null,
      website: null,
      notes: null,
      revision: 1,
      archivedAt: null,
      people: [],
    });
  });

  test("stores text trimmed, blank optional text as null, a non-UK postcode as sent and letters in registration numbers upper-cased", async () => {
    const ws = await h.workspace();
    const res = await h.request("POST", "/companies", {
      key: ws.key,
      body: {
        name: "Paris SARL",
        addressLine2: "   ",
        notes: "",
        addressPostcode: " 75008 ",
        overseas: true,
        registrationNumber: "sc 123 456",
      },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      addressLine2: null,
      notes: null,
      addressPostcode: "75008",
      overseas: true,
      registrationNumber: "SC123456",
    });
  });

  test("writes the company with its normalised matching columns and appends the creation to the activity log", async () => {
    const ws = await h.workspace();
    const res = await h.request("POST", "/companies", {
      key: ws.key,
      body: { ...full, email: "A.Cme+x@GoogleMail.com" },
    });
    const [row] = await db`
      select kind, name_norm, email_norm, email_canon, mobile_norm, postcode_norm, registration_norm
      from contacts where workspace_id = ${ws.id} and id = ${res.body.id}`;
    expect(row).toEqual({
      kind: "company",
      nameNorm: "acme lettings",
      emailNorm: "a.cme+x@googlemail.com",
      emailCanon: "acme@gmail.com",
      mobileNorm: "+447700900123",
      postcodeNorm: "LS1 4AP",
      registrationNorm: "01234567",
    });
    const activity =
      await db`select actor_key_id, action, subject_kind, subject_id, detail from activity_log where workspace_id = ${ws.id}`;
    expect([...activity]).toEqual([
      {
        actorKeyId: ws.keyId,
        action: "contacts.created",
        subjectKind: "contact",
        subjectId: res.body.id,
        detail: { kind: "company", requestId: null },
      },
    ]);
  });

  test("without a requestId every post creates another company", async () => {
    const ws = await h.workspace();
    const a = await h.request("POST", "/companies", { key: ws.key, body: { name: "Twice" } });
    const b = await h.request("POST", "/companies", { key: ws.key, body: { name: "Twice" } });
    expect(a.body.id).not.toBe(b.body.id);
    expect((await counts(ws.id)).contacts).toBe(2);
  });
});

describe("validation", () => {
  const refused: [string, Record<string, unknown>][] = [
    ["no name", { email: "a@b.example" }],
    ["an empty name", { name: "" }],
    ["a name of only spaces", { name: "   " }],
    ["a name over 200 characters", { name: "x".repeat(201) }],
    ["a name that is not a string", { name: 42 }],
    ["an email without @", { name: "A", email: "acme.example" }],
    ["an email without a domain dot", { name: "A", email: "office@acme" }],
    ["an email with spaces", { name: "A", email: "office @acme.example" }],
    ["an email with two @", { name: "A", email: "a@b@acme.example" }],
    ["an email over 254 characters", { name: "A", email: `a@${"b".repeat(250)}.example` }],
    ["a role outside the list", { name: "A", roles: ["landlord", "owner"] }],
    ["a role given twice", { name: "A", roles: ["landlord", "landlord"] }],
    ["roles that are not an array", { name: "A", roles: "landlord" }],
    ["overseas that is not a boolean", { name: "A", overseas: "yes" }],
    ["notes over 10,000 characters", { name: "A", notes: "n".repeat(10_001) }],
    ["a postcode over 20 characters", { name: "A", addressPostcode: "P".repeat(21) }],
    ["a mobile over 40 characters", { name: "A", mobile: "0".repeat(41) }],
    ["an empty requestId", { name: "A", requestId: "" }],
    ["a requestId over 128 characters", { name: "A", requestId: "r".repeat(129) }],
    ["a requestId with a control character", { name: "A", requestId: "abc\u0007" }],
    ["an unknown field", { name: "A", colour: "blue" }],
    ["a revision", { name: "A", revision: 3 }],
    ["a workspaceId", { name: "A", workspaceId: "elsewhere" }],
    ["people", { name: "A", people: [] }],
  ];
  test.each(refused)("%s is RequestInvalid and writes nothing", async (_why, body) => {
    const ws = await h.workspace();
    const res = await h.request("POST", "/companies", { key: ws.key, body });
    expect(res.status).toBe(400);
    expect(res.body._tag).toBe("RequestInvalid");
    expect(res.body.issues.length).toBeGreaterThan(0);
    expect(await counts(ws.id)).toEqual({ contacts: 0, ledger: 0, activity: 0 });
  });

  test("a body that is not JSON is refused", async () => {
    const ws = await h.workspace();
    const res = await h.request("POST", "/companies", {
      key: ws.key,
      body: "{name:",
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(res.body._tag).toBe("RequestInvalid");
  });

  test("usual emails, every role and a printable requestId are accepted", async () => {
    const ws = await h.workspace();
    for (const email of ["a@b.co", "first.last+tag@sub.example.co.uk", "O'Neil@example.ie"]) {
      const res = await h.request("POST", "/companies", { key: ws.key, body: { name: "A", email } });
      expect(res.status).toBe(201);
    }
    const roles = ["landlord", "tenant", "contractor", "supplier", "guarantor", "agent", "other"];
    const res = await h.request("POST", "/companies", {
      key: ws.key,
      body: { name: "A", roles, requestId: "order 42 / é-ü ✓" },
    });
    expect(res.status).toBe(201);
    expect(res.body.roles).toEqual(roles);
  });
});

describe("requestId replays", () => {
  test("a retry with the same requestId and body replays the first answer byte for byte and writes nothing", async () => {
    const ws = await h.workspace();
    const body = { ...full, requestId: "req-1" };
    const first = await h.request("POST", "/companies", { key: ws.key, body });
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(Value.Check(Company, first.body)).toBe(true);
    const before = await counts(ws.id);
    expect(before).toEqual({ contacts: 1, ledger: 1, activity: 1 });
    const retry = await h.request("POST", "/companies", { key: ws.key, body });
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.text).toBe(first.text);
    expect(await counts(ws.id)).toEqual(before);
  });

  test("the same body with its keys in another order is the same request", async () => {
    const ws = await h.workspace();
    const first = await h.request("POST", "/companies", {
      key: ws.key,
      body: { requestId: "r", name: "A", roles: ["agent"], email: "a@b.co" },
    });
    const retry = await h.request("POST", "/companies", {
      key: ws.key,
      body: `{"email":"a@b.co","roles":["agent"],"name":"A","requestId":"r"}`,
    });
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.text).toBe(first.text);
  });

  test("the same requestId with a different body is RequestIdReused (422) and writes nothing", async () => {
    const ws = await h.workspace();
    const first = await h.request("POST", "/companies", { key: ws.key, body: { requestId: "r-2", name: "Acme" } });
    const before = await counts(ws.id);
    for (const body of [
      { requestId: "r-2", name: "Acme Two" },
      { requestId: "r-2", name: "Acme", email: "a@b.co" },
      { requestId: "r-2", name: "Acme", roles: [] },
    ]) {
      const res = await h.request("POST", "/companies", { key: ws.key, body });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ _tag: "RequestIdReused", requestId: "r-2" });
      expect(res.headers.get("idempotent-replayed")).toBeNull();
    }
    expect(await counts(ws.id)).toEqual(before);
    const retry = await h.request("POST", "/companies", { key: ws.key, body: { requestId: "r-2", name: "Acme" } });
    expect(retry.text).toBe(first.text);
  });

  test("50 concurrent posts with one requestId create one company and all answer it", async () => {
    const ws = await h.workspace();
    const body = { ...full, requestId: "burst" };
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => h.request("POST", "/companies", { key: ws.key, body })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(50).fill(201));
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect(answers.filter((a) => a.headers.get("idempotent-replayed") === "true")).toHaveLength(49);
    expect(await counts(ws.id)).toEqual({ contacts: 1, ledger: 1, activity: 1 });
  });

  test("concurrent posts with one requestId and different bodies create one company; the others are RequestIdReused", async () => {
    const ws = await h.workspace();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        h.request("POST", "/companies", { key: ws.key, body: { requestId: "race", name: `Co ${i % 2}` } }),
      ),
    );
    const created = answers.filter((a) => a.status === 201);
    const reused = answers.filter((a) => a.status === 422);
    expect(created.length + reused.length).toBe(20);
    expect(new Set(created.map((a) => a.body.name)).size).toBe(1);
    expect(reused.every((a) => a.body._tag === "RequestIdReused")).toBe(true);
    expect((await counts(ws.id)).contacts).toBe(1);
  });

  test("the same requestId in two workspaces creates two companies, each replayed only in its own workspace", async () => {
    const a = await h.workspace();
    const b = await h.workspace();
    const body = { requestId: "shared-id", name: "Same Name" };
    const inA = await h.request("POST", "/companies", { key: a.key, body });
    const inB = await h.request("POST", "/companies", { key: b.key, body });
    expect(inA.status).toBe(201);
    expect(inB.status).toBe(201);
    expect(inB.headers.get("idempotent-replayed")).toBeNull();
    expect(inB.body.id).not.toBe(inA.body.id);
    const [ownerA] = await db`select workspace_id from contacts where id = ${inA.body.id}`;
    const [ownerB] = await db`select workspace_id from contacts where id = ${inB.body.id}`;
    expect(ownerA!.workspaceId).toBe(a.id);
    expect(ownerB!.workspaceId).toBe(b.id);
    const againB = await h.request("POST", "/companies", { key: b.key, body });
    expect(againB.text).toBe(inB.text);
    // A different body under the id is refused in B without touching A's entry.
    const otherB = await h.request("POST", "/companies", {
      key: b.key,
      body: { requestId: "shared-id", name: "Other" },
    });
    expect(otherB.status).toBe(422);
    const againA = await h.request("POST", "/companies", { key: a.key, body });
    expect(againA.text).toBe(inA.text);
    expect((await counts(a.id)).contacts).toBe(1);
    expect((await counts(b.id)).contacts).toBe(1);
  });

  test("a replay answers for a key of the same workspace other than the one that created it", async () => {
    const ws = await h.workspace();
    const other = await h.key(ws, ["contacts:write"]);
    const body = { requestId: "k", name: "Keyed" };
    const first = await h.request("POST", "/companies", { key: ws.key, body });
    const retry = await h.request("POST", "/companies", { key: other, body });
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.text).toBe(first.text);
  });
});

describe("the company shape", () => {
  test("people lists the contacts linked to the company, ordered by name, with the link's role and archival", async () => {
    const ws = await h.workspace();
    const [companyId, annId, bobId, zedId] = await h
      .rows(ws)
      .contacts([
        { kind: "company", name: "Linked Co" },
        { name: "Ann Archer", email: "ann@example.com" },
        { name: "Bob Baker", archivedAt: "2026-01-02T03:04:05.678Z" },
        { name: "zed Zane" },
      ]);
    await linkPerson(db, ws.id, companyId, zedId, "director", "2026-02-01T00:00:00.000Z");
    await linkPerson(db, ws.id, companyId, bobId, null);
    await linkPerson(db, ws.id, companyId, annId, "accounts");
    const company = await companyById(db, ws.id, companyId);
    expect(Value.Check(Company, company)).toBe(true);
    expect(company!.people).toEqual([
      {
        contactId: annId,
        name: "Ann Archer",
        email: "ann@example.com",
        role: "accounts",
        archivedAt: null,
        kind: "person",
      },
      {
        contactId: bobId,
        name: "Bob Baker",
        email: null,
        role: null,
        archivedAt: "2026-01-02T03:04:05.678Z",
        kind: "person",
      },
      {
        contactId: zedId,
        name: "zed Zane",
        email: null,
        role: "director",
        archivedAt: "2026-02-01T00:00:00.000Z",
        kind: "person",
      },
    ]);
    const other = await h.workspace();
    expect(await companyById(db, other.id, companyId!)).toBeUndefined();
  });

  test("the OpenAPI document declares 201, RequestIdReused and the Idempotent-Replayed header", async () => {
    const res = await h.request("GET", "/openapi.json");
    const op = inlineRefs(res.body).paths["/companies"].post;
    expect(op.operationId).toBe("contacts.createCompany");
    expect(op.responses["201"].headers["Idempotent-Replayed"]).toEqual({
      schema: { type: "string" },
      description: expect.stringContaining("true"),
    });
    expect(JSON.stringify(op.responses["422"])).toContain("RequestIdReused");
    expect(op.requestBody.content["application/json"].schema.required).toEqual(["name"]);
  });
});
