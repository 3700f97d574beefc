// Runs one batch: sends its unsent payouts with enough requests in flight to keep the merchant's
// rate budget full (the shared limiter decides when each may go), reports progress, and can be
// paused, resumed and cancelled. Everything it knows comes from the journal, so a run interrupted by
// a crash, a quit or a lost network is resumed from there with the same ids.
import type { BatchCounts, JournalPort } from '../journal';
import type { BatchRecord, PaymentRecord } from '../journal/types';
import { batchStateWords, type BatchLiveState } from '../../contract/state-words';
import { mayBeAtGateway } from '../domain/status';
import type { BatchProgressEvent } from './events';
import type { ApprovalClearance } from './ports';
import { EngineHaltError, type PayoutSender } from './payout-sender';

export interface BatchRunnerDeps {
  journal: JournalPort;
  sender: PayoutSender;
  concurrency: number;
  now: () => number;
  onProgress: (e: BatchProgressEvent) => void;
  onError: (e: Error) => void;
  /** Whether a run sends the batch now and whether the gateway is reachable, for the state's words. */
  live?: (batchId: string) => BatchLiveState;
  /** Minimum time between two progress events (default 200 ms). */
  progressEveryMs?: number;
  /**
   * Dual control: asked before a run that would create rows (first sends, or only re-sends of unknown
   * outcomes: `need`), and again whenever a yes no longer holds at the moment a create would leave (control
   * records, approvals or payee book changed while it waited for its rate slot). A refusal pauses the batch
   * with its reason and nothing more is sent.
   */
  gate?: (batchId: string, need: 'first' | 'resend') => Promise<{ refusal: string } | { refusal: null; clearance: ApprovalClearance | null }>;
}

const RATE_WINDOW_MS = 5_000;

export class BatchRun {
  private readonly abort = new AbortController();
  private readonly acceptedAt: number[] = [];
  private lastProgress = 0;
  private readonly startedAt: number;
  /** The gate's current yes for this batch (null: not asked yet, so a first create asks it). */
  private clearance: ApprovalClearance | null = null;
  /** What the run asks the gate for: first sends, or only re-sends of unknown outcomes. */
  private need: 'first' | 'resend' = 'first';
  /** Per row: how many times in a row a valid yes did not cover it. */
  private readonly uncovered = new Map<string, number>();
  private asking: Promise<boolean> | null = null;
  /** Rows this run left because another desk of the team held them (their claim); a later run looks again. */
  heldElsewhere = 0;
  readonly done: Promise<BatchRecord>;

  constructor(
    readonly batchId: string,
    private readonly deps: BatchRunnerDeps,
  ) {
    this.startedAt = deps.now();
    this.done = this.run();
  }

  /** Stops starting new sends; requests already on the wire finish and are recorded. */
  stop(): void {
    this.abort.abort();
  }

  get stopping(): boolean {
    return this.abort.signal.aborted;
  }

  private async run(): Promise<BatchRecord> {
    const { journal } = this.deps;
    const unsent = await journal.unsentPayments('payout', this.batchId);
    // Dual control before any create: first sends under today's policy, re-sends under their approvals' own.
    this.need = unsent.some((p) => !mayBeAtGateway(p)) ? 'first' : 'resend';
    if (this.deps.gate && unsent.length > 0 && !(await this.askGate())) {
      await this.progress(true);
      const paused = await journal.getBatch(this.batchId);
      if (!paused) throw new Error(`batch ${this.batchId} vanished from the journal`);
      return paused;
    }
    const queue = unsent.map((p) => p.id);
    const options = this.deps.gate ? { approved: (row: PaymentRecord) => (this.clearance !== null && this.clearance.stillValid() ? this.clearance.bodyFor(row) : null) } : {};
    let halt: EngineHaltError | undefined;
    const worker = async () => {
      while (!this.abort.signal.aborted) {
        const id = queue.shift();
        if (id === undefined) return;
        try {
          const outcome = await this.deps.sender.send(id, this.abort.signal, options);
          if (outcome === 'unapproved') {
            // Nothing left; the row goes back to the front and waits for the gate's new answer (for a first send
            // if it is one: a row that became QUEUED meanwhile is not a re-send).
            const row = await journal.getPayment('payout', id);
            if (row && !mayBeAtGateway(row)) this.need = 'first';
            const uncovered = this.clearance?.stillValid() === true ? (this.uncovered.get(id) ?? 0) + 1 : 0;
            this.uncovered.set(id, uncovered);
            if (uncovered >= 3) {
              // A yes that keeps not covering the row: the approved rows and the journal disagree. Never a loop.
              await this.refuse(`Nothing more was sent: the approvals do not cover row ${id} as the journal holds it now`);
              return;
            }
            queue.unshift(id);
            if (!(await this.askGate())) return;
            continue;
          }
          if (outcome === 'accepted') this.acceptedAt.push(this.deps.now());
          if (outcome === 'held-elsewhere') this.heldElsewhere++;
        } catch (e) {
          if (e instanceof EngineHaltError) {
            halt ??= e;
            this.abort.abort();
            return;
          }
          // A bug or disk error on one row must not stop the others; the row stays unsent.
          this.deps.onError(e instanceof Error ? e : new Error(String(e)));
        }
        await this.progress(false);
      }
    };
    await this.progress(true);
    await Promise.all(Array.from({ length: Math.max(1, Math.min(this.deps.concurrency, queue.length)) }, worker));

    const batch = await journal.getBatch(this.batchId);
    if (halt) {
      // Paused with the reason, unless a person changed the batch meanwhile (a cancel stays a cancel).
      if (batch?.state === 'RUNNING') await journal.setBatchState(this.batchId, 'PAUSED', halt.message);
    } else if (!this.abort.signal.aborted && batch?.state === 'RUNNING') {
      // Rows sending can still move (a failing row) keep the batch RUNNING so a resume picks them up;
      // unknown rows whose re-send was refused are settled by reads alone, not by this run.
      if ((await journal.sendableCount(this.batchId)) === 0) await journal.setBatchState(this.batchId, 'COMPLETED');
    }
    await this.progress(true);
    const final = await journal.getBatch(this.batchId);
    if (!final) throw new Error(`batch ${this.batchId} vanished from the journal`);
    return final;
  }

  /**
   * Asks the gate once for all workers that need it. A yes replaces the clearance; a refusal pauses the
   * batch with its reason (unless a person changed its state meanwhile) and stops the run.
   */
  private askGate(): Promise<boolean> {
    const gate = this.deps.gate;
    if (!gate) return Promise.resolve(true);
    this.asking ??= gate(this.batchId, this.need)
      .then(async (answer) => {
        if (answer.refusal === null) {
          this.clearance = answer.clearance;
          return true;
        }
        await this.refuse(answer.refusal);
        return false;
      })
      .catch(async (error: unknown) => {
        // The gate could not be asked (or its refusal not recorded): nothing more is sent by this run.
        this.clearance = null;
        this.abort.abort();
        const failure = error instanceof Error ? error : new Error(String(error));
        this.deps.onError(failure);
        try {
          if ((await this.deps.journal.getBatch(this.batchId))?.state === 'RUNNING') {
            await this.deps.journal.setBatchState(this.batchId, 'PAUSED', `Nothing more was sent: the approvals could not be checked (${failure.message})`, 'approvals');
          }
        } catch (e) {
          this.deps.onError(e instanceof Error ? e : new Error(String(e)));
        }
        return false;
      })
      .finally(() => {
        this.asking = null;
      });
    return this.asking;
  }

  /** Stops the run and pauses the batch with the reason (unless a person changed its state meanwhile). */
  private async refuse(reason: string): Promise<void> {
    this.clearance = null;
    this.abort.abort();
    if ((await this.deps.journal.getBatch(this.batchId))?.state === 'RUNNING') await this.deps.journal.setBatchState(this.batchId, 'PAUSED', reason, 'approvals');
  }

  async progress(force: boolean): Promise<void> {
    const now = this.deps.now();
    if (!force && now - this.lastProgress < (this.deps.progressEveryMs ?? 200)) return;
    this.lastProgress = now;
    try {
      this.deps.onProgress(await batchProgress(this.deps.journal, this.batchId, this.rate(now), this.deps.live?.(this.batchId) ?? null));
    } catch (e) {
      this.deps.onError(e instanceof Error ? e : new Error(String(e)));
    }
  }

  /** Creates accepted per second in the last few seconds: what every progress report of a running batch carries. */
  ratePerSec(): number {
    return this.rate(this.deps.now());
  }

  private rate(now: number): number {
    while (this.acceptedAt.length > 0 && this.acceptedAt[0]! < now - RATE_WINDOW_MS) this.acceptedAt.shift();
    // Creates accepted in the last few seconds (or since the run started, when that is shorter).
    const span = Math.max(1000, Math.min(RATE_WINDOW_MS, now - this.startedAt));
    return (this.acceptedAt.length * 1000) / span;
  }
}

/** `live`: null when only the journal is known (no engine open): a RUNNING batch is then shown as it is journalled. */
export async function batchProgress(journal: JournalPort, batchId: string, ratePerSec = 0, live: BatchLiveState | null = null): Promise<BatchProgressEvent> {
  const batch = await journal.getBatch(batchId);
  if (!batch) throw new Error(`no batch ${batchId} in the journal`);
  return progressOf(batch, await journal.batchCounts(batchId), ratePerSec, live);
}

/** A batch's progress from its record and counts (read by the caller, from either journal). */
export function progressOf(batch: BatchRecord, counts: BatchCounts, ratePerSec = 0, live: BatchLiveState | null = null): BatchProgressEvent {
  const unsent = counts.byState.QUEUED + counts.byState.SENDING + counts.byState.UNKNOWN;
  return {
    batchId: batch.id,
    state: batch.state,
    total: counts.total,
    counts,
    sent: counts.sent,
    // Rows refused or cancelled by the desk are final too, not only those with a final gateway status.
    done: counts.total - counts.pending,
    failed: counts.failed,
    pending: counts.pending,
    ratePerSec: Math.round(ratePerSec * 100) / 100,
    etaSeconds: unsent === 0 ? 0 : ratePerSec > 0 ? Math.ceil(unsent / ratePerSec) : null,
    ...stateWordsOf(batchStateWords({ state: batch.state, total: counts.total, pending: counts.pending, failed: counts.failed }, live, batch.pauseReason)),
  };
}

const stateWordsOf = (w: { word: string; reason: string | null }) => ({ stateWord: w.word, stateReason: w.reason });
