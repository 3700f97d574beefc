import { afterEach, describe, expect, it } from 'vitest';
import { EngineError, PayoutEngine } from '../../../main/engine';
import type { JournalPort, SendClaim } from '../../../main/journal';
import { tempJournal } from '../journal/helpers';
import { draft, engineFixture, until, type EngineFixture } from './engine-helpers';
import { FakeGateway } from './fake-gateway';

let f: EngineFixture;
afterEach(async () => f?.dispose());

describe('single payout', () => {
  it('is stored, sent once and followed to its final status with the source of each change', async () => {
    f = engineFixture();
    await f.engine.start();
    const record = await f.engine.submitPayout(draft('one'));
    expect(record).toMatchObject({ state: 'ACCEPTED', status: 'ACCEPTED', attempts: 1 });
    f.gateway.setStatus('SUCCESS');
    await until(() => f.t.journal.getPayment('payout', 'one')?.isFinal === true);
    expect(f.gateway.createCalls.get('one')).toBe(1);
    expect(f.t.journal.timeline('payout', 'one').map((e) => [e.status, e.source])).toEqual([
      ['QUEUED', 'local'],
      ['ACCEPTED', 'create'],
      ['SUCCESS', 'poll'],
    ]);
  });

  it('refuses an invalid payout before anything is stored or sent', async () => {
    f = engineFixture({ maxAmountMinor: 5_000 });
    await expect(f.engine.submitPayout(draft('big', { amountMinor: 6_000 }))).rejects.toMatchObject({ code: 'VALIDATION' });
    await expect(f.engine.submitPayout(draft('bad id!'))).rejects.toBeInstanceOf(EngineError);
    expect(f.t.journal.getPayment('payout', 'big')).toBeUndefined();
    expect(f.gateway.createCalls.size).toBe(0);
  });

  it('after a 5xx (which may come after the gateway stored it) reads the payout back before sending again: stored once, never failed', async () => {
    f = engineFixture();
    f.gateway.failCreates(1, 'server', true);
    const record = await f.engine.submitPayout(draft('five'));
    expect(record.state).toBe('ACCEPTED');
    expect(f.gateway.stored.size).toBe(1);
    expect(f.gateway.createCalls.get('five')).toBe(1);
    expect(f.t.journal.timeline('payout', 'five').map((e) => e.source)).toContain('poll');
    expect(f.t.journal.timeline('payout', 'five').map((e) => e.status)).not.toContain('FAILED');
  });

  it('waits out 429 bursts and time-outs with the same id', async () => {
    f = engineFixture();
    f.gateway.failCreates(2, 'rate-limited', false, 15);
    f.gateway.failCreates(1, 'timeout', true);
    const record = await f.engine.submitPayout(draft('busy'));
    expect(record.state).toBe('ACCEPTED');
    // Two refused (429) and sent again; the time-out's outcome is unknown, so it is read with GET instead.
    expect(f.gateway.createCalls.get('busy')).toBe(3);
    expect([...f.gateway.stored.keys()]).toEqual(['busy']);
  });

  it('keeps a payout queued while the gateway is unreachable and sends it when it returns', async () => {
    f = engineFixture();
    const offline: string[] = [];
    f.engine.on('connection', (e) => offline.push(e.state));
    f.gateway.offline = true;
    const record = await f.engine.submitPayout(draft('off'), { waitMs: 100 });
    expect(record).toMatchObject({ state: 'QUEUED', isFinal: false });
    expect(record.lastError).toMatch(/network/);
    expect(f.gateway.createCalls.get('off')).toBeGreaterThan(1);
    f.gateway.offline = false;
    await until(() => f.t.journal.getPayment('payout', 'off')?.state === 'ACCEPTED');
    expect(offline).toEqual(['offline', 'online']);
  });

  it('after a 5xx on create the outcome is unknown: the payout is UNKNOWN, never back to QUEUED', async () => {
    f = engineFixture({ backoff: { baseMs: 60_000, capMs: 60_000 } });
    f.gateway.failCreates(1, 'server', false);
    void f.engine.submitPayout(draft('unsure')).catch(() => undefined);
    await until(() => f.t.journal.getPayment('payout', 'unsure')?.lastError === 'fake server');
    expect(f.t.journal.getPayment('payout', 'unsure')).toMatchObject({ state: 'UNKNOWN', status: 'UNKNOWN' });
  });

  it('a failure before the create was sent (e.g. its token request timed out) leaves the payout QUEUED with the reason', async () => {
    f = engineFixture({ backoff: { baseMs: 60_000, capMs: 60_000 } });
    f.gateway.preSendFaults.push('timeout');
    void f.engine.submitPayout(draft('pre')).catch(() => undefined);
    await until(() => f.t.journal.getPayment('payout', 'pre')?.lastError === 'fake timeout');
    expect(f.t.journal.getPayment('payout', 'pre')).toMatchObject({ state: 'QUEUED', attempts: 0 });
    // Nothing reached the gateway.
    expect(f.gateway.createCalls.has('pre')).toBe(false);
    expect(f.gateway.stored.size).toBe(0);
  });

  it('marks a payout the gateway refuses as invalid REJECTED, with the gateway message', async () => {
    f = engineFixture();
    f.gateway.failCreates(1, 'validation');
    const record = await f.engine.submitPayout(draft('nope'));
    expect(record).toMatchObject({ state: 'REJECTED', status: 'REJECTED', isFinal: true, lastError: 'fake validation' });
    expect(f.gateway.stored.size).toBe(0);
  });

  it('stops and says why when the gateway refuses the credentials; the payout is held with that reason', async () => {
    f = engineFixture();
    f.gateway.failCreates(1, 'unauthorized');
    await expect(f.engine.submitPayout(draft('auth'))).rejects.toMatchObject({ code: 'PAYOUT_HELD', message: expect.stringContaining('fake unauthorized') });
    expect(f.t.journal.getPayment('payout', 'auth')).toMatchObject({ state: 'HELD', lastError: 'fake unauthorized' });
  });

  it('flags a payout whose id the gateway holds with a different amount instead of accepting it', async () => {
    f = engineFixture();
    f.gateway.stored.set('clash', { request: { ...draft('clash'), amountMinor: 1 }, status: 'PENDING' });
    const record = await f.engine.submitPayout(draft('clash'));
    expect(record.state).toBe('MISMATCH');
    expect(record.lastError).toMatch(/1 EUR.*not 10000 EUR/);
  });
});

describe('crash recovery', () => {
  it('resolves a SENDING row the gateway has with GET, without sending again', async () => {
    f = engineFixture();
    f.t.journal.insertPayment('payout', { ...draft('crashed'), id: 'crashed' });
    f.t.journal.markSending('payout', 'crashed');
    f.gateway.stored.set('crashed', { request: draft('crashed'), status: 'PROCESSING' });
    await f.engine.start();
    await until(() => f.t.journal.getPayment('payout', 'crashed')?.state === 'ACCEPTED');
    expect(f.gateway.createCalls.get('crashed')).toBeUndefined();
    expect(f.t.journal.getPayment('payout', 'crashed')?.status).toBe('PROCESSING');
  });

  it('sends a SENDING row the gateway never got again, with the same id', async () => {
    f = engineFixture();
    f.t.journal.insertPayment('payout', { ...draft('lost'), id: 'lost' });
    f.t.journal.markSending('payout', 'lost');
    await f.engine.start();
    await until(() => f.t.journal.getPayment('payout', 'lost')?.state === 'ACCEPTED');
    expect(f.gateway.createCalls.get('lost')).toBe(1);
    expect([...f.gateway.stored.keys()]).toEqual(['lost']);
  });
});

describe('a send whose SENDING mark is not in the journal', () => {
  it('is of unknown outcome after a time-out all the same: the sender knows its request may have left', async () => {
    // A team journal's SENDING mark is written after confirm() and may be lost; the claim, written before the
    // slot, is what made the send safe. A journal whose confirm() writes nothing stands for it here.
    const t = tempJournal();
    const gateway = new FakeGateway();
    const journal = new Proxy(t.journal, {
      get(target, prop, receiver) {
        if (prop === 'claimSend') return (): SendClaim => ({ confirm: () => true, release: () => undefined });
        const value: unknown = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    }) as JournalPort;
    const engine = new PayoutEngine<JournalPort>({ journal, gateway, pollIntervalMs: 20, pollTickMs: 5, backoff: { baseMs: 5, capMs: 20 } });
    try {
      gateway.failCreates(1, 'timeout', false);
      const record = await engine.submitPayout(draft('lost-mark'));
      // Not put back to QUEUED (which would say "certainly not at the gateway"): UNKNOWN, read with GET, then
      // sent again with the same id and accepted.
      expect(t.journal.timeline('payout', 'lost-mark').map((e) => e.status)).toEqual(['QUEUED', 'UNKNOWN', 'ACCEPTED']);
      expect(record.state).toBe('ACCEPTED');
      expect([...gateway.stored.keys()]).toEqual(['lost-mark']);
    } finally {
      await engine.stop();
      t.dispose();
    }
  });
});
