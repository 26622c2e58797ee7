/** The stored fields of a contact, the same for every writer (POST /companies, the workspace import). */
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

/** A postcode as stored: trimmed; a UK postcode upper-cased with one space before the last three characters. */
export function storedPostcode(value: string | null | undefined): string | null {
  const v = optionalText(value);
  return v === null ? null : (ukPostcode(v) ?? v);
}

/** A contact's fields as written by any writer (POST /companies, the workspace import). */
export interface ContactInput {
  name: string;
  email?: string | null;
  mobile?: string | null;
  addressLine1?: string | null;
  addressLine2?: string | null;
  addressTown?: string | null;
  addressPostcode?: string | null;
  overseas?: boolean | null;
  roles?: readonly string[] | null;
  registrationNumber?: string | null;
  registrationJurisdiction?: string | null;
  website?: string | null;
  notes?: string | null;
}

/**
 * The one row builder of a contact: trims every text, stores a UK postcode and the registration number
 * normalised, and derives the matching columns. Both writers call it, so one input is one stored row.
 */
export function contactFields(input: ContactInput): CompanyFields {
  const fields = {
    name: input.name.trim(),
    email: optionalText(input.email),
    mobile: optionalText(input.mobile),
    addressLine1: optionalText(input.addressLine1),
    addressLine2: optionalText(input.addressLine2),
    addressTown: optionalText(input.addressTown),
    addressPostcode: storedPostcode(input.addressPostcode),
    overseas: input.overseas ?? false,
    roles: [...(input.roles ?? [])],
    registrationNumber: normaliseRegistrationNumber(input.registrationNumber),
    registrationJurisdiction: optionalText(input.registrationJurisdiction),
    website: optionalText(input.website),
    notes: optionalText(input.notes),
  };
  return { ...fields, norms: contactNorms(fields) };
}

/** A new company's fields, from its creation body (contactFields). */
export function companyFields(body: Static<typeof CreateCompanyBody>): CompanyFields {
  return contactFields(body);
}
