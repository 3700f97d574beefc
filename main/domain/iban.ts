// IBAN check digits (ISO 13616, mod 97). A pure rule: the CSV import uses it to catch account numbers
// that were mistyped or damaged by a spreadsheet; the single-payout form can use it the same way.

const IBAN_SHAPE = /^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/;
const NEEDS_COMPACTING = /[\s\u00a0a-z]/;

/** The IBAN without spaces and in upper case ("de89 3704…" → "DE893704…"). */
export function compactIban(text: string): string {
  return NEEDS_COMPACTING.test(text) ? text.replace(/[\s\u00a0]/g, '').toUpperCase() : text;
}

/** True when the text has the shape of an IBAN (country, check digits, 11-30 characters), spaces allowed. */
export function looksLikeIban(text: string): boolean {
  return IBAN_SHAPE.test(compactIban(text));
}

/** True when an IBAN-shaped text has correct check digits. */
export function hasValidIbanChecksum(text: string): boolean {
  const iban = compactIban(text);
  if (!IBAN_SHAPE.test(iban)) return false;
  // Move the first four characters to the end; letters count as two digits (A = 10 … Z = 35).
  let remainder = 0;
  for (let i = 0; i < iban.length; i++) {
    const code = iban.charCodeAt((i + 4) % iban.length);
    remainder = code >= 65 ? (remainder * 100 + code - 55) % 97 : (remainder * 10 + code - 48) % 97;
  }
  return remainder === 1;
}
