// Which rows of a payout or batch go to a new payee or to changed bank details: what the policy's
// newOrChangedPayee rule counts, and what an approver is shown. Payees are matched by payeeKey (the
// journal's Unicode-aware key: ÉLODIE = élodie, NFC = NFD), by name first, else by e-mail:
// - changed: the payee book holds the payee (in force) with another account number or operator; or,
//   for a payee not in the book, every account it was paid to before differs from this row's (the
//   CSV import's "bank details changed" warning, now counted toward the policy);
// - new: otherwise, when it was never paid before (a payee saved in the book but never paid is new on
//   its first payout: saving details is not paying them);
// - known: anything else (not flagged).
// "Paid before" leaves out the rows being checked, so a batch resumed after some rows went is judged as
// when it was first checked.
import { compactIban } from '../domain/iban';
import { payeeKey } from '../domain/payee-key';
import { sameAccount, sameBankDetails, stateOf, type PayeeVersion } from './payee';
import type { PaidAccount, PayeeRepository } from './repository';

/** A row as the manifest holds it (ManifestRow's payee fields). */
export interface PayeeRow {
  id: string;
  payeeName: string;
  account: string;
  operator: string;
  email: string;
}

export interface PayeeFlag {
  rowId: string;
  flag: 'new' | 'changed';
  /** Why, in words for the approver (account numbers shown by their last four characters). */
  reason: string;
  /** The payee book's payee it matched, if any. */
  payeeId: string | null;
}

/** "…4300": enough to tell two accounts apart without showing the number. */
export function maskAccount(accountNumber: string): string {
  const key = compactIban(accountNumber.trim());
  return key.length > 4 ? `…${key.slice(-4)}` : key;
}

const ROWS_PER_TURN = 2000;

export async function flagPayeeRows(repo: PayeeRepository, rows: readonly PayeeRow[]): Promise<PayeeFlag[]> {
  if (rows.length === 0) return [];
  const keyed = rows.map((r) => ({ row: r, nameKey: payeeKey(r.payeeName), emailKey: payeeKey(r.email) }));
  const nameKeys = [...new Set(keyed.map((k) => k.nameKey).filter(Boolean))];
  const emailKeys = [...new Set(keyed.map((k) => k.emailKey).filter(Boolean))];
  const [open, paid] = await Promise.all([repo.openByKeys(nameKeys, emailKeys), repo.paidBefore(nameKeys, emailKeys, rows.map((r) => r.id))]);
  // Maps by key: a 100,000-row batch against as many earlier payouts must not compare every row with every one.
  const bookByName = new Map<string, PayeeVersion>();
  const bookByEmail = new Map<string, PayeeVersion>();
  for (const v of open) {
    if (stateOf(v) !== 'in force') continue;
    if (!bookByName.has(v.nameKey)) bookByName.set(v.nameKey, v);
    if (v.emailKey && !bookByEmail.has(v.emailKey)) bookByEmail.set(v.emailKey, v);
  }
  const paidByName = new Map<string, PaidAccount[]>();
  const paidByEmail = new Map<string, PaidAccount[]>();
  const remember = (map: Map<string, PaidAccount[]>, key: string, p: PaidAccount) => {
    if (!key) return;
    const list = map.get(key);
    if (list) list.push(p);
    else map.set(key, [p]);
  };
  for (const p of paid) {
    remember(paidByName, p.nameKey, p);
    remember(paidByEmail, p.emailKey, p);
  }
  const flags: PayeeFlag[] = [];
  let done = 0;
  for (const { row, nameKey, emailKey } of keyed) {
    // The gate runs in the app's main process: a turn for the event loop every ROWS_PER_TURN rows.
    if (++done % ROWS_PER_TURN === 0) await new Promise<void>((resolve) => setImmediate(resolve));
    const saved = bookByName.get(nameKey) ?? (emailKey ? bookByEmail.get(emailKey) : undefined);
    const before = [...new Set([...(paidByName.get(nameKey) ?? []), ...(emailKey ? (paidByEmail.get(emailKey) ?? []) : [])])];
    const rowDetails = { accountNumber: row.account, operatorCode: row.operator };
    if (saved && !sameBankDetails(saved, rowDetails)) {
      flags.push({
        rowId: row.id, flag: 'changed', payeeId: saved.payeeId,
        reason: `bank details changed: the payee book holds ${saved.name} with account ${maskAccount(saved.accountNumber)} (${saved.operatorCode}); this row pays ${maskAccount(row.account)} (${row.operator})`,
      });
    } else if (!saved && before.length > 0 && !before.some((p) => sameAccount(p.accountNumber, row.account))) {
      const earlier = [...new Set(before.map((p) => maskAccount(p.accountNumber)))].join(', ');
      flags.push({ rowId: row.id, flag: 'changed', payeeId: null, reason: `bank details changed: ${row.payeeName} <${row.email}> was paid to ${earlier} before; this row pays ${maskAccount(row.account)}` });
    } else if (before.length === 0) {
      flags.push({
        rowId: row.id, flag: 'new', payeeId: saved?.payeeId ?? null,
        reason: saved ? `new payee: first payout to ${saved.name} (saved in the payee book, never paid)` : `new payee: ${row.payeeName} is not in the payee book and was never paid`,
      });
    }
  }
  return flags;
}

/** The approval gate's newOrChangedPayees hook (journalApprovalGate): how many rows of the manifest are flagged. */
export const newOrChangedPayeeCount = (repo: PayeeRepository) => async (manifest: { rows: readonly PayeeRow[] }): Promise<number> => (await flagPayeeRows(repo, manifest.rows)).length;
