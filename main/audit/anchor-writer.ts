// The anchor of an audit log (its newest entry, kept in the OS keychain) trails the log: each new entry
// asks for a keychain write, and the writes are coalesced so one is in flight at a time and the next
// one takes whatever is newest by then. A desk's own journal and a team's log both anchor this way.

export class AnchorWriter {
  private dirty = false;
  private writing: Promise<void> = Promise.resolve();

  /** `write` stores the newest anchor; it handles (logs) its own failures, so the next request tries again. */
  constructor(private readonly write: () => Promise<void>) {}

  /**
   * Asks for a write. It runs after the current synchronous work, so the entry that asked for it is
   * committed (or rolled back) by then and the head it reads is the committed one.
   */
  request(): void {
    if (this.dirty) return;
    this.dirty = true;
    this.writing = this.writing.then(() => {
      this.dirty = false;
      return this.write();
    });
  }

  /** Waits until the anchor names the newest entry asked for so far. */
  async flush(): Promise<void> {
    while (this.dirty) await this.writing;
    await this.writing;
  }
}
