// Header row → which column holds which payout field. Names match case-insensitively, ignoring spaces and
// punctuation, with the aliases finance staff actually write ("IBAN", "Beneficiary name", "E-mail").
import { restoreCell } from './formula';
import { CsvFileError, type CsvDelimiter } from './types';

export const PAYOUT_CSV_FIELDS = [
  'idPayout',
  'amount',
  'currencyCode',
  'accountName',
  'accountNumber',
  'paymentOperatorCode',
  'paymentMethodCode',
  'emailAddress',
  'callbackUrl',
  'reference',
] as const;
export type PayoutCsvField = (typeof PAYOUT_CSV_FIELDS)[number];

export const REQUIRED_CSV_FIELDS: readonly PayoutCsvField[] = [
  'amount',
  'currencyCode',
  'accountName',
  'accountNumber',
  'paymentOperatorCode',
  'emailAddress',
];

// Compared after normaliseHeader(); the canonical name comes first and is what the template and export write.
const ALIASES: Readonly<Record<PayoutCsvField, readonly string[]>> = {
  idPayout: ['idpayout', 'payoutid', 'id', 'paymentid', 'idpayment'],
  amount: ['amount', 'payoutamount', 'amt', 'sum', 'betrag', 'montant', 'importe', 'bedrag'],
  currencyCode: ['currencycode', 'currency', 'ccy', 'currencyiso', 'wahrung', 'devise', 'moneda'],
  accountName: [
    'accountname', 'beneficiaryname', 'beneficiary', 'name', 'payee', 'payeename', 'recipient', 'recipientname',
    'accountholder', 'accountholdername',
  ],
  accountNumber: [
    'accountnumber', 'iban', 'account', 'accountno', 'accountnr', 'bankaccount', 'bankaccountnumber',
    'beneficiaryaccount', 'beneficiaryiban',
  ],
  paymentOperatorCode: ['paymentoperatorcode', 'operatorcode', 'operator', 'paymentoperator', 'bankcode', 'bank'],
  paymentMethodCode: ['paymentmethodcode', 'paymentmethod', 'method', 'methodcode'],
  emailAddress: ['emailaddress', 'email', 'mail', 'beneficiaryemail'],
  callbackUrl: ['callbackurl', 'callback', 'webhookurl'],
  reference: ['reference', 'memo', 'ref', 'paymentreference', 'description', 'note', 'notes', 'verwendungszweck'],
};

const FIELD_BY_ALIAS: ReadonlyMap<string, PayoutCsvField> = new Map(
  PAYOUT_CSV_FIELDS.flatMap((field) => ALIASES[field].map((alias) => [alias, field] as const)),
);

export function normaliseHeader(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '');
}

/** The payout field a header names, if any. */
export function fieldForHeader(text: string): PayoutCsvField | undefined {
  return FIELD_BY_ALIAS.get(normaliseHeader(text));
}

export interface CsvColumn {
  index: number;
  /** Header text as written (trimmed), or "column F" for a blank header cell. */
  name: string;
  field: PayoutCsvField | null;
}

export interface HeaderMap {
  columns: CsvColumn[];
  fieldIndex: Partial<Record<PayoutCsvField, number>>;
  unknownColumns: string[];
}

/** Spreadsheet letters for a 0-based column index: 0 → A, 26 → AA. */
export function columnLetter(index: number): string {
  let n = index + 1;
  let letters = '';
  while (n > 0) {
    const rem = (n - 1) % 26;
    letters = String.fromCharCode(65 + rem) + letters;
    n = Math.floor((n - 1) / 26);
  }
  return letters;
}

function delimiterName(delimiter: CsvDelimiter): string {
  return delimiter === '\t' ? 'tab' : `"${delimiter}"`;
}

/** Maps the header row; throws one CsvFileError listing every missing required column. */
export function mapHeader(cells: readonly string[], delimiter: CsvDelimiter, headerRow = 1): HeaderMap {
  // Trailing blank header cells come from trailing delimiters; they are not columns.
  let width = cells.length;
  while (width > 0 && !(cells[width - 1] ?? '').trim()) width--;

  const columns: CsvColumn[] = [];
  const fieldIndex: Partial<Record<PayoutCsvField, number>> = {};
  const unknownColumns: string[] = [];
  const usedNames = new Set<string>();
  for (let index = 0; index < width; index++) {
    const text = restoreCell(cells[index] ?? '').trim();
    const field = text ? fieldForHeader(text) ?? null : null;
    let name = text || `column ${columnLetter(index)}`;
    if (field) {
      const earlier = fieldIndex[field];
      if (earlier !== undefined) {
        const first = columns[earlier]?.name ?? '';
        throw new CsvFileError(
          'DUPLICATE_COLUMN',
          `Columns "${first}" and "${name}" both hold ${field}. Keep one of them (or rename the other) and import again.`,
          headerRow,
          [first, name],
        );
      }
      fieldIndex[field] = index;
    } else {
      for (let n = 2; usedNames.has(name.toLowerCase()); n++) name = `${text || `column ${columnLetter(index)}`} (${n})`;
      unknownColumns.push(name);
    }
    usedNames.add(name.toLowerCase());
    columns.push({ index, name, field });
  }

  const missing = REQUIRED_CSV_FIELDS.filter((field) => fieldIndex[field] === undefined);
  if (missing.length > 0) {
    const accepted = missing.map((field) => `${field} (also: ${ALIASES[field].slice(1, 4).join(', ')})`).join('; ');
    const found = columns.map((c) => `"${c.name}"`).join(', ') || 'none';
    const hint =
      columns.length <= 1
        ? ` The header was read with ${delimiterName(delimiter)} as the separator; if the file uses another separator, save it again as "CSV UTF-8".`
        : '';
    throw new CsvFileError(
      'MISSING_COLUMNS',
      `The header row (row ${headerRow}) lacks required column${missing.length > 1 ? 's' : ''}: ${accepted}. Columns found: ${found}.` +
        `${hint} Download the template to see the expected header.`,
      headerRow,
      missing,
    );
  }
  return { columns, fieldIndex, unknownColumns };
}
