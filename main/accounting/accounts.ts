// The accounts an accounting export posts to, one set per profile's journal (a team shares its set): each movement
// of the gateway balance becomes a debit and a credit between the clearing account (the merchant's money at the
// gateway) and the account of what moved. Xero wants account codes, QuickBooks account names: the user types
// whichever their tool uses. The defaults are names, so a first export works and shows where each line goes.
import { z } from 'zod';
import type { AccountingAccounts } from '../../contract/api';

export const DEFAULT_ACCOUNTS: AccountingAccounts = {
  clearing: 'Payment gateway clearing',
  payouts: 'Payouts',
  fees: 'Payment fees',
  returns: 'Payouts',
  payins: 'Payins received',
  taxRate: 'Tax Exempt',
};

const account = z.string().trim().min(1, 'is required').max(100, 'at most 100 characters');

export const AccountingAccountsSchema = z.strictObject({
  clearing: account,
  payouts: account,
  fees: account,
  returns: account,
  payins: account,
  /** Xero's TaxRate column: the tax rate's name as in the organisation's settings. */
  taxRate: account,
});

/** The stored set, or the defaults; a stored set a later version no longer reads falls back field by field. */
export function accountsFrom(json: string | null): AccountingAccounts {
  if (!json) return { ...DEFAULT_ACCOUNTS };
  try {
    const stored = JSON.parse(json) as Record<string, unknown>;
    const merged = { ...DEFAULT_ACCOUNTS, ...Object.fromEntries(Object.entries(stored).filter(([k, v]) => k in DEFAULT_ACCOUNTS && typeof v === 'string')) };
    return AccountingAccountsSchema.parse(merged);
  } catch {
    return { ...DEFAULT_ACCOUNTS };
  }
}
