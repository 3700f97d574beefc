// The engine's batch runs, one per batch at most: started, stopped, run again later when a team desk found
// rows another desk held, and the progress reports of a batch whose rows settle after its run ended. The
// engine (payout-engine.ts) decides when a batch should run; this keeps the runs and their timers.
import type { BatchRecord } from '../journal';
import type { BatchRun } from './batch-runner';

export interface BatchRunsOptions {
  /** A new run of the batch (not started by anyone else). */
  makeRun: (batchId: string) => BatchRun;
  /** Whether this desk sends (a team desk without the merchant's key runs no batch). */
  sends: () => boolean;
  /** Whether the engine is started: a later rerun waits for nothing once it stopped. */
  started: () => boolean;
  /** The batch as the journal has it now. */
  batch: (batchId: string) => Promise<BatchRecord | undefined>;
  /** Reports the batch's progress (after rows settled with no run going). */
  report: (batchId: string) => Promise<void>;
  onError: (error: unknown) => void;
  /** How long before a run that met rows held by another desk runs again; default 2 s. */
  rerunMs?: number;
}

export class BatchRuns {
  private readonly runs = new Map<string, BatchRun>();
  /** Batches to run again a little later (rows another desk held may be free by then). */
  private readonly reruns = new Map<string, ReturnType<typeof setTimeout>>();
  /** Progress reports waiting, so settlements coming in quick succession are reported together. */
  private readonly settleReports = new Map<string, ReturnType<typeof setTimeout>>();
  /** Reports and rerun reads under way: stopping waits for them, so none reads a journal that closed after it. */
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(private readonly options: BatchRunsOptions) {}

  /** The batch's run, while one goes (stopping or not). */
  get(batchId: string): BatchRun | undefined {
    return this.runs.get(batchId);
  }

  has(batchId: string): boolean {
    return this.runs.has(batchId);
  }

  batchIds(): string[] {
    return [...this.runs.keys()];
  }

  /** Starts a run of the batch unless one goes that is not stopping. */
  start(batchId: string): void {
    if (!this.options.sends()) return;
    if (this.runs.get(batchId) && !this.runs.get(batchId)?.stopping) return;
    const run = this.options.makeRun(batchId);
    this.runs.set(batchId, run);
    void run.done
      .then((batch) => {
        if (run.heldElsewhere > 0 && !run.stopping && batch.state === 'RUNNING') this.rerunLater(batchId);
      })
      .catch((e: unknown) => this.options.onError(e))
      .finally(() => {
        if (this.runs.get(batchId) === run) this.runs.delete(batchId);
      });
  }

  /** Stops the batch's run and waits until it has ended. */
  async stop(batchId: string): Promise<void> {
    const run = this.runs.get(batchId);
    if (!run) return;
    run.stop();
    await run.done.catch(() => undefined);
  }

  /** Stops every run and drops the timers (the engine stops). */
  async stopAll(): Promise<void> {
    for (const run of this.runs.values()) run.stop();
    await Promise.allSettled([...this.runs.values()].map((r) => r.done));
    for (const timer of this.settleReports.values()) clearTimeout(timer);
    this.settleReports.clear();
    for (const timer of this.reruns.values()) clearTimeout(timer);
    this.reruns.clear();
    await Promise.allSettled([...this.inFlight]);
  }

  /** Work that reads the journal for a run (a progress report): stopAll waits for it. */
  track(work: Promise<unknown>): void {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work)).catch(() => undefined);
  }

  /**
   * Counting a batch's states reads all its rows, so settlements coming in quick succession are
   * reported together, once per 200 ms; the report after the last one always comes.
   */
  reportSettled(batchId: string): void {
    // A status the poller read while the engine stopped: nobody is left to report to.
    if (this.settleReports.has(batchId) || !this.options.started()) return;
    const timer = setTimeout(() => {
      this.settleReports.delete(batchId);
      this.track(this.options.report(batchId).catch((e: unknown) => this.options.onError(e)));
    }, 200);
    timer.unref?.();
    this.settleReports.set(batchId, timer);
  }

  /** Runs the batch again a little later (a team desk: rows another desk held may be free by then). */
  private rerunLater(batchId: string): void {
    if (!this.options.started() || this.reruns.has(batchId)) return;
    const timer = setTimeout(() => {
      this.reruns.delete(batchId);
      if (!this.options.started()) return;
      this.track(this.options
        .batch(batchId)
        .then((batch) => {
          if (this.options.started() && batch?.state === 'RUNNING') this.start(batchId);
        })
        .catch((e: unknown) => this.options.onError(e)));
    }, this.options.rerunMs ?? 2_000);
    timer.unref?.();
    this.reruns.set(batchId, timer);
  }
}
