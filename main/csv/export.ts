// CSV exports: the results of a batch (every input column plus the outcome) and the payment history.
// Every cell goes through neutraliseCell (formula-injection guard, see formula.ts). Amounts and fees are
// written as plain decimals with a dot, never negative (a payout amount is positive and a fee is a charge),
// so no number is ever turned into text by the guard; were a negative value ever passed, it would be
// neutralised like any other cell, which is the safe side. Files are comma-delimited, CRLF, UTF-8 with a BOM
// (what Excel needs to show accented names), and re-import through importPayoutCsv to the same rows.
import { stringify } from 'csv-stringify/sync';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { currencyDecimals } from '../domain/currencies';
import { formatMinor } from '../domain/money';
import type { PayoutDraft } from '../domain/payout';
import { neutraliseCell } from './formula';
import { fieldForHeader, PAYOUT_CSV_FIELDS } from './headers';

export interface CsvExportOptions {
  /** Currency decimals from GET /currencies (ISO 4217 otherwise). */
  currencies?: ReadonlyMap<string, number>;
  /** Start with a UTF-8 byte order mark; default true. */
  bom?: boolean;
}

export interface BatchResultExportRow {
  payout: PayoutDraft;
  /** The input file's unknown columns (CsvValidRow.extra). */
  extra?: Readonly<Record<string, string>>;
  status: string;
  feeMinor?: number | null;
  feeCurrencyCode?: string | null;
  processedAt?: string | null;
  failureReason?: string | null;
  /** The intent this row is an attempt of, and the attempt it retries. */
  intentId?: string | null;
  retryOf?: string | null;
}

export interface HistoryExportRow {
  kind: 'payout' | 'payin';
  id: string;
  createdAt?: string | null;
  processedAt?: string | null;
  status: string;
  amountMinor: number;
  currencyCode: string;
  feeMinor?: number | null;
  feeCurrencyCode?: string | null;
  accountName?: string | null;
  accountNumber?: string | null;
  emailAddress?: string | null;
  paymentOperatorCode?: string | null;
  paymentMethodCode?: string | null;
  reference?: string | null;
  batchId?: string | null;
  failureReason?: string | null;
  isTest?: boolean | null;
  intentId?: string | null;
  retryOf?: string | null;
}

const RESULT_COLUMNS = ['status', 'fee', 'feeCurrencyCode', 'processedAt', 'failureReason', 'intentId', 'retryOf'] as const;

export const HISTORY_COLUMNS = [
  'kind', 'id', 'createdAt', 'processedAt', 'status', 'amount', 'currencyCode', 'fee', 'feeCurrencyCode',
  'accountName', 'accountNumber', 'emailAddress', 'paymentOperatorCode', 'paymentMethodCode', 'reference',
  'batchId', 'failureReason', 'isTest', 'intentId', 'retryOf',
] as const;

// csv-stringify takes roughly 15-20 µs per row here, so 1,000 rows keep each turn around 20 ms.
const EXPORT_ROWS_PER_TURN = 1000;

/** A plain signed decimal ("-12.50"): a number to a spreadsheet or an accounting tool, never a formula. */
const SIGNED_DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * Rows as CSV text (CRLF, no BOM), every cell through the formula guard; cells of `numberColumns` that are plain
 * signed decimals pass as they are (an accounting tool reads "-12.50" as a credit, "'-12.50" as an error).
 */
export function stringifyTable(table: readonly (readonly string[])[], numberColumns: ReadonlySet<number> = new Set()): string {
  return stringify(
    table.map((record) => record.map((cell, i) => (numberColumns.has(i) && SIGNED_DECIMAL.test(cell) ? cell : neutraliseCell(cell)))),
    {
      record_delimiter: '\r\n',
      quote_record_delimiter: true,
      // Leading/trailing spaces would be trimmed by a reader; quoting keeps them.
      quoted_match: /^\s|\s$/,
    },
  );
}

function money(minor: number | null | undefined, currencyCode: string | null | undefined, options: CsvExportOptions): string {
  if (minor === null || minor === undefined) return '';
  return formatMinor(minor, currencyDecimals(currencyCode ?? '', options.currencies));
}

/** Extra column names in first-seen order, renamed when they would clash with a column the export writes. */
function extraColumns(rows: readonly BatchResultExportRow[]): { source: string; header: string }[] {
  const taken = new Set<string>([...PAYOUT_CSV_FIELDS, ...RESULT_COLUMNS].map((c) => c.toLowerCase()));
  const seen = new Set<string>();
  const columns: { source: string; header: string }[] = [];
  for (const row of rows) {
    for (const source of Object.keys(row.extra ?? {})) {
      if (seen.has(source)) continue;
      seen.add(source);
      let header = source;
      while (taken.has(header.toLowerCase()) || fieldForHeader(header)) header = `${header} (input)`;
      taken.add(header.toLowerCase());
      columns.push({ source, header });
    }
  }
  return columns;
}

function batchRecord(row: BatchResultExportRow, extras: readonly { source: string }[], options: CsvExportOptions): string[] {
  const p = row.payout;
  return [
    p.idPayout,
    money(p.amountMinor, p.currencyCode, options),
    p.currencyCode,
    p.accountName,
    p.accountNumber,
    p.paymentOperatorCode,
    p.paymentMethodCode,
    p.emailAddress,
    p.callbackUrl ?? '',
    p.reference ?? '',
    ...extras.map((e) => row.extra?.[e.source] ?? ''),
    row.status,
    money(row.feeMinor, row.feeCurrencyCode ?? p.currencyCode, options),
    row.feeMinor === null || row.feeMinor === undefined ? '' : row.feeCurrencyCode ?? p.currencyCode,
    row.processedAt ?? '',
    row.failureReason ?? '',
    row.intentId ?? '',
    row.retryOf ?? '',
  ];
}

function batchHeader(extras: readonly { header: string }[]): string[] {
  return [...PAYOUT_CSV_FIELDS, ...extras.map((e) => e.header), ...RESULT_COLUMNS];
}

function bomOf(options: CsvExportOptions): string {
  return options.bom ?? true ? '\uFEFF' : '';
}

/** Builds the CSV in slices with an event-loop turn between them, so a 100,000-row export never blocks the main process. */
async function tableInTurns<T>(header: readonly string[], rows: readonly T[], toRecord: (row: T) => string[], bom: string): Promise<string> {
  const parts = [bom + stringifyTable([header])];
  for (let i = 0; i < rows.length; i += EXPORT_ROWS_PER_TURN) {
    parts.push(stringifyTable(rows.slice(i, i + EXPORT_ROWS_PER_TURN).map(toRecord)));
    await nextTurn();
  }
  return parts.join('');
}

/** The results of a batch: every input column (known and unknown), then status, fee, processedAt and failure reason. */
export function exportBatchResultsCsv(rows: readonly BatchResultExportRow[], options: CsvExportOptions = {}): string {
  const extras = extraColumns(rows);
  return bomOf(options) + stringifyTable([batchHeader(extras), ...rows.map((row) => batchRecord(row, extras, options))]);
}

/** Same output as exportBatchResultsCsv, built in slices with event-loop turns between them (use it in the main process). */
export async function exportBatchResultsCsvAsync(rows: readonly BatchResultExportRow[], options: CsvExportOptions = {}): Promise<string> {
  const extras = extraColumns(rows);
  return tableInTurns(batchHeader(extras), rows, (row) => batchRecord(row, extras, options), bomOf(options));
}

function historyRecord(row: HistoryExportRow, options: CsvExportOptions): string[] {
  return [
    row.kind,
    row.id,
    row.createdAt ?? '',
    row.processedAt ?? '',
    row.status,
    money(row.amountMinor, row.currencyCode, options),
    row.currencyCode,
    money(row.feeMinor, row.feeCurrencyCode ?? row.currencyCode, options),
    row.feeMinor === null || row.feeMinor === undefined ? '' : row.feeCurrencyCode ?? row.currencyCode,
    row.accountName ?? '',
    row.accountNumber ?? '',
    row.emailAddress ?? '',
    row.paymentOperatorCode ?? '',
    row.paymentMethodCode ?? '',
    row.reference ?? '',
    row.batchId ?? '',
    row.failureReason ?? '',
    row.isTest === null || row.isTest === undefined ? '' : String(row.isTest),
    row.intentId ?? '',
    row.retryOf ?? '',
  ];
}

/** The history rows the caller selected (its filters apply before this), one per payment. */
export function exportHistoryCsv(rows: readonly HistoryExportRow[], options: CsvExportOptions = {}): string {
  return bomOf(options) + stringifyTable([[...HISTORY_COLUMNS], ...rows.map((row) => historyRecord(row, options))]);
}

/** Same output as exportHistoryCsv, built in slices with event-loop turns between them (use it in the main process). */
export async function exportHistoryCsvAsync(rows: readonly HistoryExportRow[], options: CsvExportOptions = {}): Promise<string> {
  return tableInTurns(HISTORY_COLUMNS, rows, (row) => historyRecord(row, options), bomOf(options));
}

/** One signed decision on a batch (or payout), as the approvals sheet of an export shows it. */
export interface ApprovalExportRow {
  subjectKind: string;
  subjectId: string;
  approvalId: string;
  decision: string;
  reason: string | null;
  signerId: string;
  signerName: string;
  /** Roles the signer held at the moment of signing, space-separated. */
  signerRolesAtSigning: string;
  signerRevokedAt: string | null;
  signedAt: string;
  policyVersion: number;
  manifestSha256: string;
  /** Whether the digest signed is the digest of the subject's rows as the journal holds them now. */
  manifestMatchesJournal: boolean;
  signatureValid: boolean;
  signatureBase64: string;
  signerPublicKeySpkiBase64: string;
}

export const APPROVAL_COLUMNS = [
  'subjectKind', 'subjectId', 'approvalId', 'decision', 'reason', 'signerId', 'signerName', 'signerRolesAtSigning', 'signerRevokedAt', 'signedAt',
  'policyVersion', 'manifestSha256', 'manifestMatchesJournal', 'signatureValid', 'signatureBase64', 'signerPublicKeySpkiBase64',
] as const;

/**
 * The approvals sheet: one line per signed decision, with what an auditor needs to check it without the
 * desk (the signer's public key, the digest and the signature). Cells are guarded against formulas like
 * every export: a base64 value that starts with "+" is written with a leading "'" (strip it to verify).
 */
export function exportApprovalsCsv(rows: readonly ApprovalExportRow[], options: CsvExportOptions = {}): string {
  const yesNo = (b: boolean) => (b ? 'yes' : 'no');
  return bomOf(options) + stringifyTable([
    [...APPROVAL_COLUMNS],
    ...rows.map((r) => [
      r.subjectKind, r.subjectId, r.approvalId, r.decision, r.reason ?? '', r.signerId, r.signerName, r.signerRolesAtSigning, r.signerRevokedAt ?? '', r.signedAt,
      String(r.policyVersion), r.manifestSha256, yesNo(r.manifestMatchesJournal), yesNo(r.signatureValid), r.signatureBase64, r.signerPublicKeySpkiBase64,
    ]),
  ]);
}
