// The gateway client: one typed function per endpoint of the interface. Requests carry exact
// amounts (minor units → JSON number literal by currency decimals); answers are read tolerantly
// and converted back to minor units. Authorization is refreshed once on 401.
import type { AxiosAdapter } from 'axios';
import type { JWTPayload } from 'jose';
import type { z } from 'zod';
import { currencyDecimals } from '../domain/currencies';
import { isValidPaymentId } from '../domain/ids';
import { MoneyError, minorFromGatewayNumber } from '../domain/money';
import { silentLogger, type Logger } from '../log';
import type { Profile } from '../profiles/profile-schema';
import { badResponse } from './error-mapping';
import { GatewayError, isGatewayError } from './errors';
import { amountLiteral, minifiedJson, type JsonBodyValue } from './json-body';
import { assertSendableAmount, paymentRequestValue, payoutRequestBody } from './payment-body';
import type { Lane, RateLimiter } from './rate-limiter';
import * as R from './responses';
import { TokenManager, appOperations, type TokenCredentials } from './token-manager';
import { GatewayTransport, type GatewayRequest, type GatewayResponse } from './transport';

export type * from './responses';

export interface GatewayClientDeps {
  profile: Profile;
  credentials: () => Promise<TokenCredentials>;
  limiter: RateLimiter;
  logger?: Logger;
  timeoutMs?: number;
  retryBackoffMs?: number;
  /** Operations the general token asks for; default: everything this app does (appOperations). */
  tokenOperations?: string[];
  /** What carries the requests; default axios' HTTP (see TransportOptions.adapter). */
  adapter?: AxiosAdapter;
  /** Largest answer read (default DEFAULT_MAX_RESPONSE_BYTES, 1 MiB). */
  maxResponseBytes?: number;
}

export interface PayinTokenRequest {
  action: 'PAYIN_CREATE' | 'PAYIN_INFO';
  idPayin: string;
  validitySecs: number;
  money?: R.MoneyMinor;
}

/** A token limited to one payin: the one token that may be shown to a user (the interface allows it). */
export interface PayinToken {
  token: string;
  expiresAt: string;
  claims: JWTPayload;
}

type Call = Omit<GatewayRequest, 'body'> & {
  body?: JsonBodyValue;
  /** A body its own builder already wrote (payoutRequestBody), sent as is. */
  bodyText?: string;
};

const CURRENCY_CACHE_MS = 60 * 60_000;
const CURRENCY_RETRY_MS = 60_000;

export class GatewayClient {
  readonly profile: Profile;
  private readonly transport: GatewayTransport;
  private readonly tokens: TokenManager;
  private readonly logger: Logger;
  private decimalsCache: { map: ReadonlyMap<string, number>; until: number } | undefined;
  private decimalsLoading: Promise<ReadonlyMap<string, number>> | undefined;

  constructor(deps: GatewayClientDeps) {
    this.profile = deps.profile;
    this.logger = deps.logger ?? silentLogger;
    this.transport = new GatewayTransport({
      baseUrl: deps.profile.baseUrl,
      apiMajorVersion: deps.profile.apiMajorVersion,
      timeoutMs: deps.timeoutMs ?? 15_000,
      limiter: deps.limiter,
      logger: this.logger,
      ...(deps.retryBackoffMs !== undefined ? { retryBackoffMs: deps.retryBackoffMs } : {}),
      ...(deps.adapter ? { adapter: deps.adapter } : {}),
      ...(deps.maxResponseBytes !== undefined ? { maxResponseBytes: deps.maxResponseBytes } : {}),
    });
    this.tokens = new TokenManager({
      merchantCode: deps.profile.merchantCode,
      timestampUnit: deps.profile.timestampUnit,
      validitySecs: deps.profile.tokenValiditySecs,
      operations: deps.tokenOperations ?? appOperations(deps.profile.accountDataPath),
      credentials: deps.credentials,
      send: (request) => this.transport.send(request),
      logger: this.logger,
    });
  }

  get limiter(): RateLimiter {
    return this.transport.limiter;
  }

  // ---- payouts -------------------------------------------------------------------------------

  /** `beforeSend`: see GatewayRequest; a false answer ends the call with SendCancelledError, nothing sent. */
  async createPayout(idPayout: string, p: R.PayoutRequest, options: { beforeSend?: () => boolean } = {}): Promise<R.PayoutCreated> {
    const path = `/payouts/${this.checkedId(idPayout, 'idPayout')}`;
    assertSendableAmount(p.amountMinor); // refused before anything is fetched
    const bodyText = payoutRequestBody(p, await this.decimals(p.currencyCode));
    const res = await this.call({ method: 'POST', path, bodyText, lane: 'create', idempotent: false, operation: 'createPayout', idRoute: false, ...options });
    const data = this.read(R.responseSchemas().PayoutCreatedSchema, res, 'createPayout');
    const money = await this.money(data.paymentRequested?.money, 'createPayout', res.status);
    return { idPayout: data.paymentMethodResponse.idPayout, ...money, paymentMethodCode: data.paymentMethodResponse.paymentMethodCode, raw: res.data };
  }

  async getPayout(idPayout: string, lane: Lane = 'status'): Promise<R.PayoutStatus> {
    const path = `/payouts/${this.checkedId(idPayout, 'idPayout')}`;
    const res = await this.call({ method: 'GET', path, lane, idempotent: true, operation: 'getPayout', idRoute: true });
    const data = this.read(R.responseSchemas().PayoutStatusSchema, res, 'getPayout');
    const answeredId = data.paymentMethodResponse?.idPayout;
    if (answeredId !== undefined && answeredId !== idPayout) {
      throw badResponse({ operation: 'getPayout', idRoute: true }, res.status, `asked for ${idPayout}, the answer is about ${answeredId}`);
    }
    const money = await this.money(data.paymentRequested?.money, 'getPayout', res.status);
    const fee = await this.money(data.fee, 'getPayout', res.status);
    return {
      idPayout,
      status: data.process.status,
      ...money,
      ...(fee.amountMinor !== undefined ? { feeMinor: fee.amountMinor, feeCurrencyCode: fee.currencyCode } : {}),
      createdAt: data.process.createdAt,
      processedAt: data.process.processedAt,
      isTest: data.process.isTest,
      failureReason: data.process.failureReason,
      raw: res.data,
    };
  }

  // ---- payins --------------------------------------------------------------------------------

  async paymentOptions(money: R.MoneyMinor): Promise<R.PaymentOption[]> {
    const body = { amount: amountLiteral(money.amountMinor, await this.decimals(money.currencyCode)), currencyCode: money.currencyCode };
    const res = await this.call({ method: 'POST', path: '/payins/!availablePaymentOptions', body, lane: 'list', idempotent: true, operation: 'paymentOptions', idRoute: false });
    const data = this.read(R.responseSchemas().PaymentOptionsSchema, res, 'paymentOptions');
    return data.data.map((o) => ({ paymentMethodCode: o.paymentMethodCode, operators: o.paymentOperators.map((op) => ({ code: op.code, name: op.name })) }));
  }

  async createPayin(idPayin: string, p: R.PayinRequest): Promise<R.PayinCreated> {
    const path = `/payins/${this.checkedId(idPayin, 'idPayin')}`;
    assertSendableAmount(p.amountMinor); // refused before anything is fetched
    const body = { ...paymentRequestValue(p, await this.decimals(p.currencyCode)), returnUrl: p.returnUrl };
    const res = await this.call({ method: 'POST', path, body, lane: 'create', idempotent: false, operation: 'createPayin', idRoute: false });
    const data = this.read(R.responseSchemas().PayinCreatedSchema, res, 'createPayin');
    return { ...(await this.payinFields(data, res.status, 'createPayin')), idPayin: data.paymentMethodResponse.idPayin, raw: res.data };
  }

  async getPayin(idPayin: string, lane: Lane = 'status'): Promise<R.PayinStatus> {
    const path = `/payins/${this.checkedId(idPayin, 'idPayin')}`;
    const res = await this.call({ method: 'GET', path, lane, idempotent: true, operation: 'getPayin', idRoute: true });
    const data = this.read(R.responseSchemas().PayinStatusSchema, res, 'getPayin');
    const fee = await this.money(data.fee, 'getPayin', res.status);
    return {
      ...(await this.payinFields(data, res.status, 'getPayin')),
      idPayin,
      status: data.process?.status,
      createdAt: data.process?.createdAt,
      processedAt: data.process?.processedAt,
      isTest: data.process?.isTest,
      failureReason: data.process?.failureReason,
      ...(fee.amountMinor !== undefined ? { feeMinor: fee.amountMinor, feeCurrencyCode: fee.currencyCode } : {}),
      raw: res.data,
    };
  }

  async getPayinAccountData(idPayin: string): Promise<R.PayinAccountData> {
    const path = this.profile.accountDataPath.replace('{idPayin}', this.checkedId(idPayin, 'idPayin'));
    const res = await this.call({ method: 'GET', path, lane: 'status', idempotent: true, operation: 'getPayinAccountData', idRoute: true });
    const data = this.read(R.responseSchemas().AccountDataSchema, res, 'getPayinAccountData');
    return { request: data.request ?? null, process: data.process ?? null, raw: res.data };
  }

  /** A token limited to one payin, for handing to client-side code on an explicit user action. */
  async createPayinToken(req: PayinTokenRequest): Promise<PayinToken> {
    this.checkedId(req.idPayin, 'idPayin');
    const money = req.money
      ? { amount: amountLiteral(req.money.amountMinor, await this.decimals(req.money.currencyCode)), currencyCode: req.money.currencyCode }
      : undefined;
    const issued = await this.tokens.byAction({ action: req.action, idPayment: req.idPayin, validitySecs: req.validitySecs, money });
    return { token: issued.token, expiresAt: new Date(issued.expiresAtMs).toISOString(), claims: issued.claims };
  }

  // ---- merchant, balances, code lists ----------------------------------------------------------

  /** GET /merchant-info; the interface's sample uses POST, so a 405 falls back to POST. */
  async merchantInfo(): Promise<R.MerchantInfo> {
    let res: GatewayResponse;
    try {
      res = await this.call({ method: 'GET', path: '/merchant-info', lane: 'list', idempotent: true, operation: 'merchantInfo', idRoute: false });
    } catch (e) {
      if (!isGatewayError(e) || e.status !== 405) throw e;
      res = await this.call({ method: 'POST', path: '/merchant-info', lane: 'list', idempotent: true, operation: 'merchantInfo', idRoute: false });
    }
    const data = this.read(R.responseSchemas().MerchantInfoSchema, res, 'merchantInfo');
    return { channelName: data.channelInfo.name, raw: res.data };
  }

  async balances(currencyCodes: string[]): Promise<R.Balance[]> {
    const query = currencyCodes.length > 0 ? { currencies: currencyCodes.join(',') } : undefined;
    const res = await this.call({ method: 'GET', path: '/balances', ...(query ? { query } : {}), lane: 'list', idempotent: true, operation: 'balances', idRoute: false });
    const data = this.read(R.responseSchemas().BalancesSchema, res, 'balances');
    const out: R.Balance[] = [];
    for (const b of data.data) {
      const decimals = await this.decimals(b.currencyCode);
      const availableMinor = this.minor(b.available, decimals, 'balances', res.status);
      out.push({ currencyCode: b.currencyCode, availableMinor, ...(b.reserved !== undefined ? { reservedMinor: this.minor(b.reserved, decimals, 'balances', res.status) } : {}) });
    }
    return out;
  }

  async currencies(): Promise<R.CurrencyInfo[]> {
    const res = await this.call({ method: 'GET', path: '/currencies', lane: 'list', idempotent: true, operation: 'currencies', idRoute: false });
    const data = this.read(R.responseSchemas().CurrenciesSchema, res, 'currencies');
    const list = data.data.map((c) => ({ code: c.code, name: c.name, decimals: c.decimals ?? currencyDecimals(c.code) }));
    this.decimalsCache = { map: new Map(list.map((c) => [c.code, c.decimals])), until: Date.now() + CURRENCY_CACHE_MS };
    return list;
  }

  async paymentOperators(): Promise<R.PaymentOperator[]> {
    const res = await this.call({ method: 'GET', path: '/payment-operators', lane: 'list', idempotent: true, operation: 'paymentOperators', idRoute: false });
    return this.read(R.responseSchemas().OperatorsSchema, res, 'paymentOperators').data.map((o) => ({
      code: o.code,
      name: o.name,
      paymentMethodCode: o.paymentMethodCode,
      currencyCodes: o.currencyCodes,
    }));
  }

  /** Claims of the general token (fetching one if needed). The token itself never leaves the client. */
  async decodedTokenClaims(): Promise<JWTPayload> {
    return this.tokens.claims();
  }

  /** Decimals per currency as the gateway reports them (GET /currencies, cached), else ISO 4217. */
  async decimals(currencyCode: string): Promise<number> {
    return currencyDecimals(currencyCode, await this.decimalsMap());
  }

  // ---- internals -----------------------------------------------------------------------------

  private async decimalsMap(): Promise<ReadonlyMap<string, number>> {
    if (this.decimalsCache && Date.now() < this.decimalsCache.until) return this.decimalsCache.map;
    this.decimalsLoading ??= this.currencies()
      .then(() => this.decimalsCache?.map ?? new Map<string, number>())
      .catch((e: unknown) => {
        this.logger.warn('currency list unavailable; using ISO 4217 decimals', { error: e instanceof Error ? e.message : String(e) });
        const empty = new Map<string, number>();
        this.decimalsCache = { map: empty, until: Date.now() + CURRENCY_RETRY_MS };
        return empty;
      })
      .finally(() => {
        this.decimalsLoading = undefined;
      });
    return this.decimalsLoading;
  }

  /** Sends with the general token; on 401 gets a fresh token once, then gives a clear error. */
  private async call(call: Call): Promise<GatewayResponse> {
    const { body, bodyText, ...rest } = call;
    const request: GatewayRequest = { ...rest, body: bodyText ?? (body === undefined ? undefined : minifiedJson(body)) };
    const token = await this.tokens.token();
    try {
      return await this.transport.send(request, token);
    } catch (e) {
      if (!isGatewayError(e, 'unauthorized')) throw e;
      this.tokens.invalidate(token);
    }
    const fresh = await this.tokens.token();
    try {
      return await this.transport.send(request, fresh);
    } catch (e) {
      if (!isGatewayError(e, 'unauthorized')) throw e;
      throw new GatewayError('unauthorized', `${e.message}; a freshly issued token was refused too, so the merchant's credentials or token rights need checking`, e.details);
    }
  }

  private read<S extends z.ZodType>(schema: S, res: GatewayResponse, operation: string): z.output<S> {
    const parsed = schema.safeParse(res.data);
    if (!parsed.success) throw badResponse({ operation, idRoute: false }, res.status, R.describeSchemaProblem(parsed.error));
    return parsed.data;
  }

  private minor(value: number, decimals: number, operation: string, status: number): number {
    try {
      return minorFromGatewayNumber(value, decimals);
    } catch (e) {
      throw badResponse({ operation, idRoute: false }, status, e instanceof MoneyError ? e.message : `amount ${value} is not exact`);
    }
  }

  private async money(m: { amount: number; currencyCode: string } | undefined, operation: string, status: number): Promise<{ amountMinor?: number; currencyCode?: string }> {
    if (!m) return {};
    return { amountMinor: this.minor(m.amount, await this.decimals(m.currencyCode), operation, status), currencyCode: m.currencyCode };
  }

  private async payinFields(data: z.output<ReturnType<typeof R.responseSchemas>['PayinStatusSchema']>, status: number, operation: string): Promise<Omit<R.PayinCreated, 'idPayin' | 'raw'>> {
    const requested = await this.money(data.paymentRequested?.money, operation, status);
    const toPay = await this.money(data.paymentMethodResponse?.money, operation, status);
    const r = data.paymentMethodResponse;
    return {
      ...requested,
      ...(toPay.amountMinor !== undefined ? { amountToPayMinor: toPay.amountMinor } : {}),
      paymentMethodCode: r?.paymentMethodCode,
      account: r?.account ? { accountName: r.account.accountName, accountNumber: r.account.accountNumber, bankCode: r.account.bankCode, bankName: r.account.bankName } : undefined,
      expireAt: r?.expireAt,
      reference: r?.reference,
      returnUrl: r?.returnUrl,
    };
  }

  private checkedId(id: string, label: string): string {
    if (!isValidPaymentId(id)) {
      throw new GatewayError('validation', `${label} must be 1-64 characters of A-Z, a-z, 0-9, "_" or "-"`, { code: 'ID_FORMAT' });
    }
    return id;
  }
}
