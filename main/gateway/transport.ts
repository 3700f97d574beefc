// The HTTP layer under the gateway client: one axios instance per profile, every request through the
// merchant's rate limiter, bodies sent as the exact string given (what was signed is what is sent),
// answers mapped to GatewayError. Retry policy lives here because it is about HTTP, not business:
// - a 429 means "not processed": any call waits Retry-After (the limiter pauses everyone and grows its
//   safety margin) and tries once more;
// - idempotent calls (GETs, token requests) are retried a bounded number of times on time-out, network or 5xx;
// - POST creates are never retried here: the engine owns that decision (DESIGN.md §4).
import type { AxiosAdapter, AxiosInstance, AxiosResponse } from 'axios';
import { getProxyForUrl } from 'proxy-from-env';
import type { Logger } from '../log';
import { GatewayError, SendCancelledError } from './errors';
import { answerTooLarge, errorFromResponse, errorFromTransport, isAnswerTooLarge, type ErrorContext } from './error-mapping';
import type { Lane, RateLimiter, SlotOutcome } from './rate-limiter';

export interface GatewayRequest extends ErrorContext {
  method: 'GET' | 'POST';
  /** Path relative to the base URL, already encoded. */
  path: string;
  query?: Record<string, string>;
  /** The exact body text; Content-Type is sent only when there is one. */
  body?: string;
  headers?: Record<string, string>;
  lane: Lane;
  /** Safe to repeat on time-out / network / 5xx. */
  idempotent: boolean;
  /**
   * Called once the rate slot is ours, right before each try leaves: false gives the request up
   * (SendCancelledError) without sending it. Lets a caller commit "sending" only when it really is.
   */
  beforeSend?: () => boolean;
}

export interface GatewayResponse {
  status: number;
  /** Parsed JSON, or undefined for an empty body. */
  data: unknown;
}

export interface TransportOptions {
  baseUrl: string;
  apiMajorVersion: number;
  timeoutMs: number;
  limiter: RateLimiter;
  logger: Logger;
  /** Extra attempts for idempotent calls (default 2). */
  idempotentRetries?: number;
  /** Base backoff between those attempts (default 250 ms, doubled each time). */
  retryBackoffMs?: number;
  /** Largest answer read, in bytes (default 1 MiB); a larger one is a 'bad-response' error, code ANSWER_TOO_LARGE. */
  maxResponseBytes?: number;
  /** What carries requests (default: axios' own HTTP). The simulation puts its gateway model here. */
  adapter?: AxiosAdapter;
}

/** Gateway answers are a payment, a page or a code list: kilobytes. A megabyte is already far past that. */
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * axios (with its HTTP, proxy and form-data code) is loaded at the first request, not with this module: the
 * CLI's profile and key commands build an app context, and with it this transport, but send nothing (issue 26).
 */
let axiosLoaded: Promise<typeof import('axios').default> | undefined;
const loadAxios = () => (axiosLoaded ??= import('axios').then((m) => m.default));

/**
 * Loads axios now. The simulation calls it before it installs its fake clock, so that no run ever waits on a
 * module load (real I/O) in the middle of its seeded order of events.
 */
export async function preloadHttp(): Promise<void> {
  await loadAxios();
}

export class GatewayTransport {
  private http: AxiosInstance | undefined;
  private readonly maxResponseBytes: number;

  constructor(private readonly options: TransportOptions) {
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    // Started here, awaited at the first request: a client made is a client about to send. A failure to
    // load is seen there, not here.
    loadAxios().catch(() => undefined);
  }

  /** This profile's axios instance, made at its first request. */
  private async httpClient(): Promise<AxiosInstance> {
    if (this.http) return this.http;
    const axios = await loadAxios();
    const options = this.options;
    this.http ??= axios.create({
      baseURL: options.baseUrl,
      timeout: options.timeoutMs,
      responseType: 'text',
      // Identity transforms: the request body string is sent untouched, the answer is parsed here.
      transformRequest: [(data: unknown) => data],
      transformResponse: [(data: unknown) => data],
      validateStatus: () => true,
      maxRedirects: 0,
      // A gateway (or something posing as one) cannot make the desk read an answer of any size.
      maxContentLength: this.maxResponseBytes,
      maxBodyLength: this.maxResponseBytes,
      // axios reads the proxy variables (HTTPS_PROXY, NO_PROXY, …) on every request; every request
      // goes to one base URL, so ask once. Without a proxy for it, say so and skip the per-request
      // look-up (about a fifth of axios' own time per request); with one, axios applies it as before.
      ...(getProxyForUrl(options.baseUrl) === '' ? { proxy: false as const } : {}),
      ...(options.adapter ? { adapter: options.adapter } : {}),
    });
    return this.http;
  }

  get limiter(): RateLimiter {
    return this.options.limiter;
  }

  async send(request: GatewayRequest, authorization?: string): Promise<GatewayResponse> {
    const maxIdempotentRetries = this.options.idempotentRetries ?? 2;
    let retried429 = false;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once(request, authorization);
      } catch (e) {
        if (e instanceof SendCancelledError) throw e;
        const error = e instanceof GatewayError ? e : errorFromTransport(e, request, this.options.timeoutMs);
        if (error.kind === 'rate-limited' && !retried429) {
          retried429 = true;
          this.options.limiter.rateLimited(error.details.retryAfterMs ?? 1000);
          this.options.logger.warn('gateway rate limited; waiting Retry-After', { operation: request.operation, retryAfterMs: error.details.retryAfterMs });
          continue;
        }
        const transient = error.kind === 'server' || error.kind === 'timeout' || error.kind === 'network';
        if (request.idempotent && transient && attempt < maxIdempotentRetries) {
          await sleep((this.options.retryBackoffMs ?? 250) * 2 ** attempt);
          continue;
        }
        throw error;
      }
    }
  }

  private async once(request: GatewayRequest, authorization?: string): Promise<GatewayResponse> {
    const headers: Record<string, string> = {
      Accept: 'application/json',
      'X-API-Version': String(this.options.apiMajorVersion),
      ...request.headers,
    };
    if (request.body !== undefined) headers['Content-Type'] = 'application/json';
    if (authorization) headers.Authorization = `Bearer ${authorization}`;

    // Ready before the slot is taken: loading axios (once) never holds one of the merchant's slots.
    const http = this.http ?? (await this.httpClient());
    // The limiter learns from how the request ended: an answer (a 429 told apart) or none at all.
    const done = await this.options.limiter.acquire(request.lane);
    let outcome: SlotOutcome = 'no-answer';
    let response: AxiosResponse<string>;
    try {
      if (request.beforeSend && !request.beforeSend()) throw new SendCancelledError(request.operation);
      const started = performance.now();
      try {
        response = await http.request<string>({
          method: request.method,
          url: withQuery(request.path, request.query),
          data: request.body,
          headers,
        });
      } catch (e) {
        const error = isAnswerTooLarge(e) ? answerTooLarge(request, this.maxResponseBytes) : errorFromTransport(e, request, this.options.timeoutMs);
        this.options.logger.warn('gateway request failed', { operation: request.operation, method: request.method, path: request.path, kind: error.kind, code: error.code });
        throw error;
      }
      outcome = response.status === 429 ? 'rate-limited' : 'answered';
      this.options.logger.info('gateway request', {
        operation: request.operation,
        method: request.method,
        path: request.path,
        status: response.status,
        ms: Math.round(performance.now() - started),
      });
    } finally {
      done(outcome);
    }

    const data = parseBody(response.data);
    if (response.status >= 200 && response.status < 300) {
      return { status: response.status, data: data.ok ? data.value : { unparsableBody: true } };
    }
    throw errorFromResponse(response.status, data.ok ? data.value : String(response.data ?? ''), response.headers as Record<string, unknown>, request);
  }
}

/** Query string with commas kept literal: the interface separates multiple values by commas. */
function withQuery(path: string, query: Record<string, string> | undefined): string {
  if (!query || Object.keys(query).length === 0) return path;
  const parts = Object.entries(query).map(([k, v]) => `${encodeURIComponent(k)}=${v.split(',').map(encodeURIComponent).join(',')}`);
  return `${path}?${parts.join('&')}`;
}

function parseBody(text: unknown): { ok: true; value: unknown } | { ok: false } {
  if (typeof text !== 'string' || text.trim() === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}
