// The SQLite journal's payment transitions at their edges (issue 25's mutation run over the rules that decide
// when money moves): when a payout the gateway cannot find becomes MISSING, what a held payout's release or
// discard writes, what a cancel touches, how an unknown send stays unknown and re-sends stay refused, and how
// observations fold. Each asserts the row, the timeline or the audit trail a person reads.
import { afterEach, describe, expect, it } from 'vitest';
import { payout, tempJournal, type TempJournal } from './helpers';

let t: TempJournal;
afterEach(() => t?.dispose());

let clock = 0;
const T0 = Date.UTC(2026, 10, 2, 9, 0, 0);
const journalAt = () => {
  clock = T0;
  t = tempJournal({ now: () => clock });
  return t.journal;
};
const MINUTE = 60_000;
const RULE = { reads: 3, spanMs: 15 * MINUTE };

const accepted = (id: string) => {
  t.journal.insertPayment('payout', payout(id));
  t.journal.recordObservation('payout', id, { status: 'PENDING', source: 'create', isFinal: false });
};
const audits = (action: string) => t.journal.listAudit(100).filter((e) => e.action === action);

describe('a payout the gateway answers "not found" for', () => {
  it('becomes MISSING at the third read once they span the whole window, told once, and read again meanwhile', () => {
    const j = journalAt();
    accepted('gone');
    expect(j.recordNotFound('payout', 'gone', T0 + 1, RULE)).toBe(false);
    clock = T0 + 5 * MINUTE;
    expect(j.recordNotFound('payout', 'gone', T0 + 6 * MINUTE, RULE)).toBe(false);
    expect(j.getPayment('payout', 'gone')).toMatchObject({ state: 'ACCEPTED', nextPollAt: T0 + 6 * MINUTE });
    clock = T0 + 15 * MINUTE;
    expect(j.recordNotFound('payout', 'gone', T0 + 20 * MINUTE, RULE)).toBe(true);
    expect(j.getPayment('payout', 'gone')).toMatchObject({ state: 'MISSING', status: 'MISSING', isFinal: false });
    const message = `the gateway has answered "not found" 3 times since ${new Date(T0).toISOString()}`;
    expect(j.timeline('payout', 'gone').at(-1)).toMatchObject({ status: 'MISSING', source: 'local', raw: { message } });
    expect(audits('payout.missing').map((e) => [e.subject, e.details])).toEqual([['gone', { message }]]);
    clock = T0 + 30 * MINUTE;
    expect(j.recordNotFound('payout', 'gone', T0 + 40 * MINUTE, RULE)).toBe(false);
    expect(audits('payout.missing')).toHaveLength(1);
  });

  it('stays ACCEPTED with three reads a millisecond short of the window, or with two reads over a longer one', () => {
    const j = journalAt();
    accepted('short');
    accepted('few');
    for (const at of [T0, T0 + MINUTE, T0 + 15 * MINUTE - 1]) {
      clock = at;
      expect(j.recordNotFound('payout', 'short', at + 1, RULE)).toBe(false);
    }
    for (const at of [T0, T0 + 60 * MINUTE]) {
      clock = at;
      expect(j.recordNotFound('payout', 'few', at + 1, RULE)).toBe(false);
    }
    expect(j.getPayment('payout', 'short')?.state).toBe('ACCEPTED');
    expect(j.getPayment('payout', 'few')?.state).toBe('ACCEPTED');
  });

  it('a payout not accepted yet is not counted', () => {
    const j = journalAt();
    j.insertPayment('payout', payout('queued'));
    for (let i = 0; i < 4; i++) {
      clock = T0 + i * 10 * MINUTE;
      expect(j.recordNotFound('payout', 'queued', clock + 1, RULE)).toBe(false);
    }
    expect(j.getPayment('payout', 'queued')).toMatchObject({ state: 'QUEUED', nextPollAt: null });
  });
});

describe('a held payout', () => {
  it('is released to QUEUED by a person, with the release in its timeline and the audit trail', () => {
    const j = journalAt();
    j.insertPayment('payout', payout('h'));
    expect(j.markHeld('payout', 'h', 'no key', 'engine')).toBe(true);
    expect(j.markHeld('payout', 'h', 'again', 'engine')).toBe(false);
    expect(audits('payout.held').map((e) => [e.actor, e.details])).toEqual([['engine', { reason: 'no key' }]]);
    expect(j.releaseHeld('payout', 'h', 'alice')).toBe(true);
    expect(j.getPayment('payout', 'h')).toMatchObject({ state: 'QUEUED', status: 'QUEUED' });
    expect(j.timeline('payout', 'h').map((e) => e.status)).toEqual(['QUEUED', 'HELD', 'QUEUED']);
    expect(audits('payout.released').map((e) => [e.actor, e.subject])).toEqual([['alice', 'h']]);
    expect(j.releaseHeld('payout', 'h', 'alice')).toBe(false);
    expect(audits('payout.released')).toHaveLength(1);
  });

  it('is discarded, final, with the reason, only while held', () => {
    const j = journalAt();
    j.insertPayment('payout', payout('d'));
    expect(j.discardHeld('payout', 'd', 'bob', 'duplicate')).toBe(false);
    j.markHeld('payout', 'd', 'no key');
    clock = T0 + 1_000;
    expect(j.discardHeld('payout', 'd', 'bob', 'duplicate')).toBe(true);
    expect(j.getPayment('payout', 'd')).toMatchObject({ state: 'DISCARDED', status: 'DISCARDED', isFinal: true, finalAt: T0 + 1_000, lastError: 'duplicate' });
    expect(j.timeline('payout', 'd').map((e) => e.status)).toEqual(['QUEUED', 'HELD', 'DISCARDED']);
    expect(audits('payout.discarded').map((e) => [e.actor, e.details])).toEqual([['bob', { reason: 'duplicate' }]]);
    expect(j.discardHeld('payout', 'd', 'bob', 'again')).toBe(false);
  });

  it('is never one whose send may have landed', () => {
    const j = journalAt();
    j.insertPayment('payout', payout('u'));
    j.markSending('payout', 'u');
    j.markUnknown('payout', 'u', 'time-out', T0);
    expect(j.markHeld('payout', 'u', 'no key')).toBe(false);
    expect(j.getPayment('payout', 'u')?.state).toBe('UNKNOWN');
  });
});

describe('cancelling unsent payouts', () => {
  it('cancels only those still QUEUED, counts them, and audits once naming the payout when there is one', () => {
    const j = journalAt();
    for (const id of ['a', 'b', 'c']) j.insertPayment('payout', payout(id));
    j.markSending('payout', 'c');
    expect(j.cancelUnsent('payout', ['a', 'b', 'c', 'nope'], 'alice')).toBe(2);
    expect(j.getPayment('payout', 'a')).toMatchObject({ state: 'CANCELLED', status: 'CANCELLED', isFinal: true, finalAt: T0 });
    expect(j.getPayment('payout', 'c')?.state).toBe('SENDING');
    expect(j.timeline('payout', 'b').map((e) => e.status)).toEqual(['QUEUED', 'CANCELLED']);
    expect(audits('payout.cancelled').map((e) => [e.actor, e.subject, e.details])).toEqual([['alice', null, { count: 2 }]]);
    j.insertPayment('payout', payout('one'));
    expect(j.cancelUnsent('payout', ['one'], 'bob')).toBe(1);
    expect(audits('payout.cancelled').map((e) => e.subject)).toContain('one');
    expect(j.cancelUnsent('payout', ['one', 'c'], 'bob')).toBe(0);
    expect(audits('payout.cancelled')).toHaveLength(2);
  });
});

describe('a send of unknown outcome', () => {
  it('is UNKNOWN from QUEUED or SENDING with one UNKNOWN in its timeline however often it is marked, and keeps when it began', () => {
    const j = journalAt();
    j.insertPayment('payout', payout('q'));
    j.markUnknown('payout', 'q', 'reset', T0 + 5);
    clock = T0 + 100;
    j.markUnknown('payout', 'q', 'reset again', T0 + 50);
    expect(j.getPayment('payout', 'q')).toMatchObject({ state: 'UNKNOWN', status: 'UNKNOWN', unknownSince: T0, lastError: 'reset again', nextPollAt: T0 + 50 });
    expect(j.timeline('payout', 'q').map((e) => e.status)).toEqual(['QUEUED', 'UNKNOWN']);
  });

  it('a payout the gateway has is not made unknown', () => {
    const j = journalAt();
    accepted('acc');
    j.markUnknown('payout', 'acc', 'late time-out', T0 + 5);
    expect(j.getPayment('payout', 'acc')).toMatchObject({ state: 'ACCEPTED', unknownSince: null });
  });

  it('once a re-send was refused, re-sends stay refused until the gateway shows the payout', () => {
    const j = journalAt();
    j.insertPayment('payout', payout('r'));
    j.markSending('payout', 'r');
    j.markUnknown('payout', 'r', 'time-out', T0);
    expect(j.resendAllowed('payout', 'r')).toBe(true);
    j.markUnknown('payout', 'r', 'refused re-send', T0, true);
    j.markUnknown('payout', 'r', 'still not found', T0);
    expect(j.resendAllowed('payout', 'r')).toBe(false);
    j.recordObservation('payout', 'r', { status: 'PENDING', source: 'poll', isFinal: false });
    expect(j.resendAllowed('payout', 'r')).toBe(true);
    expect(j.resendAllowed('payout', 'nowhere')).toBe(false);
  });

  it('a try the gateway certainly did not store leaves it UNKNOWN and read, a first try QUEUED and not read', () => {
    const j = journalAt();
    j.insertPayment('payout', payout('first'));
    j.markSending('payout', 'first');
    j.markRetrying('payout', 'first', '429');
    expect(j.getPayment('payout', 'first')).toMatchObject({ state: 'QUEUED', status: 'QUEUED', nextPollAt: null, lastError: '429' });
    j.insertPayment('payout', payout('later'));
    j.markSending('payout', 'later');
    j.markUnknown('payout', 'later', 'time-out', T0 + 500);
    j.markSending('payout', 'later');
    clock = T0 + 10;
    j.markRetrying('payout', 'later', '429');
    expect(j.getPayment('payout', 'later')).toMatchObject({ state: 'UNKNOWN', status: 'UNKNOWN', nextPollAt: T0 + 10, lastError: '429', attempts: 2 });
  });

  it('interrupted sends (SENDING at start-up) become UNKNOWN, read at once, and are counted', () => {
    const j = journalAt();
    for (const id of ['s1', 's2', 'q']) j.insertPayment('payout', payout(id));
    j.markSending('payout', 's1');
    j.markSending('payout', 's2');
    expect(j.markInterruptedSendsUnknown('payout', 'the desk stopped mid-send')).toBe(2);
    expect(j.getPayment('payout', 's1')).toMatchObject({ state: 'UNKNOWN', lastError: 'the desk stopped mid-send', nextPollAt: T0 });
    expect(j.getPayment('payout', 'q')?.state).toBe('QUEUED');
    expect(j.markInterruptedSendsUnknown('payout', 'again')).toBe(0);
  });
});

describe('local final outcomes', () => {
  it('REJECTED is final; MISMATCH is not (a person looks at it), and is set even after an unknown send', () => {
    const j = journalAt();
    j.insertPayment('payout', payout('rej'));
    expect(j.markLocalFinal('payout', 'rej', 'REJECTED', 'invalid account')).toBe(true);
    expect(j.getPayment('payout', 'rej')).toMatchObject({ state: 'REJECTED', isFinal: true, finalAt: T0, lastError: 'invalid account' });
    j.insertPayment('payout', payout('mis'));
    j.markSending('payout', 'mis');
    j.markUnknown('payout', 'mis', 'time-out', T0);
    expect(j.markLocalFinal('payout', 'mis', 'REJECTED', '400 to a re-send')).toBe(false);
    expect(j.markLocalFinal('payout', 'mis', 'MISMATCH', 'other amount')).toBe(true);
    expect(j.getPayment('payout', 'mis')).toMatchObject({ state: 'MISMATCH', isFinal: false, nextPollAt: null });
  });
});

describe('observations', () => {
  it('fold a repeat from the same source, keep one from another source, and say whether the shown status changed', () => {
    const j = journalAt();
    j.insertPayment('payout', payout('o'));
    expect(j.recordObservation('payout', 'o', { status: 'pending', source: 'create', isFinal: false })).toEqual({ changed: true });
    expect(j.recordObservation('payout', 'o', { status: 'PENDING', source: 'create', isFinal: false })).toEqual({ changed: false });
    expect(j.recordObservation('payout', 'o', { status: 'PENDING', source: 'poll', isFinal: false })).toEqual({ changed: false });
    expect(j.recordObservation('payout', 'o', { status: 'SUCCESS', source: 'poll', isFinal: true })).toEqual({ changed: true });
    expect(j.timeline('payout', 'o').map((e) => [e.status, e.source])).toEqual([['QUEUED', 'local'], ['PENDING', 'create'], ['PENDING', 'poll'], ['SUCCESS', 'poll']]);
    expect(j.getPayment('payout', 'o')).toMatchObject({ state: 'ACCEPTED', gatewayStatus: 'SUCCESS', isFinal: true, finalAt: T0 });
  });

  it('keep whether the gateway said it is a test payment, and what it said last when a read does not say', () => {
    const j = journalAt();
    j.insertPayment('payout', payout('t1'));
    j.recordObservation('payout', 't1', { status: 'PENDING', source: 'create', isFinal: false, isTest: true });
    expect(j.getPayment('payout', 't1')?.isTest).toBe(true);
    j.recordObservation('payout', 't1', { status: 'PENDING', source: 'poll', isFinal: false });
    expect(j.getPayment('payout', 't1')?.isTest).toBe(true);
    j.recordObservation('payout', 't1', { status: 'PENDING', source: 'poll', isFinal: false, isTest: false });
    expect(j.getPayment('payout', 't1')?.isTest).toBe(false);
  });

  it('of a payment not in the journal are an error naming it', () => {
    const j = journalAt();
    expect(() => j.recordObservation('payout', 'ghost', { status: 'PENDING', source: 'poll', isFinal: false })).toThrow('no payout with id ghost in the journal');
  });
});
