// Formula-injection guard for exported cells, and its exact inverse for imported cells.
//
// Spreadsheets run a cell starting with "=", "+", "-", "@", tab or carriage return as a formula, so the
// exporter prefixes such a cell with a single quote (which Excel and LibreOffice show as a text marker).
// To keep export → import lossless, a cell that *already* starts with quotes followed by one of those
// characters gets one more quote. The importer removes exactly one leading quote from a cell matching
// ^'+[=+\-@\t\r]. The two functions are inverses for every string, so any exported file re-imports to the
// same values; a hand-made "'+44…" cell also comes in as "+44…", which is what its author meant.

const NEEDS_GUARD = /^'*[=+\-@\t\r]/;
const GUARDED = /^'+[=+\-@\t\r]/;

export function neutraliseCell(value: string): string {
  return NEEDS_GUARD.test(value) ? `'${value}` : value;
}

export function restoreCell(value: string): string {
  return GUARDED.test(value) ? value.slice(1) : value;
}

/**
 * A cell a spreadsheet computes rather than a value typed in: "=HYPERLINK(…)", "@SUM(A1)", "+A1*2", "-B2".
 * A sign followed by a digit ("-12.50", "+44 20…") is a value, not a formula.
 */
export function looksLikeFormula(value: string): boolean {
  return /^[=@]/.test(value) || /^[+\-\u2212]\s*[A-Za-z_$(]/.test(value);
}

/** A text cell a spreadsheet would run as a formula when the file is opened again (names, references). */
export function startsLikeFormula(value: string): boolean {
  return /^[=+\-@]/.test(value);
}
