/**
 * One input, one stored row: a company created through POST /companies and the same company imported store
 * byte-identical contact rows (issue 32). Repairs: repairs_test.ts ("... store identical rows").
 */
import { describe, expect, test } from "bun:test";
import { harness } from "../support/harness.ts";
import { importWorkspace } from "../../src/workspace_import/import.ts";

const h = await harness();
const db = h.database.db;

/** Awkward values: spaces around and inside, lower case, non-UK postcodes, short all-digit numbers. */
const companies = [
  {
    name: "  Scottish Lettings Ltd ",
    email: "Office@Scot.EXAMPLE",
    mobile: " +44 (0)7700 900123 ",
    addressLine1: " 1 High Street ",
    addressLine2: "   ",
    addressTown: " Edinburgh",
    addressPostcode: " eh1  1yz ",
    roles: ["landlord", "supplier"],
    registrationNumber: "sc 123456",
    registrationJurisdiction: " Scotland ",
    website: " https://scot.example ",
    notes: " Prefers email. ",
  },
  { name: "Société Parisienne", addressPostcode: "75008 paris", overseas: true, registrationNumber: " 1234 567 " },
  { name: "Zoë Ångström – 🏠", addressPostcode: "", registrationNumber: "   ", mobile: "0044 20 7946 0000" },
];

/** The stored row of a contact as text, without what must differ (id, workspace, times, revision). */
async function storedRow(workspaceId: string, name: string) {
  const [row] = await db<{ row: string }[]>`
    select (to_jsonb(c) - 'id' - 'workspace_id' - 'created_at' - 'updated_at' - 'revision')::text as row
    from contacts c where workspace_id = ${workspaceId} and name = ${name.trim()}`;
  return row?.row;
}

describe("the import and POST /companies store one row for one input", () => {
  test("every awkward company is stored byte for byte the same both ways", async () => {
    const api = await h.workspace();
    const imported = await h.workspace();
    for (const body of companies) {
      const res = await h.request("POST", "/companies", { key: api.key, body });
      expect([res.status, res.body]).toEqual([201, expect.anything()]);
    }
    await importWorkspace(db, imported.slug, {
      contacts: companies.map((c, i) => ({ id: `c-${i}`, kind: "company", ...c })),
    });
    for (const c of companies) {
      const viaApi = await storedRow(api.id, c.name);
      expect(viaApi).toBeString();
      expect(await storedRow(imported.id, c.name)).toBe(viaApi!);
    }
    // The API's normalisation is the one both follow.
    expect(JSON.parse((await storedRow(imported.id, companies[0]!.name))!)).toMatchObject({
      registration_number: "SC123456",
      address_postcode: "EH1 1YZ",
      address_line2: null,
      email: "Office@Scot.EXAMPLE",
    });
    expect(JSON.parse((await storedRow(imported.id, companies[1]!.name))!)).toMatchObject({
      registration_number: "01234567",
      address_postcode: "75008 paris",
    });
  });
});
