// The one vocabulary the UI and the CLI read: a batch says why it stopped or waits, a sent batch is not
// "COMPLETED" while its final statuses are awaited, and a payout the gateway has is named by its status.
import { describe, expect, it } from 'vitest';
import { payeeKey } from '../../../main/domain/payee-key';
import { withCurrenciesHint } from '../../../main/cli/submit-file';
import { batchStateLine, batchStateWords, clockTime, paymentStateText, paymentStatusWord, unreachableReason } from '../../../contract/state-words';

const counts = (state: string, pending: number, total = 20) => ({ state, total, pending, failed: 0 });

describe('batchStateWords', () => {
  it('calls a batch whose rows are all sent but not final SENT, with how many still wait', () => {
    const w = batchStateWords(counts('COMPLETED', 20), { running: false });
    expect(w).toEqual({ word: 'SENT', reason: 'every row sent; 20 of 20 still wait for a final status' });
    expect(batchStateLine(w)).toBe('SENT (every row sent; 20 of 20 still wait for a final status)');
    expect(batchStateWords(counts('COMPLETED', 0), null)).toEqual({ word: 'COMPLETED', reason: null });
  });

  it('says WAITING with since when and why while the gateway cannot be reached', () => {
    const since = new Date(2026, 3, 1, 10, 42).getTime();
    const w = batchStateWords(counts('RUNNING', 20), { running: true, unreachable: { since, message: 'create payout: the gateway could not be reached (ECONNREFUSED)' } });
    expect(w).toEqual({ word: 'WAITING', reason: 'gateway unreachable since 10:42 (ECONNREFUSED)' });
  });

  it('never shows RUNNING for a batch nothing sends any more', () => {
    const w = batchStateWords(counts('RUNNING', 20), { running: false });
    expect(w.word).toBe('STOPPED');
    expect(w.reason).toMatch(/nothing sends it now.*resume it/);
    expect(batchStateWords(counts('RUNNING', 20), { running: true })).toEqual({ word: 'RUNNING', reason: null });
  });

  it('gives a paused batch its pause reason', () => {
    expect(batchStateWords(counts('PAUSED', 5), { running: false }, 'the key was refused (401)')).toEqual({ word: 'PAUSED', reason: 'the key was refused (401)' });
  });

  it('says when a scheduled batch is released', () => {
    const reason = 'scheduled: released on 2026-12-24 09:00 Europe/Berlin';
    expect(batchStateWords(counts('SCHEDULED', 20), null, reason)).toEqual({ word: 'SCHEDULED', reason });
  });
});

describe('unreachableReason', () => {
  it('keeps the system code, else the message without its operation', () => {
    const at = new Date(2026, 3, 1, 9, 5).getTime();
    expect(clockTime(at)).toBe('09:05');
    expect(unreachableReason(at, 'get payout: timed out after 30 s')).toBe('gateway unreachable since 09:05 (timed out after 30 s)');
    expect(unreachableReason(at, null)).toBe('gateway unreachable since 09:05');
  });
});

describe('payment words', () => {
  it("names a payout the gateway has by the gateway's status, never as ACCEPTED", () => {
    expect(paymentStatusWord({ localState: 'ACCEPTED', status: 'SUCCESS' })).toBe('SUCCESS');
    expect(paymentStatusWord({ localState: 'ACCEPTED', status: '' })).toBe('SENT');
    expect(paymentStatusWord({ localState: 'HELD', status: '' })).toBe('HELD');
    expect(paymentStateText('ACCEPTED', 'FAILED')).toBe('Sent — the gateway reports FAILED');
    expect(paymentStateText('ACCEPTED', 'SUCCESS')).not.toMatch(/ACCEPTED/);
  });
});

describe('the CLI shortfall message', () => {
  const funding = (code: string, short: boolean) => ({
    currencyCode: code, required: { amount: '10.00', currencyCode: code }, available: { amount: short ? '1.00' : '99.00', currencyCode: code },
    shortfall: short ? { amount: '9.00', currencyCode: code } : null,
  });
  it('names the --currencies option with the funded currencies', () => {
    const checked = { funding: [funding('EUR', true), funding('USD', false), funding('GBP', false)] } as unknown as Parameters<typeof withCurrenciesHint>[1];
    expect(withCurrenciesHint('EUR short by 9.00', checked, undefined)).toBe('EUR short by 9.00 (to send only the funded ones, run again with --currencies USD,GBP)');
    expect(withCurrenciesHint('EUR short by 9.00', { funding: [funding('EUR', true)] } as unknown as Parameters<typeof withCurrenciesHint>[1], undefined)).toMatch(/no currency of this file is funded; top up first \(--currencies/);
  });
});

describe('payeeKey', () => {
  it('folds case and Unicode forms beyond ASCII, and collapses spaces', () => {
    expect(payeeKey('ÉLODIE')).toBe(payeeKey('élodie'));
    expect(payeeKey('Zoe\u0308')).toBe(payeeKey('ZO\u00cb'));
    expect(payeeKey('  Straße  Nord ')).toBe('strasse nord');
    expect(payeeKey(' Ada   LOVELACE ')).toBe('ada lovelace');
    expect(payeeKey('Élodie')).not.toBe(payeeKey('Elodie'));
  });
});
