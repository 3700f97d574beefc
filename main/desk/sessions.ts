// Who is unlocked at this desk, per profile (dual control): the person's unlocked key, the idle lock that
// forgets them after the profile's idle time without use, and the lock itself. The runtime (runtime.ts) tells
// the screens and audits each lock through onLocked; this file keeps only who is there and for how long.
import type { UnlockedSession } from '../people/key-vault';

export type LockReason = 'idle' | 'lock' | 'os-lock' | 'suspend';

export interface IdleTimers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: IdleTimers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return t;
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export class UnlockedSessions {
  private readonly sessions = new Map<string, UnlockedSession>();
  /** Per profile: when the unlocked person last acted, how long they may idle, and the pending check. */
  private readonly idle = new Map<string, { lastUsed: number; ms: number; timer: unknown }>();

  constructor(
    readonly timers: IdleTimers,
    /** How long the profile's person may stay unused, in ms; null for never. */
    private readonly idleMsOf: (profileId: string) => number | null,
    /** A person who was unlocked has just been locked: tell the screens, audit it. */
    private readonly onLocked: (profileId: string, session: UnlockedSession, reason: LockReason) => Promise<void>,
  ) {}

  /** The unlocked person, or null; `use` counts it as use (the idle time starts again). */
  get(profileId: string, use = false): UnlockedSession | null {
    const session = this.sessions.get(profileId);
    if (!session || session.locked) return null;
    if (use) this.touch(profileId);
    return session;
  }

  /** Profiles with a person, unlocked or not yet forgotten. */
  profiles(): string[] {
    return [...this.sessions.keys()];
  }

  touch(profileId: string): void {
    const entry = this.idle.get(profileId);
    if (entry) entry.lastUsed = this.timers.now();
  }

  /** Sets the person working on the profile; null locks and forgets the one there was (not audited: see lock). */
  set(profileId: string, session: UnlockedSession | null): void {
    const before = this.sessions.get(profileId);
    if (before && before !== session) before.lock();
    this.stopIdle(profileId);
    if (!session) {
      this.sessions.delete(profileId);
      return;
    }
    this.sessions.set(profileId, session);
    let ms: number | null = null;
    try {
      ms = this.idleMsOf(profileId);
    } catch {
      ms = null; // a profile not in the store (tests of a bare journal): nothing to read the setting from
    }
    if (ms !== null) this.idle.set(profileId, { lastUsed: this.timers.now(), ms, timer: this.timers.setTimeout(() => this.idleCheck(profileId), ms) });
  }

  /** Forgets the unlocked person now; resolves once the lock is told (true), or false when nobody was unlocked. */
  async lock(profileId: string, reason: LockReason): Promise<boolean> {
    const session = this.sessions.get(profileId);
    const wasUnlocked = session !== undefined && !session.locked;
    this.set(profileId, null);
    if (!session || !wasUnlocked) return false;
    await this.onLocked(profileId, session, reason);
    return true;
  }

  /** When the unlocked person will be locked for idling (epoch ms); null when nobody is unlocked or never. */
  locksAt(profileId: string): number | null {
    const entry = this.idle.get(profileId);
    if (!this.get(profileId) || !entry) return null;
    return entry.lastUsed + entry.ms;
  }

  private stopIdle(profileId: string): void {
    const entry = this.idle.get(profileId);
    if (entry) this.timers.clearTimeout(entry.timer);
    this.idle.delete(profileId);
  }

  /** Fires when the idle time may be over: locks if it is, else waits for the rest. */
  private idleCheck(profileId: string): void {
    const entry = this.idle.get(profileId);
    if (!entry) return;
    const left = entry.lastUsed + entry.ms - this.timers.now();
    if (left <= 0) void this.lock(profileId, 'idle');
    else entry.timer = this.timers.setTimeout(() => this.idleCheck(profileId), left);
  }
}
