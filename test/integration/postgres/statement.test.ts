// A period statement through the desk's IPC handlers against the sandbox, on a single desk's SQLite journal and on
// a team database: payouts paid, one failed, an earlier payout returned in the period, a payin, fees; it reconciles
// with the sandbox's own balance to the minor unit, and a top-up the desk knows nothing of is named unexplained.
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import type { FileContent, PaymentDetail, PayinView, PaymentOptionView, StatementView } from '../../../contract/api';
import { startSandbox, type SandboxHandle } from '../../../sandbox/index';
import { sandboxConfig } from '../engine/setup';
import { freshDatabase } from './cluster';
import { eventually, openTeamAppDesk, TEAM_MERCHANT, TEAM_PROFILE, type TeamAppDesk } from './team-app-desk';

let sandbox: SandboxHandle;
let desk: TeamAppDesk | undefined;

beforeEach(async () => {
  // A sandbox of its own: the merchant's balance moves only by this test's payments.
  sandbox = await startSandbox(sandboxConfig());
});
afterEach(async () => {
  await desk?.close();
  desk = undefined;
  await sandbox.close();
});

const DAY = 86_400_000;

async function pay(d: TeamAppDesk, idPayout: string, amount: string, accountNumber = 'DE89370400440532013000'): Promise<PaymentDetail> {
  await d.call('payouts:create', { idPayout, amount, currencyCode: 'EUR', accountName: `Payee ${idPayout}`, accountNumber, paymentOperatorCode: 'EU_SEPA', emailAddress: `${idPayout}@example.com` });
  await eventually(async () => (await d.call<PaymentDetail>('payouts:get', { idPayout })).final, `${idPayout} final`);
  return d.call<PaymentDetail>('payouts:get', { idPayout });
}

/** The sandbox's own EUR balance for the merchant, as decimal strings. */
function gatewayEur(): { available: string; reserved: string } {
  const b = sandbox.state().balances[TEAM_MERCHANT]!['EUR']!;
  const text = (minor: number) => `${Math.trunc(minor / 100)}.${String(minor % 100).padStart(2, '0')}`;
  return { available: text(b.availableMinor), reserved: text(b.reservedMinor) };
}

describe.each(['sqlite', 'postgres'] as const)('a statement on %s', (backEnd) => {
  it('reconciles a period of payouts paid and failed, a return of an earlier payout, a payin and fees with the gateway, and names a top-up it cannot explain', async () => {
    desk = await openTeamAppDesk({ name: `statement-${backEnd}`, teamUrl: backEnd === 'postgres' ? await freshDatabase(inject('postgresUrl')) : null, gatewayUrl: sandbox.url, senderOf: sandbox });
    const d = desk;
    const engine = await d.runtime.engineFor(TEAM_PROFILE);
    // Paid before the period; it comes back in it.
    const earlier = await pay(d, 'st-earlier', '100.00');
    expect(earlier.status).toBe('SUCCESS');
    await d.call('balances:refresh');
    const from = Date.now() + 1;
    await new Promise((r) => setTimeout(r, 5));

    const paid = [await pay(d, 'st-paid-1', '250.00'), await pay(d, 'st-paid-2', '1000.50')];
    const failed = await pay(d, 'st-failed', '75.00', 'DE89370400440532010000');
    expect([...paid.map((p) => p.status), failed.status]).toEqual(['SUCCESS', 'SUCCESS', 'FAILED']);
    sandbox.returnPayout('st-earlier');
    expect((await engine.refreshPayment('payout', 'st-earlier')).status).toBe('RETURNED');
    const options = await d.call<PaymentOptionView[]>('payins:options', { money: { amount: '500.00', currencyCode: 'EUR' } });
    const operator = options.find((o) => o.paymentMethodCode === 'VAPAY')?.operators[0]?.code ?? '';
    const payin = await d.call<PayinView>('payins:create', { amount: '500.00', currencyCode: 'EUR', paymentOperatorCode: operator, accountName: 'Customer', accountNumber: '12345678', emailAddress: 'c@example.com' });
    await eventually(() => sandbox.state().payins.some((p) => p.idPayin === payin.idPayin), 'the payin at the gateway');
    sandbox.markPayinPaid(payin.idPayin);
    expect((await engine.refreshPayment('payin', payin.idPayin)).status).toBe('SUCCESS');

    // A period that has not ended: it closes on the gateway's balance, read now.
    const period = { from: new Date(from).toISOString(), to: new Date(Date.now() + DAY).toISOString(), currencyCode: 'EUR' };
    const view = await d.call<StatementView>('statements:get', period);
    expect(view.currencies.map((c) => c.currencyCode)).toEqual(['EUR']);
    const eur = view.currencies[0]!;
    const fees = paid.map((p) => p.fee!.amount);
    expect(eur).toMatchObject({
      paid: { count: 2, amount: { amount: '1250.50', currencyCode: 'EUR' } },
      failed: { count: 1, amount: { amount: '75.00' } },
      returned: { count: 1, amount: { amount: '100.00' } },
      payins: { count: 1, amount: { amount: '500.00' } },
      closing: { source: 'gateway', ...Object.fromEntries(Object.entries(gatewayEur()).map(([k, v]) => [k, { amount: v, currencyCode: 'EUR' }])) },
      difference: { amount: '0.00' },
      reconciled: true,
    });
    // The fees of what was paid in the period, to the cent (the failed payout charged none).
    const cents = (a: string) => Number(a.replace('.', ''));
    expect(cents(eur.fees.amount)).toBe(fees.reduce((t, f) => t + cents(f), 0));
    expect(eur.lines.filter((l) => l.amount !== null)).toEqual([]);

    // The same statement as a file, named by the local days of the period, with every movement.
    const day = (ms: number) => { const x = new Date(ms); return `${x.getFullYear()}-${String(x.getMonth() + 1).padStart(2, '0')}-${String(x.getDate()).padStart(2, '0')}`; };
    const csv = await d.call<FileContent>('statements:export', { ...period, format: 'csv' });
    expect(csv.fileName).toBe(`statement-team-payouts-${day(from)}-${day(Date.parse(period.to) - 1)}-EUR.csv`);
    for (const id of ['st-paid-1', 'st-paid-2', 'st-earlier', payin.idPayin]) expect(csv.content).toMatch(new RegExp(`^EUR,movement,[^\\r]*,${id}\\r?$`, 'm'));

    // Money the desk never moved: a top-up at the gateway.
    sandbox.fund(TEAM_MERCHANT, 'EUR', 1_234);
    const after = (await d.call<StatementView>('statements:get', period)).currencies[0]!;
    expect(after).toMatchObject({ reconciled: false, difference: { amount: '12.34' } });
    expect(after.lines.find((l) => l.kind === 'unexplained')).toMatchObject({ amount: { amount: '12.34', currencyCode: 'EUR' } });

    // A period before the first balance read and the first payment has nothing in it; one the wrong way round is refused.
    const before = await d.call<StatementView>('statements:get', { from: new Date(from - 2 * DAY).toISOString(), to: new Date(from - DAY).toISOString() });
    expect(before.currencies).toEqual([]);
    expect((await d.fails('statements:get', { from: period.to, to: period.from })).code).toBe('INVALID_ARGUMENT');
  });
});
