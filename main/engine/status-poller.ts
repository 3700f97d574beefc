// Reads non-final payments with GET on the limiter's 'status' lane, spending only the budget creates
// leave free: while any create waits for a slot, or creates are flowing (one left within the last
// `createsQuietMs`), the poller starts nothing. Otherwise it keeps reads outstanding at the limiter
// (which paces them), so they run at the full rate however long the round trip. A batch thus gets the whole rate budget and this
// process's time, and statuses (callbacks included) are read as soon as sending pauses or ends. At
// the gateway's usual 10/s the two rules coincide: a sending batch always has a create waiting.
// Intervals grow with a payment's age (timing.pollInterval); a final status ends polling. Every
// observation goes to the journal; identical consecutive observations from the same source are
// folded there.
import { isFinalStatus, type StatusSource } from '../domain/status';
import { isGatewayError } from '../gateway/errors';
import type { JournalPort, PaymentKind, PaymentRecord } from '../journal';
import type { StatusChangedEvent } from './events';
import { statusObservation } from './observation';
import type { GatewayStatusRead, PayoutGatewayPort } from './ports';
import { nextReadAt, pollInterval } from './timing';

export interface PollerDeps {
  journal: JournalPort;
  gateway: PayoutGatewayPort;
  finalStatuses: readonly string[];
  pollIntervalMs: number;
  /** How often due payments are looked for (default 250 ms). */
  tickMs?: number;
  /** Most GETs outstanding at once, in flight or queued at the limiter (default: 1.5 × the rate limit). */
  maxInFlight?: number;
  /** How long after the last create the poller keeps waiting (default 1000 ms: one rate window). */
  createsQuietMs?: number;
  now: () => number;
  onStatus: (e: StatusChangedEvent) => void;
  onError: (e: Error) => void;
  /** A read reached the gateway (online) or could not (offline). */
  onConnection?: (state: 'online' | 'offline', message: string | null) => void;
  /** Reads an UNKNOWN payout back (PayoutSender.resolveUncertain): found → its status, else still unknown. */
  resolveUnknown?: (id: string) => Promise<unknown>;
  /** When an accepted payout answering 404 becomes MISSING (default: 3 reads over at least 15 minutes). */
  missingRule?: { reads: number; spanMs: number };
}

const DEFAULT_MISSING_RULE = { reads: 3, spanMs: 15 * 60_000 };
/** Local states whose payments are read with GET. */
const READ_STATES = new Set(['ACCEPTED', 'MISSING']);

export class StatusPoller {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerDue = 0;
  private running = false;
  private readonly inFlight = new Map<string, Promise<unknown>>();
  /** Payments a callback named: read at the poller's next free slot, recorded with source 'callback'. */
  private readonly nudged = new Map<string, StatusSource>();

  constructor(private readonly deps: PollerDeps) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await Promise.allSettled([...this.inFlight.values()]);
  }

  /** Reads one payment now (UI refresh, CLI `payouts get`, a callback) and records it. */
  async refresh(kind: PaymentKind, id: string, source: StatusSource = 'poll'): Promise<PaymentRecord | undefined> {
    const key = `${kind}:${id}`;
    const work = this.read(kind, id, source);
    this.inFlight.set(key, work);
    try {
      await work;
    } finally {
      if (this.inFlight.get(key) === work) this.inFlight.delete(key);
    }
    return await this.deps.journal.getPayment(kind, id);
  }

  /**
   * A callback says the payment changed. A non-final one is made due now, so the GET waits for rate
   * budget that creates leave free like any poll; a final one (a later change, e.g. a return) is read at once.
   */
  async nudge(kind: PaymentKind, id: string, source: StatusSource = 'callback'): Promise<void> {
    const p = await this.deps.journal.paymentState(kind, id);
    if (!p || !READ_STATES.has(p.state)) return;
    if (p.isFinal || !this.running) {
      await this.refresh(kind, id, source);
      return;
    }
    this.nudged.set(`${kind}:${id}`, source);
    await this.deps.journal.setNextPoll(kind, id, this.deps.now());
    this.wake();
  }

  private schedule(ms: number): void {
    if (!this.running) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerDue = this.deps.now() + ms;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.tick();
    }, ms);
  }

  /** Something became due now: look at the next short tick rather than after an idle wait. */
  private wake(): void {
    const tickMs = this.deps.tickMs ?? 250;
    if (this.running && this.timer && this.timerDue - this.deps.now() > tickMs) this.schedule(tickMs);
  }

  /**
   * With nothing due and budget to spare, the poller sleeps until the next read falls due, but at most
   * 20 ticks (5 s by default) and half the base interval (a payment accepted meanwhile is read at most
   * that late), instead of
   * looking every tick: an idle desk then does a few queries a minute, not four a second.
   */
  private async idleDelay(): Promise<number> {
    const tickMs = this.deps.tickMs ?? 250;
    const longest = Math.max(tickMs, Math.min(20 * tickMs, Math.floor(this.deps.pollIntervalMs / 2)));
    let next: number | null;
    try {
      // Reads in flight are left out: they were due, and looking again every tick would not start them sooner.
      next = await this.deps.journal.nextPollTime(new Set(this.inFlight.keys()));
    } catch {
      return longest; // the journal is busy or closing: look again later
    }
    if (next === null) return longest;
    return Math.min(longest, Math.max(tickMs, next - this.deps.now()));
  }

  /**
   * How many reads to start now. Creates first: none while a create (or token) waits for a slot or creates
   * are flowing, and none while a list call (the UI) waits, so it is not stuck behind a queue of reads.
   * Otherwise reads are kept outstanding (in flight or queued at the limiter, which paces them) up to the
   * limit and a half: with round trips of hundreds of ms the limiter always has a read waiting when a slot
   * comes free between ticks, so reads run at the full rate and "all final" nears 2 requests per payout.
   */
  private freeBudget(): number {
    const usage = this.deps.gateway.limiter.usage();
    if ((usage.queued.create ?? 0) > 0 || (usage.queued.token ?? 0) > 0 || (usage.queued.list ?? 0) > 0) return 0;
    const sinceCreate = usage.msSinceRelease?.create;
    if (sinceCreate !== undefined && sinceCreate !== null && sinceCreate < (this.deps.createsQuietMs ?? 1000)) return 0;
    const maxInFlight = this.deps.maxInFlight ?? Math.max(1, Math.ceil(usage.limit * 1.5));
    return Math.max(0, maxInFlight - this.inFlight.size);
  }

  private async tick(): Promise<void> {
    let busy = true;
    try {
      const budget = this.freeBudget();
      if (budget > 0) {
        // Only what will be read now: a team journal takes what it returns from the other desks.
        const due = await this.deps.journal.duePolls(this.deps.now(), budget, new Set(this.inFlight.keys()));
        // Fewer due than asked for: everything due is started or in flight; nothing more before the next due time.
        busy = due.length >= budget;
        let started = 0;
        for (const p of due) {
          if (started >= budget) break;
          const key = `${p.kind}:${p.id}`;
          if (this.inFlight.has(key)) continue;
          started++;
          const source = this.nudged.get(key) ?? 'poll';
          this.nudged.delete(key);
          const work = this.read(p.kind, p.id, source).finally(() => this.inFlight.delete(key));
          this.inFlight.set(key, work);
        }
      }
    } catch (e) {
      busy = false;
      this.deps.onError(e instanceof Error ? e : new Error(String(e)));
    }
    this.schedule(busy ? (this.deps.tickMs ?? 250) : await this.idleDelay());
  }

  private async read(kind: PaymentKind, id: string, source: StatusSource): Promise<void> {
    const { journal, gateway } = this.deps;
    const before = await journal.getPayment(kind, id);
    if (!before) return;
    if (before.state === 'UNKNOWN' && kind === 'payout' && this.deps.resolveUnknown) {
      await this.deps.resolveUnknown(id).catch((e: unknown) => this.deps.onError(e instanceof Error ? e : new Error(String(e))));
      const after = await journal.getPayment(kind, id);
      if (after?.state === 'UNKNOWN' && (after.nextPollAt ?? 0) <= this.deps.now()) {
        await journal.setNextPoll(kind, id, this.deps.now() + this.deps.pollIntervalMs);
      }
      return;
    }
    // Not for reading (sent again meanwhile, cancelled…): it is no longer due, or it would be looked at every tick.
    if (!READ_STATES.has(before.state)) {
      if (before.nextPollAt !== null && before.state !== 'SENDING') await journal.setNextPoll(kind, id, null);
      return;
    }
    let read: GatewayStatusRead;
    try {
      read = kind === 'payout' ? await gateway.getPayout(id) : await gateway.getPayin(id);
      this.deps.onConnection?.('online', null);
    } catch (e) {
      if (isGatewayError(e, 'network') || isGatewayError(e, 'timeout')) this.deps.onConnection?.('offline', e.message);
      // Offline, rate-limited or the gateway lost track: try again later, never mark anything failed.
      const retryAt = this.deps.now() + pollInterval(this.ageOf(before), this.deps.pollIntervalMs);
      if (isGatewayError(e, 'not-found') && kind === 'payout') {
        // Accepted once, now unknown to the gateway: after a while a person must be told (MISSING).
        if (await journal.recordNotFound(kind, id, retryAt, this.deps.missingRule ?? DEFAULT_MISSING_RULE)) {
          this.deps.onStatus({ kind, id, status: 'MISSING', previousStatus: before.status, final: false, source: 'local', observedAt: this.deps.now(), batchId: before.batchId });
        }
        return;
      }
      await journal.setNextPoll(kind, id, retryAt);
      if (!isGatewayError(e)) this.deps.onError(e instanceof Error ? e : new Error(String(e)));
      return;
    }
    const status = (read.status ?? before.gatewayStatus ?? 'ACCEPTED').toUpperCase();
    const final = isFinalStatus(status, this.deps.finalStatuses);
    const now = this.deps.now();
    const { changed } = await journal.recordObservationSoon(kind, id, statusObservation(read, {
      status,
      source,
      isFinal: final,
      nextPollAt: kind === 'payout'
        ? nextReadAt({ status, final, now, ageMs: this.ageOf(before), finalAt: before.finalAt, baseMs: this.deps.pollIntervalMs })
        : final ? null : now + pollInterval(this.ageOf(before), this.deps.pollIntervalMs),
    }));
    if (changed) {
      this.deps.onStatus({ kind, id, status, previousStatus: before.status, final, source, observedAt: now, batchId: before.batchId });
    }
  }

  private ageOf(p: PaymentRecord): number {
    return Math.max(0, this.deps.now() - (p.acceptedAt ?? p.createdAt));
  }
}
