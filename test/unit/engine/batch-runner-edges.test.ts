// A batch run (batch-runner.ts) on paths the engine tests leave alone (found by issue 25's mutation run): a yes of
// the gate that never covers a row, rows another desk holds, a gate whose refusal cannot be recorded, progress
// that cannot be read, and a batch that is gone. Nothing more is sent in any of them, and the batch says why.
import { afterEach, describe, expect, it } from 'vitest';
import { BatchRun, batchProgress, progressOf, type BatchRunnerDeps } from '../../../main/engine/batch-runner';
import { PayoutSender } from '../../../main/engine/payout-sender';
import type { ApprovalClearance } from '../../../main/engine/ports';
import type { BatchProgressEvent } from '../../../main/engine/events';
import { payoutFieldsOf } from '../../../main/domain/payout';
import { GatewayError } from '../../../main/gateway/errors';
import type { JournalPort, SendClaim } from '../../../main/journal';
import { payout, tempJournal, type TempJournal } from '../journal/helpers';
import { FakeGateway } from './fake-gateway';

let t: TempJournal;
afterEach(() => t?.dispose());

/** The SQLite journal with some answers replaced. */
function journalWith(overrides: Record<string, unknown>): JournalPort {
  return new Proxy(t.journal, {
    get(target, prop, receiver) {
      if (typeof prop === 'string' && prop in overrides) return overrides[prop];
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  }) as JournalPort;
}

function running(id: string, n: number): void {
  t.journal.createBatch({ id, fileName: `${id}.csv`, sha256: id.padEnd(64, '0'), rows: Array.from({ length: n }, (_, i) => payout(`${id}-${i + 1}`)) });
  t.journal.setBatchState(id, 'RUNNING');
}

function run(batchId: string, more: Partial<BatchRunnerDeps> & { gateway?: FakeGateway } = {}) {
  const gateway = more.gateway ?? new FakeGateway();
  const journal = more.journal ?? t.journal;
  const errors: Error[] = [];
  const progress: BatchProgressEvent[] = [];
  const sender = new PayoutSender({
    journal, gateway, finalStatuses: ['SUCCESS'], pollIntervalMs: 1_000, backoff: { baseMs: 1, capMs: 2 },
    now: () => 7_000, onStatus: () => undefined, onConnection: () => undefined, random: () => 0,
  });
  const deps: BatchRunnerDeps = { journal, sender, concurrency: 2, now: () => 7_000, onProgress: (e) => progress.push(e), onError: (e) => errors.push(e), ...more };
  return { batch: new BatchRun(batchId, deps), errors, progress, gateway };
}

const cleared = (bodyFor: ApprovalClearance['bodyFor']) => async () => ({ refusal: null, clearance: { stillValid: () => true, bodyFor } });

describe('a yes of the gate that never covers a row', () => {
  it('is asked again twice, then the batch is paused naming the row, and nothing of it is sent', async () => {
    t = tempJournal();
    running('b', 1);
    let asked = 0;
    const gate = async () => {
      asked++;
      return cleared(() => null)();
    };
    const r = run('b', { gate });
    const done = await r.batch.done;
    expect(done).toMatchObject({ state: 'PAUSED', pauseReason: 'Nothing more was sent: the approvals do not cover row b-1 as the journal holds it now' });
    expect(asked).toBe(3);
    expect(r.gateway.createCalls.size).toBe(0);
  });

  it('a yes gone stale meanwhile is not counted: the row goes once a fresh yes covers it', async () => {
    t = tempJournal();
    running('s', 1);
    let asked = 0;
    const gate = async () => (++asked <= 3 ? { refusal: null, clearance: { stillValid: () => false, bodyFor: () => null } } : cleared((row) => payoutFieldsOf(row))());
    const r = run('s', { gate });
    expect((await r.batch.done).state).toBe('COMPLETED');
    expect(r.gateway.createCalls.get('s-1')).toBe(1);
    expect(asked).toBe(4);
  });
});

describe('a refusal of the gate', () => {
  it('pauses a running batch with the reason, as the approvals, and leaves one a person cancelled meanwhile cancelled', async () => {
    t = tempJournal();
    running('no', 1);
    expect(await run('no', { gate: async () => ({ refusal: 'needs 2 approvals' }) }).batch.done).toMatchObject({ state: 'PAUSED', pauseReason: 'needs 2 approvals' });
    expect(t.journal.listAudit(20).filter((e) => e.action === 'batch.paused').map((e) => [e.actor, e.subject])).toEqual([['approvals', 'no']]);
    running('cx2', 1);
    const r = run('cx2', {
      gate: async () => {
        t.journal.setBatchState('cx2', 'CANCELLED', null, 'alice');
        return { refusal: 'needs 2 approvals' };
      },
    });
    expect(await r.batch.done).toMatchObject({ state: 'CANCELLED', pauseReason: null });
  });
});

describe('what a run asks the gate for', () => {
  it('first sends when any row is unsent for sure, only re-sends when every row may be at the gateway', async () => {
    t = tempJournal();
    const needs: string[] = [];
    const gate = async (_id: string, need: 'first' | 'resend') => {
      needs.push(need);
      return { refusal: 'stop here' };
    };
    running('fresh', 2);
    await run('fresh', { gate }).batch.done;
    running('mixed', 2);
    t.journal.markSending('payout', 'mixed-2');
    t.journal.markUnknown('payout', 'mixed-2', 'time-out', 0);
    await run('mixed', { gate }).batch.done;
    running('again', 2);
    for (const id of ['again-1', 'again-2']) {
      t.journal.markSending('payout', id);
      t.journal.markUnknown('payout', id, 'time-out', 0);
    }
    await run('again', { gate }).batch.done;
    expect(needs).toEqual(['first', 'first', 'resend']);
  });

  it('nothing when nothing is left to send: the run completes the batch without asking', async () => {
    t = tempJournal();
    running('sent', 2);
    for (const id of ['sent-1', 'sent-2']) t.journal.recordObservation('payout', id, { status: 'SUCCESS', source: 'poll', isFinal: true });
    let asked = 0;
    const r = run('sent', { gate: async () => (asked++, { refusal: 'no approvals' }) });
    expect((await r.batch.done).state).toBe('COMPLETED');
    expect(asked).toBe(0);
  });

  it('a row of a re-send-only run that someone made QUEUED in the journal meanwhile is asked for as a first send', async () => {
    t = tempJournal();
    const unknownBatch = (id: string) => {
      running(id, 1);
      t.journal.markSending('payout', `${id}-1`);
      t.journal.markUnknown('payout', `${id}-1`, 'time-out', 0);
    };
    // The gate's yes for re-sends covers only rows that may be at the gateway (as gate.ts's does).
    const gateEditing = (edit: boolean, needs: string[]) => async (id: string, need: 'first' | 'resend') => {
      needs.push(need);
      if (needs.length > 1) return { refusal: 'stop here' };
      if (edit) t.journal.db.prepare(`UPDATE payments SET state = 'QUEUED', status = 'QUEUED', unknown_since = NULL WHERE id = ?`).run(`${id}-1`);
      return { refusal: null, clearance: { stillValid: () => true, bodyFor: (row: Parameters<ApprovalClearance['bodyFor']>[0]) => (row.state === 'QUEUED' ? null : payoutFieldsOf(row)) } };
    };
    const edited: string[] = [];
    unknownBatch('e');
    const r = run('e', { gate: gateEditing(true, edited) });
    expect(await r.batch.done).toMatchObject({ state: 'PAUSED', pauseReason: 'stop here' });
    expect(edited).toEqual(['resend', 'first']);
    expect(r.gateway.createCalls.size).toBe(0);

    // Left as it was, a row the yes does not cover is asked for as a re-send again.
    const kept: string[] = [];
    unknownBatch('k');
    const gateway = new FakeGateway();
    const uncovering = gateEditing(false, kept);
    const r2 = run('k', { gateway, gate: async (id, need) => {
      const answer = await uncovering(id, need);
      return answer.refusal === null ? { refusal: null, clearance: { stillValid: () => true, bodyFor: () => null } } : answer;
    } });
    await r2.batch.done;
    expect(kept).toEqual(['resend', 'resend']);
  });

  it('counts only accepted creates in its rate', async () => {
    t = tempJournal();
    running('rej', 3);
    const gateway = new FakeGateway();
    gateway.failCreates(3, 'validation');
    const r = run('rej', { gateway, concurrency: 1 });
    expect((await r.batch.done).state).toBe('COMPLETED');
    expect(r.batch.ratePerSec()).toBe(0);
    running('ok', 3);
    const ok = run('ok', { concurrency: 1 });
    await ok.batch.done;
    expect(ok.batch.ratePerSec()).toBe(3);
  });

  it('a stopped run says it is stopping', async () => {
    t = tempJournal();
    running('st', 1);
    const r = run('st');
    expect(r.batch.stopping).toBe(false);
    r.batch.stop();
    expect(r.batch.stopping).toBe(true);
    await r.batch.done;
  });
});

describe('rows another desk holds', () => {
  it('are counted, left unsent, and the batch stays RUNNING for a later run', async () => {
    t = tempJournal();
    running('h', 3);
    const r = run('h', { journal: journalWith({ claimSend: (): null => null }) });
    expect((await r.batch.done).state).toBe('RUNNING');
    expect(r.batch.heldElsewhere).toBe(3);
    expect(r.gateway.createCalls.size).toBe(0);
  });

  it('none held elsewhere when every row is sent', async () => {
    t = tempJournal();
    running('m', 2);
    const confirmOnly = journalWith({ claimSend: (kind: 'payout', id: string): SendClaim => t.journal.claimSend(kind, id) });
    const r = run('m', { journal: confirmOnly });
    expect((await r.batch.done).state).toBe('COMPLETED');
    expect(r.batch.heldElsewhere).toBe(0);
  });
});

describe('a gate that cannot be asked', () => {
  it('pauses the batch with why; if even the pause cannot be written, both failures are reported', async () => {
    t = tempJournal();
    running('g', 1);
    const r = run('g', { gate: async () => Promise.reject(new Error('keychain locked')) });
    expect(await r.batch.done).toMatchObject({ state: 'PAUSED', pauseReason: 'Nothing more was sent: the approvals could not be checked (keychain locked)' });
    expect(r.errors.map((e) => e.message)).toEqual(['keychain locked']);
    expect(t.journal.listAudit(20).filter((e) => e.action === 'batch.paused').map((e) => e.actor)).toEqual(['approvals']);

    running('w', 1);
    const setBatchState = () => {
      throw new Error('disk full');
    };
    const r2 = run('w', { gate: async () => Promise.reject(new Error('keychain locked')), journal: journalWith({ setBatchState }) });
    expect((await r2.batch.done).state).toBe('RUNNING');
    expect(r2.errors.map((e) => e.message)).toEqual(['keychain locked', 'disk full']);
    expect(r2.gateway.createCalls.size).toBe(0);

    // A batch a person cancelled while the gate was asked stays cancelled.
    running('cx', 1);
    const r3 = run('cx', {
      gate: async () => {
        t.journal.setBatchState('cx', 'CANCELLED', null, 'alice');
        throw new Error('keychain locked');
      },
    });
    expect(await r3.batch.done).toMatchObject({ state: 'CANCELLED', pauseReason: null });
  });
});

describe('a fault of the desk on one row', () => {
  it('is reported and the other rows are still sent; the batch is not paused', async () => {
    t = tempJournal();
    running('f', 3);
    const gateway = new FakeGateway();
    const createPayout = gateway.createPayout.bind(gateway);
    gateway.createPayout = async (id, request, options) => {
      if (id === 'f-2') throw new TypeError('bad row');
      return createPayout(id, request, options);
    };
    const r = run('f', { gateway, concurrency: 1 });
    const done = await r.batch.done;
    expect(done.state).toBe('RUNNING');
    expect(done.pauseReason).toBeNull();
    expect(r.errors.map((e) => e.message)).toEqual(['bad row']);
    expect([...gateway.stored.keys()].sort()).toEqual(['f-1', 'f-3']);
  });
});

describe('the state a run leaves its batch in', () => {
  /** A gateway that does something to the batch while its only row is on the wire (before a refusal, or after the create left). */
  const during = (act: () => void, fail?: 'unauthorized') => {
    const gateway = new FakeGateway();
    const createPayout = gateway.createPayout.bind(gateway);
    gateway.createPayout = async (id, request, options) => {
      if (fail) {
        act();
        options?.beforeSend?.();
        throw new GatewayError(fail, 'credentials refused', { status: 401 });
      }
      // After the request left: the act lands while the answer is on its way back.
      const answer = await createPayout(id, request, options);
      act();
      return answer;
    };
    return gateway;
  };

  it('a run stopped while its last row left is not the one to complete the batch', async () => {
    t = tempJournal();
    running('stop', 1);
    const stopper = { stop: () => undefined as void };
    const r = run('stop', { gateway: during(() => stopper.stop()) });
    stopper.stop = () => r.batch.stop();
    const done = await r.batch.done;
    expect(done.state).toBe('RUNNING');
    expect(r.gateway.stored.has('stop-1')).toBe(true);
  });

  it('a batch a person paused while its last row left stays paused', async () => {
    t = tempJournal();
    running('pp', 1);
    const r = run('pp', { gateway: during(() => t.journal.setBatchState('pp', 'PAUSED', 'paused by Alice', 'alice')) });
    expect(await r.batch.done).toMatchObject({ state: 'PAUSED', pauseReason: 'paused by Alice' });
  });

  it('a halt pauses a running batch with why, but a batch a person cancelled meanwhile stays cancelled', async () => {
    t = tempJournal();
    running('halt', 1);
    const r = run('halt', { gateway: during(() => undefined, 'unauthorized') });
    expect(await r.batch.done).toMatchObject({ state: 'PAUSED', pauseReason: 'sending stopped: credentials refused' });
    running('cx', 1);
    const c = run('cx', { gateway: during(() => t.journal.setBatchState('cx', 'CANCELLED', null, 'alice'), 'unauthorized') });
    expect(await c.batch.done).toMatchObject({ state: 'CANCELLED', pauseReason: null });
  });

  it('a halt of a batch gone from the journal is an error naming it', async () => {
    t = tempJournal();
    running('hg', 1);
    const gone = journalWith({ getBatch: () => undefined });
    await expect(run('hg', { journal: gone, gateway: during(() => undefined, 'unauthorized') }).batch.done).rejects.toThrow('batch hg vanished from the journal');
  });
});

describe('the rate and the time left', () => {
  it('an accepted create counts for the whole window, to the millisecond', async () => {
    t = tempJournal();
    running('win', 1);
    let clock = 7_000;
    const r = run('win', { now: () => clock });
    await r.batch.done;
    clock = 12_000;
    expect(r.batch.ratePerSec()).toBe(0.2);
    clock = 12_001;
    expect(r.batch.ratePerSec()).toBe(0);
  });

  it('the time left counts every row not sent for sure: queued, sending and unknown', () => {
    const counts = (byState: Partial<Record<string, number>>) => ({ total: 6, sent: 0, final: 0, failed: 0, pending: 6, byState: { QUEUED: 0, SENDING: 0, UNKNOWN: 0, ...byState }, byStatus: {} }) as unknown as Parameters<typeof progressOf>[1];
    const batch = { id: 'b', state: 'RUNNING', pauseReason: null } as unknown as Parameters<typeof progressOf>[0];
    expect(progressOf(batch, counts({ QUEUED: 2, SENDING: 1, UNKNOWN: 3 }), 2).etaSeconds).toBe(3);
    expect(progressOf(batch, counts({ QUEUED: 2 }), 0).etaSeconds).toBeNull();
    expect(progressOf(batch, counts({}), 0).etaSeconds).toBe(0);
  });
});

describe('progress and a batch that is gone', () => {
  it('carries what the desk knows live of the batch (a run that stopped)', async () => {
    t = tempJournal();
    running('lv', 1);
    const r = run('lv', { live: () => ({ running: false }), gateway: Object.assign(new FakeGateway(), { offline: true }), concurrency: 1 });
    r.batch.stop();
    await r.batch.done;
    expect(r.progress.at(-1)).toMatchObject({ state: 'RUNNING', stateWord: 'STOPPED' });
  });


  it('progress that cannot be read is reported and the run goes on', async () => {
    t = tempJournal();
    running('p', 2);
    const r = run('p', { journal: journalWith({ batchCounts: () => { throw new Error('counts unreadable'); } }) });
    expect((await r.batch.done).state).toBe('COMPLETED');
    expect(r.errors.length).toBeGreaterThan(0);
    expect(r.errors.every((e) => e.message === 'counts unreadable')).toBe(true);
    expect(r.gateway.stored.size).toBe(2);
  });

  it('a batch gone from the journal is an error that names it, after a refusal or at the end of a run', async () => {
    t = tempJournal();
    running('x', 1);
    const gone = journalWith({ getBatch: () => undefined });
    const refused = run('x', { journal: gone, gate: async () => ({ refusal: 'no approvals' }) });
    await expect(refused.batch.done).rejects.toThrow('batch x vanished from the journal');
    expect(refused.errors.map((e) => e.message)).toEqual(['no batch x in the journal']);
    const failed = run('x', { journal: gone, gate: async () => Promise.reject(new Error('keychain locked')) });
    await expect(failed.batch.done).rejects.toThrow('batch x vanished from the journal');
    expect(failed.errors.map((e) => e.message)).toEqual(['keychain locked', 'no batch x in the journal']);
    await expect(run('x', { journal: gone }).batch.done).rejects.toThrow('batch x vanished from the journal');
    await expect(batchProgress(gone, 'x')).rejects.toThrow('no batch x in the journal');
  });
});
