/** Normalised forms of contact fields, used for storage and for matching (the duplicate check, operations.ts). */

const ukPostcodeShape = /^(?:[A-Z]{1,2}[0-9][A-Z0-9]?|GIR)[0-9][A-Z]{2}$/;

/**
 * A UK postcode in its normal form (upper case, one space before the last three
 * characters), or null when the value is not shaped like one.
 */
export function ukPostcode(value: string | null | undefined): string | null {
  if (value == null) return null;
  const compact = value.replace(/\s+/g, "").toUpperCase();
  return ukPostcodeShape.test(compact) ? `${compact.slice(0, -3)} ${compact.slice(-3)}` : null;
}

/**
 * A UK postcode upper-cased with one space before the last three
 * characters; other text trimmed, upper-cased, spaces collapsed.
 */
export function normalisePostcode(value: string | null | undefined): string | null {
  if (value == null) return null;
  const text = value.trim().toUpperCase().replace(/\s+/g, " ");
  if (text === "") return null;
  return ukPostcode(text) ?? text;
}

/** A registration number upper-cased without spaces; an all-digit one left-padded with zeros to 8. */
export function normaliseRegistrationNumber(value: string | null | undefined): string | null {
  if (value == null) return null;
  const compact = value.replace(/\s+/g, "").toUpperCase();
  if (compact === "") return null;
  return /^\d{1,8}$/.test(compact) ? compact.padStart(8, "0") : compact;
}

/** An email lower-cased and trimmed. */
export function normaliseEmail(value: string | null | undefined): string | null {
  if (value == null) return null;
  const v = value.trim().toLowerCase();
  return v === "" ? null : v;
}

const gmailDomains = new Set(["gmail.com", "googlemail.com"]);

/**
 * The canonical form of an email for loose matching: Gmail addresses
 * without dots and +tags, on gmail.com; others as normaliseEmail.
 */
export function canonicalEmail(value: string | null | undefined): string | null {
  const email = normaliseEmail(value);
  if (!email) return null;
  const at = email.lastIndexOf("@");
  if (at < 1) return email;
  const domain = email.slice(at + 1);
  if (!gmailDomains.has(domain)) return email;
  const local = email.slice(0, at).split("+")[0]!.replace(/\./g, "");
  return local === "" ? email : `${local}@gmail.com`;
}

/**
 * A phone number in E.164 where it can tell: UK numbers (`07…`, `447…`, `0044…`, `+44 (0)…`, `+44 0…`,
 * and UK landlines alike) → `+44…`; other international numbers (`+…`, `00…`) → `+<digits>`; anything
 * else with enough digits → its digits. A trailing extension is dropped. Text that is not a phone number
 * (letters, fewer than 6 digits) → null, so it never matches.
 */
export function normaliseMobile(value: string | null | undefined): string | null {
  if (value == null) return null;
  const v = value
    .trim()
    .replace(/\s*(?:ext\.?|extension|x)\s*\d+$/i, "")
    .replace(/\(0\)/g, "")
    .replace(/[\s()./-]/g, "");
  if (!/^\+?\d{6,}$/.test(v)) return null;
  let international: string | null = null;
  if (v.startsWith("+")) international = v.slice(1);
  else if (v.startsWith("00")) international = v.slice(2);
  else if (v.startsWith("0")) return v.length === 10 || v.length === 11 ? `+44${v.slice(1)}` : v;
  else if (v.startsWith("44") && v.length >= 11 && v.length <= 13) international = v;
  if (international === null) return v;
  if (international.startsWith("44")) {
    const national = international.slice(2).replace(/^0/, "");
    if (national.length === 9 || national.length === 10) return `+44${national}`;
  }
  return `+${international}`;
}

/**
 * A name for matching: accents folded, lower-cased, punctuation and symbols removed, repeated spaces
 * collapsed, and one trailing `ltd`, `limited`, `plc` or `llp` removed.
 */
export function normaliseName(value: string | null | undefined): string | null {
  if (value == null) return null;
  const v = value
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s]/gu, "")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/ (?:ltd|limited|plc|llp)$/, "");
  return v === "" ? null : v;
}

/** The normalised columns stored with a contact. */
export interface ContactNorms {
  nameNorm: string | null;
  emailNorm: string | null;
  emailCanon: string | null;
  mobileNorm: string | null;
  postcodeNorm: string | null;
  registrationNorm: string | null;
}

/** Every normalised column of a contact, from its fields. */
export function contactNorms(c: {
  name?: string | null;
  email?: string | null;
  mobile?: string | null;
  addressPostcode?: string | null;
  registrationNumber?: string | null;
}): ContactNorms {
  return {
    nameNorm: normaliseName(c.name),
    emailNorm: normaliseEmail(c.email),
    emailCanon: canonicalEmail(c.email),
    mobileNorm: normaliseMobile(c.mobile),
    postcodeNorm: normalisePostcode(c.addressPostcode),
    registrationNorm: normaliseRegistrationNumber(c.registrationNumber),
  };
}
