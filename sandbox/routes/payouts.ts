// POST /payouts/{idPayout} and GET /payouts/{idPayout}.
import type { FastifyInstance } from 'fastify';
import { assertMoneyAllowed } from '../auth';
import { callerClaims, requestFacts, type RouteRules, type SandboxContext } from '../context';
import { SandboxError, parseOr400 } from '../errors';
import { PayoutCreateSchema } from '../schemas';
import { assertPaymentId, payoutCreatedView, payoutStatusView, resolveMoney, resolveOperator } from '../views';
import { finishCreate } from './create-flow';

const CREATE: RouteRules = { kind: 'api', body: 'json' };
const READ: RouteRules = { kind: 'api', body: 'none' };

type IdParams = { idPayout: string };

export function registerPayoutRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  app.post<{ Params: IdParams }>('/payouts/:idPayout', { config: CREATE }, async (request, reply) => {
    const idPayout = assertPaymentId(request.params.idPayout, 'idPayout');
    ctx.store.countCreateAttempt('payout', idPayout);
    const claims = callerClaims(request);
    const body = parseOr400(PayoutCreateSchema, requestFacts(request).json, 'payout request');
    const money = body.paymentRequested.money;
    const { amountMinor, currencyCode } = resolveMoney(ctx.config, money);
    const method = body.paymentMethod;
    resolveOperator(ctx.config, 'PAYOUT', method.paymentMethodCode, method.paymentOperatorCode, currencyCode);
    assertMoneyAllowed(claims.money, money);
    return finishCreate(ctx, reply, {
      exists: ctx.store.payouts.has(idPayout),
      what: `payout ${idPayout}`,
      store: () => {
        const record = ctx.lifecycle.acceptPayout({
          idPayout,
          merchantCode: claims.sub,
          amountMinor,
          currencyCode,
          paymentMethodCode: method.paymentMethodCode,
          paymentOperatorCode: method.paymentOperatorCode,
          account: method.account,
          emailAddress: method.emailAddress,
          callbackUrl: body.callbackUrl,
        });
        return payoutCreatedView(ctx.config, record);
      },
    });
  });

  app.get<{ Params: IdParams }>('/payouts/:idPayout', { config: READ }, async (request) => {
    const idPayout = assertPaymentId(request.params.idPayout, 'idPayout');
    const record = ctx.store.payouts.get(idPayout);
    // Another merchant's payout is reported as missing, never revealed.
    if (!record || record.merchantCode !== callerClaims(request).sub) {
      throw new SandboxError('NOT_FOUND', `payout ${idPayout} does not exist`);
    }
    return payoutStatusView(ctx.config, record, ctx.config.isTest);
  });
}
