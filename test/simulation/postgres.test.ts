// The simulation on the team database: the same seeded histories, recorded histories and invariants as
// simulation.test.ts, with the profile pointed at a PostgreSQL database of its own per history (the desk opens
// the team stores as the app does: team journal with its desk lease, dual control, payee book, change feed).
// Fewer seeds than on SQLite (a history takes several times longer here); `npx tsx bench/simulate.ts
// --adapter postgres` runs more. The cluster is the project's (globalSetup).
import { afterAll, afterEach, describe, expect, inject, it, vi } from 'vitest';
import { PgDualControlRepository } from '../../main/store/postgres/dual-control';
import { payoutFieldsOf } from '../../main/domain/payout';
import { mayBeAtGateway } from '../../main/domain/status';
import { type ApprovalClearance } from '../../main/engine';
import { ApprovedSends } from '../../main/engine/approved-sends';
import type { JournalPort } from '../../main/journal';
import { PgJournal } from '../../main/store/postgres/journal';
import { pgPaymentRow, type PgQueryable } from '../../main/store/postgres/history';
import { toPayment } from '../../main/store/rows';
import type { PaymentKind, PaymentRecord } from '../../main/journal';
import { dropTemplates, type Adapter } from './adapters';
import { RECORDED_HISTORIES } from './regressions';
import { report, runHistory, runSeed, type RunResult } from './run';
import { runSeeds } from './parallel';

/** Seeds 1..N of 200 steps (the first N of the SQLite run, so both adapters meet the same histories). */
const SEEDS = Number(process.env['SIMULATION_PG_SEEDS'] ?? 24);
/**
 * Histories at a time, each in a worker thread of its own (parallel.ts). A history here spends most of its time
 * waiting for the server's answers (three quarters of it idle in a profile), so more threads than cores fill them.
 */
const WORKERS = Number(process.env['SIMULATION_PG_WORKERS'] ?? 4);
const postgres: Adapter = { name: 'postgres', clusterUrl: inject('postgresUrl') };

afterEach(() => {
  vi.restoreAllMocks();
});

afterAll(async () => {
  await dropTemplates();
});

describe('simulated histories on the team database', () => {
  it(`seeds 1–${SEEDS}, ${WORKERS} at a time: no invariant is broken after any step or at quiescence`, async () => {
    // A smaller shortening budget than on SQLite: each run here takes seconds.
    const jobs = Array.from({ length: SEEDS }, (_, i) => ({ seed: i + 1, steps: 200, without: [], adapter: postgres, shortenBudget: 20 }));
    const outcomes = await runSeeds(jobs, { workers: WORKERS });
    expect(outcomes.map((o) => o.seed)).toEqual(jobs.map((j) => j.seed));
    const failures = outcomes.flatMap((o) => (o.failure === null ? [] : [o.failure]));
    expect(failures, failures.join('\n\n')).toEqual([]);
  });

  it('a seed replays exactly: the same steps, answers and outcome, though the database answers on real sockets', async () => {
    const strip = (r: RunResult) => ({ log: r.log, stats: r.stats, violations: r.violations });
    const first = strip(await runSeed(7, 120, [], postgres));
    expect(first.stats.payouts).toBeGreaterThan(0);
    expect(strip(await runSeed(7, 120, [], postgres))).toEqual(first);
  });
});

describe('dual control and crashes on the team database', () => {
  it('approvals counted and refused, rejections, edits in the database, policy changes; desks crash and the next one takes over', async () => {
    const log = [...(await runSeed(2, 200, [], postgres)).log, ...(await runSeed(4, 200, [], postgres)).log].join('\n');
    expect(log).toMatch(/Alice approved \S+ \S+: SELF_APPROVAL/);
    expect(log).toMatch(/(Bob|Carol|Dave) approved \S+ \S+: NOT_ALLOWED: \w+ was revoked/);
    expect(log).toMatch(/approved (payout|batch) \S+: ok \(approved by 1 of 1 needed\)/);
    expect(log).toMatch(/released approved \S+: ok/);
    expect(log).toMatch(/rejected \S+ \S+: ok/);
    expect(log).toMatch(/edited the e-mail of unsent/);
    expect(log).toMatch(/Alice set policy version 2/);
    expect(log).toMatch(/desk crashed/);
  });
});

describe('histories found on the code before the fix, on the team database', () => {
  for (const history of RECORDED_HISTORIES) {
    if (history.sqliteOnly) {
      // Said in the output, not only here: which history is not replayed on the team database, and why.
      console.log(`skipped on the team database: "${history.name}": ${history.sqliteOnly}`);
      it.skip(`${history.name} (SQLite only: ${history.sqliteOnly})`, () => undefined);
      continue;
    }
    it(`${history.name} (before: ${history.before})`, async () => {
      const result = await runHistory(history.seed, history.steps, history.dualControl, postgres);
      expect(result.violations, report(result)).toEqual([]);
    });
  }
});

describe('the simulation catches a broken rule on the team database', () => {
  const recorded = (name: string) => {
    const h = RECORDED_HISTORIES.find((r) => r.name.startsWith(name));
    if (!h) throw new Error(`no recorded history "${name}"`);
    return h;
  };

  it('retrying every failed-looking row, whatever was retried before, pays an intent twice', async () => {
    // The rule before intents: any final row that is not SUCCESS, ignoring later attempts. The team journal
    // applies its rule in retryableIn (the results screen and retryBatch's own check inside its transaction).
    const journal = PgJournal.prototype as unknown as { retryableIn(db: PgQueryable, batchId: string, notPaid: readonly string[]): Promise<PaymentRecord[]> };
    vi.spyOn(journal, 'retryableIn').mockImplementation(async (db, batchId, notPaid) => {
      const rows = (await db.query(`SELECT * FROM payments WHERE kind = 'payout' AND batch_id = $1 ORDER BY row_number, pk`, [batchId])).rows.map((r) => toPayment(pgPaymentRow(r)));
      return rows.filter((p) => (p.isFinal && notPaid.includes(p.status)) || p.state === 'REJECTED' || p.state === 'CANCELLED');
    });
    const h = recorded('retry failed rows');
    const result = await runHistory(h.seed, h.steps, h.dualControl, postgres);
    expect(result.violations.map((v) => v.invariant)).toContain(1);
  });

  it('a desk that skips the approval gate sends payouts and batches without the approvals the policy required', async () => {
    const always: ApprovalClearance = { stillValid: () => true, bodyFor: (row) => payoutFieldsOf(row) };
    const sends = ApprovedSends.prototype as unknown as { payoutApproved(id: string): Promise<ApprovalClearance>; batchClearance(id: string): Promise<{ refusal: null; clearance: ApprovalClearance }> };
    vi.spyOn(sends, 'payoutApproved').mockResolvedValue(always);
    vi.spyOn(sends, 'batchClearance').mockResolvedValue({ refusal: null, clearance: always });
    const result = await runSeed(2, 200, [], postgres);
    expect(result.dualControl).toBe(true);
    expect(result.violations.map((v) => v.invariant)).toContain(7);
  });

  it('a yes of the gate trusted until the send, without asking whether it still holds, lets a batch leave under a stricter policy', async () => {
    // The rule before the clearance, with the team's change counter: a batch was checked when its run started.
    vi.spyOn(PgDualControlRepository.prototype, 'changeMarker').mockReturnValue('never changes');
    const h = recorded('the policy changes while a resumed batch');
    const result = await runHistory(h.seed, h.steps, h.dualControl, postgres);
    expect(result.violations.map((v) => v.invariant)).toContain(7);
  });

  it('a desk that re-sends unknown outcomes without asking the gate pays the account someone wrote in the database', async () => {
    // The rule before issue 23: the gate was asked for first sends only.
    type Sends = { journal: JournalPort; payoutApproved(id: string): Promise<unknown> };
    const sends = ApprovedSends.prototype as unknown as Sends;
    const asked = sends.payoutApproved;
    vi.spyOn(sends, 'payoutApproved').mockImplementation(async function (this: Sends, id: string) {
      const row = await this.journal.getPayment('payout', id);
      return row && mayBeAtGateway(row) ? 'not-asked' : asked.call(this, id);
    });
    const h = recorded('someone with the journal marks a held payout UNKNOWN');
    const result = await runHistory(h.seed, h.steps, h.dualControl, postgres);
    expect(result.violations.map((v) => v.invariant)).toContain(8);
  });

  it('sending an unknown payout back to QUEUED lets a cancel hide a payout the gateway pays', async () => {
    // The rule before UNKNOWN: "not found" after an interrupted send meant "never stored" (QUEUED, as a retry).
    vi.spyOn(PgJournal.prototype, 'markUnknown').mockImplementation(function (this: PgJournal, kind: PaymentKind, id: string, message: string) {
      return this.markRetrying(kind, id, message);
    });
    const h = recorded('a timed-out create');
    const result = await runHistory(h.seed, h.steps, h.dualControl, postgres);
    expect(result.violations.map((v) => v.invariant)).toEqual(expect.arrayContaining([5]));
  });
});
