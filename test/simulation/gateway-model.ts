// An in-process model of the payment gateway, plugged in under the desk's real gateway client as its
// axios adapter: the desk's transport, limiter, token manager, error mapping and engine run as in
// production, only the network and the gateway are simulated. It follows the interface (idempotent
// ids with 409, 429 over 10 requests a second, PENDING → PROCESSING → SUCCESS/FAILED, RETURNED after
// SUCCESS) and misbehaves on request: lost answers, late landings, 5xx, resets, 429 bursts, 404s.
// Amounts are handled as decimal text and integer minor units only.
import { AxiosError, type AxiosAdapter, type AxiosResponse, type InternalAxiosRequestConfig } from 'axios';
import type { Prng } from './prng';

export type GatewayStatus = 'PENDING' | 'PROCESSING' | 'SUCCESS' | 'FAILED' | 'RETURNED';

/** Statuses in which a payout has paid or may still pay. */
export const MAY_PAY: ReadonlySet<GatewayStatus> = new Set(['PENDING', 'PROCESSING', 'SUCCESS']);

export type CreateFault =
  | 'store-no-answer' // stored, the answer never comes (the desk times out)
  | 'fail-before-store' // 503, nothing stored
  | 'server-error-after-store' // stored, then 500
  | 'reset-after-store' // stored, then the connection resets
  | 'land-late'; // the desk times out; the request reaches the gateway long after

export interface StoredPayout {
  id: string;
  amountMinor: number;
  currencyCode: string;
  accountNumber: string;
  storedAt: number;
  processingAt: number;
  finalAt: number;
  outcome: 'SUCCESS' | 'FAILED';
  returnedAt: number | null;
  /** The gateway answers 404 for it from then on (it "stops knowing" it). */
  forgotten: boolean;
  /** 404 for status reads until then (a replica that lags). */
  hiddenUntil: number;
  /** When the gateway last answered a status read of it (a read in flight across a return answered the old status). */
  lastReadAt?: number;
}

export interface CreateArrival {
  id: string;
  /** When it reached the gateway. */
  at: number;
  /** When it left the desk (the adapter was called): what "nothing leaves after a pause" is about. */
  sentAt: number;
  generation: number;
  /** The body exactly as it arrived (invariant 8: it must be a row the approvals cover). */
  body?: string;
}

interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** What happens to one request: an answer, no answer at all, or a reset. */
type Fate = { kind: 'answer'; answer: Answer } | { kind: 'silence' } | { kind: 'reset' };

const TIMEOUT_FALLBACK_MS = 15_000;

export class GatewayModel {
  readonly payouts = new Map<string, StoredPayout>();
  /** Every create that reached the gateway, in order. */
  readonly arrivals: CreateArrival[] = [];
  /** The merchant's key is refused (not registered / revoked): every request gets 401. */
  keyRefused = false;
  /** Every request gets 429 until then. */
  rateBurstUntil = 0;
  /** Applied to the next creates, one each, in order. */
  readonly createFaults: CreateFault[] = [];
  /** Called when a create reaches the gateway (before it is stored): the simulation may crash the desk here. */
  onCreateArrived: ((arrival: CreateArrival) => void) | null = null;
  readonly trace: string[] = [];
  private readonly pendingLandings = new Set<string>();
  private readonly window: number[] = [];
  private readonly disconnected = new Set<number>();

  constructor(
    private readonly rng: Prng,
    readonly limitPerSec = 10,
  ) {}

  /** The adapter one desk process uses; its answers stop arriving once it is disconnected (crash). */
  adapter(generation: number): AxiosAdapter {
    return (config) => this.handle(generation, config);
  }

  disconnect(generation: number): void {
    this.disconnected.add(generation);
  }

  statusOf(p: StoredPayout, now: number): GatewayStatus {
    if (now < p.processingAt) return 'PENDING';
    if (now < p.finalAt) return 'PROCESSING';
    if (p.outcome === 'SUCCESS' && p.returnedAt !== null && now >= p.returnedAt) return 'RETURNED';
    return p.outcome;
  }

  /** Whether a status read of this payout answers 404 now. */
  hidden(p: StoredPayout, now: number): boolean {
    return p.forgotten || now < p.hiddenUntil;
  }

  /** Turns a SUCCESS payout into RETURNED now (the admin route of the sandbox). */
  returnPayout(id: string, now: number): boolean {
    const p = this.payouts.get(id);
    if (!p || this.statusOf(p, now) !== 'SUCCESS') return false;
    p.returnedAt = now;
    this.trace.push(`${now} gateway returned ${id}`);
    return true;
  }

  private async handle(generation: number, config: InternalAxiosRequestConfig): Promise<AxiosResponse> {
    const timeoutMs = config.timeout || TIMEOUT_FALLBACK_MS;
    const sentAt = Date.now();
    const outMs = this.latency();
    const backMs = this.latency();
    return new Promise((resolve, reject) => {
      let settled = false;
      const fail = (code: string, message: string) => {
        if (settled || this.disconnected.has(generation)) return;
        settled = true;
        reject(new AxiosError(message, code, config));
      };
      const timer = setTimeout(() => fail('ECONNABORTED', `timeout of ${timeoutMs}ms exceeded`), timeoutMs);
      setTimeout(() => {
        const fate = this.arrive(generation, config, timeoutMs, sentAt);
        if (fate.kind === 'silence') return;
        setTimeout(() => {
          if (settled || this.disconnected.has(generation)) return;
          clearTimeout(timer);
          if (fate.kind === 'reset') return fail('ECONNRESET', 'socket hang up');
          settled = true;
          resolve(this.response(config, fate.answer));
        }, backMs);
      }, outMs);
    });
  }

  private latency(): number {
    return this.rng.chance(0.05) ? this.rng.int(300, 3_000) : this.rng.int(2, 120);
  }

  private response(config: InternalAxiosRequestConfig, answer: Answer): AxiosResponse {
    return {
      status: answer.status,
      statusText: String(answer.status),
      headers: answer.headers ?? {},
      config,
      data: answer.body === undefined ? '' : withAmountLiterals(answer.body),
    };
  }

  /** The request reaches the gateway now: decide and apply what it does. */
  private arrive(generation: number, config: InternalAxiosRequestConfig, timeoutMs: number, sentAt: number): Fate {
    const now = Date.now();
    const method = (config.method ?? 'get').toUpperCase();
    const [path = '', query = ''] = (config.url ?? '').split('?');
    if (now < this.rateBurstUntil || this.windowFull(now)) return answer(429, { error: { code: 'RATE_LIMITED', message: 'too many requests' } }, { 'retry-after': '1' });
    this.window.push(now);
    if (method === 'POST' && path === '/auth-tokens') {
      if (this.keyRefused) return answer(401, { error: { code: 'INVALID_SIGNATURE', message: 'no registered key matches the signature' } });
      return answer(200, { token: fakeJwt(now), expiresAt: new Date(now + 3_600_000).toISOString() });
    }
    if (this.keyRefused) return answer(401, { error: { code: 'INVALID_TOKEN', message: 'the token is not valid' } });
    const payoutId = /^\/payouts\/([A-Za-z0-9_-]{1,64})$/.exec(path)?.[1];
    if (payoutId && method === 'POST') return this.create({ id: payoutId, at: now, sentAt, generation }, String(config.data ?? ''), timeoutMs);
    if (payoutId && method === 'GET') return this.read(payoutId, now);
    if (method === 'GET' && path === '/balances') {
      const codes = new URLSearchParams(query).get('currencies')?.split(',') ?? ['EUR'];
      return answer(200, { data: codes.filter((c) => c === 'EUR').map((code) => ({ currencyCode: code, available: amount(100_000_000_00), reserved: amount(0) })) });
    }
    if (method === 'GET' && path === '/currencies') return answer(200, { data: [{ code: 'EUR', name: 'Euro', decimals: 2 }] });
    if (method === 'GET' && path === '/payment-operators') {
      return answer(200, { data: [{ code: 'EU_SEPA', name: 'SEPA credit transfer', paymentMethodCode: 'BANK_TRANSFER', currencyCodes: ['EUR'] }] });
    }
    return answer(404, { error: { code: 'UNSUPPORTED_VERSION', message: `no route ${method} ${path}` } });
  }

  private windowFull(now: number): boolean {
    while (this.window.length > 0 && this.window[0]! <= now - 1000) this.window.shift();
    return this.window.length >= this.limitPerSec;
  }

  private create(arrival: CreateArrival, body: string, timeoutMs: number): Fate {
    const { id, at: now } = arrival;
    arrival.body = body;
    this.arrivals.push(arrival);
    this.onCreateArrived?.(arrival);
    if (this.pendingLandings.has(id)) {
      this.trace.push(`${now} gateway create ${id}: 422, an earlier request with this id is still being processed`);
      return answer(422, { error: { code: 'REQUEST_IN_PROGRESS', message: 'a request with this id is still being processed' } });
    }
    if (this.payouts.has(id)) {
      this.trace.push(`${now} gateway create ${id}: 409`);
      return answer(409, { error: { code: 'DUPLICATE_ID', message: 'a payout with this id exists' } });
    }
    const fault = this.createFaults.shift();
    this.trace.push(`${now} gateway create ${id}${fault ? ` (${fault})` : ''}`);
    switch (fault) {
      case 'fail-before-store':
        return answer(503, { error: { code: 'UNAVAILABLE', message: 'try again later' } });
      case 'land-late': {
        this.pendingLandings.add(id);
        setTimeout(() => {
          this.pendingLandings.delete(id);
          if (this.payouts.has(id)) return;
          this.store(id, body, Date.now());
          this.trace.push(`${Date.now()} gateway stored ${id} (landed late)`);
        }, timeoutMs + this.rng.int(1_000, 20_000));
        return { kind: 'silence' };
      }
      case 'store-no-answer':
        this.store(id, body, now);
        return { kind: 'silence' };
      case 'server-error-after-store':
        this.store(id, body, now);
        return answer(500, { error: { code: 'INTERNAL', message: 'internal error' } });
      case 'reset-after-store':
        this.store(id, body, now);
        return { kind: 'reset' };
      case undefined: {
        const p = this.store(id, body, now);
        return answer(201, {
          paymentRequested: { money: { amount: amount(p.amountMinor), currencyCode: p.currencyCode } },
          paymentMethodResponse: { idPayout: id, paymentMethodCode: 'BANK_TRANSFER' },
          process: { status: 'PENDING', createdAt: new Date(now).toISOString() },
        });
      }
    }
  }

  private store(id: string, body: string, now: number): StoredPayout {
    const parsed = JSON.parse(body) as { paymentRequested: { money: { currencyCode: string } }; paymentMethod: { account: { accountNumber: string } } };
    const literal = /"amount":(\d+(?:\.\d+)?)/.exec(body)?.[1] ?? '0';
    const accountNumber = parsed.paymentMethod.account.accountNumber;
    const processingAt = now + this.rng.int(200, 5_000);
    const finalAt = processingAt + this.rng.int(200, 20_000);
    const outcome = accountNumber.endsWith('0000') ? 'FAILED' : 'SUCCESS';
    const p: StoredPayout = {
      id,
      amountMinor: minorOf(literal),
      currencyCode: parsed.paymentRequested.money.currencyCode,
      accountNumber,
      storedAt: now,
      processingAt,
      finalAt,
      outcome,
      returnedAt: outcome === 'SUCCESS' && accountNumber.endsWith('9999') ? finalAt + this.rng.int(1_000, 60_000) : null,
      forgotten: false,
      hiddenUntil: 0,
    };
    this.payouts.set(id, p);
    return p;
  }

  private read(id: string, now: number): Fate {
    const p = this.payouts.get(id);
    if (!p || this.hidden(p, now)) return answer(404, { error: { code: 'NOT_FOUND', message: `no payout ${id}` } });
    p.lastReadAt = now;
    const status = this.statusOf(p, now);
    const final = status === 'SUCCESS' || status === 'FAILED' || status === 'RETURNED';
    return answer(200, {
      paymentRequested: { money: { amount: amount(p.amountMinor), currencyCode: p.currencyCode } },
      paymentMethodResponse: { idPayout: id, paymentMethodCode: 'BANK_TRANSFER' },
      process: {
        status,
        createdAt: new Date(p.storedAt).toISOString(),
        ...(final ? { processedAt: new Date(p.finalAt).toISOString() } : {}),
        ...(status === 'FAILED' ? { failureReason: 'ACCOUNT_CLOSED' } : {}),
        ...(status === 'RETURNED' ? { failureReason: 'RETURNED_BY_BANK' } : {}),
        isTest: true,
      },
    });
  }
}

function answer(status: number, body: unknown, headers?: Record<string, string>): Fate {
  return { kind: 'answer', answer: { status, body, ...(headers ? { headers } : {}) } };
}

/** A JSON number literal for an amount in cents, kept as text until the body is written. */
class AmountLiteral {
  constructor(readonly text: string) {}
  toJSON(): string {
    return `@@amount:${this.text}@@`;
  }
}

function amount(minor: number): AmountLiteral {
  const cents = String(minor % 100).padStart(2, '0');
  return new AmountLiteral(`${Math.trunc(minor / 100)}.${cents}`);
}

function withAmountLiterals(body: unknown): string {
  return JSON.stringify(body).replace(/"@@amount:([0-9.]+)@@"/g, '$1');
}

function minorOf(literal: string): number {
  const [units = '0', fraction = ''] = literal.split('.');
  return Number(units) * 100 + Number(fraction.padEnd(2, '0').slice(0, 2));
}

function fakeJwt(now: number): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const iat = Math.floor(now / 1000);
  return `${part({ alg: 'none', typ: 'JWT' })}.${part({ sub: 'SIM-MERCHANT', iat, exp: iat + 3600 })}.c2lt`;
}
