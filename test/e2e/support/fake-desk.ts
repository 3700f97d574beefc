// An in-memory stand-in for the main-process services, used ONLY to look at screens while the real
// services are unavailable (and to show an error state on purpose). The journeys run against the real
// services through desk-bridge.ts; nothing here is asserted as gateway behaviour.
import { randomUUID } from 'node:crypto';
import { IPC_CHANNELS, type Channel, type HistoryRow, type IpcHandlerMap, type PaymentDetail, type ProfileView, type Result } from '../../../contract/api';

type Handler = (args: unknown) => Promise<Result<unknown>>;
const ok = <T>(data: T): Promise<Result<T>> => Promise.resolve({ ok: true, data });

export function createFakeDesk(options: { historyRows?: number } = {}): IpcHandlerMap {
  const now = new Date().toISOString();
  let profile: ProfileView | null = null;
  // A few payouts in each state that waits for a person or for the desk, so the screens show them too.
  const waiting = ['HELD', 'UNKNOWN', 'MISSING', 'DISCARDED'] as const;
  const rows: HistoryRow[] = Array.from({ length: options.historyRows ?? 0 }, (_, i) => {
    const kind: HistoryRow['kind'] = i % 7 === 0 ? 'payin' : 'payout';
    const special = kind === 'payout' && i % 5 === 3 ? waiting[Math.floor(i / 5) % waiting.length] : undefined;
    const status = special ?? (i % 11 === 0 ? 'FAILED' : 'SUCCESS');
    return { kind, i, status, localState: special ?? 'ACCEPTED', final: special === undefined || special === 'DISCARDED' };
  }).map(({ kind, i, status, localState, final }) => ({
    kind,
    id: `fake-${i}`,
    status,
    localState,
    final,
    money: { amount: `${(i % 900) + 10}.${String(i % 100).padStart(2, '0')}`, currencyCode: i % 3 === 0 ? 'USD' : 'EUR' },
    fee: null,
    accountName: `Beneficiary ${i}`,
    accountNumber: `DE${String(i).padStart(10, '0')}`,
    emailAddress: `b${i}@example.com`,
    batchId: null,
    isTest: true,
    createdAt: new Date(Date.now() - i * 60_000).toISOString(),
    updatedAt: now,
  }) satisfies HistoryRow);
  const demo = (): ProfileView => ({
    id: 'demo',
    name: 'Demo',
    baseUrl: 'http://127.0.0.1:0',
    merchantCode: 'DEMO-MERCHANT',
    environment: 'TEST',
    isDemo: true,
    apiMajorVersion: 2,
    activeKeyId: 'k1',
    useDeprecatedSecret: false,
    hasSecret: false,
    settings: {
      rateLimitPerSec: 10,
      pollIntervalSecs: 5,
      finalStatuses: ['SUCCESS', 'FAILED'],
      tokenValiditySecs: 300,
      timestampUnit: 'ms',
      accountDataPath: '/payins/{idPayin}/account-data',
      maxAmountMinor: null,
    repeatWindowDays: 30,
      timeZone: '',
      zoneInUse: 'UTC',
      lateReleaseWindowMinutes: 360,
      callback: { enabled: false, host: '127.0.0.1', port: 0, url: null },
      callbackListener: { state: 'off', boundTo: null, announcedUrl: null, message: null },
    },
  });
  const reasons: Record<string, string> = {
    HELD: 'Held, not sent: the gateway refused the credentials (HTTP 401). Release it after the fix, or discard it.',
    UNKNOWN: 'Outcome unknown — checking with the gateway (connection reset). It is never sent under a new id while unknown.',
    MISSING: 'The gateway accepted it and now says it does not know it. Ask the gateway; the desk keeps checking.',
  };
  const detail = (row: HistoryRow): PaymentDetail => ({
    ...row,
    paymentOperatorCode: 'EU_SEPA',
    failureReason: row.status === 'FAILED' ? 'Account closed' : null,
    processedAt: now,
    reason: reasons[row.localState] ?? null,
    intentId: `intent-${row.id}`,
    attempts: [{ idPayout: row.id, status: row.status, localState: row.localState, createdAt: row.createdAt }],
    retryOf: null,
    retriedAs: null,
    events: [{ status: row.status, source: 'poll', observedAt: now }],
    raw: { process: { status: row.status } },
  });
  /** Release or discard of a held fake payout: it leaves HELD; anything else is refused as main refuses it. */
  const settleHeld = (a: Record<string, unknown>, localState: string, status: string): Promise<Result<unknown>> => {
    const i = rows.findIndex((r) => r.id === a['idPayout']);
    const row = rows[i];
    if (!row || row.localState !== 'HELD') {
      return Promise.resolve({ ok: false, error: { code: 'BAD_STATE', message: `payout ${String(a['idPayout'])} is not held`, retryable: false } });
    }
    const next: HistoryRow = { ...row, localState, status, final: localState === 'DISCARDED', updatedAt: new Date().toISOString() };
    rows.splice(i, 1, next);
    return ok(detail(next));
  };
  const impl: Partial<Record<Channel, (args: Record<string, unknown>) => Promise<Result<unknown>>>> = {
    'profiles:list': () => ok({ profiles: profile ? [profile] : [], activeProfileId: profile?.id ?? null }),
    'profiles:createDemo': () => ok((profile = demo())),
    'profiles:testConnection': () => ok({ channelName: 'Demo Store', environment: 'TEST', tokenClaims: {}, checkedAt: now }),
    'app:info': () => ok({ name: 'Payout Desk', version: '0.0.0', platform: 'linux', dataFolder: '/tmp', demoAvailable: true }),
    'app:connectionState': () =>
      ok({ status: profile ? 'online' : 'no-profile', profileId: profile?.id ?? null, environment: 'TEST', channelName: profile ? 'Demo Store' : null, since: now, lastError: null, queued: 0, teamDatabase: null }),
    'app:rateBudget': () => ok({ inWindow: 2, limit: 10, queued: { token: 0, create: 0, status: 0, list: 0 }, pausedForMs: 0 }),
    'keys:list': () =>
      ok([{ id: 'k1', profileId: 'demo', status: 'active', source: 'generated', algorithm: 'RSA', modulusBits: 2048, fingerprint: 'ab:cd:ef', publicKeyPem: '-----BEGIN PUBLIC KEY-----\nMIIB…\n-----END PUBLIC KEY-----', createdAt: now, retiredAt: null }]),
    'payouts:currencies': () => ok([{ code: 'EUR', name: 'Euro', decimals: 2 }, { code: 'USD', name: 'US Dollar', decimals: 2 }]),
    'payouts:operators': () => ok([{ code: 'EU_SEPA', name: 'SEPA', paymentMethodCode: 'BANK_TRANSFER', currencyCodes: ['EUR'] }]),
    'balances:get': () =>
      ok([{ currencyCode: 'EUR', available: { amount: '100000.00', currencyCode: 'EUR' }, reserved: { amount: '0.00', currencyCode: 'EUR' }, pendingOutgoing: { amount: '0.00', currencyCode: 'EUR' }, observedAt: now }]),
    'balances:series': () => ok([{ at: now, available: { amount: '100000.00', currencyCode: 'EUR' }, reserved: { amount: '0', currencyCode: 'EUR' } }]),
    'history:query': (a) => {
      const offset = Number(a['offset'] ?? 0);
      const limit = Number(a['limit'] ?? 100);
      return ok({ items: rows.slice(offset, offset + limit), total: rows.length, offset, limit });
    },
    'history:timeline': (a) => {
      const row = rows.find((r) => r.id === a['id']);
      return row ? ok(detail(row)) : Promise.resolve({ ok: false, error: { code: 'NOT_FOUND', message: 'unknown', retryable: false } });
    },
    'payouts:release': (a) => settleHeld(a, 'ACCEPTED', 'PENDING'),
    'payouts:discard': (a) => settleHeld(a, 'DISCARDED', 'DISCARDED'),
    'batches:list': () => ok({ items: [], total: 0, offset: 0, limit: 200 }),
    'audit:list': () => ok({ items: [], total: 0, offset: 0, limit: 500 }),
    'audit:verify': () => ok({ ok: true, checked: 0, firstBrokenSeq: null, message: 'Chain intact', approvals: { checked: 0, bad: [] }, policies: { checked: 0, bad: [] } }),
    'payins:options': () => ok([{ paymentMethodCode: 'VAPAY', operators: [{ code: 'VA_BANK', name: 'VA Bank' }] }]),
  };
  const handlers: Partial<Record<Channel, Handler>> = {};
  for (const channel of IPC_CHANNELS) {
    const fn = impl[channel];
    handlers[channel] = fn
      ? (args: unknown) => fn((args ?? {}) as Record<string, unknown>)
      : () => Promise.resolve({ ok: false, error: { code: 'NOT_AVAILABLE', message: `${channel} is not in the fake desk (${randomUUID().slice(0, 4)})`, retryable: false } });
  }
  return handlers as IpcHandlerMap;
}
