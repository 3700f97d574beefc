// Balances: read on demand and on a timer; every successful read is stored as a snapshot, so the
// balance chart and the "pending outgoing" figures work offline from the journal.
import { isGatewayError } from '../gateway/errors';
import type { BalanceSnapshot, JournalPort } from '../journal';
import type { PayoutGatewayPort } from './ports';

export interface BalanceWatcherDeps {
  journal: JournalPort;
  gateway: PayoutGatewayPort;
  /** Currencies always asked for, besides every currency the journal has seen. */
  currencies: readonly string[];
  now: () => number;
  onError: (e: unknown) => void;
  /** A read reached the gateway (online) or could not (offline). */
  onConnection?: (state: 'online' | 'offline', message: string | null) => void;
}

export class BalanceWatcher {
  private timer: ReturnType<typeof setInterval> | undefined;
  private inFlight: Promise<BalanceSnapshot[]> | undefined;

  constructor(private readonly deps: BalanceWatcherDeps) {}

  /** Asks the gateway now; concurrent calls share one request. */
  refresh(currencyCodes?: string[]): Promise<BalanceSnapshot[]> {
    if (this.inFlight && !currencyCodes) return this.inFlight;
    const work = this.fetch(currencyCodes).finally(() => {
      if (this.inFlight === work) this.inFlight = undefined;
    });
    if (!currencyCodes) this.inFlight = work;
    return work;
  }

  start(intervalMs: number): void {
    this.stop();
    this.timer = setInterval(() => {
      this.refresh().catch((e: unknown) => this.deps.onError(e));
    }, intervalMs);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  async settle(): Promise<void> {
    await this.inFlight?.catch(() => undefined);
  }

  private async fetch(currencyCodes?: string[]): Promise<BalanceSnapshot[]> {
    const codes = currencyCodes ?? [...new Set([...this.deps.currencies, ...(await this.deps.journal.knownCurrencies())])].sort();
    if (codes.length === 0) return [];
    let read: Awaited<ReturnType<PayoutGatewayPort['balances']>>;
    try {
      read = await this.deps.gateway.balances(codes);
    } catch (e) {
      if (isGatewayError(e, 'network') || isGatewayError(e, 'timeout')) this.deps.onConnection?.('offline', e.message);
      throw e;
    }
    this.deps.onConnection?.('online', null);
    const observedAt = this.deps.now();
    const snapshots = read.map((b) => ({ currencyCode: b.currencyCode.toUpperCase(), availableMinor: b.availableMinor, reservedMinor: b.reservedMinor ?? 0 }));
    await this.deps.journal.insertBalanceSnapshots(snapshots, observedAt);
    return snapshots.map((s) => ({ ...s, observedAt }));
  }
}
