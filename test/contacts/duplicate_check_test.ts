/** POST /contacts/duplicate-check: match kinds, exactness, conflicts, order, truncation, no writes. */
import { describe, expect, test } from "bun:test";
import { harness, type TestWorkspace } from "../support/harness.ts";
import { contactRows, type SeedContact } from "./fixtures.ts";

const h = await harness();
const db = h.database.db;
const path = "/contacts/duplicate-check";

async function check(ws: TestWorkspace, body: unknown) {
  return h.request("POST", path, { key: ws.key, body });
}

/** A workspace holding these contacts; returns it and the contacts' ids by name. */
async function world(contacts: SeedContact[]) {
  const ws = await h.workspace();
  const ids = await h.rows(ws).contacts(contacts);
  return { ws, id: Object.fromEntries(contacts.map((c, i) => [c.name, ids[i]!])) as Record<string, string> };
}

describe("match kinds", () => {
  const kinds: [string, SeedContact, Record<string, string>, { matchedOn: string[]; exact: boolean }][] = [
    [
      "the same email",
      { name: "A", email: "jane@example.com" },
      { email: "jane@example.com" },
      { matchedOn: ["email"], exact: true },
    ],
    [
      "an email in other case with spaces",
      { name: "A", email: "Jane@Example.com" },
      { email: "  JANE@example.COM " },
      { matchedOn: ["email"], exact: true },
    ],
    [
      "a Gmail address with dots",
      { name: "A", email: "jane.doe@gmail.com" },
      { email: "janedoe@gmail.com" },
      { matchedOn: ["email"], exact: false },
    ],
    [
      "a Gmail address with a +tag",
      { name: "A", email: "janedoe+lettings@gmail.com" },
      { email: "jane.doe@gmail.com" },
      { matchedOn: ["email"], exact: false },
    ],
    [
      "a googlemail address of the same mailbox",
      { name: "A", email: "jane.doe@googlemail.com" },
      { email: "JaneDoe@gmail.com" },
      { matchedOn: ["email"], exact: false },
    ],
    [
      "the same Gmail address",
      { name: "A", email: "Jane.Doe@gmail.com" },
      { email: "jane.doe@gmail.com" },
      { matchedOn: ["email"], exact: true },
    ],
    [
      "a mobile in 07 form against +44",
      { name: "A", mobile: "+447700900123" },
      { mobile: "07700 900123" },
      { matchedOn: ["mobile"], exact: true },
    ],
    [
      "a mobile in 447 form",
      { name: "A", mobile: "07700900123" },
      { mobile: "447700900123" },
      { matchedOn: ["mobile"], exact: true },
    ],
    [
      "a mobile in 0044 form",
      { name: "A", mobile: "07700 900 123" },
      { mobile: "0044 7700 900123" },
      { matchedOn: ["mobile"], exact: true },
    ],
    [
      "a mobile in +44 (0) form",
      { name: "A", mobile: "07700-900123" },
      { mobile: "+44 (0)7700 900123" },
      { matchedOn: ["mobile"], exact: true },
    ],
    [
      "a registration number without its leading zero",
      { name: "A", kind: "company", registrationNumber: "01234567" },
      { registrationNumber: "1234567" },
      { matchedOn: ["registrationNumber"], exact: true },
    ],
    [
      "a registration number in other case with spaces",
      { name: "A", kind: "company", registrationNumber: "SC123456" },
      { registrationNumber: "sc 123 456" },
      { matchedOn: ["registrationNumber"], exact: true },
    ],
    [
      "a name and postcode",
      { name: "Jane Smith", addressPostcode: "SW1A 1AA" },
      { name: "jane  smith", addressPostcode: "sw1a1aa" },
      { matchedOn: ["name_postcode"], exact: false },
    ],
    [
      "a name alone",
      { name: "Jane Smith", addressPostcode: "SW1A 1AA" },
      { name: "Jane Smith" },
      { matchedOn: ["name"], exact: false },
    ],
    [
      "a name with another postcode",
      { name: "Jane Smith", addressPostcode: "SW1A 1AA" },
      { name: "Jane Smith", addressPostcode: "M1 1AE" },
      { matchedOn: ["name"], exact: false },
    ],
    [
      "a name against a contact without postcode",
      { name: "Jane Smith" },
      { name: "Jane Smith", addressPostcode: "M1 1AE" },
      { matchedOn: ["name"], exact: false },
    ],
    [
      "a company name without punctuation and suffix",
      { name: "Acme Lettings Ltd.", kind: "company" },
      { name: "ACME LETTINGS LIMITED" },
      { matchedOn: ["name"], exact: false },
    ],
    [
      "a company name with plc and llp",
      { name: "Acme, Lettings PLC", kind: "company" },
      { name: "Acme Lettings LLP" },
      { matchedOn: ["name"], exact: false },
    ],
  ];
  test.each(kinds)("%s matches", async (_why, seeded, body, expected) => {
    const { ws, id } = await world([
      seeded,
      { name: "Unrelated Person", email: "other@example.com", mobile: "07700 900999", registrationNumber: "99999999" },
    ]);
    const res = await check(ws, body);
    expect(res.status).toBe(200);
    expect(res.body.totalMatched).toBe(1);
    expect(res.body.truncated).toBe(false);
    expect(res.body.candidates).toHaveLength(1);
    expect(res.body.candidates[0].contact.id).toBe(id[seeded.name]);
    expect(res.body.candidates[0]).toMatchObject(expected);
  });

  const misses: [string, SeedContact, Record<string, string>][] = [
    ["another email", { name: "A", email: "jane@example.com" }, { email: "jane2@example.com" }],
    ["dots in a non-Gmail address", { name: "A", email: "jane.doe@example.com" }, { email: "janedoe@example.com" }],
    ["a +tag on a non-Gmail address", { name: "A", email: "jane@example.com" }, { email: "jane+x@example.com" }],
    ["another mobile", { name: "A", mobile: "07700 900123" }, { mobile: "07700 900124" }],
    ["a mobile that is not a phone number, even the same text", { name: "A", mobile: "n/a" }, { mobile: "n/a" }],
    ["another registration number", { name: "A", registrationNumber: "01234567" }, { registrationNumber: "01234568" }],
    ["another name", { name: "Jane Smith" }, { name: "Jane Smyth" }],
    [
      "a postcode alone (with another name)",
      { name: "Jane Smith", addressPostcode: "SW1A 1AA" },
      { name: "John Smith", addressPostcode: "SW1A 1AA" },
    ],
  ];
  test.each(misses)("%s does not match", async (_why, seeded, body) => {
    const { ws } = await world([seeded]);
    const res = await check(ws, body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ candidates: [], totalMatched: 0, truncated: false });
  });

  test("a candidate matching on several fields lists each, in the contract's order", async () => {
    const { ws, id } = await world([
      {
        name: "Jane Smith",
        email: "jane@example.com",
        mobile: "07700 900123",
        addressPostcode: "SW1A 1AA",
        registrationNumber: "123",
      },
    ]);
    const res = await check(ws, {
      name: "Jane Smith",
      email: "JANE@example.com",
      mobile: "+447700900123",
      addressPostcode: "SW1A1AA",
      registrationNumber: "00000123",
    });
    expect(res.body).toEqual({
      candidates: [
        {
          contact: {
            id: id["Jane Smith"],
            kind: "person",
            name: "Jane Smith",
            email: "jane@example.com",
            mobile: "07700 900123",
            addressPostcode: "SW1A 1AA",
            archivedAt: null,
            roles: [],
          },
          matchedOn: ["email", "mobile", "registrationNumber", "name_postcode"],
          exact: true,
          conflicting: [],
        },
      ],
      totalMatched: 1,
      truncated: false,
    });
  });

  test("the candidate's contact carries exactly id, kind, name, email, mobile, addressPostcode, archivedAt and roles", async () => {
    const { ws } = await world([
      { name: "Roles Co", kind: "company", email: "r@example.com", roles: ["landlord", "supplier"] },
    ]);
    const res = await check(ws, { email: "r@example.com" });
    expect(Object.keys(res.body.candidates[0].contact).sort()).toEqual([
      "addressPostcode",
      "archivedAt",
      "email",
      "id",
      "kind",
      "mobile",
      "name",
      "roles",
    ]);
    expect(res.body.candidates[0].contact.roles).toEqual(["landlord", "supplier"]);
    expect(Object.keys(res.body.candidates[0]).sort()).toEqual(["conflicting", "contact", "exact", "matchedOn"]);
  });

  test("a company created through POST /companies is found by its normalised fields", async () => {
    const ws = await h.workspace();
    const made = await h.request("POST", "/companies", {
      key: ws.key,
      body: {
        name: "Bright Homes Limited",
        email: "Bright.Homes@gmail.com",
        mobile: "07700 900555",
        addressPostcode: "ls14ap",
        registrationNumber: "765432",
      },
    });
    const res = await check(ws, {
      name: "bright homes",
      addressPostcode: "LS1 4AP",
      email: "brighthomes+x@googlemail.com",
      mobile: "+44 7700 900555",
      registrationNumber: "00765432",
    });
    expect(res.body.candidates).toHaveLength(1);
    expect(res.body.candidates[0]).toMatchObject({
      contact: { id: made.body.id, kind: "company", addressPostcode: "LS1 4AP" },
      matchedOn: ["email", "mobile", "registrationNumber", "name_postcode"],
      exact: true,
      conflicting: [],
    });
  });
});

describe("conflicting fields", () => {
  test("lists each request field the candidate holds with another normalised value", async () => {
    const { ws } = await world([
      {
        name: "Jane Smith",
        email: "jane@example.com",
        mobile: "07700 900123",
        addressPostcode: "SW1A 1AA",
        registrationNumber: "11111111",
      },
    ]);
    const res = await check(ws, {
      name: "Janet Smith",
      email: "jane@example.com",
      mobile: "07700 900999",
      addressPostcode: "M1 1AE",
      registrationNumber: "22222222",
    });
    expect(res.body.candidates[0]).toMatchObject({
      matchedOn: ["email"],
      exact: true,
      conflicting: ["name", "mobile", "addressPostcode", "registrationNumber"],
    });
  });

  test("an email differing from the candidate's is a conflict", async () => {
    const { ws } = await world([{ name: "Jane Smith", email: "jane@example.com" }]);
    const res = await check(ws, { name: "Jane Smith", email: "j.smith@example.com" });
    expect(res.body.candidates[0]).toMatchObject({ matchedOn: ["name"], exact: false, conflicting: ["email"] });
  });

  test("values equal once normalised, fields the candidate leaves empty and fields not sent are not conflicts", async () => {
    const { ws } = await world([
      { name: "Acme Ltd", kind: "company", email: "Office@Acme.example", addressPostcode: "sw1a1aa" },
    ]);
    const res = await check(ws, {
      name: "ACME LIMITED",
      email: "office@acme.example",
      addressPostcode: "SW1A 1AA",
      mobile: "07700 900123",
      registrationNumber: "1",
    });
    expect(res.body.candidates[0]).toMatchObject({
      matchedOn: ["email", "name_postcode"],
      exact: true,
      conflicting: [],
    });
  });

  test("a Gmail variant of the same mailbox is a match that is neither exact nor a conflict", async () => {
    const { ws } = await world([{ name: "Jane", email: "jane.doe@gmail.com" }]);
    const res = await check(ws, { email: "janedoe+work@gmail.com" });
    expect(res.body.candidates[0]).toMatchObject({ matchedOn: ["email"], exact: false, conflicting: [] });
  });
});

describe("order and truncation", () => {
  test("exact candidates come first, then those with more matchedOn entries, then by name, then by id", async () => {
    const { ws } = await world([
      { id: "c-name-b", name: "Pat Lee", email: "b@example.com" },
      { id: "c-name-a", name: "pat lee", email: "a@example.com" },
      { id: "c-name-a2", name: "Pat  Lee." },
      { id: "c-name-pc", name: "Pat Lee", addressPostcode: "M1 1AE" },
      { id: "c-gmail", name: "Zed", email: "p.lee@gmail.com" },
      { id: "c-gmail-name", name: "Pat Lee", email: "plee+x@gmail.com", addressPostcode: "M1 1AE" },
      { id: "c-mobile", name: "Zoe", mobile: "07700 900123" },
      { id: "c-mobile-email", name: "Yan", mobile: "07700 900123", email: "plee@gmail.com" },
    ]);
    const res = await check(ws, {
      name: "Pat Lee",
      email: "plee@gmail.com",
      mobile: "07700900123",
      addressPostcode: "M1 1AE",
    });
    expect(res.body.candidates.map((c: any) => c.contact.id)).toEqual([
      "c-mobile-email", // exact, 2 entries
      "c-mobile", // exact, 1 entry
      "c-gmail-name", // 2 entries (email variant, name_postcode)
      "c-name-a2", // 1 entry each from here, by name: "Pat  Lee." (two spaces) sorts first
      "c-name-b", // "Pat Lee" and "pat lee" tie case-insensitively, then "Pat Lee" sorts first, then by id
      "c-name-pc",
      "c-name-a",
      "c-gmail", // "Zed"
    ]);
  });

  test("ties on exactness, entries and name are broken by id", async () => {
    const { ws } = await world([
      { id: "t-3", name: "Same Name" },
      { id: "t-1", name: "Same Name" },
      { id: "t-2", name: "Same Name" },
    ]);
    const res = await check(ws, { name: "same name" });
    expect(res.body.candidates.map((c: any) => c.contact.id)).toEqual(["t-1", "t-2", "t-3"]);
  });

  test("more than 20 matches answer the first 20 with totalMatched counting all and truncated true", async () => {
    const contacts: SeedContact[] = Array.from({ length: 25 }, (_, i) => ({
      id: `m-${String(i).padStart(2, "0")}`,
      name: "Common Name",
    }));
    contacts.push({ id: "m-exact", name: "Someone Else", email: "common@example.com" });
    const { ws } = await world(contacts);
    const res = await check(ws, { name: "Common Name", email: "common@example.com" });
    expect(res.body.totalMatched).toBe(26);
    expect(res.body.truncated).toBe(true);
    expect(res.body.candidates).toHaveLength(20);
    expect(res.body.candidates.map((c: any) => c.contact.id)).toEqual([
      "m-exact",
      ...contacts.slice(0, 19).map((c) => c.id),
    ]);
  });

  test("exactly 20 matches are not truncated", async () => {
    const { ws } = await world(Array.from({ length: 20 }, () => ({ name: "Twenty" })));
    const res = await check(ws, { name: "Twenty" });
    expect(res.body).toMatchObject({ totalMatched: 20, truncated: false });
    expect(res.body.candidates).toHaveLength(20);
  });
});

describe("filters and scope", () => {
  test("archived contacts are candidates too, with their archivedAt", async () => {
    const { ws, id } = await world([
      { name: "Old Tenant", email: "old@example.com", archivedAt: "2025-06-30T12:00:00.000Z" },
    ]);
    const res = await check(ws, { email: "old@example.com" });
    expect(res.body.candidates).toHaveLength(1);
    expect(res.body.candidates[0].contact).toMatchObject({
      id: id["Old Tenant"],
      archivedAt: "2025-06-30T12:00:00.000Z",
    });
  });

  test("kind restricts candidates to persons or companies", async () => {
    const { ws } = await world([
      { id: "acme-co", name: "Acme", kind: "company", email: "acme@example.com" },
      { id: "acme-person", name: "Acme", kind: "person" },
    ]);
    const all = await check(ws, { name: "Acme", email: "acme@example.com" });
    expect(all.body.totalMatched).toBe(2);
    const companies = await check(ws, { name: "Acme", email: "acme@example.com", kind: "company" });
    expect(companies.body.candidates.map((c: any) => c.contact.id)).toEqual(["acme-co"]);
    expect(companies.body.totalMatched).toBe(1);
    const persons = await check(ws, { name: "Acme", kind: "person" });
    expect(persons.body.candidates.map((c: any) => [c.contact.id, c.contact.kind])).toEqual([
      ["acme-person", "person"],
    ]);
  });

  test("contacts of another workspace are never candidates", async () => {
    const { ws: other } = await world([
      { name: "Shared Name", email: "shared@example.com", mobile: "07700 900123", registrationNumber: "12345678" },
    ]);
    const { ws } = await world([{ name: "Mine" }]);
    const res = await check(ws, {
      name: "Shared Name",
      email: "shared@example.com",
      mobile: "07700 900123",
      registrationNumber: "12345678",
    });
    expect(res.body).toEqual({ candidates: [], totalMatched: 0, truncated: false });
    const theirs = await check(other, { email: "shared@example.com" });
    expect(theirs.body.totalMatched).toBe(1);
  });
});

describe("refusals", () => {
  const refused: [string, unknown][] = [
    ["an empty body", {}],
    ["only kind and postcode", { kind: "company", addressPostcode: "SW1A 1AA" }],
    ["only empty strings", { name: "", email: "  ", mobile: "", registrationNumber: "" }],
    ["an unknown kind", { name: "A", kind: "robot" }],
    ["an unknown field", { name: "A", phone: "07700 900123" }],
    ["a value that is not a string", { name: "A", email: 7 }],
    ["a name over 200 characters", { name: "x".repeat(201) }],
  ];
  test.each(refused)("%s is RequestInvalid", async (_why, body) => {
    const ws = await h.workspace();
    const res = await check(ws, body);
    expect(res.status).toBe(400);
    expect(res.body._tag).toBe("RequestInvalid");
    expect(res.body.issues.length).toBeGreaterThan(0);
  });

  test("a key with only contacts:read is ScopeMissing contacts:write", async () => {
    const ws = await h.workspace();
    const key = await h.key(ws, ["contacts:read"]);
    const res = await h.request("POST", path, { key, body: { name: "A" } });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ _tag: "ScopeMissing", scope: "contacts:write" });
  });
});

test("a check writes nothing: contacts, the activity log and the ledger are unchanged", async () => {
  const { ws } = await world([
    { name: "Jane Smith", email: "jane@example.com", mobile: "07700 900123", addressPostcode: "SW1A 1AA" },
    { name: "Acme Ltd", kind: "company", registrationNumber: "01234567" },
  ]);
  const before = await contactRows(db, ws.id);
  const [{ activity: activityBefore, ledger: ledgerBefore }] = await db<[{ activity: number; ledger: number }]>`
    select (select count(*)::int from activity_log) as activity, (select count(*)::int from idempotency_ledger) as ledger`;
  for (const body of [
    { name: "Jane Smith", email: "jane@example.com", mobile: "07700900123", addressPostcode: "SW1A1AA" },
    { name: "Acme", registrationNumber: "1234567", kind: "company" },
    { email: "nobody@example.com" },
  ]) {
    expect((await check(ws, body)).status).toBe(200);
  }
  expect(await contactRows(db, ws.id)).toEqual(before);
  const [after] = await db`
    select (select count(*)::int from activity_log) as activity, (select count(*)::int from idempotency_ledger) as ledger`;
  expect(after).toEqual({ activity: activityBefore, ledger: ledgerBefore });
});
