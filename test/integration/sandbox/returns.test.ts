// Paid can still change: SUCCESS → RETURNED by a return rule (after timings.payoutReturnMs) or by the admin route.
// Either way the change is stored, readable with GET, listed in /_sandbox/state and announced by callback.
import { afterEach, describe, expect, it } from 'vitest';
import {
  MERCHANT,
  callbackReceiver,
  errorCode,
  payoutBody,
  startWithClient,
  waitFor,
  type SandboxClient,
} from './helpers';
import type { SandboxConfigInput } from '../../../sandbox/index';

let client: SandboxClient | undefined;
let receiver: Awaited<ReturnType<typeof callbackReceiver>> | undefined;
afterEach(async () => {
  await client?.sandbox.close();
  await receiver?.close();
  client = undefined;
  receiver = undefined;
});

const RETURN_MS = 150;
const timings = (payoutReturnMs = RETURN_MS) => ({
  timings: { payoutPendingMs: 20, payoutProcessingMs: 20, payoutReturnMs, payinExpiryMs: 60_000 },
});

async function start(overrides: SandboxConfigInput = {}) {
  client = await startWithClient({ ...timings(), ...overrides });
  return { sandbox: client, token: await client.token() };
}

const payoutState = (c: SandboxClient, id: string) => c.sandbox.state().payouts.find((p) => p.idPayout === id);
const statusOf = (c: SandboxClient, id: string) => payoutState(c, id)?.status;
const eurBalance = (c: SandboxClient) => c.sandbox.state().balances[MERCHANT]?.EUR;

type ProcessView = {
  process: { status: string; failureReason?: string; processedAt?: string };
  fee: { amount: number };
};

const returnRoute = (c: SandboxClient, id: string, body?: unknown) =>
  c.request('POST', `/_sandbox/payouts/${id}/return`, { body, version: null });

describe('return rule (account number suffix)', () => {
  it('turns a SUCCESS payout to an account ending in 9999 into RETURNED later, with a callback', async () => {
    receiver = await callbackReceiver();
    const { sandbox, token } = await start();
    const body = { ...payoutBody({ accountNumber: 'DE89370400440532019999' }), callbackUrl: receiver.url };
    expect((await sandbox.request('POST', '/payouts/ret-rule-1', { token, body })).status).toBe(201);

    // SUCCESS is reached first and readable as such before the return.
    await waitFor(() => statusOf(sandbox, 'ret-rule-1') === 'SUCCESS', 3_000, 'SUCCESS');
    const paid = await sandbox.request('GET', '/payouts/ret-rule-1', { token });
    expect((paid.body as ProcessView).process.status).toBe('SUCCESS');
    expect((paid.body as ProcessView).process.failureReason).toBeUndefined();

    await waitFor(() => receiver?.received.length === 3, 3_000, 'three callbacks');
    const read = await sandbox.request('GET', '/payouts/ret-rule-1', { token });
    expect(read.status).toBe(200);
    expect((read.body as ProcessView).process).toMatchObject({ status: 'RETURNED', failureReason: 'ACCOUNT_CLOSED' });

    const state = payoutState(sandbox, 'ret-rule-1');
    expect(state?.history.map((h) => h.status)).toEqual(['PENDING', 'PROCESSING', 'SUCCESS', 'RETURNED']);
    expect(state?.failureReason).toBe('ACCOUNT_CLOSED');
    const [success, returned] = (state?.history ?? []).slice(2).map((h) => Date.parse(h.at));
    // Timers may fire a millisecond early; the return must not come with SUCCESS.
    expect((returned ?? 0) - (success ?? 0)).toBeGreaterThanOrEqual(RETURN_MS - 5);
    expect(state?.processedAt).toBe(state?.history[3]?.at);

    for (const callback of receiver.received) {
      expect(callback.body).toMatchObject({ eventType: 'PAYOUT_STATUS_CHANGED', idPayout: 'ret-rule-1' });
    }
    await waitFor(() => sandbox.sandbox.state().callbacks.every((c) => c.delivered), 3_000, 'delivery');
    expect(sandbox.sandbox.state().callbacks.map((c) => c.status)).toEqual(['PROCESSING', 'SUCCESS', 'RETURNED']);
  });

  it('follows the configured suffix and reason; other accounts stay SUCCESS', async () => {
    const { sandbox, token } = await start({
      returnRules: [{ accountNumberEndsWith: '4242', returnReason: 'BENEFICIARY_DECEASED' }],
    });
    // ret-cfg-2 is created first, so by the time ret-cfg-1 is returned its return would have happened too.
    await sandbox.request('POST', '/payouts/ret-cfg-2', { token, body: payoutBody({ accountNumber: 'GB009999' }) });
    await sandbox.request('POST', '/payouts/ret-cfg-1', { token, body: payoutBody({ accountNumber: 'GB004242' }) });
    await waitFor(() => statusOf(sandbox, 'ret-cfg-1') === 'RETURNED', 3_000, 'configured return');
    expect(payoutState(sandbox, 'ret-cfg-1')?.failureReason).toBe('BENEFICIARY_DECEASED');
    expect(statusOf(sandbox, 'ret-cfg-2')).toBe('SUCCESS');
  });

  it('does not return a payout that failed (outcome rule wins)', async () => {
    const { sandbox, token } = await start({
      outcomeRules: [{ accountNumberEndsWith: '9999', failureReason: 'ACCOUNT_REJECTED' }],
    });
    await sandbox.request('POST', '/payouts/ret-fail-1', { token, body: payoutBody({ accountNumber: 'DE009999' }) });
    await waitFor(() => statusOf(sandbox, 'ret-fail-1') === 'FAILED', 3_000, 'FAILED');
    await new Promise((resolve) => setTimeout(resolve, RETURN_MS + 100));
    expect(payoutState(sandbox, 'ret-fail-1')?.history.map((h) => h.status)).toEqual([
      'PENDING',
      'PROCESSING',
      'FAILED',
    ]);
  });

  it('gives the amount back to available and keeps the fee charged', async () => {
    const { sandbox, token } = await start(timings(400));
    const before = eurBalance(sandbox)?.availableMinor ?? 0;
    // 100.00 EUR; default EUR fee 0.25 + 0.5 % = 0.75.
    const body = payoutBody({ amount: 100, accountNumber: 'DE009999' });
    await sandbox.request('POST', '/payouts/ret-bal-1', { token, body });
    expect(eurBalance(sandbox)).toEqual({ availableMinor: before - 10_075, reservedMinor: 10_075 });

    await waitFor(() => statusOf(sandbox, 'ret-bal-1') === 'SUCCESS', 3_000, 'SUCCESS');
    expect(eurBalance(sandbox)).toEqual({ availableMinor: before - 10_075, reservedMinor: 0 });

    await waitFor(() => statusOf(sandbox, 'ret-bal-1') === 'RETURNED', 3_000, 'RETURNED');
    expect(eurBalance(sandbox)).toEqual({ availableMinor: before - 75, reservedMinor: 0 });
    const read = await sandbox.request('GET', '/payouts/ret-bal-1', { token });
    expect((read.body as ProcessView).fee.amount).toBe(0.75);
  });
});

describe('POST /_sandbox/payouts/:id/return', () => {
  it('returns a SUCCESS payout now with the given reason, announces it and credits the amount', async () => {
    receiver = await callbackReceiver();
    const { sandbox, token } = await start();
    const body = { ...payoutBody({ amount: 20 }), callbackUrl: receiver.url };
    await sandbox.request('POST', '/payouts/ret-adm-1', { token, body });
    await waitFor(() => statusOf(sandbox, 'ret-adm-1') === 'SUCCESS', 3_000, 'SUCCESS');
    await waitFor(() => receiver?.received.length === 2, 3_000, 'two callbacks');
    const availableAfterSuccess = eurBalance(sandbox)?.availableMinor ?? 0;

    const response = await returnRoute(sandbox, 'ret-adm-1', { reason: 'WRONG_BENEFICIARY' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ idPayout: 'ret-adm-1', status: 'RETURNED', failureReason: 'WRONG_BENEFICIARY' });

    const read = await sandbox.request('GET', '/payouts/ret-adm-1', { token });
    const process = (read.body as ProcessView).process;
    expect(process).toMatchObject({ status: 'RETURNED', failureReason: 'WRONG_BENEFICIARY' });
    expect(eurBalance(sandbox)?.availableMinor).toBe(availableAfterSuccess + 2_000);
    expect(payoutState(sandbox, 'ret-adm-1')?.history.at(-1)?.status).toBe('RETURNED');

    await waitFor(() => receiver?.received.length === 3, 3_000, 'return callback');
    expect(receiver.received[2]?.body).toMatchObject({ eventType: 'PAYOUT_STATUS_CHANGED', idPayout: 'ret-adm-1' });
    expect(sandbox.sandbox.state().callbacks.map((c) => c.status)).toEqual(['PROCESSING', 'SUCCESS', 'RETURNED']);
  });

  it('uses manualReturnReason without a body, and a second return is 409', async () => {
    const { sandbox, token } = await start({ manualReturnReason: 'RECALLED' });
    await sandbox.request('POST', '/payouts/ret-adm-2', { token, body: payoutBody() });
    await waitFor(() => statusOf(sandbox, 'ret-adm-2') === 'SUCCESS', 3_000, 'SUCCESS');
    const first = await returnRoute(sandbox, 'ret-adm-2');
    expect(first.body).toMatchObject({ status: 'RETURNED', failureReason: 'RECALLED' });
    const again = await returnRoute(sandbox, 'ret-adm-2');
    expect(again.status).toBe(409);
    expect(errorCode(again)).toBe('INVALID_STATE');
  });

  it('returns a rule payout once even when the route comes first', async () => {
    const { sandbox, token } = await start(timings(300));
    await sandbox.request('POST', '/payouts/ret-adm-3', { token, body: payoutBody({ accountNumber: 'DE009999' }) });
    await waitFor(() => statusOf(sandbox, 'ret-adm-3') === 'SUCCESS', 3_000, 'SUCCESS');
    const before = eurBalance(sandbox)?.availableMinor ?? 0;
    expect((await returnRoute(sandbox, 'ret-adm-3', { reason: 'EARLY' })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 400));
    const state = payoutState(sandbox, 'ret-adm-3');
    expect(state?.history.filter((h) => h.status === 'RETURNED')).toHaveLength(1);
    expect(state?.failureReason).toBe('EARLY');
    expect(eurBalance(sandbox)?.availableMinor).toBe(before + 125_050);
  });

  it('answers 404 for an unknown payout', async () => {
    const { sandbox } = await start();
    const response = await returnRoute(sandbox, 'ret-ghost-1');
    expect(response.status).toBe(404);
    expect(errorCode(response)).toBe('NOT_FOUND');
  });

  it('answers 409 for a PENDING payout and leaves it alone', async () => {
    const { sandbox, token } = await start({
      timings: { payoutPendingMs: 60_000, payoutProcessingMs: 60_000, payinExpiryMs: 60_000 },
    });
    await sandbox.request('POST', '/payouts/ret-pend-1', { token, body: payoutBody() });
    const response = await returnRoute(sandbox, 'ret-pend-1', { reason: 'TOO_SOON' });
    expect(response.status).toBe(409);
    expect(response.body).toEqual({
      error: { code: 'INVALID_STATE', message: expect.stringContaining('PENDING') as unknown },
    });
    expect(payoutState(sandbox, 'ret-pend-1')?.history.map((h) => h.status)).toEqual(['PENDING']);
  });

  it('answers 409 for a FAILED payout and moves no money', async () => {
    const { sandbox, token } = await start();
    await sandbox.request('POST', '/payouts/ret-fail-2', { token, body: payoutBody({ accountNumber: 'DE000000' }) });
    await waitFor(() => statusOf(sandbox, 'ret-fail-2') === 'FAILED', 3_000, 'FAILED');
    const balance = eurBalance(sandbox);
    const response = await returnRoute(sandbox, 'ret-fail-2');
    expect(response.status).toBe(409);
    expect(errorCode(response)).toBe('INVALID_STATE');
    expect(statusOf(sandbox, 'ret-fail-2')).toBe('FAILED');
    expect(eurBalance(sandbox)).toEqual(balance);
  });

  it('refuses a body with unknown fields or an empty reason', async () => {
    const { sandbox, token } = await start();
    await sandbox.request('POST', '/payouts/ret-bad-1', { token, body: payoutBody() });
    await waitFor(() => statusOf(sandbox, 'ret-bad-1') === 'SUCCESS', 3_000, 'SUCCESS');
    expect(errorCode(await returnRoute(sandbox, 'ret-bad-1', { reason: '' }))).toBe('VALIDATION_FAILED');
    expect(errorCode(await returnRoute(sandbox, 'ret-bad-1', { why: 'x' }))).toBe('VALIDATION_FAILED');
    expect(statusOf(sandbox, 'ret-bad-1')).toBe('SUCCESS');
  });
});
