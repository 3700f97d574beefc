// The status poller on paths the engine tests leave alone (found by issue 25's mutation run): what a read
// records as its source, a row that is not for reading any more, an unknown payout read back and still not
// found, a payin's next read, and a journal that fails under the poller. Each asserts what the journal holds
// afterwards, which is what the screens and the next read rely on.
import { afterEach, describe, expect, it } from 'vitest';
import type { StatusChangedEvent } from '../../../main/engine/events';
import { StatusPoller, type PollerDeps } from '../../../main/engine/status-poller';
import type { JournalPort } from '../../../main/journal';
import { payout, tempJournal, type TempJournal } from '../journal/helpers';
import { GatewayError } from '../../../main/gateway/errors';
import { FakeGateway } from './fake-gateway';

let t: TempJournal;
let poller: StatusPoller | undefined;
afterEach(async () => {
  await poller?.stop();
  poller = undefined;
  t?.dispose();
});

const NOW = 1_800_000_000_000;

function pollerOf(gateway: FakeGateway, more: Partial<PollerDeps> = {}) {
  const events: StatusChangedEvent[] = [];
  const errors: Error[] = [];
  poller = new StatusPoller({
    journal: t.journal, gateway, finalStatuses: ['SUCCESS', 'FAILED'], pollIntervalMs: 10_000, tickMs: 5, now: () => NOW,
    onStatus: (e) => events.push(e), onError: (e) => errors.push(e), ...more,
  });
  return { poller, events, errors };
}

const accepted = (id: string, kind: 'payout' | 'payin' = 'payout') => {
  t.journal.insertPayment(kind, payout(id));
  t.journal.recordObservation(kind, id, { status: 'PENDING', source: 'create', isFinal: false, nextPollAt: 0 });
};

describe('what a read records', () => {
  it('a read asked for (a refresh) is recorded as a poll; a callback named in a nudge of a stopped poller as a callback', async () => {
    t = tempJournal();
    accepted('p');
    const gateway = new FakeGateway();
    gateway.stored.set('p', { request: payout('p'), status: 'PROCESSING' });
    const { poller: p } = pollerOf(gateway);
    await p.refresh('payout', 'p');
    gateway.setStatus('SUCCESS');
    await p.nudge('payout', 'p');
    expect(t.journal.timeline('payout', 'p').map((e) => [e.status, e.source])).toEqual([
      ['QUEUED', 'local'],
      ['PENDING', 'create'],
      ['PROCESSING', 'poll'],
      ['SUCCESS', 'callback'],
    ]);
  });

  it('an answer with no status keeps the status the gateway gave before', async () => {
    t = tempJournal();
    accepted('known');
    const gateway = new FakeGateway();
    gateway.getPayout = async () => ({ raw: {} });
    const { poller: p } = pollerOf(gateway);
    expect((await p.refresh('payout', 'known'))?.status).toBe('PENDING');
  });

  it("a payin's next read is one interval on while it is not final, and none once it is", async () => {
    t = tempJournal();
    accepted('in-1', 'payin');
    accepted('in-2', 'payin');
    const gateway = new FakeGateway();
    gateway.stored.set('in-1', { request: payout('in-1'), status: 'PROCESSING' });
    gateway.stored.set('in-2', { request: payout('in-2'), status: 'SUCCESS' });
    const { poller: p } = pollerOf(gateway);
    const ageMs = NOW - t.journal.getPayment('payin', 'in-1')!.acceptedAt!;
    const interval = ageMs < 60_000 ? 10_000 : ageMs < 600_000 ? 30_000 : ageMs < 3_600_000 ? 120_000 : 600_000;
    expect((await p.refresh('payin', 'in-1'))?.nextPollAt).toBe(NOW + interval);
    expect((await p.refresh('payin', 'in-2'))?.nextPollAt).toBeNull();
  });
});

describe('a stopped poller', () => {
  it('starts nothing more, even when it was stopped while a look at the journal was under way', async () => {
    t = tempJournal();
    let looks = 0;
    const journal = new Proxy(t.journal, {
      get(target, prop, receiver) {
        if (prop === 'duePolls') return async (...args: Parameters<JournalPort['duePolls']>) => {
          looks++;
          await new Promise((r) => setTimeout(r, 40));
          return target.duePolls(...args);
        };
        const value: unknown = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    }) as JournalPort;
    const { poller: p } = pollerOf(new FakeGateway(), { journal, tickMs: 5 });
    p.start();
    await new Promise((r) => setTimeout(r, 10));
    await p.stop();
    await new Promise((r) => setTimeout(r, 150));
    expect(looks).toBe(1);
  });
});

describe('a nudge (a callback named the payment)', () => {
  it('of a payment not in the journal, or not at the gateway yet, does nothing', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('q'));
    const gateway = new FakeGateway();
    const { poller: p } = pollerOf(gateway, { tickMs: 60_000 });
    p.start();
    await p.nudge('payout', 'nowhere');
    await p.nudge('payout', 'q');
    expect(t.journal.getPayment('payout', 'q')?.nextPollAt).toBeNull();
    expect(gateway.getCalls).toBe(0);
  });

  it('of a non-final payment while the poller runs makes it due now, behind the creates, not read at once', async () => {
    t = tempJournal();
    accepted('cb');
    t.journal.setNextPoll('payout', 'cb', NOW + 60_000);
    const gateway = new FakeGateway();
    // A create waits for a slot: the poller leaves the budget to it.
    gateway.usage = { inWindow: 10, limit: 10, queued: { token: 0, create: 1, status: 0, list: 0 } };
    const { poller: p } = pollerOf(gateway);
    p.start();
    await p.nudge('payout', 'cb');
    expect(t.journal.getPayment('payout', 'cb')?.nextPollAt).toBe(NOW);
    expect(gateway.getCalls).toBe(0);
  });
});

describe('a read asked for while the poller runs', () => {
  it('does not keep the payment from being polled afterwards', async () => {
    t = tempJournal();
    accepted('r');
    const gateway = new FakeGateway();
    gateway.stored.set('r', { request: payout('r'), status: 'PROCESSING' });
    const { poller: p } = pollerOf(gateway);
    await p.refresh('payout', 'r');
    expect(gateway.getCalls).toBe(1);
    t.journal.setNextPoll('payout', 'r', NOW - 1);
    p.start();
    const started = Date.now();
    while (gateway.getCalls < 2 && Date.now() - started < 3_000) await new Promise((r) => setTimeout(r, 5));
    expect(gateway.getCalls).toBe(2);
  });

  it('is not read a second time by the poller while it is in flight', async () => {
    t = tempJournal();
    accepted('once');
    t.journal.setNextPoll('payout', 'once', NOW - 1);
    const gateway = new FakeGateway();
    gateway.stored.set('once', { request: payout('once'), status: 'PROCESSING' });
    gateway.getDelayMs = 150;
    const { poller: p } = pollerOf(gateway);
    const reading = p.refresh('payout', 'once');
    p.start();
    await new Promise((r) => setTimeout(r, 60));
    expect(gateway.getCalls).toBe(1);
    await reading;
  });
});

describe('a row that is not for reading', () => {
  it('is no longer due (a QUEUED row sent again later), but a SENDING row keeps its read time', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('requeued'));
    t.journal.setNextPoll('payout', 'requeued', NOW - 1);
    t.journal.insertPayment('payout', payout('sending'));
    t.journal.markSending('payout', 'sending');
    t.journal.setNextPoll('payout', 'sending', NOW - 1);
    const gateway = new FakeGateway();
    const { poller: p } = pollerOf(gateway);
    expect((await p.refresh('payout', 'requeued'))?.nextPollAt).toBeNull();
    expect((await p.refresh('payout', 'sending'))?.nextPollAt).toBe(NOW - 1);
    expect(gateway.getCalls).toBe(0);
  });
});

describe('an unknown payout read back', () => {
  it('still not found: read again one interval on, not every tick', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('u'));
    t.journal.markSending('payout', 'u');
    t.journal.markUnknown('payout', 'u', 'time-out', NOW - 5);
    const resolved: string[] = [];
    const { poller: p } = pollerOf(new FakeGateway(), { resolveUnknown: async (id) => void resolved.push(id) });
    expect((await p.refresh('payout', 'u'))?.nextPollAt).toBe(NOW + 10_000);
    expect(resolved).toEqual(['u']);
  });

  it('whose read set its own next time keeps it', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('v'));
    t.journal.markSending('payout', 'v');
    t.journal.markUnknown('payout', 'v', 'time-out', NOW - 5);
    const { poller: p } = pollerOf(new FakeGateway(), { resolveUnknown: async (id) => t.journal.setNextPoll('payout', id, NOW + 1) });
    expect((await p.refresh('payout', 'v'))?.nextPollAt).toBe(NOW + 1);
  });
});

describe('a journal that fails under the poller', () => {
  it('that cannot say when the next read is due: the poller waits its longest idle time, it does not spin', async () => {
    t = tempJournal();
    let looks = 0;
    const journal = new Proxy(t.journal, {
      get(target, prop, receiver) {
        if (prop === 'nextPollTime') return () => {
          throw new Error('database is closing');
        };
        if (prop === 'duePolls') return (...args: Parameters<JournalPort['duePolls']>) => {
          looks++;
          return target.duePolls(...args);
        };
        const value: unknown = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    }) as JournalPort;
    // Longest idle wait: 20 ticks of 50 ms = 1 s; in 300 ms the poller looks once.
    const { poller: p } = pollerOf(new FakeGateway(), { journal, tickMs: 50, pollIntervalMs: 60_000 });
    p.start();
    await new Promise((r) => setTimeout(r, 300));
    expect(looks).toBe(1);
  });


  it('is reported, and the poller carries on', async () => {
    t = tempJournal();
    accepted('later');
    let fail = 2;
    const journal = new Proxy(t.journal, {
      get(target, prop, receiver) {
        if (prop === 'duePolls') return (...args: Parameters<JournalPort['duePolls']>) => {
          if (fail-- > 0) throw new Error('database is locked');
          return target.duePolls(...args);
        };
        const value: unknown = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    }) as JournalPort;
    const gateway = new FakeGateway();
    gateway.stored.set('later', { request: payout('later'), status: 'PROCESSING' });
    const { poller: p, errors } = pollerOf(gateway, { journal, pollIntervalMs: 20 });
    p.start();
    const started = Date.now();
    while (t.journal.getPayment('payout', 'later')?.status !== 'PROCESSING' && Date.now() - started < 3_000) await new Promise((r) => setTimeout(r, 5));
    expect(errors.map((e) => e.message)).toEqual(['database is locked', 'database is locked']);
    expect(t.journal.getPayment('payout', 'later')?.status).toBe('PROCESSING');
  });
});

describe('a read the gateway does not answer with a status', () => {
  it('a payout unknown to the gateway becomes MISSING only after 3 reads over at least 15 minutes (the default rule), announced as a local, non-final status', async () => {
    let clock = NOW;
    t = tempJournal({ now: () => clock });
    accepted('gone');
    const { poller: p, events } = pollerOf(new FakeGateway(), { now: () => clock });
    for (const minutes of [0, 5, 10]) {
      clock = NOW + minutes * 60_000;
      await p.refresh('payout', 'gone');
    }
    // Three reads, but only 10 minutes apart: the gateway may still be catching up.
    expect(t.journal.getPayment('payout', 'gone')?.state).toBe('ACCEPTED');
    clock = NOW + 15 * 60_000;
    await p.refresh('payout', 'gone');
    expect(t.journal.getPayment('payout', 'gone')?.state).toBe('MISSING');
    expect(events).toEqual([expect.objectContaining({ kind: 'payout', id: 'gone', status: 'MISSING', previousStatus: 'PENDING', final: false, source: 'local', observedAt: clock })]);
  });

  it('a payin unknown to the gateway is read again one interval on, never made MISSING (the desk did not send it)', async () => {
    t = tempJournal({ now: () => NOW });
    accepted('in-gone', 'payin');
    const { poller: p, events } = pollerOf(new FakeGateway(), { missingRule: { reads: 1, spanMs: 0 } });
    const record = await p.refresh('payin', 'in-gone');
    expect(record).toMatchObject({ state: 'ACCEPTED', nextPollAt: NOW + 10_000 });
    expect(events).toEqual([]);
  });

  it('a payout the gateway cannot be reached for is never counted towards MISSING', async () => {
    t = tempJournal({ now: () => NOW });
    accepted('offline');
    const gateway = new FakeGateway();
    gateway.offline = true;
    const { poller: p } = pollerOf(gateway, { missingRule: { reads: 1, spanMs: 0 } });
    expect(await p.refresh('payout', 'offline')).toMatchObject({ state: 'ACCEPTED', nextPollAt: NOW + 10_000 });
  });

  it('says offline, with the reason, only when the read did not reach the gateway (refused or timed out); an error answer says nothing', async () => {
    t = tempJournal({ now: () => NOW });
    accepted('c');
    const gateway = new FakeGateway();
    const seen: [string, string | null][] = [];
    const { poller: p, errors } = pollerOf(gateway, { onConnection: (state, message) => seen.push([state, message]) });
    const answers = [
      new GatewayError('network', 'connection refused', { code: 'ECONNREFUSED' }),
      new GatewayError('timeout', 'no answer in 30 s'),
      new GatewayError('server', 'internal error', { status: 500 }),
      new GatewayError('rate-limited', 'slow down', { status: 429 }),
    ];
    gateway.getPayout = async () => {
      throw answers.shift();
    };
    for (let i = 0; i < 4; i++) await p.refresh('payout', 'c');
    expect(seen).toEqual([['offline', 'connection refused'], ['offline', 'no answer in 30 s']]);
    // The gateway's own errors are not the desk's faults.
    expect(errors).toEqual([]);
  });

  it('with no connection callback, an outage is read through all the same', async () => {
    t = tempJournal({ now: () => NOW });
    accepted('quiet');
    const gateway = new FakeGateway();
    gateway.offline = true;
    const { poller: p } = pollerOf(gateway);
    expect(await p.refresh('payout', 'quiet')).toMatchObject({ state: 'ACCEPTED', nextPollAt: NOW + 10_000 });
  });

  it("a fault of the desk's own is reported, and the payment is read again one interval on", async () => {
    t = tempJournal({ now: () => NOW });
    accepted('bug');
    const gateway = new FakeGateway();
    gateway.getPayout = async () => {
      throw new TypeError('cannot read properties of undefined');
    };
    const { poller: p, errors } = pollerOf(gateway);
    expect((await p.refresh('payout', 'bug'))?.nextPollAt).toBe(NOW + 10_000);
    expect(errors.map((e) => e.message)).toEqual(['cannot read properties of undefined']);
  });
});

describe('what a read asks and announces', () => {
  it('a payin is read with the payin call, a payout with the payout call', async () => {
    t = tempJournal({ now: () => NOW });
    accepted('in-3', 'payin');
    accepted('out-3');
    const gateway = new FakeGateway();
    gateway.getPayout = async () => ({ status: 'PROCESSING', raw: {} });
    gateway.getPayin = async () => ({ status: 'SUCCESS', raw: {} });
    const { poller: p } = pollerOf(gateway);
    expect((await p.refresh('payin', 'in-3'))?.status).toBe('SUCCESS');
    expect((await p.refresh('payout', 'out-3'))?.status).toBe('PROCESSING');
  });

  it('a payout found paid is read again a minute on (a return may follow); a payin found paid is not', async () => {
    t = tempJournal({ now: () => NOW });
    accepted('paid-out');
    accepted('paid-in', 'payin');
    const gateway = new FakeGateway();
    gateway.stored.set('paid-out', { request: payout('paid-out'), status: 'SUCCESS' });
    gateway.stored.set('paid-in', { request: payout('paid-in'), status: 'SUCCESS' });
    const { poller: p } = pollerOf(gateway);
    expect(await p.refresh('payout', 'paid-out')).toMatchObject({ isFinal: true, nextPollAt: NOW + 60_000 });
    expect(await p.refresh('payin', 'paid-in')).toMatchObject({ isFinal: true, nextPollAt: null });
  });

  it('a read that finds the status unchanged announces nothing', async () => {
    t = tempJournal({ now: () => NOW });
    accepted('same');
    const gateway = new FakeGateway();
    gateway.stored.set('same', { request: payout('same'), status: 'PROCESSING' });
    const { poller: p, events } = pollerOf(gateway);
    await p.refresh('payout', 'same');
    await p.refresh('payout', 'same');
    expect(events.map((e) => e.status)).toEqual(['PROCESSING']);
  });

  it('a payment not in the journal: nothing is read, nothing fails', async () => {
    t = tempJournal({ now: () => NOW });
    const gateway = new FakeGateway();
    const { poller: p } = pollerOf(gateway);
    expect(await p.refresh('payout', 'nowhere')).toBeUndefined();
    expect(gateway.getCalls).toBe(0);
  });

  it('the read interval counts from acceptance, not from when the payout was entered', async () => {
    let clock = NOW - 2 * 3_600_000;
    t = tempJournal({ now: () => clock });
    t.journal.insertPayment('payout', payout('late'));
    clock = NOW;
    t.journal.recordObservation('payout', 'late', { status: 'PENDING', source: 'create', isFinal: false, nextPollAt: 0 });
    const gateway = new FakeGateway();
    gateway.stored.set('late', { request: payout('late'), status: 'PROCESSING' });
    const { poller: p } = pollerOf(gateway, { now: () => clock });
    // Accepted just now: read again after the base interval, not after the two-hour-old payout's 10 minutes.
    expect((await p.refresh('payout', 'late'))?.nextPollAt).toBe(NOW + 10_000);
  });
});

describe('an unknown payout read back, more', () => {
  const unknown = (id: string, nextPollAt: number) => {
    t.journal.insertPayment('payout', payout(id));
    t.journal.markSending('payout', id);
    t.journal.markUnknown('payout', id, 'time-out', nextPollAt);
  };

  it('whose read back fails: the failure is reported and it is read again one interval on', async () => {
    t = tempJournal({ now: () => NOW });
    unknown('w', NOW - 5);
    const { poller: p, errors } = pollerOf(new FakeGateway(), { resolveUnknown: () => Promise.reject(new Error('token refused')) });
    expect((await p.refresh('payout', 'w'))?.nextPollAt).toBe(NOW + 10_000);
    expect(errors.map((e) => e.message)).toEqual(['token refused']);
  });

  it('due exactly now and still unknown: read again one interval on, not at every tick', async () => {
    t = tempJournal({ now: () => NOW });
    unknown('x', NOW);
    const { poller: p } = pollerOf(new FakeGateway(), { resolveUnknown: async () => undefined });
    expect((await p.refresh('payout', 'x'))?.nextPollAt).toBe(NOW + 10_000);
  });

  it('found and final: no further read is planned for it', async () => {
    t = tempJournal({ now: () => NOW });
    unknown('y', NOW - 5);
    const { poller: p } = pollerOf(new FakeGateway(), {
      resolveUnknown: async (id) => t.journal.recordObservation('payout', id, { status: 'FAILED', source: 'poll', isFinal: true, nextPollAt: null }),
    });
    expect(await p.refresh('payout', 'y')).toMatchObject({ status: 'FAILED', isFinal: true, nextPollAt: null });
  });
});
