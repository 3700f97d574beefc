// IBAN check digits (ISO 13616, mod 97). A pure rule: the CSV import uses it to catch account numbers
// that were mistyped or damaged by a spreadsheet; the single-payout form can use it the same way.

const IBAN_SHAPE = /^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/;

/** The IBAN without spaces and in upper case ("de89 3704…" → "DE893704…"). */
export function compactIban(text: string): string {
  return text.replace(/[\s\u00a0]/g, '').toUpperCase();
}

/** True when the text has the shape of an IBAN (country, check digits, 11-30 characters), spaces allowed. */
export function looksLikeIban(text: string): boolean {
  return IBAN_SHAPE.test(compactIban(text));
}

/** True when an IBAN-shaped text has correct check digits. */
export function hasValidIbanChecksum(text: string): boolean {
  const iban = compactIban(text);
  if (!IBAN_SHAPE.test(iban)) return false;
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const ch of rearranged) {
    const code = ch.charCodeAt(0);
    // Letters count as two digits: A = 10 … Z = 35.
    const value = code >= 65 ? String(code - 55) : ch;
    for (const digit of value) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder === 1;
}
