// Closing a period through the desk's IPC handlers against the sandbox, on a single desk's SQLite journal and on a
// team database: a closed period's statement is issued with its digest and later reads say which figures moved; an
// accounting export never carries a movement an earlier export of an overlapping period carried; a changed row of an
// issued statement shows. Both back ends run the same steps.
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import pg from 'pg';
import type { AccountingExport, PaymentDetail, StatementView } from '../../../contract/api';
import { startSandbox, type SandboxHandle } from '../../../sandbox/index';
import { sandboxConfig } from '../engine/setup';
import { freshDatabase } from './cluster';
import { eventually, openTeamAppDesk, TEAM_PROFILE, type TeamAppDesk } from './team-app-desk';

let sandbox: SandboxHandle;
let desk: TeamAppDesk | undefined;

beforeEach(async () => {
  sandbox = await startSandbox(sandboxConfig());
});
afterEach(async () => {
  await desk?.close();
  desk = undefined;
  await sandbox.close();
});

const DAY = 86_400_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function pay(d: TeamAppDesk, idPayout: string, amount: string): Promise<PaymentDetail> {
  await d.call('payouts:create', { idPayout, amount, currencyCode: 'EUR', accountName: `Payee ${idPayout}`, accountNumber: 'DE89370400440532013000', paymentOperatorCode: 'EU_SEPA', emailAddress: `${idPayout}@example.com` });
  await eventually(async () => (await d.call<PaymentDetail>('payouts:get', { idPayout })).final, `${idPayout} final`);
  return d.call<PaymentDetail>('payouts:get', { idPayout });
}

/** Line ids of a generic export's rows. */
const lineIds = (file: AccountingExport) => file.content.trim().split(/\r?\n/).slice(1).map((row) => row.split(',')[0]!);

describe.each(['sqlite', 'postgres'] as const)('closing a period on %s', (backEnd) => {
  async function open(name: string): Promise<{ d: TeamAppDesk; teamUrl: string | null }> {
    const teamUrl = backEnd === 'postgres' ? await freshDatabase(inject('postgresUrl')) : null;
    desk = await openTeamAppDesk({ name: `${name}-${backEnd}`, teamUrl, gatewayUrl: sandbox.url, senderOf: sandbox });
    return { d: desk, teamUrl };
  }

  it('issues a closed period with its digest, and a later balance read nearer its end shows as changed since issued', async () => {
    const { d, teamUrl } = await open('issue');
    const from = Date.now();
    await pay(d, 'cl-paid-1', '120.00');
    await d.call('balances:refresh');
    // The period ends a second after that read; the statement is issued once it has ended.
    const to = Date.now() + 1_000;
    const period = { from: new Date(from).toISOString(), to: new Date(to).toISOString(), currencyCode: 'EUR' };
    expect((await d.fails('statements:issue', period)).code).toBe('PERIOD_OPEN');
    await sleep(to - Date.now() + 5);

    const issued = await d.call<StatementView>('statements:issue', period);
    expect(issued.issued).toMatchObject({ intact: true, changes: [] });
    expect(issued.issued!.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(issued.currencies[0]).toMatchObject({ paid: { count: 1, amount: { amount: '120.00' } }, closing: { source: 'read' } });
    expect((await d.call<StatementView>('statements:get', period)).issued).toMatchObject({ digest: issued.issued!.digest, changes: [] });

    // A read just after the end is nearer to it than the one a second before: the closing balance moves to it.
    await d.call('balances:refresh');
    const later = await d.call<StatementView>('statements:get', period);
    expect(later.issued!.changes.map((c) => c.figure)).toContain('EUR closing read at');
    expect(later.issued!.changes.find((c) => c.figure === 'EUR closing read at')).toMatchObject({ issued: issued.currencies[0]!.closing!.observedAt, now: later.currencies[0]!.closing!.observedAt });

    // Issued again, it holds; the statement of the whole profile (no currency) is a scope of its own, not issued.
    const again = await d.call<StatementView>('statements:issue', period);
    expect(again.issued!.changes).toEqual([]);
    expect((await d.call<StatementView>('statements:get', { from: period.from, to: period.to })).issued).toBeNull();

    // An export of a closed period not issued yet issues it: what is handed on is on record.
    const wider = { from: new Date(from - DAY).toISOString(), to: period.to, currencyCode: 'EUR' };
    await d.call('statements:export', { ...wider, format: 'csv' });
    expect((await d.call<StatementView>('statements:get', wider)).issued).toMatchObject({ intact: true, changes: [] });

    if (teamUrl) {
      // On the team database an issued statement cannot be rewritten by a desk's statements; its owner can switch the
      // trigger off, and the change then shows as a statement that no longer matches its digest.
      const client = new pg.Client({ connectionString: teamUrl });
      await client.connect();
      try {
        await expect(client.query(`UPDATE issued_statements SET figures_json = replace(figures_json, '120.00', '12.00')`)).rejects.toThrow(/never changed/);
        await client.query('ALTER TABLE issued_statements DISABLE TRIGGER issued_statements_no_change');
        await client.query(`UPDATE issued_statements SET figures_json = replace(figures_json, '120.00', '12.00')`);
      } finally {
        await client.end();
      }
      const tampered = await d.call<StatementView>('statements:get', period);
      expect(tampered.issued).toMatchObject({ intact: false });
      expect(tampered.issued!.changes).toContainEqual({ figure: 'EUR payouts paid amount', issued: '12.00', now: '120.00' });
    }
  });

  it('exports each movement once across overlapping periods, says which were exported before, and posts to the accounts set', async () => {
    const { d } = await open('accounting');
    const start = Date.now();
    const paid = [await pay(d, 'ax-1', '10.00'), await pay(d, 'ax-2', '20.50')];
    expect(paid.map((p) => p.status)).toEqual(['SUCCESS', 'SUCCESS']);
    const first = await d.call<AccountingExport>('statements:accounting', { from: new Date(start - DAY).toISOString(), to: new Date(Date.now() + DAY).toISOString(), format: 'generic' });
    // A paid payout and its fee, each a debit and a credit.
    expect(first).toMatchObject({ movements: 4, rows: 8, exportedBefore: [] });
    expect(lineIds(first).sort()).toEqual(['ax-1', 'ax-2'].flatMap((id) => [`payout:${id}:fee:cr`, `payout:${id}:fee:dr`, `payout:${id}:paid:cr`, `payout:${id}:paid:dr`]).sort());

    await d.call('statements:setAccounts', { clearing: '1010', payouts: '6000', fees: '6100', returns: '6000', payins: '4000', taxRate: 'No VAT' });
    expect(await d.call('statements:accounts')).toMatchObject({ clearing: '1010', taxRate: 'No VAT' });
    await pay(d, 'ax-3', '5.25');
    // An overlapping period: only the new payout and its fee, and the first export named for the rest.
    const second = await d.call<AccountingExport>('statements:accounting', { from: new Date(start - 2 * DAY).toISOString(), to: new Date(Date.now() + 2 * DAY).toISOString(), currencyCode: 'EUR', format: 'xero' });
    expect(second).toMatchObject({ movements: 2, exportedBefore: [{ exportId: first.exportId, movements: 4 }] });
    const rows = second.content.trim().split(/\r?\n/).slice(1).map((r) => r.split(','));
    // One journal for the day: the payout and its fee, debits positive and credits negative, balanced to the cent.
    expect(rows.map((r) => [r[3], r[4]])).toEqual([['6000', 'No VAT'], ['1010', 'No VAT'], ['6100', 'No VAT'], ['1010', 'No VAT']]);
    expect(rows.slice(0, 2).map((r) => r[5])).toEqual(['5.25', '-5.25']);
    expect(rows.reduce((t, r) => t + Number(r[5]!.replace('.', '')), 0)).toBe(0);

    const third = await d.fails('statements:accounting', { from: new Date(start - DAY).toISOString(), to: new Date(Date.now() + DAY).toISOString(), format: 'generic' });
    expect(third).toMatchObject({ code: 'NOTHING_TO_EXPORT' });
    expect(third.message).toContain(first.exportId);
    expect((await d.fails('statements:accounting', { from: new Date(start).toISOString(), to: new Date(Date.now() + DAY).toISOString(), format: 'quickbooks' })).code).toBe('INVALID_ARGUMENT');
    const audit = await (await d.runtime.journalFor(TEAM_PROFILE)).listAudit(50);
    expect(audit.filter((e) => e.action === 'accounting.exported').map((e) => e.subject).sort()).toEqual([first.exportId, second.exportId].sort());
  });

  it('gives every movement to exactly one of two exports made at once', async () => {
    const { d } = await open('race');
    const start = Date.now();
    for (const [i, amount] of ['1.00', '2.00', '3.00'].entries()) await pay(d, `race-${i}`, amount);
    const period = { from: new Date(start - DAY).toISOString(), to: new Date(Date.now() + DAY).toISOString(), format: 'generic' as const };
    const results = await Promise.allSettled([d.call<AccountingExport>('statements:accounting', period), d.call<AccountingExport>('statements:accounting', period)]);
    const files = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
    const ids = files.flatMap(lineIds);
    expect(ids.length).toBe(12);
    expect(new Set(ids).size).toBe(12);
  });
});
