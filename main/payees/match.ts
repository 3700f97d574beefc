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
// when it was first checked. With dual control on (a BookReading given), "the payee book holds" means a
// version in force that holds when read (book.ts); one that does not is as if the payee were not in the book.
import { payeeKey } from '../domain/payee-key';
import { PaidIndex, readBook, versionKey, type BookReading } from './book';
import { maskAccount, sameAccount, sameBankDetails, stateOf, type PayeeVersion } from './payee';
import type { PayeeRepository } from './repository';

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

export { maskAccount };

const ROWS_PER_TURN = 2000;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The versions in force among `open` that count: all of them, or with a BookReading those that hold when read. */
async function inForceThatHold(repo: PayeeRepository, open: readonly PayeeVersion[], paid: PaidIndex, rows: { nameKeys: ReadonlySet<string>; emailKeys: ReadonlySet<string>; ids: ReadonlySet<string> }, book?: BookReading): Promise<PayeeVersion[]> {
  const inForce = open.filter((v) => stateOf(v) === 'in force');
  if (!book || inForce.length === 0) return inForce;
  const control = await book.control();
  if (!control.enforced) return inForce;
  // A version found by its e-mail may carry a name no row has (and the other way round): what those were paid too.
  const names = [...new Set(inForce.map((v) => v.nameKey).filter((k) => k && !rows.nameKeys.has(k)))];
  const emails = [...new Set(inForce.map((v) => v.emailKey).filter((k) => k && !rows.emailKeys.has(k)))];
  // Only payouts under keys no row has, or ones the rows' keys found already: the rows' own lookups stay as they were.
  if (names.length > 0 || emails.length > 0) paid.add(await repo.paidBefore(names, emails, rows.ids));
  const standings = await readBook(repo, book, inForce, { paid, control });
  return inForce.filter((v) => standings.get(versionKey(v))?.holds === true);
}

export async function flagPayeeRows(repo: PayeeRepository, rows: readonly PayeeRow[], book?: BookReading): Promise<PayeeFlag[]> {
  if (rows.length === 0) return [];
  // The gate runs in the app's main process: every loop over the rows (or what they were paid) takes a turn of
  // the event loop every ROWS_PER_TURN items, between slices only (a check that fits in one slice never waits
  // for a turn, nor for a test's fake clock). The keys go to the repository as the sets built here: hashing
  // 100,000 keys again there would cost as much as building them.
  const nameKeyOf: string[] = [];
  const emailKeyOf: string[] = [];
  const nameKeys = new Set<string>();
  const emailKeys = new Set<string>();
  const ids = new Set<string>();
  for (let i = 0; i < rows.length; i++) {
    if (i > 0 && i % ROWS_PER_TURN === 0) await nextTurn();
    const row = rows[i]!;
    const nameKey = payeeKey(row.payeeName);
    const emailKey = payeeKey(row.email);
    nameKeyOf.push(nameKey);
    emailKeyOf.push(emailKey);
    if (nameKey) nameKeys.add(nameKey);
    if (emailKey) emailKeys.add(emailKey);
    ids.add(row.id);
  }
  const [open, paid] = await Promise.all([repo.openByKeys(nameKeys, emailKeys), repo.paidBefore(nameKeys, emailKeys, ids)]);
  // Indexed by key: a 100,000-row batch against as many earlier payouts must not compare every row with every one.
  const paidIndex = new PaidIndex([]);
  for (let i = 0; i < paid.length; i += ROWS_PER_TURN) {
    if (i > 0) await nextTurn();
    paidIndex.add(paid.slice(i, i + ROWS_PER_TURN));
  }
  const inForce = await inForceThatHold(repo, open, paidIndex, { nameKeys, emailKeys, ids }, book);
  const bookByName = new Map<string, PayeeVersion>();
  const bookByEmail = new Map<string, PayeeVersion>();
  for (const v of inForce) {
    if (!bookByName.has(v.nameKey)) bookByName.set(v.nameKey, v);
    if (v.emailKey && !bookByEmail.has(v.emailKey)) bookByEmail.set(v.emailKey, v);
  }
  const flags: PayeeFlag[] = [];
  for (let i = 0; i < rows.length; i++) {
    if (i > 0 && i % ROWS_PER_TURN === 0) await nextTurn();
    const row = rows[i]!;
    const nameKey = nameKeyOf[i]!;
    const emailKey = emailKeyOf[i]!;
    const saved = bookByName.get(nameKey) ?? (emailKey ? bookByEmail.get(emailKey) : undefined);
    const before = paidIndex.of(nameKey, emailKey);
    if (saved && !sameBankDetails(saved, { accountNumber: row.account, operatorCode: row.operator })) {
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

/**
 * The approval gate's newOrChangedPayees hook (journalApprovalGate): how many rows of the manifest are flagged.
 * With `book`, the book in force is what holds when read under the control state (book.ts).
 */
export const newOrChangedPayeeCount = (repo: PayeeRepository, book?: BookReading) => async (manifest: { rows: readonly PayeeRow[] }): Promise<number> =>
  (await flagPayeeRows(repo, manifest.rows, book)).length;
