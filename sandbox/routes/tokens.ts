// POST /auth-tokens and POST /auth-tokens-by-action. The body is read as raw bytes so the signature is checked
// over exactly what the client signed.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { assertFreshTimestamp, assertMinified, authenticateTokenRequest, compileOperations, operationsForAction } from '../auth';
import { requestFacts, type RouteRules, type SandboxContext } from '../context';
import { SandboxError, parseOr400 } from '../errors';
import { takeRateSlot } from '../pipeline';
import { TokenByActionSchema, TokenByOperationsSchema } from '../schemas';
import { resolveMoney } from '../views';

const TOKEN_ROUTE: RouteRules = { kind: 'token', body: 'json' };

type TokenRequest = z.output<typeof TokenByActionSchema> | z.output<typeof TokenByOperationsSchema>;

/** Parse → minified check → schema → merchant → credentials → timestamp → rate limit → limits. */
function readTokenRequest<T extends typeof TokenByActionSchema | typeof TokenByOperationsSchema>(
  ctx: SandboxContext,
  request: FastifyRequest,
  schema: T,
): z.output<T> {
  const facts = requestFacts(request);
  if (!facts.rawBody || facts.rawBody.length === 0) {
    throw new SandboxError('VALIDATION_FAILED', 'a JSON body is required');
  }
  assertMinified(facts.rawBody, facts.json);
  const body = parseOr400(schema, facts.json, 'token request') as z.output<T>;
  const merchant = ctx.store.merchant(body.merchantCode);
  if (!merchant) throw new SandboxError('UNKNOWN_MERCHANT', `merchant ${body.merchantCode} is not enrolled`);
  const signature = request.headers['x-signature'];
  authenticateTokenRequest(merchant, facts.rawBody, typeof signature === 'string' ? signature : undefined, body.secret);
  assertFreshTimestamp(body.timestamp, ctx.config.tokens.timestampSkewSecs);
  takeRateSlot(ctx, merchant.code);
  return body;
}

/** General tokens up to `maxValiditySecs`; tokens by action (one payment id) up to `maxActionValiditySecs`. */
function validityOf(ctx: SandboxContext, body: TokenRequest, byAction: boolean): number {
  const { defaultValiditySecs, maxValiditySecs, maxActionValiditySecs } = ctx.config.tokens;
  const validity = body.validitySecs ?? defaultValiditySecs;
  const max = byAction ? maxActionValiditySecs : maxValiditySecs;
  if (validity > max) {
    throw new SandboxError('VALIDATION_FAILED', `validitySecs may be at most ${max}${byAction ? ' for a token by action' : ''}`);
  }
  return validity;
}

export function registerTokenRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  app.post('/auth-tokens', { config: TOKEN_ROUTE }, async (request, reply) => {
    const body = readTokenRequest(ctx, request, TokenByOperationsSchema);
    compileOperations(body.operations);
    if (body.money) resolveMoney(ctx.config, body.money);
    const issued = await ctx.tokens.issue(
      { sub: body.merchantCode, ops: body.operations, money: body.money },
      validityOf(ctx, body, false),
    );
    return reply.code(200).send(issued);
  });

  app.post('/auth-tokens-by-action', { config: TOKEN_ROUTE }, async (request, reply) => {
    const body = readTokenRequest(ctx, request, TokenByActionSchema);
    if (body.money) resolveMoney(ctx.config, body.money);
    const issued = await ctx.tokens.issue(
      {
        sub: body.merchantCode,
        ops: operationsForAction(body.action, body.idPayment),
        act: body.action,
        idPayment: body.idPayment,
        money: body.money,
      },
      validityOf(ctx, body, true),
    );
    return reply.code(200).send(issued);
  });
}
