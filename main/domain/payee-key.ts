// The key two payee names (or e-mail addresses) are compared by: the same person whatever the case, the
// spacing or the Unicode form. SQLite's lower() folds ASCII only, so "ÉLODIE" and "élodie" (or an "é" typed
// as one code point and one pasted as "e" + combining accent) would look like two people to it.

/** Compatibility-normalised, case-folded (ß → ss, É → é), spaces collapsed; '' for a blank text. */
export function payeeKey(text: string): string {
  // Most names are plain ASCII: lower case is the whole fold there (and 100,000-row files stay fast).
  if (ASCII.test(text)) return text.toLowerCase().replace(/\s+/g, ' ').trim();
  // Upper then lower case folds more than lower case alone ("ß" → "SS" → "ss", "ﬁ" → "FI" → "fi");
  // NFC at the end recombines what the case mapping split ("İ" → "i̇").
  return text.normalize('NFKC').toUpperCase().toLowerCase().normalize('NFC').replace(/\s+/gu, ' ').trim();
}

// Printable ASCII and tab: control characters never reach here from a CSV cell worth folding.
const ASCII = /^[\t\x20-\x7e]*$/;
