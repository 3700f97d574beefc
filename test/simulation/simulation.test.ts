// The simulation in the test suite: seeded histories on the production wiring (DeskRuntime, desk
// services, engine, SQLite journal files, the real gateway client over the gateway model), the
// histories it found on the code before the fix, exact replay, and proof that it still catches a
// double payment when a rule is broken on purpose.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { payoutFieldsOf } from '../../main/domain/payout';
import { mayBeAtGateway } from '../../main/domain/status';
import { type ApprovalClearance } from '../../main/engine';
import { ApprovedSends } from '../../main/engine/approved-sends';
import { PayoutSender } from '../../main/engine/payout-sender';
import { isGatewayError } from '../../main/gateway/errors';
import type { JournalPort } from '../../main/journal';
import { SqliteDualControlRepository } from '../../main/store/sqlite/dual-control';
import { Journal } from '../../main/store/sqlite';
import type { PaymentKind } from '../../main/journal';
import { RECORDED_HISTORIES } from './regressions';
import { report, runHistory, runSeed, type RunResult } from './run';
import { SQLITE } from './adapters';
import { DEFAULT_WORKERS, runSeeds } from './parallel';
import { runSeedOutcome, type SeedOutcome } from './seed-outcome';

/** `npm test` runs at least 200 seeds of 200 steps (npm run simulate runs as many as asked). */
const SEEDS = Number(process.env['SIMULATION_SEEDS'] ?? 200);
/** Histories at a time, each in a worker thread (parallel.ts): one per core, as `npm run simulate` runs them. */
const WORKERS = Number(process.env['SIMULATION_WORKERS'] ?? DEFAULT_WORKERS);
const CHUNKS = 4;

afterEach(() => {
  vi.restoreAllMocks();
});

describe('simulated histories', () => {
  const perChunk = Math.ceil(SEEDS / CHUNKS);
  for (let chunk = 0; chunk < CHUNKS; chunk++) {
    const seeds = Array.from({ length: perChunk }, (_, i) => chunk * perChunk + i + 1).filter((s) => s <= SEEDS);
    it(`seeds ${seeds[0]}–${seeds[seeds.length - 1]}: no invariant is broken after any step or at quiescence`, async () => {
      const outcomes = await runSeeds(seeds.map((seed) => ({ seed, steps: 200, without: [], adapter: SQLITE, shortenBudget: 60 })), { workers: WORKERS });
      expect(outcomes.map((o) => o.seed)).toEqual(seeds);
      const failures = outcomes.flatMap((o) => (o.failure === null ? [] : [o.failure]));
      expect(failures, failures.join('\n\n')).toEqual([]);
    });
  }

  it('a seed ends the same in a worker thread (npm run simulate --workers) as in this thread', async () => {
    const jobs = [5, 6, 11].map((seed) => ({ seed, steps: 120, without: [], adapter: SQLITE, shortenBudget: 0 }));
    const inThreads = await runSeeds(jobs, { workers: 2 });
    const here: SeedOutcome[] = [];
    for (const job of jobs) here.push(await runSeedOutcome(job));
    expect(here.map((o) => o.payouts).every((n) => n > 0)).toBe(true);
    expect(inThreads).toEqual(here);
  });

  it('a seed replays exactly: the same steps, answers and outcome', async () => {
    const strip = (r: RunResult) => ({ log: r.log, stats: r.stats, violations: r.violations });
    expect(strip(await runSeed(7, 120))).toEqual(strip(await runSeed(7, 120)));
  });
});

describe('dual control in the simulated desk', () => {
  it('even seeds run it: approvals counted and refused (the preparer, revoked people), rejections, edits and policy changes', async () => {
    const log = [...(await runSeed(2, 200)).log, ...(await runSeed(4, 200)).log].join('\n');
    expect(log).toMatch(/Alice approved \S+ \S+: SELF_APPROVAL/);
    expect(log).toMatch(/(Bob|Carol|Dave) approved \S+ \S+: NOT_ALLOWED: \w+ was revoked/);
    expect(log).toMatch(/approved (payout|batch) \S+: ok \(approved by 1 of 1 needed\)/);
    expect(log).toMatch(/released approved \S+: ok/);
    expect(log).toMatch(/rejected \S+ \S+: ok/);
    expect(log).toMatch(/edited the e-mail of unsent/);
    expect(log).toMatch(/Alice set policy version 2/);
    expect((await runSeed(3, 20)).dualControl).toBe(false);
  });
});

describe('histories found on the code before the fix', () => {
  for (const history of RECORDED_HISTORIES) {
    it(`${history.name} (before: ${history.before})`, async () => {
      const result = await runHistory(history.seed, history.steps, history.dualControl);
      expect(result.violations, report(result)).toEqual([]);
    });
  }
});

describe('the simulation catches a broken rule', () => {
  const recorded = (name: string) => {
    const h = RECORDED_HISTORIES.find((r) => r.name.startsWith(name));
    if (!h) throw new Error(`no recorded history "${name}"`);
    return h;
  };

  it('retrying every failed-looking row, whatever was retried before, pays an intent twice', async () => {
    // The rule before intents: any final row that is not SUCCESS, ignoring later attempts.
    vi.spyOn(Journal.prototype, 'retryableAttempts').mockImplementation(function (this: Journal, batchId: string, notPaid: readonly string[]) {
      return this.batchPayments(batchId).filter((p) => (p.isFinal && notPaid.includes(p.status)) || p.state === 'REJECTED' || p.state === 'CANCELLED');
    });
    const h = recorded('retry failed rows');
    const result = await runHistory(h.seed, h.steps);
    expect(result.violations.map((v) => v.invariant)).toContain(1);
  });

  it('a desk that skips the approval gate sends payouts and batches without the approvals the policy required', async () => {
    const always: ApprovalClearance = { stillValid: () => true, bodyFor: (row) => payoutFieldsOf(row) };
    const sends = ApprovedSends.prototype as unknown as { payoutApproved(id: string): Promise<ApprovalClearance>; batchClearance(id: string): Promise<{ refusal: null; clearance: ApprovalClearance }> };
    vi.spyOn(sends, 'payoutApproved').mockResolvedValue(always);
    vi.spyOn(sends, 'batchClearance').mockResolvedValue({ refusal: null, clearance: always });
    const result = await runSeed(2, 200);
    expect(result.dualControl).toBe(true);
    expect(result.violations.map((v) => v.invariant)).toContain(7);
  });

  it('a yes of the gate trusted until the send, without asking whether it still holds, lets a batch leave under a stricter policy', async () => {
    // The rule before the clearance: a batch was checked when its run started, not when its rows left.
    vi.spyOn(SqliteDualControlRepository.prototype, 'changeMarker').mockReturnValue('never changes');
    const h = recorded('the policy changes while a resumed batch');
    const result = await runHistory(h.seed, h.steps, h.dualControl);
    expect(result.violations.map((v) => v.invariant)).toContain(7);
  });

  it('a desk that re-sends unknown outcomes without asking the gate pays the account someone wrote in the journal', async () => {
    // The rule before issue 23: the gate was asked for first sends only.
    type Sends = { journal: JournalPort; payoutApproved(id: string): Promise<unknown> };
    const sends = ApprovedSends.prototype as unknown as Sends;
    const asked = sends.payoutApproved;
    vi.spyOn(sends, 'payoutApproved').mockImplementation(async function (this: Sends, id: string) {
      const row = await this.journal.getPayment('payout', id);
      return row && mayBeAtGateway(row) ? 'not-asked' : asked.call(this, id);
    });
    const h = recorded('someone with the journal marks a held payout UNKNOWN');
    const result = await runHistory(h.seed, h.steps, h.dualControl);
    expect(result.violations.map((v) => v.invariant)).toContain(8);
  });

  it('a refused re-send taken as final hides a payout the gateway pays, once both the sender and the journal let it through', async () => {
    // Issue 25's surviving mutant: the sender marking REJECTED a 4xx to a re-send of an id whose earlier try may land
    // (payout-sender.ts, recordFailure without !unknownBefore). The journal refuses that transition too (REJECTED only
    // while unknown_since is null, on both back ends), so each break alone changes nothing; together they are caught.
    type Sender = { recordFailure(e: unknown, row: unknown, unknownBefore: boolean, mayHaveLeft: boolean): Promise<unknown> };
    const sender = PayoutSender.prototype as unknown as Sender;
    const breakSender = () => {
      const original = sender.recordFailure;
      return vi.spyOn(sender, 'recordFailure').mockImplementation(function (this: Sender, e, row, unknownBefore, mayHaveLeft) {
        return original.call(this, e, row, isGatewayError(e, 'validation') ? false : unknownBefore, mayHaveLeft);
      });
    };
    const breakJournal = () => {
      const original = Journal.prototype.markLocalFinal;
      return vi.spyOn(Journal.prototype, 'markLocalFinal').mockImplementation(function (this: Journal, kind, id, state, ...rest) {
        if (state === 'REJECTED') this.db.prepare('UPDATE payments SET unknown_since = NULL WHERE kind = ? AND id = ?').run(kind, id);
        return original.call(this, kind, id, state, ...rest);
      });
    };
    const rejectedButStored = (r: RunResult) => r.violations.filter((v) => v.invariant === 5 && v.kind.startsWith('REJECTED/'));
    const senderOnly = breakSender();
    expect(rejectedButStored(await runSeed(1, 200))).toEqual([]);
    senderOnly.mockRestore();
    const journalOnly = breakJournal();
    expect(rejectedButStored(await runSeed(1, 200))).toEqual([]);
    breakSender();
    expect(rejectedButStored(await runSeed(1, 200)).length).toBeGreaterThan(0);
    journalOnly.mockRestore();
  });

  it('sending an unknown payout back to QUEUED lets a cancel hide a payout the gateway pays', async () => {
    // The rule before UNKNOWN: "not found" after an interrupted send meant "never stored".
    vi.spyOn(Journal.prototype, 'markUnknown').mockImplementation(function (this: Journal, kind: PaymentKind, id: string, message: string) {
      this.db.prepare(`UPDATE payments SET state = 'QUEUED', status = 'QUEUED', last_error = ? WHERE kind = ? AND id = ? AND state IN ('SENDING', 'UNKNOWN')`).run(message, kind, id);
    });
    const h = recorded('a timed-out create');
    const result = await runHistory(h.seed, h.steps);
    expect(result.violations.map((v) => v.invariant)).toEqual(expect.arrayContaining([5]));
  });
});
