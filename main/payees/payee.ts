// The payee book's records: saved payees (name, account number, operator, e-mail, reference default), each
// kept as versions. A version is only added, then put in force or closed, never rewritten: a change of
// bank details is a new version and the old ones stay. A change of bank details (account number or
// operator) on a desk with dual control waits for approval: stored, not in force, until enough approvers
// signed its digest (the canonical JSON of before and after, see changeDigest).
import { canonicalJson, sha256Hex } from '../approvals/canonical';
import { compactIban, hasValidIbanChecksum, looksLikeIban } from '../domain/iban';
import { payeeKey } from '../domain/payee-key';
import { isEmailAddress } from '../domain/payout';
import { CodedError } from '../domain/coded-error';

export type PayeeSource = 'hand' | 'payout' | 'import';
export type CloseReason = 'superseded' | 'rejected' | 'withdrawn';

/** What a person enters or a CSV row holds for a payee. */
export interface PayeeDetails {
  name: string;
  accountNumber: string;
  operatorCode: string;
  emailAddress: string;
  /** The reference new payouts to this payee start with; null for none. */
  referenceDefault: string | null;
}

export interface PayeeVersion extends PayeeDetails {
  payeeId: string;
  version: number;
  /** The version this one changes (null: the payee's first version). */
  baseVersion: number | null;
  nameKey: string;
  emailKey: string;
  source: PayeeSource;
  /** The payout id it was created from (source 'payout'), the file name (source 'import'); null by hand. */
  sourceRef: string | null;
  /** Its account number or operator differ from the base version's (or from what the name was paid to). */
  bankChange: boolean;
  /** SHA-256 of the change (changeDigest): what approvers sign. */
  changeDigest: string;
  createdAt: number;
  /** Person id of who made it; null before people existed on this desk. */
  createdBy: string | null;
  /** When it was put in force; null while it waits for approval (or was closed before). */
  effectiveAt: number | null;
  closedAt: number | null;
  closedBy: string | null;
  closeReason: CloseReason | null;
}

export type PayeeState = 'in force' | 'awaiting approval' | CloseReason;

export function stateOf(v: Pick<PayeeVersion, 'effectiveAt' | 'closedAt' | 'closeReason'>): PayeeState {
  if (v.closedAt !== null) return v.closeReason ?? 'superseded';
  return v.effectiveAt === null ? 'awaiting approval' : 'in force';
}

export class PayeeError extends CodedError<'NOT_FOUND' | 'DUPLICATE' | 'CHANGE_WAITING' | 'NOT_WAITING'> {}

export interface PayeeIssue {
  field: keyof PayeeDetails;
  code: string;
  message: string;
}

const ACCOUNT_CHARS = /^[A-Za-z0-9+][A-Za-z0-9 ./+-]*$/;
export const ACCOUNT_MIN = 4;
export const ACCOUNT_MAX = 64;
const TEXT_MAX = 200;

/** The account as compared and stored: IBANs compact and in upper case, anything else trimmed as written. */
export const accountForm = (accountNumber: string): string => {
  const trimmed = accountNumber.trim();
  return looksLikeIban(trimmed) ? compactIban(trimmed) : trimmed;
};

/** "…4300": enough to tell two accounts apart without showing the number. */
export function maskAccount(accountNumber: string): string {
  const key = compactIban(accountNumber.trim());
  return key.length > 4 ? `…${key.slice(-4)}` : key;
}

/** Two accounts are the same account (spaces and case of an IBAN ignored). */
export const sameAccount = (a: string, b: string): boolean => compactIban(a.trim()) === compactIban(b.trim());

/** The bank details of a payee: what a change of needs approval. */
export const sameBankDetails = (a: Pick<PayeeDetails, 'accountNumber' | 'operatorCode'>, b: Pick<PayeeDetails, 'accountNumber' | 'operatorCode'>): boolean =>
  sameAccount(a.accountNumber, b.accountNumber) && a.operatorCode.trim() === b.operatorCode.trim();

/**
 * Checks a payee's details at entry and returns them cleaned (trimmed; an IBAN compact). The account
 * number: 4-64 characters of letters, digits, space, ".", "/", "+", "-" (starting with a letter, digit or
 * "+"), and when it has the shape of an IBAN its mod-97 check digits must hold. The e-mail follows the
 * payout rule (every payout needs one).
 */
export function checkPayeeDetails(input: { name?: string | null; accountNumber?: string | null; operatorCode?: string | null; emailAddress?: string | null; referenceDefault?: string | null }): { details: PayeeDetails | null; issues: PayeeIssue[] } {
  const issues: PayeeIssue[] = [];
  const text = (field: keyof PayeeDetails, value: string | null | undefined, label: string, required: boolean): string => {
    const v = (value ?? '').trim();
    if (required && !v) issues.push({ field, code: 'REQUIRED', message: `${label} is required` });
    else if (v.length > TEXT_MAX) issues.push({ field, code: 'TOO_LONG', message: `${label} is longer than ${TEXT_MAX} characters` });
    return v;
  };
  const name = text('name', input.name, 'name', true);
  const operatorCode = text('operatorCode', input.operatorCode, 'operator code', true);
  const emailAddress = text('emailAddress', input.emailAddress, 'e-mail address', true);
  const reference = text('referenceDefault', input.referenceDefault, 'reference default', false);
  if (emailAddress && !isEmailAddress(emailAddress)) issues.push({ field: 'emailAddress', code: 'EMAIL_FORMAT', message: `"${emailAddress}" is not a valid e-mail address` });
  const account = accountForm(input.accountNumber ?? '');
  if (!account) {
    issues.push({ field: 'accountNumber', code: 'REQUIRED', message: 'account number is required' });
  } else if (!ACCOUNT_CHARS.test(account)) {
    issues.push({ field: 'accountNumber', code: 'ACCOUNT_CHARACTERS', message: `"${account}" holds characters an account number does not (letters, digits, space, ".", "/", "+", "-")` });
  } else if (account.length < ACCOUNT_MIN || account.length > ACCOUNT_MAX) {
    issues.push({ field: 'accountNumber', code: 'ACCOUNT_LENGTH', message: `account number must be ${ACCOUNT_MIN} to ${ACCOUNT_MAX} characters, "${account}" has ${account.length}` });
  } else if (looksLikeIban(account) && !hasValidIbanChecksum(account)) {
    issues.push({ field: 'accountNumber', code: 'ACCOUNT_NUMBER_IBAN', message: `"${account}" looks like an IBAN but its check digits do not match, so a character is wrong or missing` });
  }
  if (issues.length > 0) return { details: null, issues };
  return { details: { name, accountNumber: account, operatorCode, emailAddress, referenceDefault: reference || null }, issues };
}

export const detailsOf = (v: PayeeDetails): PayeeDetails => ({
  name: v.name, accountNumber: v.accountNumber, operatorCode: v.operatorCode, emailAddress: v.emailAddress, referenceDefault: v.referenceDefault,
});

export const sameDetails = (a: PayeeDetails, b: PayeeDetails): boolean => canonicalJson(detailsOf(a)) === canonicalJson(detailsOf(b));

export const PAYEE_CHANGE_FORMAT = 'payout-desk/payee-change';

/**
 * The digest of a payee version as a change: profile, payee, version, the details before (the base
 * version's, null for a new payee) and after, who made it and when. Approvers sign this; a stored row
 * altered afterwards gives another digest, which voids their signatures.
 */
export function changeDigest(input: { profileId: string; payeeId: string; version: number; before: PayeeDetails | null; after: PayeeDetails; createdBy: string | null; createdAt: number }): string {
  return sha256Hex(Buffer.from(canonicalJson({
    format: PAYEE_CHANGE_FORMAT, version: 1, profileId: input.profileId, payeeId: input.payeeId, payeeVersion: input.version,
    before: input.before ? detailsOf(input.before) : null, after: detailsOf(input.after), createdBy: input.createdBy, createdAt: input.createdAt,
  }), 'utf8'));
}

/** A new version's keys (payeeKey: the same Unicode-aware key the journal matches payees by). */
export const keysOf = (d: Pick<PayeeDetails, 'name' | 'emailAddress'>) => ({ nameKey: payeeKey(d.name), emailKey: payeeKey(d.emailAddress) });
