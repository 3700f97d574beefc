// Sandbox-only routes under /_sandbox/: no auth, no version header, not rate limited. They exist for tests and
// demo mode and are documented in docs/gateway-notes.md. The real gateway has nothing like them.
import type { FastifyInstance } from 'fastify';
import { requestFacts, type RouteRules, type SandboxContext } from '../context';
import { SandboxError, parseOr400 } from '../errors';
import { FaultPatchSchema } from '../faults';
import { FundBodySchema, ReturnBodySchema } from '../schemas';
import { snapshotState } from '../state';
import { currencyOf, wireMoney } from '../views';
import { minorFromWire } from '../money';

const ADMIN_JSON: RouteRules = { kind: 'admin', body: 'json' };
const ADMIN_TEXT: RouteRules = { kind: 'admin', body: 'text' };
const ADMIN_NONE: RouteRules = { kind: 'admin', body: 'none' };

type CodeParams = { code: string };

function jsonBody(raw: Buffer | undefined): unknown {
  if (!raw || raw.length === 0) throw new SandboxError('VALIDATION_FAILED', 'a JSON body is required');
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw new SandboxError('INVALID_JSON', 'the request body is not valid JSON');
  }
}

export function registerAdminRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  app.get('/_sandbox/state', { config: ADMIN_NONE }, async () => snapshotState(ctx));

  app.post<{ Params: CodeParams }>('/_sandbox/merchants/:code/keys', { config: ADMIN_TEXT }, async (request, reply) => {
    const pem = requestFacts(request).rawBody?.toString('utf8') ?? '';
    if (!pem.includes('BEGIN PUBLIC KEY')) {
      throw new SandboxError('VALIDATION_FAILED', 'send the public key as PEM text (-----BEGIN PUBLIC KEY-----)');
    }
    const keyCount = ctx.store.registerPublicKey(request.params.code, pem);
    return reply.code(201).send({ merchantCode: request.params.code, keyCount });
  });

  app.post('/_sandbox/faults', { config: ADMIN_JSON }, async (request) => {
    const patch = parseOr400(FaultPatchSchema, jsonBody(requestFacts(request).rawBody), 'fault config');
    return { faults: ctx.faults.update(patch) };
  });

  app.post<{ Params: { id: string } }>('/_sandbox/payins/:id/pay', { config: ADMIN_NONE }, async (request) => {
    const record = ctx.lifecycle.markPayinPaid(request.params.id);
    return { idPayin: record.idPayin, status: record.status, failureReason: record.failureReason };
  });

  // The body is optional: the pipeline has parsed it when one was sent (json stays undefined otherwise).
  app.post<{ Params: { id: string } }>('/_sandbox/payouts/:id/return', { config: ADMIN_JSON }, async (request) => {
    const body = parseOr400(ReturnBodySchema, requestFacts(request).json ?? {}, 'return request');
    const record = ctx.lifecycle.returnPayout(request.params.id, body.reason);
    return { idPayout: record.idPayout, status: record.status, failureReason: record.failureReason };
  });

  app.post<{ Params: CodeParams }>('/_sandbox/merchants/:code/balances', { config: ADMIN_JSON }, async (request) => {
    const body = parseOr400(FundBodySchema, jsonBody(requestFacts(request).rawBody), 'funding');
    const currency = currencyOf(ctx.config, body.currencyCode);
    const magnitude = minorFromWire(Math.abs(body.amount), currency.decimals, currency.code);
    const balance = ctx.store.fund(request.params.code, currency.code, body.amount < 0 ? -magnitude : magnitude);
    return {
      currencyCode: currency.code,
      available: wireMoney(ctx.config, balance.availableMinor, currency.code).amount,
      reserved: wireMoney(ctx.config, balance.reservedMinor, currency.code).amount,
    };
  });
}
