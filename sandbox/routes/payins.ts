// Payins: payment options, create, status, customer account data.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { assertMoneyAllowed } from '../auth';
import { callerClaims, requestFacts, type RouteRules, type SandboxContext } from '../context';
import { SandboxError, parseOr400 } from '../errors';
import { MoneySchema, PayinCreateSchema } from '../schemas';
import type { PayinRecord } from '../store';
import {
  accountDataView,
  assertPaymentId,
  payinCreatedView,
  payinStatusView,
  resolveMoney,
  resolveOperator,
} from '../views';
import { finishCreate } from './create-flow';

const WITH_BODY: RouteRules = { kind: 'api', body: 'json' };
const READ: RouteRules = { kind: 'api', body: 'none' };

type IdParams = { idPayin: string };

export function registerPayinRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  const ownPayin = (request: FastifyRequest<{ Params: IdParams }>): PayinRecord => {
    const idPayin = assertPaymentId(request.params.idPayin, 'idPayin');
    const record = ctx.store.payins.get(idPayin);
    if (!record || record.merchantCode !== callerClaims(request).sub) {
      throw new SandboxError('NOT_FOUND', `payin ${idPayin} does not exist`);
    }
    return record;
  };

  app.post('/payins/!availablePaymentOptions', { config: WITH_BODY }, async (request) => {
    const money = parseOr400(MoneySchema, requestFacts(request).json, 'money');
    const { currencyCode } = resolveMoney(ctx.config, money);
    assertMoneyAllowed(callerClaims(request).money, money);
    const data = ctx.config.paymentMethods
      .filter((method) => method.direction === 'PAYIN')
      .map((method) => ({
        paymentMethodCode: method.code,
        paymentOperators: ctx.config.paymentOperators
          .filter((o) => o.paymentMethodCode === method.code && o.currencyCodes.includes(currencyCode))
          .map((o) => ({ code: o.code, name: o.name })),
      }))
      .filter((option) => option.paymentOperators.length > 0);
    return { data };
  });

  app.post<{ Params: IdParams }>('/payins/:idPayin', { config: WITH_BODY }, async (request, reply) => {
    const idPayin = assertPaymentId(request.params.idPayin, 'idPayin');
    ctx.store.countCreateAttempt('payin', idPayin);
    const claims = callerClaims(request);
    const body = parseOr400(PayinCreateSchema, requestFacts(request).json, 'payin request');
    const money = body.paymentRequested.money;
    const { amountMinor, currencyCode } = resolveMoney(ctx.config, money);
    const method = body.paymentMethod;
    const operator = resolveOperator(
      ctx.config,
      'PAYIN',
      method.paymentMethodCode,
      method.paymentOperatorCode,
      currencyCode,
    );
    assertMoneyAllowed(claims.money, money);
    return finishCreate(ctx, reply, {
      exists: ctx.store.payins.has(idPayin),
      what: `payin ${idPayin}`,
      store: () => {
        const record = ctx.lifecycle.acceptPayin(
          {
            idPayin,
            merchantCode: claims.sub,
            amountMinor,
            currencyCode,
            paymentMethodCode: method.paymentMethodCode,
            paymentOperatorCode: method.paymentOperatorCode,
            customerAccount: method.account,
            emailAddress: method.emailAddress,
            callbackUrl: body.callbackUrl,
            returnUrl: body.returnUrl,
          },
          operator,
        );
        return payinCreatedView(ctx.config, record);
      },
    });
  });

  app.get<{ Params: IdParams }>('/payins/:idPayin', { config: READ }, async (request) =>
    payinStatusView(ctx.config, ownPayin(request), ctx.config.isTest),
  );

  app.get<{ Params: IdParams }>('/payins/:idPayin/account-data', { config: READ }, async (request) =>
    accountDataView(ownPayin(request)),
  );
}
