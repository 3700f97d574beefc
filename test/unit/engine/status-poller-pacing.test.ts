// The status poller's pacing (issue 25's survivors): when it next looks at the journal for due reads, and how many
// reads it starts. An idle desk must not query its journal four times a second, a payment named by a callback must
// be read within a tick, a batch that is sending must keep the whole rate budget, and the reads kept outstanding at
// the limiter must stay within their bound. Fake timers: every look and every GET is stamped with the faked clock,
// so the assertions are exact times, not "soon enough".
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LimiterUsagePort } from '../../../main/engine/ports';
import { StatusPoller, type PollerDeps } from '../../../main/engine/status-poller';
import type { JournalPort } from '../../../main/journal';
import { payout, tempJournal, type TempJournal } from '../journal/helpers';
import { FakeGateway } from './fake-gateway';

const T0 = 1_800_000_000_000;

let t: TempJournal | undefined;
let poller: StatusPoller | undefined;
beforeEach(() => {
  // setImmediate is faked too: the journal commits a read's observation on it, so that commit runs on the faked
  // clock (1 ms after the read, as the fake runs an immediate queued within a timer 1 ms on).
  vi.useFakeTimers({ now: T0 });
});
afterEach(async () => {
  const p = poller;
  poller = undefined;
  if (p) {
    // stop() waits for the reads in flight, which wait on faked timers.
    const stopped = p.stop();
    await vi.runAllTimersAsync();
    await stopped;
  }
  vi.useRealTimers();
  t?.dispose();
  t = undefined;
});

const idle = (): LimiterUsagePort => ({ inWindow: 0, limit: 10, queued: { token: 0, create: 0, status: 0, list: 0 } });

interface Desk {
  poller: StatusPoller;
  gateway: FakeGateway;
  /** When the poller asked the journal for due reads, in ms after T0. */
  looks: number[];
  /** How often the poller asked the journal what is due or when the next read falls due. */
  queries: () => number;
  /** When each GET was started, in ms after T0, with its payment. */
  gets: { at: number; id: string }[];
  errors: Error[];
  /** Payments whose GET has started and not answered. */
  outstanding: () => number;
  /** How long the gateway takes to answer this GET, beyond its own getDelayMs (default: no longer). */
  answerIn: (id: string) => number;
}

/**
 * A poller over a fresh journal and the fake gateway, on the faked clock. `duePolls` is wrapped to stamp each look;
 * `journal` may wrap it further (a team journal, a failing one).
 */
function desk(more: Partial<PollerDeps> = {}, wrap: (j: JournalPort) => Partial<JournalPort> = () => ({})): Desk {
  t ??= tempJournal({ now: () => Date.now() });
  const base = t.journal;
  const looks: number[] = [];
  let queries = 0;
  const gets: { at: number; id: string }[] = [];
  const errors: Error[] = [];
  const gateway = new FakeGateway();
  gateway.usage = idle();
  let open = 0;
  const get = gateway.getPayout.bind(gateway);
  gateway.getPayout = async (id) => {
    gets.push({ at: Date.now() - T0, id });
    open++;
    try {
      const ms = d.answerIn(id);
      if (ms > 0) await new Promise((r) => setTimeout(r, ms));
      return await get(id);
    } finally {
      open--;
    }
  };
  const overrides = wrap(base);
  const journal = new Proxy(base, {
    get(target, prop, receiver) {
      if (prop in overrides) return overrides[prop as keyof JournalPort];
      if (prop === 'duePolls') return (...args: Parameters<JournalPort['duePolls']>) => {
        looks.push(Date.now() - T0);
        queries++;
        return target.duePolls(...args);
      };
      if (prop === 'nextPollTime') return (...args: Parameters<JournalPort['nextPollTime']>) => {
        queries++;
        return target.nextPollTime(...args);
      };
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  }) as JournalPort;
  poller = new StatusPoller({
    journal, gateway, finalStatuses: ['SUCCESS', 'FAILED'], pollIntervalMs: 60_000, now: () => Date.now(),
    onStatus: () => undefined, onError: (e) => errors.push(e), ...more,
  });
  const d: Desk = { poller, gateway, looks, queries: () => queries, gets, errors, outstanding: () => open, answerIn: () => 0 };
  return d;
}

/** An accepted payout the gateway knows, read next at T0 + `dueIn`. */
function acceptedAt(d: Desk, id: string, dueIn: number): void {
  t!.journal.insertPayment('payout', payout(id));
  t!.journal.recordObservation('payout', id, { status: 'PENDING', source: 'create', isFinal: false, nextPollAt: T0 + dueIn });
  d.gateway.stored.set(id, { request: payout(id), status: 'PROCESSING' });
}

/** The gateway takes `ms` to answer for `id` (the others answer at once). */
function slowFor(d: Desk, id: string, ms: number): void {
  d.answerIn = (which) => (which === id ? ms : 0);
}

/** Runs the faked clock to T0 + `ms`, with the promises each timer's callback starts. */
async function until(ms: number): Promise<void> {
  await vi.advanceTimersByTimeAsync(T0 + ms - Date.now());
}

describe('an idle desk', () => {
  it('looks at its journal once, then every 20 ticks (5 s by default), not every tick', async () => {
    const d = desk();
    d.poller.start();
    await until(16_000);
    expect(d.looks).toEqual([0, 5_000, 10_000, 15_000]);
  });

  it('looks every half poll interval when that is sooner than 20 ticks', async () => {
    const d = desk({ tickMs: 250, pollIntervalMs: 3_000 });
    d.poller.start();
    await until(5_000);
    expect(d.looks).toEqual([0, 1_500, 3_000, 4_500]);
  });

  it('looks every tick, not more often, when half the poll interval is shorter than a tick', async () => {
    const d = desk({ tickMs: 250, pollIntervalMs: 300 });
    d.poller.start();
    await until(1_000);
    expect(d.looks).toEqual([0, 250, 500, 750, 1_000]);
  });

  it('reads a payment due in 1.2 s at 1.2 s, not at its next idle look', async () => {
    const d = desk();
    acceptedAt(d, 'soon', 1_200);
    d.poller.start();
    await until(3_000);
    expect(d.gets).toEqual([{ at: 1_200, id: 'soon' }]);
    expect(d.looks).toEqual([0, 1_200]);
  });

  it('reads a payment due sooner than a tick at the next tick: it never looks more than once a tick', async () => {
    const d = desk({ tickMs: 250 });
    acceptedAt(d, 'very-soon', 100);
    d.poller.start();
    await until(1_000);
    expect(d.looks).toEqual([0, 250]);
    expect(d.gets).toEqual([{ at: 250, id: 'very-soon' }]);
  });

  it('does not look every tick while a slow read is in flight: that read was due, looking again starts it no sooner', async () => {
    const d = desk();
    acceptedAt(d, 'slow', 0);
    d.gateway.getDelayMs = 8_000;
    d.poller.start();
    await until(4_000);
    expect(d.gets).toEqual([{ at: 0, id: 'slow' }]);
    expect(d.looks).toEqual([0]);
  });
});

describe('a payment a callback names', () => {
  it('is read at the next short tick (250 ms by default), not at the idle look, and the idle wait starts again from there', async () => {
    const d = desk();
    acceptedAt(d, 'cb', 60_000);
    d.poller.start();
    await until(1_000);
    await d.poller.nudge('payout', 'cb');
    await until(7_000);
    expect(d.gets).toEqual([{ at: 1_250, id: 'cb' }]);
    // The look planned for 5 s was replaced, not kept beside the new one.
    expect(d.looks).toEqual([0, 1_250, 6_250]);
  });

  it('is read one configured tick later', async () => {
    const d = desk({ tickMs: 100 });
    acceptedAt(d, 'cb', 60_000);
    d.poller.start();
    await until(1_000);
    await d.poller.nudge('payout', 'cb');
    await until(1_500);
    expect(d.gets).toEqual([{ at: 1_100, id: 'cb' }]);
  });

  it('a second callback within the tick does not push the first one\'s read later', async () => {
    const d = desk({ tickMs: 250 });
    acceptedAt(d, 'first', 60_000);
    acceptedAt(d, 'second', 60_000);
    d.poller.start();
    await until(1_000);
    await d.poller.nudge('payout', 'first');
    await until(1_100);
    await d.poller.nudge('payout', 'second');
    await until(2_000);
    expect(d.gets).toEqual([{ at: 1_250, id: 'first' }, { at: 1_250, id: 'second' }]);
  });

  it('is recorded as a callback once; the poll after it is recorded as a poll', async () => {
    const d = desk({ pollIntervalMs: 10_000 });
    acceptedAt(d, 'src', 60_000);
    d.poller.start();
    await until(1_000);
    await d.poller.nudge('payout', 'src');
    await until(2_000);
    d.gateway.setStatus('SUCCESS');
    await until(12_000);
    // Read at 1.25 s and at 11.25 s (10 s on), each recorded at the journal's commit 1 ms later.
    expect(t!.journal.timeline('payout', 'src').map((e) => [e.status, e.source, e.observedAt - T0])).toEqual([
      ['QUEUED', 'local', 0],
      ['PENDING', 'create', 0],
      ['PROCESSING', 'callback', 1_251],
      ['SUCCESS', 'poll', 11_251],
    ]);
  });
});

describe('creates go first', () => {
  it.each(['create', 'token', 'list'])('no read starts, and the journal is not even asked, while a %s waits for a slot; reads start at the next tick after', async (lane) => {
    const d = desk();
    acceptedAt(d, 'waiting', 0);
    d.gateway.usage = { ...idle(), queued: { ...idle().queued, [lane]: 1 } };
    d.poller.start();
    await until(3_000);
    // The sender has the journal to itself while it waits: no query at all, not even for the next due time.
    expect(d.queries()).toBe(0);
    expect(d.gets).toEqual([]);
    d.gateway.usage = idle();
    await until(3_250);
    expect(d.gets).toEqual([{ at: 3_250, id: 'waiting' }]);
  });

  it.each([
    { since: 999, quiet: undefined, reads: 0, what: 'a create left 999 ms ago (default quiet time 1 s)' },
    { since: 1_000, quiet: undefined, reads: 1, what: 'a create left 1 s ago' },
    { since: 499, quiet: 500, reads: 0, what: 'a create left 499 ms ago, quiet time 500 ms' },
    { since: 500, quiet: 500, reads: 1, what: 'a create left 500 ms ago, quiet time 500 ms' },
    { since: null, quiet: undefined, reads: 1, what: 'no create has left yet' },
  ])('while creates flow no read starts: $what → $reads read(s)', async ({ since, quiet, reads }) => {
    const d = desk(quiet === undefined ? {} : { createsQuietMs: quiet });
    acceptedAt(d, 'flow', 0);
    d.gateway.usage = { ...idle(), msSinceRelease: { token: null, create: since, status: null, list: null } };
    d.poller.start();
    await until(100);
    expect(d.gets).toHaveLength(reads);
    expect(d.errors).toEqual([]);
  });

  it('a limiter that does not say when lanes were last used does not stop the reads', async () => {
    const d = desk();
    acceptedAt(d, 'plain', 0);
    d.poller.start();
    await until(100);
    expect(d.gets).toEqual([{ at: 0, id: 'plain' }]);
    expect(d.errors).toEqual([]);
  });
});

describe('how many reads are outstanding', () => {
  it('at most maxInFlight, however many are due; a slot that frees is filled at the next tick', async () => {
    const d = desk({ maxInFlight: 3, tickMs: 250 });
    for (let i = 0; i < 8; i++) acceptedAt(d, `due-${i}`, -100 + i);
    d.gateway.getDelayMs = 1_000;
    d.poller.start();
    let most = 0;
    for (let ms = 50; ms <= 2_000; ms += 50) {
      await until(ms);
      most = Math.max(most, d.outstanding());
    }
    expect(most).toBe(3);
    // Three at once, the next three once those answered at 1 s (the tick at 1 s comes before their answers).
    expect(d.gets.map((g) => g.at)).toEqual([0, 0, 0, 1_250, 1_250, 1_250]);
    expect(d.gets.map((g) => g.id)).toEqual(['due-0', 'due-1', 'due-2', 'due-3', 'due-4', 'due-5']);
  });

  it.each([
    { limit: 10, max: 15 },
    { limit: 3, max: 5 },
    { limit: 1, max: 2 },
    { limit: 0, max: 1 },
  ])('by default 1.5 × the rate limit rounded up, at least one: limit $limit → $max', async ({ limit, max }) => {
    const d = desk();
    for (let i = 0; i < 20; i++) acceptedAt(d, `p-${String(i).padStart(2, '0')}`, -100 + i);
    d.gateway.usage = { ...idle(), limit };
    d.gateway.getDelayMs = 10_000;
    d.poller.start();
    await until(2_000);
    expect(d.gets).toHaveLength(max);
    expect(d.outstanding()).toBe(max);
  });

  it('a read asked for by hand takes one of the slots', async () => {
    const d = desk({ maxInFlight: 3 });
    for (let i = 0; i < 5; i++) acceptedAt(d, `s-${i}`, -100 + i);
    d.gateway.getDelayMs = 10_000;
    const refreshed = d.poller.refresh('payout', 's-4');
    d.poller.start();
    await until(2_000);
    expect(d.gets.map((g) => g.id)).toEqual(['s-4', 's-0', 's-1']);
    await until(11_000);
    await refreshed;
  });

  it('a slot freed beside a slow read goes to the next payment due, not to the slow one again', async () => {
    const d = desk({ maxInFlight: 2, tickMs: 250 });
    acceptedAt(d, 'slow', -30);
    acceptedAt(d, 'quick', -20);
    acceptedAt(d, 'next', -10);
    slowFor(d, 'slow', 10_000);
    d.poller.start();
    await until(1_000);
    expect(d.gets).toEqual([{ at: 0, id: 'slow' }, { at: 0, id: 'quick' }, { at: 250, id: 'next' }]);
  });

  it('a journal that hands back more than asked, or reads already in flight (a team journal lagging), still gets at most the budget and one read per payment', async () => {
    const d = desk({ maxInFlight: 2, tickMs: 250 }, (j) => ({
      // Ignores both the limit and the reads in flight.
      duePolls: (now: number, limit: number) => j.duePolls(now, limit + 10),
    }));
    for (let i = 0; i < 5; i++) acceptedAt(d, `t-${i}`, -100 + i);
    d.gateway.getDelayMs = 10_000;
    d.poller.start();
    await until(2_000);
    expect(d.gets.map((g) => g.id)).toEqual(['t-0', 't-1']);
  });
});

describe('one payment is never read twice at once', () => {
  it('a journal lagging behind (a team journal) that hands back a payment whose read is in flight: it is not read again', async () => {
    const d = desk({ maxInFlight: 2, tickMs: 250 }, (j) => ({
      duePolls: (now: number, limit: number) => j.duePolls(now, limit),
    }));
    acceptedAt(d, 'slow', -20);
    acceptedAt(d, 'quick', -10);
    slowFor(d, 'slow', 10_000);
    d.poller.start();
    await until(2_000);
    // From 250 ms on a slot is free, and the journal offers 'slow' for it each tick.
    expect(d.gets).toEqual([{ at: 0, id: 'slow' }, { at: 0, id: 'quick' }]);
  });

  it('two reads asked for by hand overlap (the screen and the command line), then a callback names it: no third read while the second is out', async () => {
    const d = desk({ tickMs: 250 });
    acceptedAt(d, 'twice', 60_000);
    const delays = [1_000, 3_000];
    d.answerIn = () => delays.shift() ?? 0;
    const first = d.poller.refresh('payout', 'twice');
    await until(500);
    const second = d.poller.refresh('payout', 'twice');
    d.poller.start();
    await until(1_500);
    await first;
    await d.poller.nudge('payout', 'twice');
    await until(3_000);
    expect(d.gets).toEqual([{ at: 0, id: 'twice' }, { at: 500, id: 'twice' }]);
    await until(4_000);
    await second;
  });
});

describe('a journal that fails when asked what is due', () => {
  it('is reported (whatever it throws) and asked again after the idle wait, not every tick', async () => {
    let asked = 0;
    const d = desk({}, () => ({
      duePolls: () => {
        asked++;
        throw 'database is locked';
      },
    }));
    d.poller.start();
    await until(6_000);
    expect(asked).toBe(2);
    expect(d.errors.map((e) => [e instanceof Error, e.message])).toEqual([[true, 'database is locked'], [true, 'database is locked']]);
  });
});

describe('a stopped poller', () => {
  it('stop() resolves once the reads in flight are recorded, so the journal can be closed after it', async () => {
    const d = desk();
    acceptedAt(d, 'last', 0);
    d.gateway.getDelayMs = 2_000;
    d.poller.start();
    await until(100);
    let stopped = false;
    const stopping = d.poller.stop().then(() => {
      stopped = true;
    });
    await until(1_900);
    expect(stopped).toBe(false);
    await until(2_100);
    await stopping;
    expect(t!.journal.getPayment('payout', 'last')?.status).toBe('PROCESSING');
  });

  it('looks no more, also when stopped between two looks', async () => {
    const d = desk();
    d.poller.start();
    await until(6_000);
    await d.poller.stop();
    await until(30_000);
    expect(d.looks).toEqual([0, 5_000]);
  });

  it('started twice looks on one schedule, not two', async () => {
    const d = desk();
    d.poller.start();
    await until(2_000);
    d.poller.start();
    await until(11_000);
    expect(d.looks).toEqual([0, 5_000, 10_000]);
  });
});
