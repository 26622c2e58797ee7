/** The normalisations of POST /companies and the duplicate check, one table each. */
import { describe, expect, test } from "bun:test";
import {
  canonicalEmail,
  contactNorms,
  normaliseEmail,
  normaliseMobile,
  normaliseName,
  normalisePostcode,
  normaliseRegistrationNumber,
  ukPostcode,
} from "../../src/contacts/normalise.ts";

type Row = [input: string | null | undefined, expected: string | null];

function table(name: string, fn: (v: string | null | undefined) => string | null, rows: Row[]) {
  describe(name, () => {
    test.each(rows)("%p → %p", (input, expected) => {
      expect(fn(input)).toBe(expected);
    });
  });
}

table("normaliseEmail lower-cases and trims", normaliseEmail, [
  ["Jane.Doe@Example.COM", "jane.doe@example.com"],
  ["  jane@example.com\t", "jane@example.com"],
  ["jane+tag@example.com", "jane+tag@example.com"],
  ["J.Doe@Gmail.com", "j.doe@gmail.com"],
  ["", null],
  ["   ", null],
  [null, null],
  [undefined, null],
]);

table("canonicalEmail removes dots and +tags of Gmail local parts only", canonicalEmail, [
  ["J.Doe@Gmail.com", "jdoe@gmail.com"],
  ["j.d.o.e+newsletter@gmail.com", "jdoe@gmail.com"],
  ["jdoe+a+b@googlemail.com", "jdoe@gmail.com"],
  ["JDoe@GoogleMail.com", "jdoe@gmail.com"],
  ["j.doe+tag@example.com", "j.doe+tag@example.com"],
  ["j.doe@gmail.co.uk", "j.doe@gmail.co.uk"],
  ["+only@gmail.com", "+only@gmail.com"],
  ["not-an-email", "not-an-email"],
  ["", null],
  [null, null],
]);

table("normaliseMobile puts UK numbers in E.164", normaliseMobile, [
  ["07700 900123", "+447700900123"],
  ["07700-900-123", "+447700900123"],
  ["(07700) 900123", "+447700900123"],
  ["447700900123", "+447700900123"],
  ["44 7700 900123", "+447700900123"],
  ["+447700900123", "+447700900123"],
  ["+44 7700 900123", "+447700900123"],
  ["+44 (0)7700 900123", "+447700900123"],
  ["+44 (0) 7700 900 123", "+447700900123"],
  ["+44 07700 900123", "+447700900123"],
  ["0044 7700 900123", "+447700900123"],
  ["0044 (0)7700 900123", "+447700900123"],
  ["00447700900123", "+447700900123"],
  ["07700 900123 ext 12", "+447700900123"],
  ["020 7946 0000", "+442079460000"],
  ["+44 (0)20 7946 0000", "+442079460000"],
  ["+33 6 12 34 56 78", "+33612345678"],
  ["0033 6 12 34 56 78", "+33612345678"],
  ["+1 (212) 555-0100", "+12125550100"],
  ["7700 900123", "7700900123"],
  ["n/a", null],
  ["999", null],
  ["call the office", null],
  ["", null],
  [null, null],
]);

table("normalisePostcode puts UK postcodes in upper case with one space before the inward code", normalisePostcode, [
  ["sw1a1aa", "SW1A 1AA"],
  ["SW1A 1AA", "SW1A 1AA"],
  [" sw1a   1aa ", "SW1A 1AA"],
  ["m11ae", "M1 1AE"],
  ["B33 8TH", "B33 8TH"],
  ["cr26xh", "CR2 6XH"],
  ["dn551pt", "DN55 1PT"],
  ["W1A0AX", "W1A 0AX"],
  ["gir0aa", "GIR 0AA"],
  ["75008", "75008"],
  [" d02  x285 ", "D02 X285"],
  ["1012 ab", "1012 AB"],
  ["", null],
  ["   ", null],
  [null, null],
]);

table("ukPostcode answers only UK-shaped postcodes", ukPostcode, [
  ["ec1a1bb", "EC1A 1BB"],
  ["EC1A  1BB", "EC1A 1BB"],
  ["75008", null],
  ["D02 X285", null],
  ["", null],
  [null, null],
]);

table(
  "normaliseRegistrationNumber upper-cases, removes spaces and pads all-digit numbers to 8",
  normaliseRegistrationNumber,
  [
    ["1234567", "01234567"],
    ["123", "00000123"],
    ["12345678", "12345678"],
    ["123456789", "123456789"],
    ["01 234 567", "01234567"],
    ["sc123456", "SC123456"],
    ["SC 123 456", "SC123456"],
    ["oc301234", "OC301234"],
    ["", null],
    ["  ", null],
    [null, null],
  ],
);

table("normaliseName lower-cases and drops punctuation, extra spaces and one company suffix", normaliseName, [
  ["Acme Lettings Ltd", "acme lettings"],
  ["ACME LETTINGS LIMITED", "acme lettings"],
  ["Acme Lettings Ltd.", "acme lettings"],
  ["Acme   Lettings,  Ltd", "acme lettings"],
  ["Acme Lettings PLC", "acme lettings"],
  ["Acme Lettings L.L.P.", "acme lettings"],
  ["Acme Lettings llp", "acme lettings"],
  ["Acme Ltd Lettings", "acme ltd lettings"],
  ["Ltd", "ltd"],
  ["Smith & Sons (Builders) Ltd", "smith sons builders"],
  ["O'Brien", "obrien"],
  ["Jane  Smith", "jane smith"],
  ["Zoë Brontë", "zoe bronte"],
  ["  Jane Smith  ", "jane smith"],
  ["Multiltd", "multiltd"],
  ["!!!", null],
  ["", null],
  [null, null],
]);

test("contactNorms gives every normalised column of a contact", () => {
  expect(
    contactNorms({
      name: "Acme Ltd",
      email: " A.Cme+x@GoogleMail.com ",
      mobile: "07700 900123",
      addressPostcode: "sw1a1aa",
      registrationNumber: "1234567",
    }),
  ).toEqual({
    nameNorm: "acme",
    emailNorm: "a.cme+x@googlemail.com",
    emailCanon: "acme@gmail.com",
    mobileNorm: "+447700900123",
    postcodeNorm: "SW1A 1AA",
    registrationNorm: "01234567",
  });
  expect(contactNorms({ name: "Jane" })).toEqual({
    nameNorm: "jane",
    emailNorm: null,
    emailCanon: null,
    mobileNorm: null,
    postcodeNorm: null,
    registrationNorm: null,
  });
});
