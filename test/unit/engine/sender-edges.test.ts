// The payout sender on the paths neither the engine tests nor the simulation take on a single desk (issue 25's
// mutation run found them untested): a claim another desk holds, a row gone or settled under the sender, a fault
// of the desk itself mid-send, a claim that no longer holds at the rate slot, and a 409 for an id the gateway then
// cannot show. Each asserts what a person or the next run relies on: what the journal says and what was sent.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PayoutSender, type SenderDeps } from '../../../main/engine/payout-sender';
import type { StatusChangedEvent } from '../../../main/engine/events';
import { payoutFieldsOf } from '../../../main/domain/payout';
import { GatewayError, SendCancelledError } from '../../../main/gateway/errors';
import type { JournalPort, SendClaim } from '../../../main/journal';
import { KeyStoreError } from '../../../main/keys/key-store';
import { payout, tempJournal, type TempJournal } from '../journal/helpers';
import { FakeGateway } from './fake-gateway';

let t: TempJournal;
afterEach(() => t?.dispose());

/** The SQLite journal with one method replaced (as a team journal, or a fault, would answer). */
function journalWith(overrides: Partial<Record<keyof JournalPort, unknown>>): JournalPort {
  return new Proxy(t.journal, {
    get(target, prop, receiver) {
      if (prop in overrides) return overrides[prop as keyof JournalPort];
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  }) as JournalPort;
}

function sender(gateway: FakeGateway, journal: JournalPort = t.journal, events: StatusChangedEvent[] = []): PayoutSender {
  const deps: SenderDeps = {
    journal,
    gateway,
    finalStatuses: ['SUCCESS', 'FAILED'],
    pollIntervalMs: 1_000,
    backoff: { baseMs: 1, capMs: 2 },
    now: () => 1_000_000,
    onStatus: (e) => events.push(e),
    onConnection: () => undefined,
    random: () => 0,
  };
  return new PayoutSender(deps);
}

describe('a payout another desk holds the claim of', () => {
  it('is left to that desk while it is unsent, and says so; a settled one is not unsent; one not in the journal is an error', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('theirs'));
    t.journal.insertPayment('payout', payout('done'));
    t.journal.recordObservation('payout', 'done', { status: 'SUCCESS', source: 'poll', isFinal: true });
    const gateway = new FakeGateway();
    const s = sender(gateway, journalWith({ claimSend: () => null }));
    expect(await s.send('theirs')).toBe('held-elsewhere');
    t.journal.markSending('payout', 'theirs');
    expect(await s.send('theirs')).toBe('held-elsewhere');
    t.journal.markUnknown('payout', 'theirs', 'time-out', 0);
    expect(await s.send('theirs')).toBe('held-elsewhere');
    expect(await s.send('done')).toBe('not-unsent');
    await expect(s.send('nowhere')).rejects.toThrow('payout nowhere is not in the journal');
    expect(gateway.createCalls.size).toBe(0);
    expect(gateway.getCalls).toBe(0);
  });
});

describe('a row the sender cannot send', () => {
  it('sends nothing for a payout already at the gateway, a stopped send, or a row that is gone', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('accepted'));
    t.journal.recordObservation('payout', 'accepted', { status: 'PENDING', source: 'create', isFinal: false });
    t.journal.insertPayment('payout', payout('queued'));
    const gateway = new FakeGateway();
    // Not even a rate slot is asked for (a create waits for one before anything else).
    let slotsAsked = 0;
    const createPayout = gateway.createPayout.bind(gateway);
    gateway.createPayout = (...args) => (slotsAsked++, createPayout(...args));
    const s = sender(gateway);
    expect(await s.send('accepted')).toBe('not-unsent');
    expect(slotsAsked).toBe(0);
    expect(await s.send('queued', AbortSignal.abort())).toBe('aborted');
    // A claim that holds for a row the journal no longer has (deleted under it): an error, never a send.
    const gone = sender(gateway, journalWith({ claimSend: (): SendClaim => ({ confirm: () => true, release: () => undefined }) }));
    await expect(gone.send('vanished')).rejects.toThrow('payout vanished is not in the journal');
    expect(gateway.createCalls.size).toBe(0);
    expect(t.journal.getPayment('payout', 'queued')).toMatchObject({ state: 'QUEUED', attempts: 0 });
  });

  it('a payout read back as not there while the batch is stopped is not sent: it stays of unknown outcome', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('cut'));
    t.journal.markSending('payout', 'cut');
    const gateway = new FakeGateway();
    const stop = new AbortController();
    // The GET of the unknown send answers "not found" just as the run is stopped.
    const getPayout = gateway.getPayout.bind(gateway);
    gateway.getPayout = async (id) => {
      stop.abort();
      return getPayout(id);
    };
    let slotsAsked = 0;
    const createPayout = gateway.createPayout.bind(gateway);
    gateway.createPayout = (...args) => (slotsAsked++, createPayout(...args));
    expect(await sender(gateway).send('cut', stop.signal)).toBe('aborted');
    expect(gateway.createCalls.size).toBe(0);
    expect(slotsAsked).toBe(0);
    expect(t.journal.getPayment('payout', 'cut')?.state).toBe('SENDING');
  });
});

describe('the claim of a send', () => {
  it('is not taken for a send stopped before it began, and is given back once after every attempt', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('c1'));
    let claims = 0;
    let releases = 0;
    const counted = journalWith({
      claimSend: (kind: 'payout', id: string): SendClaim => {
        claims++;
        return { ...t.journal.claimSend(kind, id), release: () => void releases++ };
      },
    });
    const gateway = new FakeGateway();
    expect(await sender(gateway, counted).send('c1', AbortSignal.abort())).toBe('aborted');
    expect([claims, releases]).toEqual([0, 0]);
    expect(await sender(gateway, counted).send('c1')).toBe('accepted');
    expect([claims, releases]).toEqual([1, 1]);
  });

  it("a claim's own read of the row is used for the first attempt only: a retry reads the journal again", async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('c2'));
    const asRead = t.journal.getPayment('payout', 'c2')!;
    const withRow = journalWith({ claimSend: (kind: 'payout', id: string): SendClaim => ({ ...t.journal.claimSend(kind, id), payment: asRead }) });
    const gateway = new FakeGateway();
    // The first create times out after the gateway stored it: the retry must read it back, not create again.
    gateway.failCreates(1, 'timeout', true);
    expect(await sender(gateway, withRow).send('c2')).toBe('accepted');
    expect(gateway.createCalls.get('c2')).toBe(1);
    expect(gateway.getCalls).toBe(1);
  });

  it('retries wait longer each time (capped backoff), with the same id', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('slow'));
    const gateway = new FakeGateway();
    gateway.failCreates(4, 'rate-limited', false);
    const waits: number[] = [];
    const setTimeoutReal = globalThis.setTimeout;
    const spy = vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms?: number) => {
      waits.push(ms ?? 0);
      return setTimeoutReal(fn, 0);
    }) as typeof setTimeout);
    try {
      const s = new PayoutSender({
        journal: t.journal, gateway, finalStatuses: [], pollIntervalMs: 1_000, backoff: { baseMs: 100, capMs: 500 },
        now: () => 0, onStatus: () => undefined, onConnection: () => undefined, random: () => 1,
      });
      expect(await s.send('slow')).toBe('accepted');
    } finally {
      spy.mockRestore();
    }
    expect(waits.filter((ms) => ms >= 100)).toEqual([100, 200, 400, 500]);
    expect(gateway.createCalls.get('slow')).toBe(5);
  });
});

describe('a send stopped while the claim was taken', () => {
  it('of a payout of unknown outcome does not even read it back', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('u-stop'));
    t.journal.markSending('payout', 'u-stop');
    const stop = new AbortController();
    const slowClaim = journalWith({
      claimSend: (kind: 'payout', id: string): SendClaim => {
        stop.abort();
        return t.journal.claimSend(kind, id);
      },
    });
    const gateway = new FakeGateway();
    expect(await sender(gateway, slowClaim).send('u-stop', stop.signal)).toBe('aborted');
    expect(gateway.getCalls).toBe(0);
  });

  it('sends nothing and says it was stopped', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('stopped'));
    const stop = new AbortController();
    const slowClaim = journalWith({
      claimSend: (kind: 'payout', id: string): SendClaim => {
        stop.abort();
        return t.journal.claimSend(kind, id);
      },
    });
    const gateway = new FakeGateway();
    expect(await sender(gateway, slowClaim).send('stopped', stop.signal)).toBe('aborted');
    expect(gateway.createCalls.size).toBe(0);
    expect(t.journal.getPayment('payout', 'stopped')).toMatchObject({ state: 'QUEUED', attempts: 0 });
  });
});

describe('a send under dual control', () => {
  it('with no approved body asks for no rate slot and sends nothing', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('unapp'));
    const gateway = new FakeGateway();
    let slotsAsked = 0;
    const createPayout = gateway.createPayout.bind(gateway);
    gateway.createPayout = (...args) => (slotsAsked++, createPayout(...args));
    expect(await sender(gateway).send('unapp', undefined, { approved: () => null })).toBe('unapproved');
    expect(slotsAsked).toBe(0);
    expect(t.journal.getPayment('payout', 'unapp')).toMatchObject({ state: 'QUEUED', attempts: 0 });
  });

  it('is not sent when its approval no longer holds at the rate slot, or covers another body by then', async () => {
    t = tempJournal();
    const gateway = new FakeGateway();
    for (const [id, second] of [['gone', null], ['changed', 'other']] as const) {
      t.journal.insertPayment('payout', payout(id));
      let asks = 0;
      const approved = (row: Parameters<NonNullable<Parameters<PayoutSender['send']>[2]>['approved'] & object>[0]) => {
        asks++;
        if (asks === 1) return payoutFieldsOf(row);
        return second === null ? null : { ...payoutFieldsOf(row), accountName: 'Someone Else' };
      };
      expect(await sender(gateway).send(id, undefined, { approved })).toBe('unapproved');
      expect(asks).toBe(2);
      expect(t.journal.getPayment('payout', id)).toMatchObject({ state: 'QUEUED', attempts: 0 });
    }
    expect(gateway.createCalls.size).toBe(0);
  });

  it("through a claim that cannot read the row now (a team desk's), is judged on the row as read", async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('team'));
    const bare = journalWith({ claimSend: (kind: 'payout', id: string): SendClaim => ({ confirm: () => t.journal.markSending(kind, id), release: () => undefined }) });
    const gateway = new FakeGateway();
    expect(await sender(gateway, bare).send('team', undefined, { approved: (row) => payoutFieldsOf(row) })).toBe('accepted');
    await new Promise((r) => setImmediate(r));
    expect(t.journal.timeline('payout', 'team').at(-1)).toMatchObject({ source: 'create', raw: { paymentMethodResponse: { idPayout: 'team' } } });
    expect(gateway.createCalls.get('team')).toBe(1);
  });
});

describe('a create stopped while it waited out a 429 (the transport tries it again at the next slot)', () => {
  /** A create that leaves, is answered 429 by the gateway, and asks again at its next slot (as the transport does). */
  const twiceAtTheSlot = (gateway: FakeGateway, between: () => void) => {
    gateway.createPayout = async (_id, _request, options) => {
      if (!options?.beforeSend?.()) throw new SendCancelledError('createPayout');
      between();
      if (!options.beforeSend()) throw new SendCancelledError('createPayout');
      throw new GatewayError('rate-limited', 'still 429', { status: 429 });
    };
  };

  it('stopped: back in the queue, not of unknown outcome (the 429 was not stored), saying why', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('s429'));
    const gateway = new FakeGateway();
    const stop = new AbortController();
    twiceAtTheSlot(gateway, () => stop.abort());
    expect(await sender(gateway).send('s429', stop.signal)).toBe('aborted');
    expect(t.journal.getPayment('payout', 's429')).toMatchObject({ state: 'QUEUED', lastError: 'not sent: stopped while waiting out a 429', attempts: 1 });
  });

  it('its approvals changed meanwhile: back in the queue, saying so', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('a429'));
    const gateway = new FakeGateway();
    let valid = true;
    twiceAtTheSlot(gateway, () => (valid = false));
    expect(await sender(gateway).send('a429', undefined, { approved: (row) => (valid ? payoutFieldsOf(row) : null) })).toBe('unapproved');
    expect(t.journal.getPayment('payout', 'a429')).toMatchObject({ state: 'QUEUED', lastError: 'not sent: its approvals changed while it waited out a 429' });
  });

  it('no longer approved at its first slot: nothing was written, no 429 named', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('u0'));
    const gateway = new FakeGateway();
    let asks = 0;
    expect(await sender(gateway).send('u0', undefined, { approved: (row) => (++asks === 1 ? payoutFieldsOf(row) : null) })).toBe('unapproved');
    expect(t.journal.getPayment('payout', 'u0')).toMatchObject({ state: 'QUEUED', lastError: null, attempts: 0 });
  });

  it('stopped before its first slot: nothing was written but the stop', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('s0'));
    const gateway = new FakeGateway();
    const stop = new AbortController();
    gateway.createPayout = async (_id, _request, options) => {
      stop.abort();
      if (!options?.beforeSend?.()) throw new SendCancelledError('createPayout');
      return { raw: {} };
    };
    expect(await sender(gateway).send('s0', stop.signal)).toBe('aborted');
    expect(t.journal.getPayment('payout', 's0')).toMatchObject({ state: 'QUEUED', lastError: null, attempts: 0 });
  });
});

describe('a payout whose re-send the gateway refused', () => {
  it('is read back, and not sent again while the gateway does not show it', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('nope'));
    t.journal.markSending('payout', 'nope');
    t.journal.markUnknown('payout', 'nope', 'the gateway refused a re-send', 0, true);
    const gateway = new FakeGateway();
    expect(await sender(gateway).send('nope')).toBe('unknown');
    expect(gateway.getCalls).toBe(1);
    expect(gateway.createCalls.size).toBe(0);
  });
});

describe('a claim that no longer holds at the rate slot', () => {
  it('sends nothing; a row still unsent is left to the desk that holds it now, a settled one is not unsent', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('lease'));
    const gateway = new FakeGateway();
    const lapsed = journalWith({ claimSend: (): SendClaim => ({ confirm: () => false, release: () => undefined }) });
    expect(await sender(gateway, lapsed).send('lease')).toBe('held-elsewhere');
    // One of unknown outcome, read back and not found, is left to that desk too.
    t.journal.insertPayment('payout', payout('lease-s'));
    t.journal.markSending('payout', 'lease-s');
    expect(await sender(gateway, lapsed).send('lease-s')).toBe('held-elsewhere');
    t.journal.insertPayment('payout', payout('lease-u'));
    t.journal.markSending('payout', 'lease-u');
    t.journal.markUnknown('payout', 'lease-u', 'time-out', 0);
    expect(await sender(gateway, lapsed).send('lease-u')).toBe('held-elsewhere');
    // Settled meanwhile (the other desk sent it and read it back).
    const settled = journalWith({
      claimSend: (): SendClaim => ({
        confirm: () => {
          t.journal.recordObservation('payout', 'lease', { status: 'PENDING', source: 'poll', isFinal: false });
          return false;
        },
        release: () => undefined,
      }),
    });
    expect(await sender(gateway, settled).send('lease')).toBe('not-unsent');
    expect(gateway.createCalls.size).toBe(0);
  });
});

describe('a fault of the desk itself', () => {
  it('after the request may have left: the payout is UNKNOWN with the fault named, and the fault is thrown', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('bug'));
    const gateway = new FakeGateway();
    const createPayout = gateway.createPayout.bind(gateway);
    gateway.createPayout = async (id, request, options) => {
      await createPayout(id, request, options);
      throw new TypeError('answer.body is undefined');
    };
    await expect(sender(gateway).send('bug')).rejects.toThrow('answer.body is undefined');
    expect(t.journal.getPayment('payout', 'bug')).toMatchObject({ state: 'UNKNOWN', lastError: 'the desk failed while sending: answer.body is undefined', nextPollAt: 1_001_000 });
  });

  it('before the request left: the payout stays QUEUED and the fault is thrown', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('early'));
    const gateway = new FakeGateway();
    gateway.createPayout = async () => {
      throw new TypeError('no body');
    };
    await expect(sender(gateway).send('early')).rejects.toThrow('no body');
    expect(t.journal.getPayment('payout', 'early')).toMatchObject({ state: 'QUEUED', lastError: null });
  });

  it('a keychain that fails after the request left halts sending and leaves the payout UNKNOWN, not held', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('locked'));
    const gateway = new FakeGateway();
    const createPayout = gateway.createPayout.bind(gateway);
    gateway.createPayout = async (id, request, options) => {
      await createPayout(id, request, options);
      throw new KeyStoreError('the keychain is locked');
    };
    await expect(sender(gateway).send('locked')).rejects.toMatchObject({ code: 'ENGINE_HALTED', reason: 'the keychain is locked', gatewayError: null });
    expect(t.journal.getPayment('payout', 'locked')).toMatchObject({ state: 'UNKNOWN', lastError: 'the keychain is locked' });
  });

  it('a keychain that fails before the request left holds a single payout with the reason, and tells the screens', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('nokey'));
    const gateway = new FakeGateway();
    gateway.createPayout = async () => {
      throw new KeyStoreError('no keychain');
    };
    const events: StatusChangedEvent[] = [];
    await expect(sender(gateway, t.journal, events).send('nokey')).rejects.toMatchObject({ code: 'ENGINE_HALTED', message: 'sending stopped: no keychain' });
    expect(t.journal.getPayment('payout', 'nokey')).toMatchObject({ state: 'HELD', lastError: 'no keychain' });
    expect(events).toEqual([expect.objectContaining({ id: 'nokey', status: 'HELD', previousStatus: 'QUEUED', final: false, source: 'local' })]);
  });

  it('an error that is not the desk setup, before the request left, does not hold the payout', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('plain'));
    const gateway = new FakeGateway();
    gateway.createPayout = async () => {
      throw Object.assign(new Error('named like a setup error, but not one'), { name: 'Error' });
    };
    await expect(sender(gateway).send('plain')).rejects.toThrow('named like a setup error');
    expect(t.journal.getPayment('payout', 'plain')?.state).toBe('QUEUED');
  });
});

describe('an interrupted send (SENDING, no answer) read back and sent again', () => {
  it('refused with a 400 is not final: the first send may still land, so it stays UNKNOWN, read with GET', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('crashed'));
    t.journal.markSending('payout', 'crashed');
    const gateway = new FakeGateway();
    gateway.failCreates(1, 'validation');
    const events: StatusChangedEvent[] = [];
    expect(await sender(gateway, t.journal, events).send('crashed')).toBe('unknown');
    expect(t.journal.getPayment('payout', 'crashed')).toMatchObject({
      state: 'UNKNOWN', isFinal: false, lastError: 'fake validation; an earlier send of this id has no answer yet, so it is checked with GET',
    });
    expect(events.map((e) => [e.status, e.final, e.source])).toEqual([['UNKNOWN', false, 'local']]);
    expect(t.journal.resendAllowed('payout', 'crashed')).toBe(false);
  });

  it('whose read-back fails is still of unknown outcome, never back in the queue', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('unread'));
    t.journal.markSending('payout', 'unread');
    const gateway = new FakeGateway();
    const stop = new AbortController();
    gateway.getPayout = async () => {
      stop.abort();
      throw new GatewayError('server', 'read failed', { status: 503 });
    };
    expect(await sender(gateway).send('unread', stop.signal)).toBe('aborted');
    expect(t.journal.getPayment('payout', 'unread')).toMatchObject({ state: 'UNKNOWN', lastError: 'read failed' });
  });

  it('of unknown outcome, failing on the keychain before it left, keeps its state and says why', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('kc'));
    t.journal.markSending('payout', 'kc');
    t.journal.markUnknown('payout', 'kc', 'time-out', 0);
    const gateway = new FakeGateway();
    gateway.createPayout = async () => {
      throw new KeyStoreError('keychain locked');
    };
    await expect(sender(gateway).send('kc')).rejects.toMatchObject({ code: 'ENGINE_HALTED' });
    expect(t.journal.getPayment('payout', 'kc')).toMatchObject({ state: 'UNKNOWN', lastError: 'keychain locked' });
  });
});

describe('what a send returns and tells', () => {
  it('a 409 read back is recorded as a poll; a status that did not change is not told again', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('dup'));
    const gateway = new FakeGateway();
    gateway.stored.set('dup', { request: payout('dup'), status: 'PROCESSING' });
    const connection: [string, string | null][] = [];
    const s409 = new PayoutSender({
      journal: t.journal, gateway, finalStatuses: [], pollIntervalMs: 1_000, backoff: { baseMs: 1, capMs: 2 },
      now: () => 0, onStatus: () => undefined, onConnection: (state, message) => void connection.push([state, message]), random: () => 0,
    });
    expect(await s409.send('dup')).toBe('accepted');
    expect(connection).toEqual([['online', null]]);
    await new Promise((r) => setImmediate(r));
    expect(t.journal.timeline('payout', 'dup').at(-1)).toMatchObject({ status: 'PROCESSING', source: 'poll' });

    t.journal.insertPayment('payout', payout('still'));
    t.journal.markSending('payout', 'still');
    t.journal.markUnknown('payout', 'still', 'time-out', 0);
    const events: StatusChangedEvent[] = [];
    const refusing = new FakeGateway();
    refusing.failCreates(1, 'validation');
    expect(await sender(refusing, t.journal, events).send('still')).toBe('unknown');
    expect(events).toEqual([]);
  });

  it('a MISMATCH is told to the screens as not final', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('mm'));
    t.journal.markSending('payout', 'mm');
    const gateway = new FakeGateway();
    gateway.getPayout = async () => ({ status: 'PENDING', amountMinor: 1, currencyCode: 'EUR', raw: {} });
    const events: StatusChangedEvent[] = [];
    expect(await sender(gateway, t.journal, events).send('mm')).toBe('mismatch');
    expect(events.map((e) => [e.status, e.final, e.source])).toEqual([['MISMATCH', false, 'local']]);
  });

  it('a 400 to a first send: rejected', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('bad'));
    const gateway = new FakeGateway();
    gateway.failCreates(1, 'validation');
    const events: StatusChangedEvent[] = [];
    expect(await sender(gateway, t.journal, events).send('bad')).toBe('rejected');
    expect(events.map((e) => [e.status, e.final, e.source])).toEqual([['REJECTED', true, 'local']]);
    // What the gateway answered is kept with the refusal.
    expect(t.journal.timeline('payout', 'bad').at(-1)).toMatchObject({ status: 'REJECTED', raw: { message: 'fake validation', response: { status: 400, code: 'VALIDATION' } } });
  });

  it('the connection goes offline on a time-out or a network failure, not on a 429', async () => {
    t = tempJournal();
    const states: string[] = [];
    const gateway = new FakeGateway();
    const s = new PayoutSender({
      journal: t.journal, gateway, finalStatuses: [], pollIntervalMs: 1_000, backoff: { baseMs: 1, capMs: 2 },
      now: () => 0, onStatus: () => undefined, onConnection: (state) => void states.push(state), random: () => 0,
    });
    for (const [id, kind] of [['to', 'timeout'], ['net', 'network'], ['busy', 'rate-limited']] as const) {
      t.journal.insertPayment('payout', payout(id));
      gateway.failCreates(1, kind);
      states.length = 0;
      expect(await s.send(id)).toBe('accepted');
      expect([id, states]).toEqual([id, kind === 'rate-limited' ? ['online'] : ['offline', 'online']]);
    }
  });

  it('a retry waits at least what the gateway asked (Retry-After), and a stop during the wait ends it', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('later'));
    const gateway = new FakeGateway();
    gateway.failCreates(1, 'rate-limited', false, 60_000);
    const stop = new AbortController();
    const started = Date.now();
    setTimeout(() => stop.abort(), 50);
    expect(await sender(gateway).send('later', stop.signal)).toBe('aborted');
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(gateway.createCalls.get('later')).toBe(1);
    expect(t.journal.getPayment('payout', 'later')?.state).toBe('QUEUED');
  });
});

describe('reading back a payout of unknown outcome (resolveUncertain)', () => {
  it('reads only a payout that may be at the gateway: none for one not in the journal or already accepted', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('acc'));
    t.journal.recordObservation('payout', 'acc', { status: 'PENDING', source: 'create', isFinal: false });
    t.journal.insertPayment('payout', payout('queued'));
    const gateway = new FakeGateway();
    const s = sender(gateway);
    expect(await s.resolveUncertain('nowhere')).toBeNull();
    expect(await s.resolveUncertain('acc')).toBeNull();
    expect(await s.resolveUncertain('queued')).toBeNull();
    expect(gateway.getCalls).toBe(0);
  });

  it('found: its status; a SENDING one as well as an UNKNOWN one', async () => {
    t = tempJournal();
    for (const id of ['s', 'u']) {
      t.journal.insertPayment('payout', payout(id));
      t.journal.markSending('payout', id);
    }
    t.journal.markUnknown('payout', 'u', 'time-out', 0);
    const gateway = new FakeGateway();
    gateway.stored.set('s', { request: payout('s'), status: 'PROCESSING' });
    gateway.stored.set('u', { request: payout('u'), status: 'PROCESSING' });
    const s = sender(gateway);
    expect(await s.resolveUncertain('s')).toBe('accepted');
    expect(await s.resolveUncertain('u')).toBe('accepted');
    expect(gateway.getCalls).toBe(2);
  });

  it('not found, or not readable: still unknown, read again one interval on, the reason kept where a re-send was refused', async () => {
    t = tempJournal();
    for (const id of ['nf', 'ro', 'refused']) {
      t.journal.insertPayment('payout', payout(id));
      t.journal.markSending('payout', id);
    }
    t.journal.markUnknown('payout', 'refused', 'the gateway refused a re-send', 0, true);
    const gateway = new FakeGateway();
    const s = sender(gateway);
    expect(await s.resolveUncertain('nf')).toBe('unknown');
    expect(t.journal.getPayment('payout', 'nf')).toMatchObject({ state: 'UNKNOWN', nextPollAt: 1_001_000, lastError: 'not found at the gateway yet; an earlier send may still land, so it is read again' });
    // A time-out's words give way to what the read found; a refusal's stay.
    t.journal.insertPayment('payout', payout('timed'));
    t.journal.markSending('payout', 'timed');
    t.journal.markUnknown('payout', 'timed', 'time-out', 0);
    expect(await s.resolveUncertain('timed')).toBe('unknown');
    expect(t.journal.getPayment('payout', 'timed')?.lastError).toBe('not found at the gateway yet; an earlier send may still land, so it is read again');
    expect(await s.resolveUncertain('refused')).toBe('unknown');
    expect(t.journal.getPayment('payout', 'refused')?.lastError).toBe('the gateway refused a re-send');
    gateway.offline = true;
    expect(await s.resolveUncertain('ro')).toBeNull();
    expect(t.journal.getPayment('payout', 'ro')).toMatchObject({ state: 'UNKNOWN', nextPollAt: 1_001_000, lastError: 'not read yet: fake network' });
    gateway.getPayout = async () => {
      throw new TypeError('bad answer');
    };
    await expect(s.resolveUncertain('ro')).rejects.toThrow('bad answer');
  });
});

describe('a 429 to a create that left', () => {
  it('was not stored: the payout goes back to the queue, is not read back, and is sent again with the same id', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('busy'));
    const gateway = new FakeGateway();
    gateway.failCreates(1, 'rate-limited', false, 1);
    expect(await sender(gateway).send('busy')).toBe('accepted');
    expect(gateway.createCalls.get('busy')).toBe(2);
    expect(gateway.getCalls).toBe(0);
    await new Promise((r) => setImmediate(r));
    expect(t.journal.timeline('payout', 'busy').map((e) => e.status)).not.toContain('UNKNOWN');
    expect(t.journal.getPayment('payout', 'busy')?.unknownSince).toBeNull();
  });
});

describe('a gateway answer that names a socket error', () => {
  it('is still an answer after the request arrived: of unknown outcome, read back, not created again', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('upstream'));
    const gateway = new FakeGateway();
    const createPayout = gateway.createPayout.bind(gateway);
    let first = true;
    gateway.createPayout = async (id, request, options) => {
      const answer = await createPayout(id, request, options);
      if (!first) return answer;
      first = false;
      // A 502 whose body carries the gateway's own upstream's code: the payout was stored all the same.
      throw new GatewayError('server', 'bad gateway', { status: 502, code: 'ECONNREFUSED' });
    };
    const events: StatusChangedEvent[] = [];
    expect(await sender(gateway, t.journal, events).send('upstream')).toBe('accepted');
    expect(events.map((e) => [e.status, e.final])).toEqual([['UNKNOWN', false], ['PENDING', false]]);
    expect(gateway.createCalls.get('upstream')).toBe(1);
    expect(gateway.getCalls).toBe(1);
    await new Promise((r) => setImmediate(r));
    expect(t.journal.timeline('payout', 'upstream').map((e) => e.status)).toContain('UNKNOWN');
  });
});

describe('a 409 for an id the gateway then answers "not found" for', () => {
  it('is not sent again: UNKNOWN, re-sends refused, read with GET until the gateway shows it', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('ghost'));
    const gateway = new FakeGateway();
    gateway.createPayout = async (id, _request, options) => {
      options?.beforeSend?.();
      throw new GatewayError('conflict', 'id exists', { status: 409 });
    };
    expect(await sender(gateway).send('ghost')).toBe('unknown');
    expect(t.journal.getPayment('payout', 'ghost')).toMatchObject({ state: 'UNKNOWN', lastError: 'the gateway says it has this id but answers "not found" for it', nextPollAt: 1_001_000 });
    expect(t.journal.resendAllowed('payout', 'ghost')).toBe(false);
  });

  it('a read that fails otherwise after the 409 is thrown, the payout left of unknown outcome', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('flaky'));
    const gateway = new FakeGateway();
    gateway.createPayout = async (id, _request, options) => {
      options?.beforeSend?.();
      throw new GatewayError('conflict', 'id exists', { status: 409 });
    };
    gateway.getPayout = async () => {
      throw new TypeError('bad answer');
    };
    await expect(sender(gateway).send('flaky')).rejects.toThrow('bad answer');
    expect(t.journal.getPayment('payout', 'flaky')?.state).toBe('UNKNOWN');
  });
});

describe('what the gateway holds under our id', () => {
  it('a different currency with no amount is a MISMATCH that says what is unknown', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('cur'));
    t.journal.markSending('payout', 'cur');
    const gateway = new FakeGateway();
    gateway.getPayout = async () => ({ status: 'PENDING', currencyCode: 'usd', raw: {} });
    expect(await sender(gateway).send('cur')).toBe('mismatch');
    expect(t.journal.getPayment('payout', 'cur')).toMatchObject({ state: 'MISMATCH', lastError: 'the gateway holds cur with ? usd (minor units), not 12550 EUR' });
  });

  it('another amount with no currency is a MISMATCH that says the currency is unknown', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('amt'));
    t.journal.markSending('payout', 'amt');
    const gateway = new FakeGateway();
    gateway.getPayout = async () => ({ status: 'PENDING', amountMinor: 1, raw: {} });
    expect(await sender(gateway).send('amt')).toBe('mismatch');
    expect(t.journal.getPayment('payout', 'amt')?.lastError).toBe('the gateway holds amt with 1 ? (minor units), not 12550 EUR');
  });

  it('the same currency in lower case and no amount is the payout, accepted', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('low'));
    t.journal.markSending('payout', 'low');
    const gateway = new FakeGateway();
    gateway.getPayout = async () => ({ status: 'pending', currencyCode: 'eur', raw: {} });
    expect(await sender(gateway).send('low')).toBe('accepted');
    await new Promise((r) => setImmediate(r));
    expect(t.journal.getPayment('payout', 'low')).toMatchObject({ state: 'ACCEPTED', status: 'PENDING' });
  });
});
