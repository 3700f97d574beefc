// A pain.001 payment run → the same result the CSV importer gives (PayoutFileImport), so the review, warnings,
// approvals, journal and sending after it are the CSV batch's own. Each CdtTrfTxInf becomes a row (its position in
// the file is its row number) and goes through the CSV importer's row checks (main/csv/validate.ts: currency,
// amount, IBAN check digits, e-mail, the gateway's operators, duplicates in the file) and journal checks (ids
// already used, bank details changed, possible duplicates of recent payouts, the file submitted before).
//
// Mapping: InstdAmt (exact, in the currency's decimals; more decimals is an error on the row, trailing zeros
// aside), Cdtr/Nm, CdtrAcct/Id/IBAN or Othr/Id, RmtInf/Ustrd joined (else the Strd references) as the reference,
// Cdtr/CtctDtls/EmailAdr (else the profile's fallback address), the operator from the profile's rules. The
// EndToEndId is the payout's id when it fits the gateway's id rule (1-64 of A-Z a-z 0-9 _ -), else the payout
// gets a new id; either way the EndToEndId and the message's ids are kept with the payout (origin.ts).
//
// Duplicates across history (run-refs.ts): with `paymentRuns` (the journal), a run whose MsgId was imported before
// is refused as a whole (RUN_ALREADY_IMPORTED), and a transaction whose EndToEndId was is an error on its row
// (END_TO_END_ID_EXISTS), whether or not that EndToEndId became the earlier payout's id.
import { createHash } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { checkAgainstJournal } from '../csv/journal-checks';
import { DEFAULT_REPEAT_WINDOW_DAYS, totalsOf } from '../csv/import';
import type { CsvColumn, HeaderMap, PayoutCsvField } from '../csv/headers';
import { TimeSlicer } from '../csv/time-slice';
import { MAX_CSV_BYTES, type CsvImportOptions, type CsvIssue, type CsvIssueCode, type CsvValidRow, type PayoutFileImport } from '../csv/types';
import { RowValidator } from '../csv/validate';
import { currencyDecimals } from '../domain/currencies';
import type { PaymentRunRef } from '../journal/types';
import { isValidPaymentId } from '../domain/ids';
import { Pain001FileError } from './errors';
import { NOT_PROVIDED_END_TO_END_ID as NOT_PROVIDED, PAIN001_EXTRA } from './origin';
import { readPain001, type Pain001Transaction, type Pain001Version } from './pain001-reader';
import { repeatedEndToEndIdText, repeatedMsgIdText, type PaymentRunRefLookup } from './run-refs';
import { DEFAULT_ISO20022_SETTINGS, operatorFor, rulesText, type Iso20022Settings } from './settings';

export interface Pain001ImportOptions extends Omit<CsvImportOptions, 'decimalComma'> {
  /** The profile's operator rules and fallback e-mail; the default (SEPA → EU_SEPA, no fallback) when absent. */
  iso20022?: Iso20022Settings | undefined;
  /** The MsgIds and EndToEndIds of runs imported before (the journal); when given, a repeat of either is an error. */
  paymentRuns?: PaymentRunRefLookup | undefined;
}

/** What the review says of the message: "ISO 20022 pain.001.001.09, 12 transactions in 3 payment groups". */
export interface Pain001Summary {
  version: Pain001Version;
  messageId: string;
  createdAt: string;
  transactions: number;
  paymentGroups: number;
}

export interface Pain001ImportResult extends PayoutFileImport {
  iso20022: Pain001Summary;
}

/** Where each payout field comes from, as the review names the "column" of a row's problem. */
const COLUMNS: readonly [PayoutCsvField, string][] = [
  ['idPayout', 'CdtTrfTxInf/PmtId/EndToEndId'],
  ['amount', 'CdtTrfTxInf/Amt/InstdAmt'],
  ['currencyCode', 'CdtTrfTxInf/Amt/InstdAmt/@Ccy'],
  ['accountName', 'CdtTrfTxInf/Cdtr/Nm'],
  ['accountNumber', 'CdtTrfTxInf/CdtrAcct/Id'],
  ['paymentOperatorCode', 'payment operator (profile rule)'],
  ['emailAddress', 'CdtTrfTxInf/Cdtr/CtctDtls/EmailAdr'],
  ['reference', 'CdtTrfTxInf/RmtInf'],
];
const COLUMN = Object.fromEntries(COLUMNS) as Record<'idPayout' | 'amount' | 'currencyCode' | 'accountName' | 'accountNumber' | 'paymentOperatorCode' | 'emailAddress' | 'reference', string>;
const HEADER: HeaderMap = {
  columns: COLUMNS.map(([field, name], index): CsvColumn => ({ index, name, field })),
  fieldIndex: Object.fromEntries(COLUMNS.map(([field], index) => [field, index])),
  unknownColumns: [],
};

const HASH_SLICE_BYTES = 1024 * 1024;

const yieldNow = async (): Promise<void> => {
  await nextTurn();
};

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const hash = createHash('sha256');
  const slicer = new TimeSlicer(yieldNow, 1);
  for (let i = 0; i < bytes.length; i += HASH_SLICE_BYTES) {
    hash.update(bytes.subarray(i, i + HASH_SLICE_BYTES));
    if (slicer.due()) await slicer.pause();
  }
  return hash.digest('hex');
}

/** "PmtInf "PI-2", EndToEndId "E2E-7"": how a row's problem names its transaction. */
function labelOf(tx: Pain001Transaction): string {
  return `PmtInf "${tx.pmtInfId}", EndToEndId "${tx.endToEndId}"`;
}

/** The amount in the currency's decimals ("12.500" EUR → "12.50"), or null when it has more that are not zeros. */
function amountInDecimals(amount: string, decimals: number): string | null {
  const [whole = '', written = ''] = amount.split('.');
  let fraction = written;
  while (fraction.length > decimals && fraction.endsWith('0')) fraction = fraction.slice(0, -1);
  if (fraction.length > decimals) return null;
  return fraction ? `${whole}.${fraction}` : whole;
}

/** Turns each transaction into a row through the CSV row checks, with the checks only a pain.001 needs first. */
class TransactionMapper {
  readonly rows: CsvValidRow[] = [];
  readonly errors: CsvIssue[] = [];
  readonly warnings: CsvIssue[] = [];
  invalid = 0;
  private readonly sink = { errors: [] as CsvIssue[], warnings: [] as CsvIssue[] };
  private readonly validator: RowValidator;
  private readonly endToEndRows = new Map<string, number>();
  private readonly settings: Iso20022Settings;

  constructor(
    private readonly options: Pain001ImportOptions,
    private readonly message: { version: Pain001Version; messageId: string; createdAt: string },
  ) {
    this.validator = new RowValidator(HEADER, options, '.', this.sink);
    this.settings = options.iso20022 ?? DEFAULT_ISO20022_SETTINGS;
  }

  map(tx: Pain001Transaction): void {
    const rowNumber = tx.index;
    // Most transactions have no problem: the list is made for the few that do (a method, not a closure per row).
    this.own = null;
    this.rowNumber = rowNumber;
    const fail = this.fail;

    let amount = '';
    if (tx.equivalent) {
      fail(COLUMN.amount, 'AMOUNT_FORMAT', `the amount is an equivalent amount (Amt/EqvtAmt, ${tx.amount} ${tx.currency}, for the bank to convert); a payout pays the amount it is given: write Amt/InstdAmt in the currency to pay`);
    } else {
      const decimals = currencyDecimals(tx.currency, this.options.currencies);
      const exact = amountInDecimals(tx.amount, decimals);
      if (exact === null) {
        const written = tx.amount.split('.')[1]?.length ?? 0;
        fail(
          COLUMN.amount,
          'AMOUNT_PRECISION',
          decimals === 0
            ? `InstdAmt "${tx.amount}" has decimals, but ${tx.currency} has no minor unit; the ERP must pay a whole amount (the desk never rounds)`
            : `InstdAmt "${tx.amount}" has ${written} decimals, but ${tx.currency} has ${decimals}; the ERP must round it (the desk never rounds an amount)`,
        );
      } else {
        amount = exact;
      }
    }

    const name = tx.creditorName ?? '';
    if (!name) fail(COLUMN.accountName, 'REQUIRED', "the creditor has no name (Cdtr/Nm); a payout needs the account holder's name");
    const account = tx.iban ?? tx.otherAccountId ?? '';
    if (!account) fail(COLUMN.accountNumber, 'REQUIRED', 'the creditor account (CdtrAcct/Id/IBAN or CdtrAcct/Id/Othr/Id) is missing');
    const email = tx.email || this.settings.fallbackEmail || '';
    if (!email) {
      fail(
        COLUMN.emailAddress,
        'REQUIRED',
        'the creditor has no e-mail address (Cdtr/CtctDtls/EmailAdr) and this profile sets no fallback address for pain.001 files; add the address in the ERP, or set one with "profiles iso20022 set <profile> --fallback-email ap@example.com"',
      );
    }
    const operator = operatorFor(this.settings.operatorRules, tx);
    if (operator === null) {
      const levels = tx.serviceLevels.length > 0 ? tx.serviceLevels.join(', ') : 'none';
      fail(
        COLUMN.paymentOperatorCode,
        'OPERATOR_UNKNOWN',
        `no operator rule of this profile matches it (service level ${levels}, creditor agent BIC ${tx.creditorAgentBic ?? 'none'}; the rules: ${rulesText(this.settings.operatorRules)}); add one with "profiles iso20022 set <profile> --rule serviceLevel:SEPA=EU_SEPA" or "--rule bicCountry:DE=…"`,
      );
    }

    let id = '';
    if (tx.endToEndId !== NOT_PROVIDED) {
      const first = this.endToEndRows.get(tx.endToEndId);
      if (first !== undefined) {
        fail(COLUMN.idPayout, 'ID_DUPLICATE', `EndToEndId "${tx.endToEndId}" is also the EndToEndId of transaction ${first}; each transaction of a payment run needs its own`);
      } else {
        this.endToEndRows.set(tx.endToEndId, rowNumber);
        // Used as the payout's id where the gateway's id rule allows; else a new one (the EndToEndId is kept).
        if (isValidPaymentId(tx.endToEndId)) id = tx.endToEndId;
      }
    }
    const reference = tx.unstructured.length > 0 ? tx.unstructured.join(' ') : tx.structured.join(', ');

    const row = this.validator.check([id, amount, tx.currency, name, account, operator ?? '', email, reference], rowNumber);
    const own = this.own as CsvIssue[] | null;
    const sink = this.sink;
    if (own === null && row) {
      for (const issue of sink.warnings) this.warnings.push(issue);
      sink.warnings.length = 0;
      row.extra = this.extraOf(tx);
      this.rows.push(row);
      return;
    }
    // A field this mapper already found wrong is said once, in its words (the row check would say "… is empty").
    // As in a CSV, a row with errors is fixed first; its warnings come with the next validation.
    const issues: CsvIssue[] = own ?? [];
    const claimed = new Set(issues.map((i) => i.column));
    for (const issue of sink.errors) if (!claimed.has(issue.column)) issues.push(issue);
    for (const issue of issues) this.errors.push(issue);
    sink.errors.length = 0;
    sink.warnings.length = 0;
    this.invalid++;
  }

  private own: CsvIssue[] | null = null;
  private rowNumber = 0;
  private readonly fail = (column: string, code: CsvIssueCode, message: string): void => {
    (this.own ??= []).push({ rowNumber: this.rowNumber, column, code, message });
  };

  private extraOf(tx: Pain001Transaction): Record<string, string> {
    const extra: Record<string, string> = { [PAIN001_EXTRA.endToEndId]: tx.endToEndId };
    if (tx.instrId) extra[PAIN001_EXTRA.instrId] = tx.instrId;
    extra[PAIN001_EXTRA.pmtInfId] = tx.pmtInfId;
    extra[PAIN001_EXTRA.msgId] = this.message.messageId;
    extra[PAIN001_EXTRA.msgNmId] = this.message.version;
    extra[PAIN001_EXTRA.creDtTm] = this.message.createdAt;
    if (tx.requestedExecution) extra[PAIN001_EXTRA.reqdExctnDt] = tx.requestedExecution;
    return extra;
  }
}

/** Refs looked up at a time (each lookup is one statement). */
const REF_LOOKUP_BATCH = 2000;

/** Its rows' EndToEndIds as the journal first recorded them, for those it did. */
async function earlierEndToEndIds(runs: PaymentRunRefLookup, rows: readonly CsvValidRow[]): Promise<Map<string, PaymentRunRef>> {
  const ids: string[] = [];
  for (const row of rows) {
    const id = row.extra[PAIN001_EXTRA.endToEndId];
    if (id && id !== NOT_PROVIDED) ids.push(id);
  }
  const seen = new Map<string, PaymentRunRef>();
  for (let i = 0; i < ids.length; i += REF_LOOKUP_BATCH) {
    for (const ref of await runs.paymentRunRefs('EndToEndId', ids.slice(i, i + REF_LOOKUP_BATCH))) seen.set(ref.ref, ref);
    await yieldNow();
  }
  return seen;
}

/** Issues about a transaction name it: "PmtInf "PI-2", EndToEndId "E2E-7": …". */
function named(issues: CsvIssue[], transactions: readonly Pain001Transaction[]): CsvIssue[] {
  return issues.map((i) => {
    const tx = i.rowNumber > 0 ? transactions[i.rowNumber - 1] : undefined;
    return tx ? { ...i, message: `${labelOf(tx)}: ${i.message}` } : i;
  });
}

/** Imports a pain.001 payment run from its raw bytes. Throws Pain001FileError only when the file as a whole is unusable. */
export async function importPain001(bytes: Uint8Array, options: Pain001ImportOptions = {}): Promise<Pain001ImportResult> {
  if (bytes.length > MAX_CSV_BYTES) {
    throw new Pain001FileError('FILE_TOO_LARGE', `The file is larger than ${MAX_CSV_BYTES / 1024 / 1024} MB, the limit per file; split the payment run into smaller files.`);
  }
  const sha256 = await sha256Hex(bytes);
  await yieldNow();
  const doc = await readPain001(bytes, yieldNow);
  await yieldNow();
  // The same run again (its MsgId imported before): refused as a whole, as the same file is (same MsgId).
  const run = options.paymentRuns ? (await options.paymentRuns.paymentRunRefs('MsgId', [doc.messageId]))[0] : undefined;
  if (run) throw new Pain001FileError('RUN_ALREADY_IMPORTED', repeatedMsgIdText(run), 'Document/CstmrCdtTrfInitn/GrpHdr/MsgId');

  const mapper = new TransactionMapper(options, doc);
  const slicer = new TimeSlicer(yieldNow);
  for (const tx of doc.transactions) {
    mapper.map(tx);
    if (slicer.due()) await slicer.pause();
  }

  let rows = mapper.rows;
  let errors = mapper.errors;
  let warnings = mapper.warnings;
  let invalid = mapper.invalid;
  // Duplicates across history: each EndToEndId imported before (whatever payout id it got) is an error on its row.
  if (options.paymentRuns) {
    const seen = await earlierEndToEndIds(options.paymentRuns, rows);
    if (seen.size > 0) {
      const kept: CsvValidRow[] = [];
      for (const row of rows) {
        const earlier = seen.get(row.extra[PAIN001_EXTRA.endToEndId] ?? '');
        if (!earlier) {
          kept.push(row);
          continue;
        }
        errors.push({ rowNumber: row.rowNumber, column: COLUMN.idPayout, code: 'END_TO_END_ID_EXISTS', message: repeatedEndToEndIdText(earlier) });
        invalid++;
      }
      rows = kept;
    }
  }
  if (options.journal) {
    const outcome = await checkAgainstJournal(rows, options.journal, (field) => COLUMN[field], yieldNow, {
      repeatWindowDays: options.repeatWindowDays ?? DEFAULT_REPEAT_WINDOW_DAYS,
      fileSha256: sha256,
    });
    rows = outcome.rows;
    invalid += outcome.errors.length;
    // The CSV wording ("leave the id empty…") does not fit a file the ERP wrote.
    const reworded = outcome.errors.map((e) =>
      e.code === 'ID_EXISTS'
        ? { ...e, message: `its EndToEndId is already the id of a payout in the journal: this transaction was sent before, and an id is never reused. If it was paid, take it out of the run; if it is a new payment, give it a new EndToEndId in the ERP` }
        : e,
    );
    errors = errors.concat(reworded);
    warnings = warnings.concat(outcome.warnings);
    if (await options.journal.batchFileSubmitted(sha256)) {
      warnings.unshift({
        rowNumber: 0,
        column: null,
        code: 'FILE_ALREADY_SUBMITTED',
        message: `This exact file (SHA-256 ${sha256.slice(0, 12)}…, MsgId "${doc.messageId}") was submitted before; submitting it again pays every transaction a second time. Confirm only if that is intended.`,
      });
    }
  }
  const byRow = (a: CsvIssue, b: CsvIssue): number => a.rowNumber - b.rowNumber;
  errors = named(errors, doc.transactions).sort(byRow);
  warnings = named(warnings, doc.transactions).sort(byRow);

  return {
    fileName: options.fileName ?? `${doc.messageId}.xml`,
    sha256,
    rows,
    errors,
    warnings,
    totals: totalsOf(rows),
    counts: { rows: doc.transactions.length, valid: rows.length, invalid, warnings: warnings.length },
    unknownColumns: [],
    iso20022: { version: doc.version, messageId: doc.messageId, createdAt: doc.createdAt, transactions: doc.transactions.length, paymentGroups: doc.groups.length },
  };
}
