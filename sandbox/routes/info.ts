// Merchant info (GET and POST), balances, and the code lists.
import type { FastifyInstance } from 'fastify';
import { callerClaims, type RouteRules, type SandboxContext } from '../context';
import { SandboxError } from '../errors';
import { wireMoney } from '../views';

const READ: RouteRules = { kind: 'api', body: 'none' };
const BALANCES: RouteRules = { kind: 'api', body: 'none', query: ['currencies'] };

export function registerInfoRoutes(app: FastifyInstance, ctx: SandboxContext): void {
  const merchantInfo = async (request: Parameters<typeof callerClaims>[0]) => {
    const merchant = ctx.store.requireMerchant(callerClaims(request).sub);
    return { channelInfo: { name: merchant.channelName } };
  };
  // The interface's narrative says GET, its sample call sends POST: both are answered.
  app.get('/merchant-info', { config: READ }, merchantInfo);
  app.post('/merchant-info', { config: READ }, merchantInfo);

  app.get<{ Querystring: { currencies?: string | string[] } }>(
    '/balances',
    { config: BALANCES },
    async (request) => {
      const merchant = ctx.store.requireMerchant(callerClaims(request).sub);
      const raw = request.query.currencies;
      if (Array.isArray(raw)) {
        throw new SandboxError('VALIDATION_FAILED', 'send currencies once, as a comma-separated list');
      }
      const known = new Set(ctx.config.currencies.map((c) => c.code));
      // Unknown or malformed codes in the list are ignored, as the interface says for multi-value queries.
      const requested =
        raw === undefined || raw.trim() === ''
          ? [...known]
          : [...new Set(raw.split(',').map((code) => code.trim().toUpperCase()))].filter((code) => known.has(code));
      const data = requested.map((currencyCode) => {
        const balance = merchant.balances.get(currencyCode) ?? { availableMinor: 0, reservedMinor: 0 };
        return {
          currencyCode,
          available: wireMoney(ctx.config, balance.availableMinor, currencyCode).amount,
          reserved: wireMoney(ctx.config, balance.reservedMinor, currencyCode).amount,
        };
      });
      return { data };
    },
  );

  app.get('/currencies', { config: READ }, async () => ({
    data: ctx.config.currencies.map((c) => ({ code: c.code, name: c.name, decimals: c.decimals })),
  }));

  app.get('/payment-operators', { config: READ }, async () => ({
    data: ctx.config.paymentOperators.map((o) => ({
      code: o.code,
      name: o.name,
      paymentMethodCode: o.paymentMethodCode,
      currencyCodes: [...o.currencyCodes],
    })),
  }));
}
