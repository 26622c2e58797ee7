/** Normalised forms of contact fields, used for storage and for matching (CONTRACT.md §4.3, §4.4). */

/** A UK postcode upper-cased with one space before the last three characters; other text trimmed, upper-cased. */
export function normalisePostcode(value: string | null | undefined): string | null {
  if (value == null) return null;
  const compact = value.replace(/\s+/g, "").toUpperCase();
  if (compact === "") return null;
  if (/^[A-Z]{1,2}[0-9][A-Z0-9]?[0-9][A-Z]{2}$/.test(compact)) return `${compact.slice(0, -3)} ${compact.slice(-3)}`;
  return value.trim().toUpperCase().replace(/\s+/g, " ");
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

/** The canonical form of an email for loose matching: Gmail addresses without dots and +tags, on gmail.com. */
export function canonicalEmail(value: string | null | undefined): string | null {
  const email = normaliseEmail(value);
  if (!email) return null;
  const at = email.lastIndexOf("@");
  if (at < 1) return email;
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  if (!gmailDomains.has(domain)) return email;
  return `${local.split("+")[0]!.replace(/\./g, "")}@gmail.com`;
}

/** A UK mobile in E.164 (`07…`, `447…`, `0044…`, `+44 (0)…` → `+447…`); other numbers digits-only with their +. */
export function normaliseMobile(value: string | null | undefined): string | null {
  if (value == null) return null;
  let v = value.trim().replace(/\(0\)/g, "").replace(/[\s().-]/g, "");
  if (v === "") return null;
  if (v.startsWith("+")) v = `00${v.slice(1)}`;
  if (v.startsWith("0044")) v = `0${v.slice(4)}`;
  else if (v.startsWith("44") && v.length === 12) v = `0${v.slice(2)}`;
  if (/^07\d{9}$/.test(v)) return `+44${v.slice(1)}`;
  if (v.startsWith("00")) return `+${v.slice(2)}`;
  return v;
}

/** A name lower-cased, without punctuation, repeated spaces or a trailing ltd/limited/plc/llp. */
export function normaliseName(value: string | null | undefined): string | null {
  if (value == null) return null;
  let v = value.toLowerCase().replace(/[^\p{L}\p{N}\s]/gu, " ").replace(/\s+/g, " ").trim();
  v = v.replace(/\s+(ltd|limited|plc|llp)$/, "").trim();
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
export function contactNorms(c: { name?: string | null; email?: string | null; mobile?: string | null; addressPostcode?: string | null; registrationNumber?: string | null }): ContactNorms {
  return {
    nameNorm: normaliseName(c.name),
    emailNorm: normaliseEmail(c.email),
    emailCanon: canonicalEmail(c.email),
    mobileNorm: normaliseMobile(c.mobile),
    postcodeNorm: normalisePostcode(c.addressPostcode),
    registrationNorm: normaliseRegistrationNumber(c.registrationNumber),
  };
}
