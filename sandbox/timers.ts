// Every timer of the sandbox goes through one TimerSet so close() can clear them all: a closed sandbox must
// not change state or send callbacks any more.
export class TimerSet {
  private readonly pending = new Set<NodeJS.Timeout>();
  private closed = false;

  get isClosed(): boolean {
    return this.closed;
  }

  /** Runs fn after ms unless the set is closed first. Returns false when already closed. */
  after(ms: number, fn: () => void): boolean {
    if (this.closed) return false;
    const handle = setTimeout(() => {
      this.pending.delete(handle);
      if (!this.closed) fn();
    }, ms);
    this.pending.add(handle);
    return true;
  }

  /** Resolves after ms, or at once when closed (so awaiting code can notice and stop). */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (ms <= 0 || !this.after(ms, resolve)) resolve();
    });
  }

  get size(): number {
    return this.pending.size;
  }

  closeAll(): void {
    this.closed = true;
    for (const handle of this.pending) clearTimeout(handle);
    this.pending.clear();
  }
}
