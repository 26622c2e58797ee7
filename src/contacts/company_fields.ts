/** The stored fields of a new company, from its creation body (POST /companies, operations.ts). */
import type { Static } from "@sinclair/typebox";
import type { CreateCompanyBody } from "./schema.ts";
import { contactNorms, normaliseRegistrationNumber, ukPostcode, type ContactNorms } from "./normalise.ts";

/** A company's columns as they are written, with its normalised matching columns. */
export interface CompanyFields {
  name: string;
  email: string | null;
  mobile: string | null;
  addressLine1: string | null;
  addressLine2: string | null;
  addressTown: string | null;
  addressPostcode: string | null;
  overseas: boolean;
  roles: string[];
  registrationNumber: string | null;
  registrationJurisdiction: string | null;
  website: string | null;
  notes: string | null;
  norms: ContactNorms;
}

/** Trimmed text; empty or only spaces → null. */
export function optionalText(value: string | null | undefined): string | null {
  const v = value?.trim();
  return v ? v : null;
}

/** Trims every text, stores a UK postcode and the registration number normalised, and derives the matching columns. */
export function companyFields(body: Static<typeof CreateCompanyBody>): CompanyFields {
  const postcode = optionalText(body.addressPostcode);
  const fields = {
    name: body.name.trim(),
    email: optionalText(body.email),
    mobile: optionalText(body.mobile),
    addressLine1: optionalText(body.addressLine1),
    addressLine2: optionalText(body.addressLine2),
    addressTown: optionalText(body.addressTown),
    addressPostcode: postcode === null ? null : (ukPostcode(postcode) ?? postcode),
    overseas: body.overseas ?? false,
    roles: [...(body.roles ?? [])],
    registrationNumber: normaliseRegistrationNumber(body.registrationNumber),
    registrationJurisdiction: optionalText(body.registrationJurisdiction),
    website: optionalText(body.website),
    notes: optionalText(body.notes),
  };
  return { ...fields, norms: contactNorms(fields) };
}
