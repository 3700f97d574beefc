// One data row → a payout draft, or the row's errors. File-wide checks that need every row (ids already
// in the journal, bank details changed) run afterwards in journal-checks.ts.
import { currencyDecimals, isCurrencyCode } from '../domain/currencies';
import { isValidPaymentId, newPaymentId } from '../domain/ids';
import { DEFAULT_PAYMENT_METHOD, isEmailAddress, isHttpUrl, type PayoutDraft } from '../domain/payout';
import { accountKey, checkAccountNumber } from './account-number';
import { parseCsvAmount, type DecimalSeparator } from './amount';
import { restoreCell } from './formula';
import type { HeaderMap, PayoutCsvField } from './headers';
import type { CsvImportOptions, CsvIssue, CsvIssueCode, CsvValidRow } from './types';

export interface RowOutcome {
  row: CsvValidRow | null;
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

  constructor(
    private readonly header: HeaderMap,
    private readonly options: CsvImportOptions,
    private readonly decimalSeparator: DecimalSeparator,
  ) {
    this.width = header.columns.length;
  }

  /** The header text of the column holding a field (or the field's name when the file has no such column). */
  columnName(field: PayoutCsvField): string {
    const index = this.header.fieldIndex[field];
    return index === undefined ? field : this.header.columns[index]?.name ?? field;
  }

  check(cells: readonly string[], rowNumber: number): RowOutcome {
    const errors: CsvIssue[] = [];
    const issue = (field: PayoutCsvField | null, code: CsvIssueCode, message: string): void => {
      errors.push({ rowNumber, column: field ? this.columnName(field) : null, code, message });
    };

    const beyond = cells.slice(this.width).some((cell) => cell.trim() !== '');
    if (cells.length < this.width || beyond) {
      let count = cells.length;
      while (count > this.width && !(cells[count - 1] ?? '').trim()) count--;
      issue(
        null,
        'RAGGED_ROW',
        `row ${rowNumber} has ${count} values but the header has ${this.width} columns; ` +
          (beyond
            ? 'a value probably contains the delimiter without quotes around it; put such values in double quotes'
            : 'a delimiter is probably missing; give every column a value (empty is fine) so the columns line up'),
      );
      return { row: null, errors, warnings: [] };
    }

    const cell = (field: PayoutCsvField): string => {
      const index = this.header.fieldIndex[field];
      return index === undefined ? '' : restoreCell(cells[index] ?? '').trim();
    };
    const required = (field: PayoutCsvField, what: string, example: string): string => {
      const value = cell(field);
      if (!value) issue(field, 'REQUIRED', `${what} is empty; fill it in (e.g. ${example})`);
      return value;
    };

    // Currency first: the amount's decimals depend on it.
    const currencyCode = required('currencyCode', 'the currency', 'EUR').toUpperCase();
    let currencyOk = false;
    if (currencyCode) {
      if (!isCurrencyCode(currencyCode)) {
        issue('currencyCode', 'CURRENCY_FORMAT', `"${currencyCode}" is not a currency code; write the three-letter ISO code, e.g. EUR`);
      } else if (this.options.currencies && !this.options.currencies.has(currencyCode)) {
        issue('currencyCode', 'CURRENCY_UNKNOWN', `the gateway does not offer ${currencyCode}; use one of ${listSome([...this.options.currencies.keys()])}`);
      } else {
        currencyOk = true;
      }
    }
    const decimals = currencyDecimals(currencyCode, this.options.currencies);
    let amountMinor = 0;
    const amount = parseCsvAmount(cell('amount'), {
      currencyCode,
      decimals,
      decimalSeparator: this.decimalSeparator,
      maxAmountMinor: this.options.maxAmountMinor,
    });
    if (amount.ok) amountMinor = amount.amountMinor;
    // With an unusable currency only format problems are reported: precision depends on the currency.
    else if (currencyOk || amount.code !== 'AMOUNT_PRECISION') issue('amount', amount.code, amount.message);

    const accountName = required('accountName', 'the beneficiary name', 'Jane Example');
    const accountNumber = required('accountNumber', 'the account number', 'DE89370400440532013000');
    if (accountNumber) {
      const damage = checkAccountNumber(accountNumber);
      if (damage) issue('accountNumber', damage.code, damage.message);
    }
    const paymentMethodCode = cell('paymentMethodCode') || DEFAULT_PAYMENT_METHOD;
    const paymentOperatorCode = required('paymentOperatorCode', 'the operator code', 'EU_SEPA');
    if (paymentOperatorCode && currencyOk) this.checkOperator(paymentOperatorCode, currencyCode, paymentMethodCode, issue);
    const emailAddress = required('emailAddress', 'the e-mail address', 'jane@example.com');
    if (emailAddress && !isEmailAddress(emailAddress)) {
      issue('emailAddress', 'EMAIL_FORMAT', `"${emailAddress}" is not an e-mail address; write it like jane@example.com`);
    }
    const callbackUrl = cell('callbackUrl');
    if (callbackUrl && !isHttpUrl(callbackUrl)) {
      issue('callbackUrl', 'URL_FORMAT', `"${callbackUrl}" is not an http(s) address; write a full URL such as https://erp.example.com/payouts or leave it empty`);
    }
    const reference = cell('reference');

    let idPayout = cell('idPayout');
    const idGenerated = idPayout === '';
    if (idGenerated) {
      idPayout = newPaymentId();
    } else if (!isValidPaymentId(idPayout)) {
      issue('idPayout', 'ID_FORMAT', `"${idPayout}" is not a valid payout id: use 1-64 letters, digits, "_" or "-" (or leave it empty to have one generated)`);
    } else {
      const firstRow = this.idRows.get(idPayout);
      if (firstRow !== undefined) {
        issue('idPayout', 'ID_DUPLICATE', `idPayout "${idPayout}" is also used in row ${firstRow}; every payout needs its own id (change it or leave it empty)`);
      } else {
        this.idRows.set(idPayout, rowNumber);
      }
    }

    if (errors.length > 0) return { row: null, errors, warnings: [] };

    const warnings: CsvIssue[] = [];
    const duplicateKey = `${currencyCode}|${amountMinor}|${accountKey(accountNumber)}`;
    const sameAs = this.duplicateKeys.get(duplicateKey);
    if (sameAs !== undefined) {
      warnings.push({
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
    for (const column of this.header.columns) {
      if (column.field === null) extra[column.name] = restoreCell(cells[column.index] ?? '');
    }
    return { row: { rowNumber, payout, idGenerated, extra }, errors, warnings };
  }

  private checkOperator(
    code: string,
    currencyCode: string,
    method: string,
    issue: (field: PayoutCsvField, code: CsvIssueCode, message: string) => void,
  ): void {
    const operators = this.options.operators;
    if (!operators) return;
    const usable = operators
      .filter((o) => (!o.currencyCodes || o.currencyCodes.includes(currencyCode)) && (!o.paymentMethodCode || o.paymentMethodCode === method))
      .map((o) => o.code);
    const hint = usable.length > 0 ? `operators for ${currencyCode} by ${method}: ${listSome(usable)}` : `no operator pays ${currencyCode} by ${method}`;
    const operator = operators.find((o) => o.code === code);
    if (!operator) {
      issue('paymentOperatorCode', 'OPERATOR_UNKNOWN', `operator "${code}" is not known to the gateway; ${hint}`);
    } else if (operator.currencyCodes && !operator.currencyCodes.includes(currencyCode)) {
      issue('paymentOperatorCode', 'OPERATOR_CURRENCY', `operator "${code}" does not pay out in ${currencyCode}; ${hint}`);
    } else if (operator.paymentMethodCode && operator.paymentMethodCode !== method) {
      issue(
        'paymentOperatorCode',
        'OPERATOR_METHOD',
        `operator "${code}" works with ${operator.paymentMethodCode}, not ${method}; change the method or the operator (${hint})`,
      );
    }
  }
}
