// Stopping the engine closes the journal right after: a progress report still reading it then failed with
// "Cannot use a pool after calling end on the pool" on a team desk, printed as a warning after "All sent and final."
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BatchRuns } from '../../../main/engine/batch-runs';

function runs(report: (batchId: string) => Promise<void>, started: () => boolean, onError = vi.fn()) {
  return {
    onError,
    runs: new BatchRuns({
      makeRun: () => { throw new Error('no run in these tests'); },
      sends: () => true,
      started,
      batch: () => Promise.resolve(undefined),
      report,
      onError,
    }),
  };
}

describe('batch runs: progress reports after the runs ended', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('stopAll waits for a report that is reading the journal', async () => {
    let finish: () => void = () => undefined;
    let closed = false;
    const report = vi.fn(() => new Promise<void>((resolve) => { finish = () => { if (closed) throw new Error('journal closed'); resolve(); }; }));
    const { runs: r, onError } = runs(report, () => true);
    r.reportSettled('b1');
    await vi.advanceTimersByTimeAsync(200);
    expect(report).toHaveBeenCalledTimes(1);
    let stopped = false;
    const stopping = r.stopAll().then(() => { stopped = true; });
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    finish();
    await stopping;
    closed = true;
    expect(onError).not.toHaveBeenCalled();
  });

  it('a status read while the engine stops starts no report', async () => {
    const report = vi.fn(() => Promise.resolve());
    const { runs: r } = runs(report, () => false);
    r.reportSettled('b1');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(report).not.toHaveBeenCalled();
  });

  it('a report waiting for its timer is dropped when the runs stop', async () => {
    const report = vi.fn(() => Promise.resolve());
    const { runs: r } = runs(report, () => true);
    r.reportSettled('b1');
    await r.stopAll();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(report).not.toHaveBeenCalled();
  });
});
