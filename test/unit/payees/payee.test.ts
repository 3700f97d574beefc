// Checks of a payee's details at entry (IBAN check digits, account characters and length, e-mail) and
// the digest of a change that approvers sign.
import { describe, expect, it } from 'vitest';
import { changeDigest, checkPayeeDetails, sameBankDetails } from '../../../main/payees/payee';

const good = { name: ' Grace Hopper ', accountNumber: 'nl91 abna 0417 1643 00', operatorCode: 'EU_SEPA', emailAddress: 'grace@example.com' };

describe('payee details at entry', () => {
  it('cleans good details: trimmed, an IBAN compact and in upper case, no reference default', () => {
    expect(checkPayeeDetails(good)).toEqual({
      details: { name: 'Grace Hopper', accountNumber: 'NL91ABNA0417164300', operatorCode: 'EU_SEPA', emailAddress: 'grace@example.com', referenceDefault: null },
      issues: [],
    });
    expect(checkPayeeDetails({ ...good, accountNumber: '+254 700 000 001', referenceDefault: ' June ' }).details).toMatchObject({ accountNumber: '+254 700 000 001', referenceDefault: 'June' });
  });

  it('refuses an IBAN whose check digits fail (one character changed)', () => {
    const { details, issues } = checkPayeeDetails({ ...good, accountNumber: 'NL91ABNA0417164301' });
    expect(details).toBeNull();
    expect(issues).toEqual([expect.objectContaining({ field: 'accountNumber', code: 'ACCOUNT_NUMBER_IBAN' })]);
  });

  it.each([
    ['', 'REQUIRED'],
    ['12', 'ACCOUNT_LENGTH'],
    ['1'.repeat(65), 'ACCOUNT_LENGTH'],
    ['=HYPERLINK("x")', 'ACCOUNT_CHARACTERS'],
    ['1234;5678', 'ACCOUNT_CHARACTERS'],
  ])('refuses the account number "%s" (%s)', (accountNumber, code) => {
    expect(checkPayeeDetails({ ...good, accountNumber }).issues).toEqual([expect.objectContaining({ field: 'accountNumber', code })]);
  });

  it('needs a name, an operator and a valid e-mail, and names every problem at once', () => {
    const { issues } = checkPayeeDetails({ name: ' ', accountNumber: 'NL91ABNA0417164300', operatorCode: '', emailAddress: 'not-an-address' });
    expect(issues.map((i) => `${i.field}:${i.code}`)).toEqual(['name:REQUIRED', 'operatorCode:REQUIRED', 'emailAddress:EMAIL_FORMAT']);
  });

  it('compares bank details by account (IBAN spacing and case ignored) and operator', () => {
    expect(sameBankDetails({ accountNumber: 'NL91 ABNA 0417 1643 00', operatorCode: 'EU_SEPA' }, { accountNumber: 'nl91abna0417164300', operatorCode: 'EU_SEPA' })).toBe(true);
    expect(sameBankDetails({ accountNumber: 'NL91ABNA0417164300', operatorCode: 'EU_SEPA' }, { accountNumber: 'NL91ABNA0417164300', operatorCode: 'EU_INSTANT' })).toBe(false);
  });
});

describe('the digest of a change', () => {
  const after = checkPayeeDetails(good).details!;
  const base = { profileId: 'p1', payeeId: 'payee-1', version: 2, before: { ...after, accountNumber: 'DE89370400440532013000' }, after, createdBy: 'paula', createdAt: 1_700_000_000_000 };

  it('is the same for the same change and differs when anything signed differs', () => {
    expect(changeDigest(base)).toMatch(/^[0-9a-f]{64}$/);
    expect(changeDigest({ ...base })).toBe(changeDigest(base));
    for (const other of [{ version: 3 }, { createdBy: 'mallory' }, { after: { ...after, accountNumber: 'DE02120300000000202051' } }, { before: null }, { profileId: 'p2' }]) {
      expect(changeDigest({ ...base, ...other })).not.toBe(changeDigest(base));
    }
  });
});
