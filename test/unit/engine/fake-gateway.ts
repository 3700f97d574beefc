// An in-memory gateway for engine unit tests: stores payouts by id (409 on repeats), and lets a test
// script failures — before or after storing — to drive the engine's retry and recovery paths.
import { GatewayError, SendCancelledError, type GatewayErrorKind } from '../../../main/gateway/errors';
import type { GatewayBalanceRead, GatewayStatusRead, LimiterUsagePort, PayoutGatewayPort, PayoutRequest } from '../../../main/engine/ports';

export interface StoredPayout {
  request: PayoutRequest;
  status: string;
}

type Fault = { kind: GatewayErrorKind; afterStore: boolean; retryAfterMs?: number };

export class FakeGateway implements PayoutGatewayPort {
  readonly stored = new Map<string, StoredPayout>();
  readonly createCalls = new Map<string, number>();
  getCalls = 0;
  /** Faults applied to the next create calls, in order. */
  readonly createFaults: Fault[] = [];
  /** Faults thrown before a create is sent (as a failed token request would be), in order. */
  readonly preSendFaults: GatewayErrorKind[] = [];
  /** When set, every call fails like a closed port. */
  offline = false;
  /** Initial status of a stored payout. */
  initialStatus = 'PENDING';
  usage: LimiterUsagePort = { inWindow: 0, limit: 10, queued: { token: 0, create: 0, status: 0, list: 0 } };
  readonly limiter = { usage: () => this.usage };
  balancesResult: GatewayBalanceRead[] = [];
  /** Time each create waits before it is sent (as for a rate slot): a pause or cancel can still stop it. */
  createDelayMs = 0;
  /** When set, each create waits on it for its rate slot: a test decides when the slot is there. */
  slot: ((idPayout: string) => Promise<void>) | null = null;
  /** Time each create is on the wire (after it was sent, before the gateway has it). */
  wireDelayMs = 0;
  /** Time each GET takes; getsDone counts the GETs that have answered (or failed). */
  getDelayMs = 0;
  getsDone = 0;

  failCreates(count: number, kind: GatewayErrorKind, afterStore = false, retryAfterMs?: number): void {
    for (let i = 0; i < count; i++) this.createFaults.push({ kind, afterStore, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });
  }

  private error(kind: GatewayErrorKind, retryAfterMs?: number): GatewayError {
    const status = { conflict: 409, validation: 400, server: 500, 'rate-limited': 429, unauthorized: 401, 'not-found': 404 }[kind as string];
    // 'network' here is a closed port: the request never reached the gateway.
    const code = kind === 'network' ? { code: 'ECONNREFUSED' } : {};
    return new GatewayError(kind, `fake ${kind}`, { ...(status ? { status } : {}), ...code, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) });
  }

  async createPayout(idPayout: string, request: PayoutRequest, options: { beforeSend?: () => boolean } = {}): Promise<{ raw: unknown }> {
    // The delay stands for the wait for a rate slot; beforeSend runs when it is over, as in the real client.
    await new Promise((r) => (this.createDelayMs > 0 ? setTimeout(r, this.createDelayMs) : r(undefined)));
    if (this.slot) await this.slot(idPayout);
    const preSend = this.preSendFaults.shift();
    if (preSend) throw this.error(preSend);
    if (options.beforeSend && !options.beforeSend()) throw new SendCancelledError('createPayout');
    if (this.wireDelayMs > 0) await new Promise((r) => setTimeout(r, this.wireDelayMs));
    this.createCalls.set(idPayout, (this.createCalls.get(idPayout) ?? 0) + 1);
    if (this.offline) throw this.error('network');
    const fault = this.createFaults.shift();
    if (fault && !fault.afterStore) throw this.error(fault.kind, fault.retryAfterMs);
    if (this.stored.has(idPayout)) throw this.error('conflict');
    this.stored.set(idPayout, { request, status: this.initialStatus });
    if (fault) throw this.error(fault.kind, fault.retryAfterMs);
    return { raw: { paymentMethodResponse: { idPayout } } };
  }

  async getPayout(idPayout: string): Promise<GatewayStatusRead> {
    await Promise.resolve();
    this.getCalls++;
    try {
      if (this.getDelayMs > 0) await new Promise((r) => setTimeout(r, this.getDelayMs));
      if (this.offline) throw this.error('network');
      const p = this.stored.get(idPayout);
      if (!p) throw this.error('not-found');
      return { status: p.status, amountMinor: p.request.amountMinor, currencyCode: p.request.currencyCode, raw: { process: { status: p.status } } };
    } finally {
      this.getsDone++;
    }
  }

  async getPayin(idPayin: string): Promise<GatewayStatusRead> {
    return this.getPayout(idPayin);
  }

  async balances(codes: string[]): Promise<GatewayBalanceRead[]> {
    if (this.offline) throw this.error('network');
    return this.balancesResult.filter((b) => codes.includes(b.currencyCode));
  }

  setStatus(status: string): void {
    for (const p of this.stored.values()) p.status = status;
  }
}
