// Payins: payment options, create/get (spec §2 payin tables), paid/expired/failed, customer account data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MERCHANT, errorCode, payinBody, startWithClient, waitFor, type SandboxClient } from './helpers';

let client: SandboxClient;
let token: string;

beforeAll(async () => {
  client = await startWithClient({
    merchants: [{ code: MERCHANT, channelName: 'Demo Store', balancesMinor: { EUR: 0 } }],
    timings: { payoutPendingMs: 30, payoutProcessingMs: 30, payinExpiryMs: 60_000 },
  });
  token = await client.token();
});
afterAll(() => client.sandbox.close());

const payinState = (id: string) => client.sandbox.state().payins.find((p) => p.idPayin === id);
const pay = (id: string) => fetch(`${client.sandbox.url}/_sandbox/payins/${id}/pay`, { method: 'POST' });

describe('POST /payins/!availablePaymentOptions', () => {
  it('lists payin methods with the operators serving the currency', async () => {
    const response = await client.request('POST', '/payins/!availablePaymentOptions', {
      token,
      body: { amount: 42.1, currencyCode: 'EUR' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      data: [{ paymentMethodCode: 'VAPAY', paymentOperators: [{ code: 'VAPAY_EU', name: 'VaPay Europe' }] }],
    });
  });

  it('answers an empty list when no operator serves the currency, and 400 for bad money', async () => {
    const jpy = await client.request('POST', '/payins/!availablePaymentOptions', {
      token,
      body: { amount: 100, currencyCode: 'JPY' },
    });
    expect(jpy.body).toEqual({ data: [] });
    const bad = await client.request('POST', '/payins/!availablePaymentOptions', { token, body: { amount: 1 } });
    expect(bad.status).toBe(400);
  });
});

describe('POST and GET /payins/{idPayin}', () => {
  it('creates a payin: 201 with the response shape of the interface', async () => {
    const created = Date.now();
    const response = await client.request('POST', '/payins/pi-shape-1', { token, body: payinBody() });
    expect(response.status).toBe(201);
    const body = response.body as { paymentMethodResponse: Record<string, unknown> };
    expect(body).toMatchObject({
      paymentRequested: { money: { amount: 42.1, currencyCode: 'EUR' } },
      paymentMethodResponse: {
        idPayin: 'pi-shape-1',
        paymentMethodCode: 'VAPAY',
        account: { accountName: 'Demo Store', bankCode: 'VAPEU', bankName: 'VaPay Europe Bank' },
        money: { amount: 42.1, currencyCode: 'EUR' },
        returnUrl: 'https://shop.example.com/return',
      },
    });
    expect(body.paymentMethodResponse.reference).toEqual(expect.any(String));
    expect((body.paymentMethodResponse.account as { accountNumber: string }).accountNumber).toMatch(/^VA\d{12}$/);
    const expireAt = new Date(String(body.paymentMethodResponse.expireAt)).getTime();
    expect(String(body.paymentMethodResponse.expireAt)).toMatch(/\.\d{3}Z$/);
    expect(expireAt - created).toBeGreaterThanOrEqual(59_990);
    expect(expireAt - created).toBeLessThan(61_000);
  });

  it('GET returns the create response plus process.status PENDING', async () => {
    const response = await client.request('GET', '/payins/pi-shape-1', { token });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      paymentMethodResponse: { idPayin: 'pi-shape-1' },
      process: { status: 'PENDING', isTest: true },
    });
  });

  it('answers a repeated id with 409 and keeps the first payin', async () => {
    await client.request('POST', '/payins/pi-dup-1', { token, body: payinBody({ amount: 1 }) });
    const again = await client.request('POST', '/payins/pi-dup-1', { token, body: payinBody({ amount: 2 }) });
    expect(again.status).toBe(409);
    expect(errorCode(again)).toBe('DUPLICATE_ID');
    expect(payinState('pi-dup-1')?.amountMinor).toBe(100);
    expect(client.sandbox.state().createAttempts.payins['pi-dup-1']).toBe(2);
  });

  it('answers an unknown payin with 404 NOT_FOUND', async () => {
    const response = await client.request('GET', '/payins/pi-missing', { token });
    expect(response.status).toBe(404);
    expect(errorCode(response)).toBe('NOT_FOUND');
  });

  it('refuses a payout method on a payin with 400', async () => {
    const body = { ...payinBody(), paymentMethod: { ...payinBody().paymentMethod, paymentMethodCode: 'BANK_TRANSFER' } };
    const response = await client.request('POST', '/payins/pi-bad-1', { token, body });
    expect(response.status).toBe(400);
    expect(payinState('pi-bad-1')).toBeUndefined();
  });
});

describe('payin state machine', () => {
  it('PENDING → SUCCESS when paid (sandbox route): credits the balance and fills processedAt', async () => {
    await client.request('POST', '/payins/pi-paid-1', { token, body: payinBody({ amount: 42.1 }) });
    const paid = await pay('pi-paid-1');
    expect(paid.status).toBe(200);
    const response = await client.request('GET', '/payins/pi-paid-1', { token });
    expect(response.body).toMatchObject({ process: { status: 'SUCCESS', processedAt: expect.stringMatching(/Z$/) } });
    expect(client.sandbox.state().balances[MERCHANT]?.EUR?.availableMinor).toBe(4_210);
  });

  it('PENDING → EXPIRED after the expiry time; paying it then is refused with 409', async () => {
    // Its own sandbox with a short expiry, so the other payins of this file stay PENDING however slow the machine.
    const short = await startWithClient({ timings: { payoutPendingMs: 30, payoutProcessingMs: 30, payinExpiryMs: 150 } });
    try {
      const shortToken = await short.token();
      await short.request('POST', '/payins/pi-expire-1', { token: shortToken, body: payinBody() });
      const state = () => short.sandbox.state().payins.find((p) => p.idPayin === 'pi-expire-1');
      await waitFor(() => state()?.status === 'EXPIRED', 3_000, 'payin EXPIRED');
      const late = await fetch(`${short.sandbox.url}/_sandbox/payins/pi-expire-1/pay`, { method: 'POST' });
      expect(late.status).toBe(409);
      expect(state()?.status).toBe('EXPIRED');
      expect(state()?.processedAt).toBeDefined();
    } finally {
      await short.sandbox.close();
    }
  });

  it('PENDING → FAILED when the paying account ends 0000 (handle.markPayinPaid)', async () => {
    await client.request('POST', '/payins/pi-fail-1', { token, body: payinBody({ accountNumber: 'GB000000000000' }) });
    client.sandbox.markPayinPaid('pi-fail-1');
    const response = await client.request('GET', '/payins/pi-fail-1', { token });
    expect(response.body).toMatchObject({ process: { status: 'FAILED', failureReason: 'ACCOUNT_REJECTED' } });
  });
});

describe('GET /payins/{idPayin}/account-data', () => {
  it('has the request data at once and the process data only after success', async () => {
    await client.request('POST', '/payins/pi-data-1', { token, body: payinBody() });
    const before = await client.request('GET', '/payins/pi-data-1/account-data', { token });
    expect(before.status).toBe(200);
    expect(before.body).toEqual({
      request: {
        accountName: 'Grace Hopper',
        accountNumber: 'NL91ABNA0417164300',
        emailAddress: 'grace@example.com',
        paymentMethodCode: 'VAPAY',
        paymentOperatorCode: 'VAPAY_EU',
      },
      process: null,
    });
    client.sandbox.markPayinPaid('pi-data-1');
    const after = await client.request('GET', '/payins/pi-data-1/account-data', { token });
    expect(after.body).toMatchObject({
      process: { accountName: 'Grace Hopper', accountNumber: 'NL91ABNA0417164300', bankCode: 'VAPEU' },
    });
  });
});
