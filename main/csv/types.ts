// Shapes shared by the CSV importer, its callers (engine, IPC, CLI) and the exporter.
import type { PayoutDraft } from '../domain/payout';
import { CodedError } from '../domain/coded-error';
import type { LikePayout, LikePayoutKey, LikePayoutSkip } from '../journal/port';

/** What the journal can tell the importer (implemented by main/journal). */
/** What the import asks the journal; answered now (a single desk's SQLite) or later (the team database). */
export interface CsvJournalLookup {
  /** The subset of `ids` that the journal already holds. */
  existingPayoutIds(ids: string[]): Set<string> | Promise<Set<string>>;
  /** True when a batch file with this SHA-256 (hex, lower case) was submitted before. */
  batchFileSubmitted(sha256: string): boolean | Promise<boolean>;
  /** Account numbers used in earlier payouts by a beneficiary with the same name or the same e-mail address. */
  knownBeneficiaryAccounts(
    keys: { accountName: string; emailAddress: string }[],
  ): KnownAccount[] | Promise<KnownAccount[]>;
  /** For each key, the earliest payout since `since` (ms) to that account with the same amount and currency that paid or may still pay, not ruled out by `skip`. */
  earliestLikePayouts?(keys: LikePayoutKey[], since: number, skip?: LikePayoutSkip): LikePayout[] | Promise<LikePayout[]>;
}

export interface KnownAccount {
  accountName: string;
  emailAddress: string;
  accountNumber: string;
}

export interface CsvOperator {
  code: string;
  paymentMethodCode?: string;
  currencyCodes?: string[];
}

export interface CsvImportOptions {
  fileName?: string;
  /** Currency code → decimals from GET /currencies; when given, other currencies are refused. */
  currencies?: ReadonlyMap<string, number>;
  /** Operators from GET /payment-operators; when given, each row's operator must be known for its currency and method. */
  operators?: readonly CsvOperator[];
  /** The profile's per-row maximum, in minor units of the row's currency. */
  maxAmountMinor?: number;
  /** Force the decimal separator: true = comma, false = dot. Default: comma when the delimiter is ";", else dot. */
  decimalComma?: boolean;
  journal?: CsvJournalLookup;
  /** Days back a row like an earlier payout (account, amount, currency) is flagged POSSIBLE_DUPLICATE; 0: never. Default 30. */
  repeatWindowDays?: number;
}

export const CSV_ENCODINGS = ['utf-8', 'utf-8-bom', 'utf-16le', 'utf-16be', 'windows-1252'] as const;
export type CsvEncoding = (typeof CSV_ENCODINGS)[number];

export const CSV_DELIMITERS = [',', ';', '\t'] as const;
export type CsvDelimiter = (typeof CSV_DELIMITERS)[number];

/**
 * One problem found in the file. `rowNumber` is the row a spreadsheet shows (header = 1, blank lines count,
 * a quoted value spanning lines is one row); 0 means the file as a whole. `column` is the header text as
 * written in the file, or null when the issue is not about one cell.
 */
export interface CsvIssue {
  rowNumber: number;
  column: string | null;
  code: CsvIssueCode;
  message: string;
}

export const CSV_ISSUE_CODES = [
  'REQUIRED',
  'RAGGED_ROW',
  'AMOUNT_FORMAT',
  'AMOUNT_EXPONENT',
  'AMOUNT_NEGATIVE',
  'AMOUNT_FORMULA',
  'AMOUNT_ZERO',
  'AMOUNT_PRECISION',
  'AMOUNT_AMBIGUOUS',
  'AMOUNT_DECIMAL_SEPARATOR',
  'AMOUNT_RANGE',
  'AMOUNT_OVER_LIMIT',
  'CURRENCY_FORMAT',
  'CURRENCY_UNKNOWN',
  'EMAIL_FORMAT',
  'URL_FORMAT',
  'ID_FORMAT',
  'ID_DUPLICATE',
  'ID_EXISTS',
  /** pain.001: a transaction's EndToEndId was imported before, in an earlier run. */
  'END_TO_END_ID_EXISTS',
  'OPERATOR_UNKNOWN',
  'OPERATOR_CURRENCY',
  'OPERATOR_METHOD',
  'ACCOUNT_NUMBER_EXPONENT',
  'ACCOUNT_NUMBER_DIGITS_LOST',
  'ACCOUNT_NUMBER_NUMERIC',
  'ACCOUNT_NUMBER_IBAN',
  /** The file (rowNumber 0): a release date (execute_on, ReqdExctnDt) that is no date, or rows asking for different ones. */
  'EXECUTE_ON_FORMAT',
  'EXECUTE_ON_MIXED',
  // warnings
  'DUPLICATE_ROW',
  'FILE_ALREADY_SUBMITTED',
  'BANK_DETAILS_CHANGED',
  'POSSIBLE_DUPLICATE',
  'NAME_LOOKS_LIKE_FORMULA',
] as const;
export type CsvIssueCode = (typeof CSV_ISSUE_CODES)[number];

export interface CsvValidRow {
  rowNumber: number;
  payout: PayoutDraft;
  /** True when the file had no idPayout for this row and the importer generated one. */
  idGenerated: boolean;
  /** Cells of columns the importer does not know, keyed by their header text; kept for the results export. */
  extra: Record<string, string>;
}

export interface CsvCurrencyTotal {
  currencyCode: string;
  amountMinor: number;
  count: number;
}

/**
 * What every batch file reader yields: this CSV importer, and the ISO 20022 pain.001 reader (main/iso20022). All
 * that comes after reading (the review, warnings, approvals, the journal, sending) takes this shape.
 */
export interface PayoutFileImport {
  fileName: string;
  /** SHA-256 of the raw bytes, lower-case hex. */
  sha256: string;
  rows: CsvValidRow[];
  errors: CsvIssue[];
  warnings: CsvIssue[];
  /** Totals of the valid rows per currency, exact in minor units, sorted by currency code. */
  totals: CsvCurrencyTotal[];
  /** rows = non-blank data rows; valid + invalid = rows; warnings = number of warning issues. */
  counts: { rows: number; valid: number; invalid: number; warnings: number };
  /** Header texts of columns the importer does not know, in file order. */
  unknownColumns: string[];
}

export interface CsvImportResult extends PayoutFileImport {
  encoding: CsvEncoding;
  delimiter: CsvDelimiter;
  decimalSeparator: '.' | ',';
}

export const CSV_FILE_ERROR_CODES = [
  'FILE_TOO_LARGE',
  'TOO_MANY_ROWS',
  'EMPTY_FILE',
  'NO_ROWS',
  'BINARY_FILE',
  'ENCODING',
  'MISSING_COLUMNS',
  'DUPLICATE_COLUMN',
  'UNTERMINATED_QUOTE',
  'MALFORMED_QUOTE',
  'READ_FAILED',
] as const;
export type CsvFileErrorCode = (typeof CSV_FILE_ERROR_CODES)[number];

/** The whole file cannot be imported. Row problems are never thrown: they are CsvIssues in the result. */
export class CsvFileError extends CodedError<CsvFileErrorCode> {
  constructor(
    code: CsvFileErrorCode,
    message: string,
    readonly rowNumber: number | null = null,
    readonly columns: readonly string[] = [],
  ) {
    super(code, message);
  }
}

export const MAX_CSV_ROWS = 100_000;
export { MAX_CSV_BYTES } from '../../contract/limits';
