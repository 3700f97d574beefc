// Every endpoint of the interface through the real client against the sandbox.
import axios from 'axios';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appOperations } from '../../../main/gateway/token-manager';
import { eventually, sandboxFixture, samplePayout, type SandboxFixture } from './sandbox-fixture';

let f: SandboxFixture;
beforeAll(async () => {
  f = await sandboxFixture({ config: { timings: { payoutPendingMs: 100, payoutProcessingMs: 200 } } });
});
afterAll(async () => f.close());

const client = () => f.ctx.gatewayFor(f.profileId);

describe('payouts', () => {
  it('creates a payout with an exact amount and follows it to SUCCESS with its fee', async () => {
    const created = await client().createPayout('int-payout-1', samplePayout);
    expect(created).toMatchObject({ idPayout: 'int-payout-1', amountMinor: 125050, currencyCode: 'EUR', paymentMethodCode: 'BANK_TRANSFER' });
    expect(f.sandbox.state().payouts.find((p) => p.idPayout === 'int-payout-1')?.amountMinor).toBe(125050);
    const final = await eventually(() => client().getPayout('int-payout-1'), (s) => s.status === 'SUCCESS');
    expect(final).toMatchObject({ status: 'SUCCESS', amountMinor: 125050, currencyCode: 'EUR', isTest: true });
    expect(final.feeMinor).toBe(f.sandbox.state().payouts.find((p) => p.idPayout === 'int-payout-1')?.feeMinor);
    expect(final.processedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('keeps three-decimal and zero-decimal currencies exact both ways', async () => {
    await client().createPayout('int-kwd', { ...samplePayout, amountMinor: 1234, currencyCode: 'KWD', paymentOperatorCode: 'KW_KNET' });
    await client().createPayout('int-jpy', { ...samplePayout, amountMinor: 5000, currencyCode: 'JPY', paymentOperatorCode: 'JP_ZENGIN' });
    const state = f.sandbox.state().payouts;
    expect(state.find((p) => p.idPayout === 'int-kwd')).toMatchObject({ amountMinor: 1234, currencyCode: 'KWD' });
    expect(state.find((p) => p.idPayout === 'int-jpy')).toMatchObject({ amountMinor: 5000, currencyCode: 'JPY' });
    expect((await client().getPayout('int-kwd')).amountMinor).toBe(1234);
  });

  it('reports a failed payout with its reason', async () => {
    await client().createPayout('int-fail', { ...samplePayout, accountNumber: 'DE00000000000000000000' });
    const final = await eventually(() => client().getPayout('int-fail'), (s) => s.status === 'FAILED');
    expect(final).toMatchObject({ status: 'FAILED', failureReason: 'ACCOUNT_REJECTED' });
  });
});

describe('payins', () => {
  it('lists payment options for an amount', async () => {
    const options = await client().paymentOptions({ amountMinor: 1000, currencyCode: 'EUR' });
    expect(options).toEqual([{ paymentMethodCode: 'VAPAY', operators: [{ code: 'VAPAY_EU', name: 'VaPay Europe' }] }]);
  });

  it('creates a payin, reads it, reads account data before and after payment', async () => {
    const created = await client().createPayin('int-payin-1', {
      ...samplePayout,
      amountMinor: 4999,
      paymentMethodCode: 'VAPAY',
      paymentOperatorCode: 'VAPAY_EU',
      returnUrl: 'https://shop.example.com/back',
    });
    expect(created).toMatchObject({ idPayin: 'int-payin-1', amountMinor: 4999, currencyCode: 'EUR', returnUrl: 'https://shop.example.com/back' });
    expect(created.reference).toBeTruthy();
    expect(created.expireAt).toMatch(/Z$/);
    const before = await client().getPayinAccountData('int-payin-1');
    expect(before.request).not.toBeNull();
    expect(before.process).toBeNull();
    f.sandbox.markPayinPaid('int-payin-1');
    const paid = await eventually(() => client().getPayin('int-payin-1'), (p) => p.status === 'SUCCESS');
    expect(paid).toMatchObject({ idPayin: 'int-payin-1', status: 'SUCCESS', amountMinor: 4999 });
    const after = await client().getPayinAccountData('int-payin-1');
    expect(after.process).not.toBeNull();
  });

  it('issues a one-payin token that reads that payin only', async () => {
    const t = await client().createPayinToken({ action: 'PAYIN_INFO', idPayin: 'int-payin-1', validitySecs: 120 });
    expect(t.claims).toMatchObject({ sub: 'DEMO-MERCHANT', idPayment: 'int-payin-1' });
    const http = axios.create({ baseURL: f.sandbox.url, validateStatus: () => true, headers: { 'X-API-Version': '2', Authorization: `Bearer ${t.token}` } });
    // These reads go round the desk's limiter, so the merchant's budget may be spent by the tests before: wait as told.
    const status = async (path: string): Promise<number> => {
      for (;;) {
        const answer = await http.get(path);
        if (answer.status !== 429) return answer.status;
        await new Promise((resolve) => setTimeout(resolve, Number(answer.headers['x-retry-after-ms'] ?? 100)));
      }
    };
    expect(await status('/payins/int-payin-1')).toBe(200);
    expect(await status('/payouts/int-payout-1')).toBe(403);
  });
});

describe('merchant, balances, code lists, token claims', () => {
  it('reads merchant info, balances (unknown codes ignored), currencies and operators', async () => {
    expect((await client().merchantInfo()).channelName).toBe('Demo Store');
    const balances = await client().balances(['KWD', 'XXX', 'JPY']);
    expect(balances.map((b) => b.currencyCode)).toEqual(['KWD', 'JPY']);
    const state = f.sandbox.state().balances['DEMO-MERCHANT']!;
    expect(balances[0]).toEqual({ currencyCode: 'KWD', availableMinor: state.KWD!.availableMinor, reservedMinor: state.KWD!.reservedMinor });
    expect(await client().currencies()).toContainEqual({ code: 'KWD', name: 'Kuwaiti Dinar', decimals: 3 });
    expect(await client().paymentOperators()).toContainEqual({ code: 'EU_SEPA', name: 'SEPA Credit Transfer', paymentMethodCode: 'BANK_TRANSFER', currencyCodes: ['EUR'] });
  });

  it('holds a token with exactly the app operations', async () => {
    const claims = await client().decodedTokenClaims();
    expect(claims).toMatchObject({ sub: 'DEMO-MERCHANT', ops: appOperations('/payins/{idPayin}/account-data') });
  });

  it('still reads everything when the sandbox adds unknown properties and reorders them', async () => {
    f.sandbox.setFaults({ extraProperties: true, reorderProperties: true });
    try {
      expect((await client().getPayout('int-payout-1')).status).toBe('SUCCESS');
      expect((await client().merchantInfo()).channelName).toBe('Demo Store');
      expect((await client().balances(['EUR']))[0]?.currencyCode).toBe('EUR');
      expect((await client().getPayin('int-payin-1')).status).toBe('SUCCESS');
    } finally {
      f.sandbox.setFaults({ extraProperties: false, reorderProperties: false });
    }
  });
});
