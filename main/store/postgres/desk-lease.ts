// A team desk's lease in desk_leases, kept on the database's clock: the journal claims a payment only while
// the lease is surely alive here, and another desk takes the payment over once it has run out.
//
// Why a desk whose lease ran out cannot still be sending: it lets a request leave (SendClaim.confirm) only
// while `performance.now() <= validUntil - maxRequestMs`, where validUntil = (when the last successful
// heartbeat was sent) + leaseMs - marginMs. The database stamped that lease at or after the send, so its
// lease_until is later than validUntil in elapsed time (marginMs covers the two clocks' rates differing);
// and the engine aborts every request by maxRequestMs after it left. So every request this desk sent has
// ended before its lease_until, and a desk taking over after lease_until meets no request in flight.
// The writes that follow a takeover are fenced too: SENDING is written only while the claim is still ours,
// and a claim taken before this desk's lease ran out here stays void even once a heartbeat renews it.
//
// Defaults: leaseMs 60 000, maxRequestMs 30 000, marginMs 2 000. A confirm is possible while
// maxRequestMs + marginMs < leaseMs - (time since the last heartbeat), so with heartbeats every 20 s a
// request may always leave; a desk that stops is taken over at most leaseMs after its last heartbeat.
import { performance } from 'node:perf_hooks';
import type { Pool } from 'pg';

export interface LeaseTimings {
  leaseMs: number;
  marginMs: number;
  /** How long a request may live after it left; the lease must outlast it between two heartbeats. */
  maxRequestMs: number;
}

export class DeskLease {
  /** performance.now() until which this desk's lease is surely alive on the database (0: never held). */
  private validUntil = 0;
  /**
   * Bumped when a heartbeat renews a lease that had already run out here: claims taken before then are
   * void (another desk may have taken their payments over meanwhile), even once the lease is alive again.
   */
  private epochNow = 0;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private ended = false;
  private stopped = false;

  constructor(
    private readonly pool: Pool,
    private readonly deskId: string,
    private readonly timings: LeaseTimings,
    /** Runs after each periodic heartbeat (the journal takes over the claims of desks whose lease ran out). */
    private readonly afterBeat: () => Promise<unknown>,
  ) {
    const { leaseMs, marginMs, maxRequestMs } = timings;
    // Right before a heartbeat (every leaseMs/3) a request must still be able to leave.
    if (!((leaseMs * 2) / 3 > maxRequestMs + marginMs)) {
      throw new Error(`two thirds of leaseMs (${leaseMs}) must exceed maxRequestMs + marginMs (${maxRequestMs + marginMs}), or requests could not leave between heartbeats`);
    }
  }

  /** Takes the lease, then keeps it alive every leaseMs/3 until end(). */
  async start(): Promise<void> {
    await this.beat();
    this.schedule();
  }

  /** The claims taken under an older epoch are void. */
  get epoch(): number {
    return this.epochNow;
  }

  /** Whether this desk's lease is surely alive now (and for `aheadMs` more). */
  held(aheadMs = 0): boolean {
    return !this.ended && performance.now() + aheadMs <= this.validUntil;
  }

  /** Renews the lease now. */
  renew(): Promise<void> {
    return this.beat();
  }

  /** Stops renewing while the desk keeps running: a desk that hangs or lost its network (tests). */
  stopRenewing(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.stopped = true;
  }

  /** Stops the heartbeat and waits for one in flight; the lease is no longer held here. */
  async end(): Promise<void> {
    this.ended = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
    this.validUntil = 0;
  }

  private schedule(): void {
    if (this.ended || this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.beat()
        .then(() => this.afterBeat())
        .then(() => undefined, () => undefined) // a failed beat leaves validUntil where it was: claims stop when it passes
        .finally(() => {
          this.running = null;
          this.schedule();
        });
    }, Math.max(1, Math.floor(this.timings.leaseMs / 3)));
    this.timer.unref();
  }

  /** Renews the lease; validUntil moves only once the database has it. */
  private async beat(): Promise<void> {
    const sentAt = performance.now();
    await this.pool.query(
      `INSERT INTO desk_leases (desk_id, lease_until) VALUES ($1, clock_timestamp() + make_interval(secs => $2::double precision / 1000))
       ON CONFLICT (desk_id) DO UPDATE SET lease_until = EXCLUDED.lease_until`,
      [this.deskId, this.timings.leaseMs],
    );
    if (this.ended) return;
    if (performance.now() > this.validUntil) this.epochNow++;
    this.validUntil = Math.max(this.validUntil, sentAt + this.timings.leaseMs - this.timings.marginMs);
  }
}
