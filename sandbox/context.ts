// What every stage and route of the sandbox works with, plus the per-request facts the pipeline collects.
import type { FastifyRequest } from 'fastify';
import type { TokenClaims, TokenService } from './auth';
import type { CallbackDispatcher } from './callbacks';
import type { SandboxConfig } from './config';
import type { FaultController } from './faults';
import type { PaymentLifecycle } from './lifecycle';
import type { SlidingWindowLimiter } from './rate-limit';
import type { SandboxStore } from './store';
import type { TimerSet } from './timers';

export type SandboxContext = {
  config: SandboxConfig;
  store: SandboxStore;
  lifecycle: PaymentLifecycle;
  tokens: TokenService;
  limiter: SlidingWindowLimiter;
  faults: FaultController;
  timers: TimerSet;
  callbacks: CallbackDispatcher;
};

/** Route kinds decide which pipeline stages run: admin routes skip version, auth and rate limit. */
export type RouteKind = 'api' | 'token' | 'admin';

/** Declared on every route through Fastify's route `config`. */
export type RouteRules = {
  kind: RouteKind;
  /** 'json': a JSON body is expected; 'none': no body (an empty `{}` is tolerated); 'text': raw text (admin). */
  body: 'json' | 'none' | 'text';
  /** Query parameters the route understands; any other one is refused with 400. */
  query?: readonly string[];
};

export type RequestFacts = {
  claims?: TokenClaims;
  rawBody?: Buffer;
  json?: unknown;
};

const facts = new WeakMap<FastifyRequest, RequestFacts>();

export function requestFacts(request: FastifyRequest): RequestFacts {
  let entry = facts.get(request);
  if (!entry) {
    entry = {};
    facts.set(request, entry);
  }
  return entry;
}

/** Claims of the authenticated caller; the auth stage guarantees them on every 'api' route. */
export function callerClaims(request: FastifyRequest): TokenClaims {
  const claims = facts.get(request)?.claims;
  if (!claims) throw new Error('auth stage did not run for this route');
  return claims;
}

export function routeRules(request: FastifyRequest): RouteRules | undefined {
  const config = request.routeOptions.config as Partial<RouteRules> | undefined;
  return config?.kind ? (config as RouteRules) : undefined;
}
