// Maps a CSV header (as written in the file), or a pain.001 element path, to the validation table's column, so
// each error is shown in the cell it is about. Header spellings vary; only the normalised letters are compared.
export const TABLE_FIELDS = ['amount', 'currencyCode', 'accountName', 'accountNumber', 'paymentOperatorCode', 'emailAddress'] as const;
export type TableField = (typeof TABLE_FIELDS)[number];

const HINTS: readonly [TableField, RegExp][] = [
  // A pain.001's "columns" are element paths (CdtTrfTxInf/Amt/InstdAmt/@Ccy…), matched first by how they end.
  ['currencyCode', /instdamtccy$/],
  ['amount', /instdamt$/],
  ['accountName', /cdtrnm$/],
  ['accountNumber', /cdtracctid$/],
  ['currencyCode', /^(currency|ccy)/],
  ['amount', /^(amount|amt|sum)/],
  ['accountNumber', /(iban|accountnumber|accountno|accountnr|^account$|bankaccount)/],
  ['accountName', /(name|beneficiary|payee|recipient|holder)/],
  ['paymentOperatorCode', /(operator|bank)/],
  ['emailAddress', /mail/],
];

export function tableFieldOf(column: string | null): TableField | null {
  if (!column) return null;
  const key = column.toLowerCase().replace(/[^a-z0-9]/g, '');
  for (const [field, re] of HINTS) if (re.test(key)) return field;
  return null;
}
