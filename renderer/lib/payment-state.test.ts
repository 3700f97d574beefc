import { describe, expect, it } from 'vitest';
import { attentionOf, canGiveAdvice, deskStateText, isHeld, isPaid, isScheduled, shortId } from './payment-state';
import { statusColor } from './format';

describe('deskStateText', () => {
  it('says every journal state in words, never as an internal code', () => {
    for (const state of ['QUEUED', 'SENDING', 'UNKNOWN', 'ACCEPTED', 'HELD', 'DISCARDED', 'MISSING', 'REJECTED', 'CANCELLED', 'MISMATCH']) {
      const text = deskStateText(state);
      expect(text).not.toContain('[');
      expect(text).not.toBe(state);
    }
    expect(deskStateText('HELD')).toMatch(/release or discard/);
  });

  it("says what the gateway reports once it has the payout", () => {
    expect(deskStateText('ACCEPTED', 'FAILED')).toBe('Sent — the gateway reports FAILED');
    expect(deskStateText('ACCEPTED', '')).toBe("Sent — waiting for the gateway's status");
  });

  it('shows a state it does not know as a plain word', () => {
    expect(deskStateText('WAITING_FOR_BANK')).toBe('Waiting for bank');
  });
});

describe('attentionOf', () => {
  it('warns for held and missing payouts, informs while the outcome is checked', () => {
    expect(attentionOf({ localState: 'HELD' })?.type).toBe('warning');
    expect(attentionOf({ localState: 'MISSING' })?.type).toBe('warning');
    expect(attentionOf({ localState: 'UNKNOWN' })).toEqual({ type: 'info', title: 'Outcome unknown — checking' });
    expect(attentionOf({ localState: 'ACCEPTED' })).toBeNull();
  });
});

describe('isHeld / shortId / statusColor', () => {
  it('offers release and discard only for held payouts', () => {
    expect(isHeld({ kind: 'payout', localState: 'HELD' })).toBe(true);
    expect(isHeld({ kind: 'payin', localState: 'HELD' })).toBe(false);
    expect(isHeld({ kind: 'payout', localState: 'DISCARDED' })).toBe(false);
  });

  it('offers no release by hand for a payout waiting for its date, and says it is scheduled', () => {
    const waiting = { kind: 'payout' as const, localState: 'HELD', reason: 'Scheduled: released on 2026-12-28 09:00 Europe/Berlin, not before. Move or cancel it on the Calendar.' };
    expect(isHeld(waiting)).toBe(false);
    expect(isScheduled(waiting)).toBe(true);
    expect(attentionOf(waiting)).toEqual({ type: 'info', title: 'Scheduled — sent on its date' });
    expect(isHeld({ ...waiting, reason: 'Held, not sent: the gateway refused the token (401). Release it after the fix, or discard it.' })).toBe(true);
  });

  it('shortens long ids only', () => {
    expect(shortId('0f8c2a4e-1111-2222-3333-444455556666')).toBe('0f8c2a4e…');
    expect(shortId('p-123')).toBe('p-123');
  });

  it('gives the money-safety states their own colours', () => {
    const colours = ['HELD', 'UNKNOWN', 'MISSING', 'DISCARDED'].map(statusColor);
    expect(new Set(colours).size).toBe(4);
    expect(colours).not.toContain(statusColor('PENDING'));
    expect(colours).not.toContain(statusColor('SUCCESS'));
  });
});

describe('canGiveAdvice / isPaid', () => {
  const paid = { kind: 'payout' as const, status: 'SUCCESS', final: true, processedAt: '2026-03-02T10:00:00.000Z' };

  it('offers remittance advice only for a payout paid and final', () => {
    expect(canGiveAdvice(paid)).toBe(true);
    expect(canGiveAdvice({ ...paid, status: 'success' })).toBe(true);
    expect(canGiveAdvice({ ...paid, final: false })).toBe(false);
    expect(canGiveAdvice({ ...paid, processedAt: null })).toBe(false);
    expect(canGiveAdvice({ ...paid, kind: 'payin' })).toBe(false);
  });

  it('never for a payout in flight, failed or returned', () => {
    for (const status of ['PENDING', 'PROCESSING', 'FAILED', 'REJECTED', 'RETURNED']) expect(canGiveAdvice({ ...paid, status }), status).toBe(false);
    expect(isPaid({ status: 'RETURNED', processedAt: paid.processedAt })).toBe(false);
    expect(isPaid({ status: 'SUCCESS', processedAt: paid.processedAt })).toBe(true);
  });
});
