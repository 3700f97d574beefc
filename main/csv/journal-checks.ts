// Checks against what the desk has already paid: ids the journal holds (errors), beneficiaries whose account
// number differs from the one used before (warnings: the classic sign of invoice fraud), and rows like a recent
// payout to the same account, amount and currency from another file or entry (warnings: the classic double
// payment of accounts payable, last week's invoice in this week's run).
import { payeeKey } from '../domain/payee-key';
import type { LikePayoutKey } from '../journal/port';
import { accountKey } from './account-number';
import { DAY_MS, earliestLikePayouts, lastDigits, likeKey, possibleDuplicateText } from './like-payouts';
import { TimeSlicer } from './time-slice';
import type { CsvIssue, CsvJournalLookup, CsvValidRow } from './types';

const LOOKUP_BATCH = 2000;

export interface JournalCheckOutcome {
  rows: CsvValidRow[];
  errors: CsvIssue[];
  warnings: CsvIssue[];
}

// Unicode-aware (ÉLODIE = élodie, NFC = NFD), the same key the journal indexes payees by.
const personKey = payeeKey;

export async function checkAgainstJournal(
  rows: CsvValidRow[],
  journal: CsvJournalLookup,
  columnOf: (field: 'idPayout' | 'accountNumber') => string,
  yieldNow: () => Promise<void>,
  options: { repeatWindowDays?: number; now?: number; fileSha256?: string } = {},
): Promise<JournalCheckOutcome> {
  const errors: CsvIssue[] = [];
  const warnings: CsvIssue[] = [];
  // Every loop below runs over up to 100,000 rows: in time slices, so the event loop keeps turning.
  const slicer = new TimeSlicer(yieldNow);

  // 1. Ids the file brought with it must be new to the journal (generated ids are fresh UUIDs).
  const given: string[] = [];
  for (const row of rows) {
    if (!row.idGenerated) given.push(row.payout.idPayout);
    if (slicer.due()) await slicer.pause();
  }
  const existing = new Set<string>();
  for (let i = 0; i < given.length; i += LOOKUP_BATCH) {
    for (const id of await journal.existingPayoutIds(given.slice(i, i + LOOKUP_BATCH))) existing.add(id);
    await slicer.pause();
  }
  const kept: CsvValidRow[] = [];
  for (const row of rows) {
    if (!row.idGenerated && existing.has(row.payout.idPayout)) {
      errors.push({
        rowNumber: row.rowNumber,
        column: columnOf('idPayout'),
        code: 'ID_EXISTS',
        message: `idPayout "${row.payout.idPayout}" is already in the journal and an id is never reused; if this payout was already made, delete the row, otherwise leave the id empty to have a new one generated`,
      });
    } else {
      kept.push(row);
    }
    if (slicer.due()) await slicer.pause();
  }

  // 2. Known beneficiaries (same name or same e-mail) paid to another account before.
  const keys = new Map<string, { accountName: string; emailAddress: string }>();
  for (const { payout } of kept) {
    keys.set(`${personKey(payout.accountName)}\u0000${personKey(payout.emailAddress)}`, {
      accountName: payout.accountName,
      emailAddress: payout.emailAddress,
    });
    if (slicer.due()) await slicer.pause();
  }
  const byName = new Map<string, Set<string>>();
  const byEmail = new Map<string, Set<string>>();
  const remember = (map: Map<string, Set<string>>, key: string, account: string): void => {
    const set = map.get(key) ?? new Set<string>();
    set.add(account);
    map.set(key, set);
  };
  const keyList = [...keys.values()];
  for (let i = 0; i < keyList.length; i += LOOKUP_BATCH) {
    for (const known of await journal.knownBeneficiaryAccounts(keyList.slice(i, i + LOOKUP_BATCH))) {
      const account = accountKey(known.accountNumber);
      if (known.accountName) remember(byName, personKey(known.accountName), account);
      if (known.emailAddress) remember(byEmail, personKey(known.emailAddress), account);
    }
    await slicer.pause();
  }
  // Most beneficiaries are new to the journal: nothing to compare, so nothing is computed for them.
  if (byName.size > 0 || byEmail.size > 0) {
    for (const { payout, rowNumber } of kept) {
      const namedBefore = byName.get(personKey(payout.accountName));
      const mailedBefore = byEmail.get(personKey(payout.emailAddress));
      if (namedBefore || mailedBefore) {
        const account = accountKey(payout.accountNumber);
        const earlier = new Set([...(namedBefore ?? []), ...(mailedBefore ?? [])]);
        if (!earlier.has(account)) {
          const before = [...earlier].map(lastDigits).join(', ');
          warnings.push({
            rowNumber,
            column: columnOf('accountNumber'),
            code: 'BANK_DETAILS_CHANGED',
            message: `bank details changed: ${payout.accountName} <${payout.emailAddress}> was paid to account ${before} before, this row pays to ${lastDigits(payout.accountNumber)}; confirm the new details with the beneficiary through a known phone number before sending (changed bank details are a classic sign of invoice fraud)`,
          });
        }
      }
      if (slicer.due()) await slicer.pause();
    }
  }
  // 3. Rows like a payout of the last days: same account, amount and currency, paid or still on its way.
  const days = options.repeatWindowDays ?? 0;
  if (days > 0 && journal.earliestLikePayouts && kept.length > 0) {
    const since = (options.now ?? Date.now()) - days * DAY_MS;
    const keys: LikePayoutKey[] = [];
    for (const { payout } of kept) {
      keys.push({ accountNumber: payout.accountNumber, amountMinor: payout.amountMinor, currencyCode: payout.currencyCode });
      if (slicer.due()) await slicer.pause();
    }
    // An earlier submission of this very file: FILE_ALREADY_SUBMITTED says it once for every row.
    const earlier = await earliestLikePayouts(journal.earliestLikePayouts.bind(journal), keys, since, { fileSha256: options.fileSha256 ?? null }, () => slicer.pause());
    if (earlier.size > 0) {
      for (const [i, { payout, rowNumber }] of kept.entries()) {
        const like = earlier.get(likeKey(keys[i]!));
        if (like) {
          warnings.push({ rowNumber, column: null, code: 'POSSIBLE_DUPLICATE', message: possibleDuplicateText(like, `the same amount in ${payout.currencyCode}`, true) });
        }
        if (slicer.due()) await slicer.pause();
      }
    }
  }
  return { rows: kept, errors, warnings };
}
