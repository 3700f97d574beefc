// statements:accounts, setAccounts, accounting — a period's movements for the ledger (main/accounting/). A movement
// goes into one export only: the journal marks it exported atomically (exported_movements, never deleted) before the
// file is returned, and a later export of an overlapping period leaves it out and says by which export it went.
import { randomBytes } from 'node:crypto';
import type { AccountingExport, AccountingFormat, StatementQuery } from '../../contract/api';
import { accountingFile, accountingRowCount, XERO_MAX_ROWS } from '../accounting/files';
import { accountsFrom } from '../accounting/accounts';
import { postsToLedger } from '../accounting/journal-lines';
import { sha256Hex } from '../approvals/canonical';
import type { Profile } from '../profiles/profile-schema';
import { movementsOf } from '../statements/movements';
import { localDayText } from '../statements/words';
import type { CurrencyCache } from './currency-cache';
import { iso } from './convert';
import type { ProfileAreaService } from './profile-binding';
import type { DeskRuntime } from './runtime';
import { actedBy, changeAdmin } from './keys';
import { DeskError } from './services';

/** Clocks of desk and gateway differ a little: payments are asked for from a day before the period. */
const CLOCK_SLACK_MS = 86_400_000;
const EXTENSION: Record<AccountingFormat, string> = { generic: 'journal', xero: 'xero', quickbooks: 'quickbooks' };

/** Sortable by time and unique: "AX-" + base-36 milliseconds + random hex (QuickBooks keeps its last 6 characters). */
const newExportId = (now: number) => `AX-${now.toString(36)}-${randomBytes(4).toString('hex')}`;

type AccountingVerbs = Pick<ProfileAreaService<'statements'>, 'accounts' | 'setAccounts' | 'accounting'>;

export function accountingService(rt: DeskRuntime, currencies: CurrencyCache, now: () => number = Date.now): AccountingVerbs {
  async function periodMovements(profile: Profile, q: StatementQuery) {
    const from = Date.parse(q.from);
    const to = Date.parse(q.to);
    if (!(from < to)) throw new DeskError('INVALID_ARGUMENT', `The period must start before it ends (from ${q.from}, to ${q.to})`);
    const journal = await rt.journalFor(profile.id);
    const { movements } = movementsOf(await journal.statementPayments(from - CLOCK_SLACK_MS, Math.min(to, now())));
    const inPeriod = movements.filter((m) => m.at >= from && m.at < to && (q.currencyCode === undefined || m.currencyCode === q.currencyCode) && postsToLedger(m));
    return { journal, from, to, movements: inPeriod.sort((a, b) => a.at - b.at || (a.movementId < b.movementId ? -1 : a.movementId > b.movementId ? 1 : 0)) };
  }

  return {
    async accounts(profile) {
      return accountsFrom(await (await rt.journalFor(profile.id)).accountingAccounts());
    },

    async setAccounts(profile, accounts) {
      // Where every exported line posts: under dual control an admin's decision, as the SMTP server is.
      const admin = await changeAdmin(rt, profile.id, 'changing the accounts the accounting export posts to');
      const journal = await rt.journalFor(profile.id);
      const before = accountsFrom(await journal.accountingAccounts());
      await journal.setAccountingAccounts(JSON.stringify(accounts), now());
      const changed = Object.fromEntries(Object.entries(accounts).filter(([k, v]) => before[k as keyof typeof before] !== v).map(([k, v]) => [k, { from: before[k as keyof typeof before], to: v }]));
      await rt.audit(profile.id, { action: 'accounting.accounts-set', subject: profile.id, details: { changed, ...actedBy(admin) } });
      return accountsFrom(await journal.accountingAccounts());
    },

    async accounting(profile, { format, ...q }): Promise<AccountingExport> {
      if (format !== 'generic' && q.currencyCode === undefined) {
        throw new DeskError('INVALID_ARGUMENT', `A ${format === 'xero' ? 'Xero' : 'QuickBooks'} journal holds one currency: choose the currency to export`);
      }
      const { journal, from, to, movements } = await periodMovements(profile, q);
      const accounts = accountsFrom(await journal.accountingAccounts());
      const decimalsOf = currencies.decimalsOf(profile.id);
      const ids = movements.map((m) => m.movementId);
      const before = await journal.exportedMovements(ids);
      const done = new Set(before.map((e) => e.movementId));
      const fresh = movements.filter((m) => !done.has(m.movementId));
      const byExport = new Map<string, { exportId: string; at: number; movements: number }>();
      for (const e of before) {
        const x = byExport.get(e.exportId) ?? { exportId: e.exportId, at: e.exportedAt, movements: 0 };
        x.movements += 1;
        byExport.set(e.exportId, x);
      }
      const exportedBefore = [...byExport.values()].sort((a, b) => a.at - b.at).map((x) => ({ exportId: x.exportId, exportedAt: iso(x.at), movements: x.movements }));
      const period = `${localDayText(from)} to ${localDayText(to - 1)}`;
      if (fresh.length === 0) {
        const where = exportedBefore.length ? `: ${exportedBefore.map((e) => `${e.movements} in ${e.exportId} (${e.exportedAt})`).join(', ')}` : '';
        throw new DeskError('NOTHING_TO_EXPORT', movements.length === 0 ? `No money moved ${q.currencyCode ? `in ${q.currencyCode} ` : ''}from ${period}` : `Every movement from ${period} was exported before${where}`);
      }
      // Checked before anything is marked exported, so a refused file leaves every movement to the next export.
      const rows = accountingRowCount({ format, movements: fresh, accounts, decimalsOf });
      if (format === 'xero' && rows > XERO_MAX_ROWS) {
        throw new DeskError('TOO_MANY_ROWS', `Xero imports at most ${XERO_MAX_ROWS} journal rows a file, and ${period} makes ${rows}: export a shorter period`);
      }
      const at = now();
      const exportId = newExportId(at);
      const claimed = new Set(await journal.claimExportedMovements(exportId, fresh.map((m) => m.movementId), at));
      // Another desk of the team may have exported some of them a moment ago: only what this export marked goes in.
      const mine = fresh.filter((m) => claimed.has(m.movementId));
      const content = accountingFile({ format, movements: mine, accounts, decimalsOf, exportId });
      const fileName = `accounting-${localDayText(from)}-${localDayText(to - 1)}${q.currencyCode ? `-${q.currencyCode}` : ''}-${exportId}.${EXTENSION[format]}.csv`;
      const sha256 = sha256Hex(Buffer.from(content, 'utf8'));
      await rt.audit(profile.id, {
        action: 'accounting.exported',
        subject: exportId,
        details: { format, from: q.from, to: q.to, currencyCode: q.currencyCode ?? null, movements: mine.length, leftOut: before.length + fresh.length - mine.length, fileName, sha256 },
      });
      return { fileName, mimeType: 'text/csv', content, exportId, movements: mine.length, rows: accountingRowCount({ format, movements: mine, accounts, decimalsOf }), exportedBefore };
    },
  };
}
