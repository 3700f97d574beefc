// The path from key custody and the profile store to the audit log. Those two sit below the journals
// (main/keys, main/profiles), so they report to this trail, and the desk runtime that owns the
// journals writes each action into its profile's audit log (DeskRuntime.audit). Without a runtime (a
// bare AppContext in a unit test of the gateway client) there is no journal and nothing is written.
import type { SecurityAction, SecurityActionReporter, SecurityActionSink } from './security-action';

export class SecurityTrail implements SecurityActionReporter {
  private writer: SecurityActionSink | null = null;
  private readonly pending = new Set<Promise<void>>();
  private failures: unknown[] = [];

  /** The desk runtime's writer; returns the detach function. One writer at a time. */
  attach(writer: SecurityActionSink): () => void {
    this.writer = writer;
    return () => {
      if (this.writer === writer) this.writer = null;
    };
  }

  /** Writes one action; the caller awaits it and so sees a failure. */
  record(action: SecurityAction): Promise<void> {
    return this.writer ? this.writer(action) : Promise.resolve();
  }

  /**
   * Writes one action for a sync caller (the profile store) that cannot await it: a failure is kept
   * for flush(), which the desk awaits before it answers, so it reaches the person, never an unhandled rejection.
   */
  report(action: SecurityAction): void {
    const tracked = this.record(action).then(
      () => undefined,
      (error: unknown) => void this.failures.push(error),
    );
    this.pending.add(tracked);
    void tracked.finally(() => this.pending.delete(tracked));
  }

  /** Waits for every action reported so far; throws the first failure since the last flush. */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
    const [first] = this.failures;
    this.failures = [];
    if (first !== undefined) throw first;
  }
}
