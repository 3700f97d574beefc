// One data row → a payout draft, or the row's errors. File-wide checks that need every row (ids already
// in the journal, bank details changed) run afterwards in journal-checks.ts.
import { currencyDecimals, isCurrencyCode } from '../domain/currencies';
import { isValidPaymentId, newPaymentId } from '../domain/ids';
import { DEFAULT_PAYMENT_METHOD, isEmailAddress, isHttpUrl, type PayoutDraft } from '../domain/payout';
import { compactIban, looksLikeIban } from '../domain/iban';
import { accountKey, checkAccountNumber } from './account-number';
import { parseCsvAmount, type DecimalSeparator } from './amount';
import { restoreCell, startsLikeFormula } from './formula';
import type { CsvColumn, HeaderMap, PayoutCsvField } from './headers';
import type { CsvImportOptions, CsvIssue, CsvIssueCode, CsvOperator, CsvValidRow } from './types';

/** Where a validator appends the issues it finds. */
export interface IssueSink {
  errors: CsvIssue[];
  warnings: CsvIssue[];
}

function listSome(values: readonly string[]): string {
  return values.length > 6 ? `${values.slice(0, 6).join(', ')}, …` : values.join(', ');
}

export class RowValidator {
  private readonly idRows = new Map<string, number>();
  private readonly duplicateKeys = new Map<string, number>();
  private readonly width: number;
  private readonly operatorsByCode: ReadonlyMap<string, CsvOperator>;
  private readonly unknownColumns: readonly CsvColumn[];

  constructor(
    private readonly header: HeaderMap,
    private readonly options: CsvImportOptions,
    private readonly decimalSeparator: DecimalSeparator,
    private readonly out: IssueSink,
  ) {
    this.width = header.columns.length;
    this.unknownColumns = header.columns.filter((c) => c.field === null);
    this.operatorsByCode = new Map((options.operators ?? []).map((o) => [o.code, o]));
  }

  /** The header text of the column holding a field (or the field's name when the file has no such column). */
  columnName(field: PayoutCsvField): string {
    const index = this.header.fieldIndex[field];
    return index === undefined ? field : this.header.columns[index]?.name ?? field;
  }

  /** The trimmed cell of a field, with the export's formula guard removed ('' when the file has no such column). */
  private cell(cells: readonly string[], field: PayoutCsvField): string {
    const index = this.header.fieldIndex[field];
    if (index === undefined) return '';
    const value = cells[index] ?? '';
    return (value.charCodeAt(0) === 39 /* ' */ ? restoreCell(value) : value).trim();
  }

  private raggedRow(cells: readonly string[], rowNumber: number): CsvIssue | null {
    let beyond = false;
    for (let i = this.width; i < cells.length && !beyond; i++) beyond = (cells[i] ?? '').trim() !== '';
    if (cells.length >= this.width && !beyond) return null;
    let count = cells.length;
    while (count > this.width && !(cells[count - 1] ?? '').trim()) count--;
    return {
      rowNumber,
      column: null,
      code: 'RAGGED_ROW',
      message:
        `row ${rowNumber} has ${count} values but the header has ${this.width} columns; ` +
        (beyond
          ? 'a value probably contains the delimiter without quotes around it; put such values in double quotes'
          : 'a delimiter is probably missing; give every column a value (empty is fine) so the columns line up'),
    };
  }

  private fail(rowNumber: number, field: PayoutCsvField, code: CsvIssueCode, message: string): void {
    this.out.errors.push({ rowNumber, column: this.columnName(field), code, message });
  }

  private required(cells: readonly string[], rowNumber: number, field: PayoutCsvField, what: string, example: string): string {
    const value = this.cell(cells, field);
    if (!value) this.fail(rowNumber, field, 'REQUIRED', `${what} is empty; fill it in (e.g. ${example})`);
    return value;
  }

  /**
   * Checks one data row. Its errors and warnings are appended to the sink given to the constructor; the row
   * is returned when it has no error. (Plain methods rather than per-row closures: this runs 100,000 times.)
   */
  check(cells: readonly string[], rowNumber: number): CsvValidRow | null {
    const ragged = this.raggedRow(cells, rowNumber);
    if (ragged) {
      this.out.errors.push(ragged);
      return null;
    }
    const errorsBefore = this.out.errors.length;

    // Currency first: the amount's decimals depend on it.
    const currencyCode = this.required(cells, rowNumber, 'currencyCode', 'the currency', 'EUR').toUpperCase();
    let currencyOk = false;
    if (currencyCode) {
      if (!isCurrencyCode(currencyCode)) {
        this.fail(rowNumber, 'currencyCode', 'CURRENCY_FORMAT', `"${currencyCode}" is not a currency code; write the three-letter ISO code, e.g. EUR`);
      } else if (this.options.currencies && !this.options.currencies.has(currencyCode)) {
        this.fail(rowNumber, 'currencyCode', 'CURRENCY_UNKNOWN', `the gateway does not offer ${currencyCode}; use one of ${listSome([...this.options.currencies.keys()])}`);
      } else {
        currencyOk = true;
      }
    }
    const decimals = currencyDecimals(currencyCode, this.options.currencies);
    let amountMinor = 0;
    const amount = parseCsvAmount(this.cell(cells, 'amount'), {
      currencyCode,
      decimals,
      decimalSeparator: this.decimalSeparator,
      maxAmountMinor: this.options.maxAmountMinor,
    });
    if (amount.ok) amountMinor = amount.amountMinor;
    // With an unusable currency only format problems are reported: precision depends on the currency.
    else if (currencyOk || amount.code !== 'AMOUNT_PRECISION') this.fail(rowNumber, 'amount', amount.code, amount.message);

    const accountName = this.required(cells, rowNumber, 'accountName', 'the beneficiary name', 'Jane Example');
    let accountNumber = this.required(cells, rowNumber, 'accountNumber', 'the account number', 'DE89370400440532013000');
    if (accountNumber) {
      const damage = checkAccountNumber(accountNumber);
      if (damage) this.fail(rowNumber, 'accountNumber', damage.code, damage.message);
      // Spaces in an IBAN are print format only ("DE89 3704 …"); the gateway gets the compact form.
      else if (looksLikeIban(accountNumber)) accountNumber = compactIban(accountNumber);
    }
    const paymentMethodCode = this.cell(cells, 'paymentMethodCode') || DEFAULT_PAYMENT_METHOD;
    const paymentOperatorCode = this.required(cells, rowNumber, 'paymentOperatorCode', 'the operator code', 'EU_SEPA');
    if (paymentOperatorCode && currencyOk) this.checkOperator(rowNumber, paymentOperatorCode, currencyCode, paymentMethodCode);
    const emailAddress = this.required(cells, rowNumber, 'emailAddress', 'the e-mail address', 'jane@example.com');
    if (emailAddress && !isEmailAddress(emailAddress)) {
      this.fail(rowNumber, 'emailAddress', 'EMAIL_FORMAT', `"${emailAddress}" is not an e-mail address; write it like jane@example.com`);
    }
    const callbackUrl = this.cell(cells, 'callbackUrl');
    if (callbackUrl && !isHttpUrl(callbackUrl)) {
      this.fail(rowNumber, 'callbackUrl', 'URL_FORMAT', `"${callbackUrl}" is not an http(s) address; write a full URL such as https://erp.example.com/payouts or leave it empty`);
    }
    const reference = this.cell(cells, 'reference');

    let idPayout = this.cell(cells, 'idPayout');
    const idGenerated = idPayout === '';
    if (idGenerated) {
      idPayout = newPaymentId();
    } else if (!isValidPaymentId(idPayout)) {
      this.fail(rowNumber, 'idPayout', 'ID_FORMAT', `"${idPayout}" is not a valid payout id: use 1-64 letters, digits, "_" or "-" (or leave it empty to have one generated)`);
    } else {
      const firstRow = this.idRows.get(idPayout);
      if (firstRow !== undefined) {
        this.fail(rowNumber, 'idPayout', 'ID_DUPLICATE', `idPayout "${idPayout}" is also used in row ${firstRow}; every payout needs its own id (change it or leave it empty)`);
      } else {
        this.idRows.set(idPayout, rowNumber);
      }
    }

    if (this.out.errors.length > errorsBefore) return null;

    if (startsLikeFormula(accountName)) {
      this.out.warnings.push({
        rowNumber,
        column: 'accountName',
        code: 'NAME_LOOKS_LIKE_FORMULA',
        message: `the beneficiary name "${accountName}" starts with "${accountName[0]}", which a spreadsheet runs as a formula; check it is the payee's real name`,
      });
    }

    const duplicateKey = `${currencyCode}|${amountMinor}|${accountKey(accountNumber)}`;
    const sameAs = this.duplicateKeys.get(duplicateKey);
    if (sameAs !== undefined) {
      this.out.warnings.push({
        rowNumber,
        column: null,
        code: 'DUPLICATE_ROW',
        message: `looks like a duplicate of row ${sameAs} (same account, amount and currency); confirm it is intended or delete one of them`,
      });
    } else {
      this.duplicateKeys.set(duplicateKey, rowNumber);
    }

    const payout: PayoutDraft = {
      idPayout,
      amountMinor,
      currencyCode,
      accountName,
      accountNumber,
      paymentOperatorCode,
      paymentMethodCode,
      emailAddress,
    };
    if (callbackUrl) payout.callbackUrl = callbackUrl;
    if (reference) payout.reference = reference;
    const extra: Record<string, string> = {};
    for (const column of this.unknownColumns) extra[column.name] = restoreCell(cells[column.index] ?? '');
    return { rowNumber, payout, idGenerated, extra };
  }

  private checkOperator(rowNumber: number, code: string, currencyCode: string, method: string): void {
    if (!this.options.operators) return;
    // The hint is only built for a row that needs it, by a method rather than a closure made for every row.
    const operator = this.operatorsByCode.get(code);
    if (!operator) {
      this.fail(rowNumber, 'paymentOperatorCode', 'OPERATOR_UNKNOWN', `operator "${code}" is not known to the gateway; ${this.operatorHint(currencyCode, method)}`);
    } else if (operator.currencyCodes && !operator.currencyCodes.includes(currencyCode)) {
      this.fail(rowNumber, 'paymentOperatorCode', 'OPERATOR_CURRENCY', `operator "${code}" does not pay out in ${currencyCode}; ${this.operatorHint(currencyCode, method)}`);
    } else if (operator.paymentMethodCode && operator.paymentMethodCode !== method) {
      this.fail(
        rowNumber,
        'paymentOperatorCode',
        'OPERATOR_METHOD',
        `operator "${code}" works with ${operator.paymentMethodCode}, not ${method}; change the method or the operator (${this.operatorHint(currencyCode, method)})`,
      );
    }
  }

  private operatorHint(currencyCode: string, method: string): string {
    const usable = (this.options.operators ?? [])
      .filter((o) => (!o.currencyCodes || o.currencyCodes.includes(currencyCode)) && (!o.paymentMethodCode || o.paymentMethodCode === method))
      .map((o) => o.code);
    return usable.length > 0 ? `operators for ${currencyCode} by ${method}: ${listSome(usable)}` : `no operator pays ${currencyCode} by ${method}`;
  }
}
