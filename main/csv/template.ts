// The template the UI and the CLI hand out: the canonical header and one example row that imports cleanly.
import { stringify } from 'csv-stringify/sync';
import { PAYOUT_CSV_FIELDS, type PayoutCsvField } from './headers';

const EXAMPLE_ROW: Readonly<Record<PayoutCsvField, string>> = {
  idPayout: '', // optional: left empty, the desk generates one
  amount: '125.50',
  currencyCode: 'EUR',
  accountName: 'Jane Example',
  accountNumber: 'DE89370400440532013000',
  paymentOperatorCode: 'EU_SEPA',
  paymentMethodCode: 'BANK_TRANSFER',
  emailAddress: 'jane@example.com',
  callbackUrl: '',
  reference: 'Invoice 2024-001',
};

/** Header plus one example row, comma-delimited with a dot as decimal separator, CRLF line ends. */
export function payoutCsvTemplate(): string {
  return stringify([[...PAYOUT_CSV_FIELDS], PAYOUT_CSV_FIELDS.map((f) => EXAMPLE_ROW[f])], { record_delimiter: '\r\n' });
}
