// The request pipeline, stripe-mock style: each stage may end the request with the house error body.
//   1 version   X-API-Version must be "2" (every non-admin request, unknown routes included) → 404
//   2 latency   injected request-leg delay, then a stall's remaining time (faults)
//   3 auth      Bearer JWT → 401            (token routes authenticate later, from their signed body)
//   4 rate      per-merchant sliding window → 429 + Retry-After
//   5 routing   unknown route → 404; operation not in the token → 403
//   6 parse     raw bytes kept; > 1 MB → 413; not JSON → 400 / 415; unknown query parameter → 400
//   7 handler   validates the body with zod (400) and does the work
//   8 response  faults may add or reorder properties of successful JSON answers, then the answer-leg delay
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { assertOperationAllowed } from './auth';
import { requestFacts, routeRules, type SandboxContext } from './context';
import { SandboxError } from './errors';

export const SUPPORTED_API_VERSION = '2';
export const BODY_LIMIT_BYTES = 1_048_576;

function pathOf(request: FastifyRequest): string {
  const q = request.url.indexOf('?');
  return q === -1 ? request.url : request.url.slice(0, q);
}

export function rateLimitError(retryAfterMs: number): SandboxError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1_000));
  return new SandboxError(
    'RATE_LIMITED',
    'more requests than the rate limit allows in a 1000 ms window',
    { retryAfterMs },
    { 'retry-after': String(seconds), 'x-retry-after-ms': String(retryAfterMs) },
  );
}

/** Stage 4, shared with the token routes (which know the merchant only after reading the body). */
export function takeRateSlot(ctx: SandboxContext, merchantCode: string): void {
  const decision = ctx.limiter.take(merchantCode);
  if (!decision.allowed) {
    ctx.store.rateLimitedCount += 1;
    throw rateLimitError(decision.retryAfterMs);
  }
}

function isAdminPath(request: FastifyRequest): boolean {
  return pathOf(request).startsWith('/_sandbox/');
}

export function installPipeline(app: FastifyInstance, ctx: SandboxContext): void {
  // Stage 6 (parse): every body arrives as raw bytes; JSON is parsed in preValidation, where the route is known.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.addHook('onRequest', async (request) => {
    const rules = routeRules(request);
    if (rules?.kind === 'admin' || (!rules && isAdminPath(request))) {
      if (!rules) throw new SandboxError('ROUTE_NOT_FOUND', `no sandbox route ${request.method} ${pathOf(request)}`);
      return;
    }
    const version = request.headers['x-api-version'];
    if (version !== SUPPORTED_API_VERSION) {
      throw new SandboxError(
        'UNSUPPORTED_VERSION',
        version === undefined
          ? 'X-API-Version header is required (major version only, e.g. 2)'
          : `API version ${String(version)} is not supported; send X-API-Version: 2`,
      );
    }
    const latency = ctx.faults.latencyMs();
    if (latency > 0) await ctx.timers.sleep(latency);
    // A stall is measured when the request arrives (after its leg): it waits until the stall ends.
    const stall = ctx.faults.stallWaitMs();
    if (stall > 0) await ctx.timers.sleep(stall);
    if (rules?.kind === 'token') return;

    const { claims, patterns } = await ctx.tokens.verifyAuthorization(request.headers.authorization);
    if (!ctx.store.merchant(claims.sub)) throw new SandboxError('INVALID_TOKEN', 'the token names an unknown merchant');
    takeRateSlot(ctx, claims.sub);
    if (!rules) throw new SandboxError('ROUTE_NOT_FOUND', `no route ${request.method} ${pathOf(request)}`);
    assertOperationAllowed(patterns, request.method, pathOf(request));
    requestFacts(request).claims = claims;
  });

  app.addHook('preValidation', async (request) => {
    const rules = routeRules(request);
    if (!rules) return;
    const allowedQuery = rules.query ?? [];
    for (const key of Object.keys(request.query as Record<string, unknown>)) {
      if (!allowedQuery.includes(key)) {
        throw new SandboxError('UNKNOWN_QUERY_PARAMETER', `query parameter "${key}" is not supported here`);
      }
    }
    const raw = Buffer.isBuffer(request.body) ? request.body : undefined;
    const facts = requestFacts(request);
    facts.rawBody = raw;
    if (rules.body === 'text' || !raw || raw.length === 0) return;
    const contentType = String(request.headers['content-type'] ?? '').toLowerCase();
    if (!contentType.startsWith('application/json')) {
      throw new SandboxError('UNSUPPORTED_MEDIA_TYPE', 'request bodies must be sent as Content-Type: application/json');
    }
    let json: unknown;
    try {
      json = JSON.parse(raw.toString('utf8'));
    } catch {
      throw new SandboxError('INVALID_JSON', 'the request body is not valid JSON');
    }
    const isEmptyObject = typeof json === 'object' && json !== null && Object.keys(json).length === 0;
    if (rules.body === 'none' && !isEmptyObject) {
      throw new SandboxError('BODY_NOT_ALLOWED', `${request.method} ${pathOf(request)} takes no request body`);
    }
    facts.json = json;
  });

  app.addHook('preSerialization', async (request, reply, payload: unknown) => {
    const rules = routeRules(request);
    if (!rules || rules.kind === 'admin' || reply.statusCode >= 300) return payload;
    return ctx.faults.rewritesResponses() ? ctx.faults.rewrite(payload) : payload;
  });

  // The answer leg: every API answer (errors and 429s included) is delayed on its way back.
  app.addHook('onSend', async (request, _reply, payload: unknown) => {
    const rules = routeRules(request);
    if (rules?.kind === 'admin' || (!rules && isAdminPath(request))) return payload;
    const latency = ctx.faults.answerLatencyMs();
    if (latency > 0) await ctx.timers.sleep(latency);
    return payload;
  });

  app.setNotFoundHandler(async (request) => {
    throw new SandboxError('ROUTE_NOT_FOUND', `no route ${request.method} ${pathOf(request)}`);
  });

  app.setErrorHandler(async (error: FastifyError | SandboxError, _request, reply: FastifyReply) => {
    const sandboxError = error instanceof SandboxError ? error : fromFastifyError(error);
    reply.code(sandboxError.status).headers(sandboxError.headers);
    return sandboxError.body();
  });
}

function fromFastifyError(error: FastifyError): SandboxError {
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return new SandboxError('PAYLOAD_TOO_LARGE', `request bodies are limited to ${BODY_LIMIT_BYTES} bytes`);
  }
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new SandboxError('UNSUPPORTED_MEDIA_TYPE', 'request bodies must be sent as Content-Type: application/json');
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return new SandboxError('VALIDATION_FAILED', error.message);
  // A bug in the sandbox itself: say so on stderr instead of hiding it behind the 500.
  process.stderr.write(`sandbox internal error: ${error.stack ?? error.message}\n`);
  return new SandboxError('INTERNAL_ERROR', 'the sandbox failed to handle the request');
}
