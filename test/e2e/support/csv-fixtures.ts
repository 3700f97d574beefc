// Payout CSVs for the batch journey, written here so the test shows exactly which rows are wrong.

/** A German IBAN with correct check digits for an 18-digit BBAN (mod 97, ISO 13616). */
export function germanIban(bban: string): string {
  const digits = `${bban}131400`; // "DE" = 13 14, then "00" placeholder check digits
  let remainder = 0;
  for (const ch of digits) remainder = (remainder * 10 + Number(ch)) % 97;
  return `DE${String(98 - remainder).padStart(2, '0')}${bban}`;
}

export interface CsvRowSpec {
  amount: string;
  currencyCode: string;
  accountName: string;
  accountNumber: string;
  paymentOperatorCode: string;
  emailAddress: string;
}

export function goodRow(i: number): CsvRowSpec {
  return {
    amount: `${10 + i}.${String((i * 7) % 100).padStart(2, '0')}`,
    currencyCode: 'EUR',
    accountName: `Supplier ${String(i).padStart(2, '0')} GmbH`,
    accountNumber: germanIban(`370400440532${String(100000 + i).slice(-6)}`),
    paymentOperatorCode: 'EU_SEPA',
    emailAddress: `supplier${i}@example.com`,
  };
}

/** Rows 5, 17 and 33 (file rows 6, 18, 34 with the header) are broken in three different ways. */
export const BROKEN_ROWS: Readonly<Record<number, Partial<CsvRowSpec>>> = {
  5: { amount: '12,50.3' },
  17: { currencyCode: 'EURO' },
  33: { emailAddress: 'not-an-email' },
};

export function payoutCsv(count: number, broken: Readonly<Record<number, Partial<CsvRowSpec>>> = {}): string {
  const header = 'amount,currencyCode,accountName,accountNumber,paymentOperatorCode,emailAddress';
  const lines = [header];
  for (let i = 1; i <= count; i++) {
    const r = { ...goodRow(i), ...(broken[i] ?? {}) };
    lines.push([r.amount, r.currencyCode, r.accountName, r.accountNumber, r.paymentOperatorCode, r.emailAddress].map(quote).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

function quote(v: string): string {
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}
