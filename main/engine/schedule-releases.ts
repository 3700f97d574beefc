// The calendar's release loop on a sender desk: at each tick, every schedule whose time has come is released (its
// subject becomes sendable in the same transaction) and handed to the engine, which sends it through the approval
// gate like any other. A desk that was not running at the time releases it at its next start and records how late;
// past the profile's late window it is not released but marked LATE, for a person to confirm. Of two sender desks of
// a team at one release moment, the journal's conditional update lets exactly one release (JournalPort.releaseSchedule).
import type { JournalPort } from '../journal';
import type { ScheduleRecord } from '../schedules/schedule';

export interface ScheduleReleasesDeps {
  journal: JournalPort;
  now: () => number;
  /** How late a release may still be made without a person (null: any). */
  lateWindowMs: number | null;
  /** Time between two looks at the calendar (default 15 s); a release is made at most this late. */
  tickMs?: number;
  /** The actor recorded with a release (this desk). */
  actor: string;
  /** A subject just released here: the engine sends it. */
  released: (schedule: ScheduleRecord) => void;
  /** A schedule found past its late window: it waits for a person. */
  late: (schedule: ScheduleRecord) => void;
  onError: (error: Error) => void;
}

export const DEFAULT_RELEASE_TICK_MS = 15_000;

export class ScheduleReleases {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running = false;
  private ticking: Promise<void> | null = null;

  constructor(private readonly deps: ScheduleReleasesDeps) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.wake();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.ticking;
  }

  /** Looks at the calendar now (a schedule was added or moved, a desk started). */
  wake(): void {
    if (!this.running) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), 0);
  }

  /** One look: releases what is due, marks late what is past its window. Resolves when done. */
  async tick(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.ticking) return this.ticking;
    this.ticking = this.releaseDue()
      .catch((e: unknown) => this.deps.onError(e instanceof Error ? e : new Error(String(e))))
      .finally(() => {
        this.ticking = null;
        if (this.running) this.timer = setTimeout(() => void this.tick(), this.deps.tickMs ?? DEFAULT_RELEASE_TICK_MS);
      });
    return this.ticking;
  }

  private async releaseDue(): Promise<void> {
    const { journal } = this.deps;
    const now = this.deps.now();
    for (const due of await journal.listSchedules({ states: ['SCHEDULED'], to: now })) {
      if (!this.running) return;
      if (this.deps.lateWindowMs !== null && now - due.at > this.deps.lateWindowMs) {
        if (await journal.markScheduleLate(due.kind, due.id, this.deps.actor)) this.deps.late({ ...due, state: 'LATE', lateByMs: now - due.at });
        continue;
      }
      const released = await journal.releaseSchedule(due.kind, due.id, { actor: this.deps.actor, from: 'SCHEDULED' });
      if (released) this.deps.released(released);
    }
  }
}
