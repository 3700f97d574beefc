// Payouts: create/get shapes (spec §2 tables), lifecycle with balance and fee effects, 409, validation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MERCHANT, errorCode, payoutBody, startWithClient, waitFor, type SandboxClient } from './helpers';

let client: SandboxClient;
let token: string;

// EUR fee rule of the test config: 25 minor + 50 bp, so 1250.50 EUR costs 0.25 + 6.25 = 6.50 EUR.
const FEES = { EUR: { fixedMinor: 25, basisPoints: 50 }, JPY: { fixedMinor: 40, basisPoints: 0 } };

beforeAll(async () => {
  client = await startWithClient({
    merchants: [{ code: MERCHANT, channelName: 'Demo Store', balancesMinor: { EUR: 1_000_000, JPY: 50_000 } }],
    fees: FEES,
    // PENDING lasts long enough to be observed on a loaded machine; the rest is quick.
    timings: { payoutPendingMs: 200, payoutProcessingMs: 40, payinExpiryMs: 60_000 },
  });
  token = await client.token();
});
afterAll(() => client.sandbox.close());

const balance = (currency: string) => client.sandbox.state().balances[MERCHANT]?.[currency];
const payoutState = (id: string) => client.sandbox.state().payouts.find((p) => p.idPayout === id);

describe('POST /payouts/{idPayout}', () => {
  it('answers 201 with the create response shape and reserves amount + fee', async () => {
    const before = balance('EUR');
    const response = await client.request('POST', '/payouts/po-shape-1', { token, body: payoutBody() });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      paymentRequested: { money: { amount: 1250.5, currencyCode: 'EUR' } },
      paymentMethodResponse: { paymentMethodCode: 'BANK_TRANSFER', idPayout: 'po-shape-1' },
    });
    expect(response.text).toContain('"amount":1250.5');
    const after = balance('EUR');
    expect(after?.availableMinor).toBe((before?.availableMinor ?? 0) - 125_700);
    expect(after?.reservedMinor).toBe((before?.reservedMinor ?? 0) + 125_700);
  });

  it('moves PENDING → PROCESSING → SUCCESS, sets processedAt, debits amount + fee and clears the reservation', async () => {
    const start = balance('EUR');
    await client.request('POST', '/payouts/po-success-1', { token, body: payoutBody({ amount: 100 }) });
    const pending = await client.request('GET', '/payouts/po-success-1', { token });
    const pendingBody = pending.body as { process: { status: string; processedAt?: string } };
    expect(pendingBody.process.status).toBe('PENDING');
    expect(pendingBody.process.processedAt).toBeUndefined();
    await waitFor(() => payoutState('po-success-1')?.status === 'SUCCESS', 3_000, 'payout SUCCESS');
    const done = await client.request('GET', '/payouts/po-success-1', { token });
    expect(done.status).toBe(200);
    const body = done.body as Record<string, unknown> & { process: Record<string, unknown> };
    expect(body).toMatchObject({
      paymentRequested: { money: { amount: 100, currencyCode: 'EUR' } },
      process: { status: 'SUCCESS', isTest: true },
      fee: { amount: 0.75, currencyCode: 'EUR' },
      paymentMethodResponse: { paymentMethodCode: 'BANK_TRANSFER', idPayout: 'po-success-1' },
    });
    expect(body.process.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(body.process.processedAt).toMatch(/\.\d{3}Z$/);
    expect(payoutState('po-success-1')?.history.map((h) => h.status)).toEqual(['PENDING', 'PROCESSING', 'SUCCESS']);
    await waitFor(() => payoutState('po-shape-1')?.status === 'SUCCESS', 3_000, 'first payout');
    const end = balance('EUR');
    expect(end?.availableMinor).toBe((start?.availableMinor ?? 0) - 10_075);
    expect(end?.reservedMinor).toBe(0);
  });

  it('fails an account number ending 0000 with process.failureReason and releases the reservation', async () => {
    await waitFor(() => balance('EUR')?.reservedMinor === 0, 3_000, 'idle balance');
    const start = balance('EUR');
    const body = payoutBody({ amount: 20, accountNumber: 'DE00000000000000' });
    expect((await client.request('POST', '/payouts/po-fail-1', { token, body })).status).toBe(201);
    await waitFor(() => payoutState('po-fail-1')?.status === 'FAILED', 3_000, 'payout FAILED');
    const response = await client.request('GET', '/payouts/po-fail-1', { token });
    expect(response.body).toMatchObject({
      process: { status: 'FAILED', failureReason: 'ACCOUNT_REJECTED' },
      fee: { amount: 0, currencyCode: 'EUR' },
    });
    expect(balance('EUR')).toEqual(start);
  });

  it('fails a payout the available balance cannot cover with INSUFFICIENT_FUNDS and moves no money', async () => {
    const start = balance('JPY');
    const body = payoutBody({ amount: 50_000, currencyCode: 'JPY' }); // 50,000 + 40 fee > 50,000
    expect((await client.request('POST', '/payouts/po-poor-1', { token, body })).status).toBe(201);
    expect(balance('JPY')).toEqual(start);
    await waitFor(() => payoutState('po-poor-1')?.status === 'FAILED', 3_000, 'payout FAILED');
    expect(payoutState('po-poor-1')?.failureReason).toBe('INSUFFICIENT_FUNDS');
    expect(balance('JPY')).toEqual(start);
  });

  it('answers a repeated id with 409, changes nothing, and counts the attempt', async () => {
    await client.request('POST', '/payouts/po-dup-1', { token, body: payoutBody({ amount: 5 }) });
    const before = payoutState('po-dup-1');
    const availableBefore = balance('EUR')?.availableMinor;
    const again = await client.request('POST', '/payouts/po-dup-1', { token, body: payoutBody({ amount: 999 }) });
    expect(again.status).toBe(409);
    expect(errorCode(again)).toBe('DUPLICATE_ID');
    // The payout may move on by its own timers meanwhile; what it is and what it holds must not change.
    const after = payoutState('po-dup-1');
    expect(after?.amountMinor).toBe(500);
    expect(after?.feeMinor).toBe(before?.feeMinor);
    expect(after?.createdAt).toBe(before?.createdAt);
    expect(after?.history[0]).toEqual(before?.history[0]);
    expect(balance('EUR')?.availableMinor).toBe(availableBefore);
    const state = client.sandbox.state();
    expect(state.createAttempts.payouts['po-dup-1']).toBe(2);
    expect(state.payouts.filter((p) => p.idPayout === 'po-dup-1')).toHaveLength(1);
  });

  it.each([
    ['an unknown currency', { ...payoutBody(), paymentRequested: { money: { amount: 1, currencyCode: 'XXX' } } }, 'UNKNOWN_CURRENCY'],
    ['more decimals than the currency has', payoutBody({ amount: 1.005 }), 'INVALID_AMOUNT'],
    ['decimals on JPY', payoutBody({ amount: 1.5, currencyCode: 'JPY' }), 'INVALID_AMOUNT'],
    ['a zero amount', payoutBody({ amount: 0 }), 'VALIDATION_FAILED'],
    ['a negative amount', payoutBody({ amount: -5 }), 'VALIDATION_FAILED'],
    ['an amount as a string', { ...payoutBody(), paymentRequested: { money: { amount: '10', currencyCode: 'EUR' } } }, 'VALIDATION_FAILED'],
    ['an operator of another currency', { ...payoutBody(), paymentMethod: { ...payoutBody().paymentMethod, paymentOperatorCode: 'US_ACH' } }, 'UNKNOWN_PAYMENT_OPERATOR'],
    ['a payin method', { ...payoutBody(), paymentMethod: { ...payoutBody().paymentMethod, paymentMethodCode: 'VAPAY' } }, 'UNKNOWN_PAYMENT_METHOD'],
    ['a bad e-mail address', { ...payoutBody(), paymentMethod: { ...payoutBody().paymentMethod, emailAddress: 'nope' } }, 'VALIDATION_FAILED'],
    ['a missing account', { ...payoutBody(), paymentMethod: { ...payoutBody().paymentMethod, account: undefined } }, 'VALIDATION_FAILED'],
    ['an unknown field', { ...payoutBody(), priority: 'high' }, 'VALIDATION_FAILED'],
    ['a callbackUrl that is not a URL', { ...payoutBody(), callbackUrl: 'not a url' }, 'VALIDATION_FAILED'],
  ])('refuses %s with 400 and stores nothing', async (_label, body, code) => {
    const id = `po-bad-${code}-${Math.random().toString(36).slice(2, 8)}`;
    const response = await client.request('POST', `/payouts/${id}`, { token, body });
    expect(response.status).toBe(400);
    expect(errorCode(response)).toBe(code);
    expect((response.body as { error: { message: string } }).error.message.length).toBeGreaterThan(10);
    expect(payoutState(id)).toBeUndefined();
  });

  it('names the bad field in a validation error', async () => {
    const body = { ...payoutBody(), paymentMethod: { ...payoutBody().paymentMethod, emailAddress: 'nope' } };
    const response = await client.request('POST', '/payouts/po-field-1', { token, body });
    expect(JSON.stringify(response.body)).toContain('paymentMethod.emailAddress');
  });
});

describe('GET /payouts/{idPayout}', () => {
  it('answers an unknown id with 404 NOT_FOUND', async () => {
    const response = await client.request('GET', '/payouts/never-created', { token });
    expect(response.status).toBe(404);
    expect(errorCode(response)).toBe('NOT_FOUND');
  });
});
