// Payment links through the desk's IPC handlers against the sandbox, on a single desk's SQLite journal and on a team
// database: the desk issues a link (a fresh payin id and a PAYIN_CREATE token for exactly its money), the test acts
// as the customer with nothing but that token, and the desk then finds the payin the customer made and follows it
// to SUCCESS. A link nobody used is found expired once its token has run out. The token is never kept by the desk.
import { afterEach, beforeEach, describe, expect, inject, it, vi } from 'vitest';
import type { AuditEntryView, Page, PaymentDetail, PaymentLinkIssued, PaymentLinkView, PayinView } from '../../../contract/api';
import { startSandbox, type SandboxHandle } from '../../../sandbox/index';
import { sandboxConfig } from '../engine/setup';
import { freshDatabase } from './cluster';
import { openTeamAppDesk, type TeamAppDesk } from './team-app-desk';

let sandbox: SandboxHandle;
let desk: TeamAppDesk | undefined;

beforeEach(async () => {
  sandbox = await startSandbox(sandboxConfig({ timings: { payoutPendingMs: 50, payoutProcessingMs: 50, payinExpiryMs: 600_000 } }));
});
afterEach(async () => {
  vi.useRealTimers();
  await desk?.close();
  desk = undefined;
  await sandbox.close();
});

/**
 * The customer's side: plain HTTP to the gateway with the link's token and nothing else. Its calls count against the
 * merchant's rate limit with the desk's, so a 429 is waited out.
 */
async function asCustomer(token: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  for (;;) {
    const response = await fetch(`${sandbox.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'x-api-version': '2', accept: 'application/json', ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    if (response.status !== 429) return { status: response.status, body: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const payinRequest = (amount: number, currencyCode = 'EUR', operator = 'VAPAY_EU') => ({
  paymentRequested: { money: { amount, currencyCode } },
  paymentMethod: { paymentMethodCode: 'VAPAY', paymentOperatorCode: operator, account: { accountName: 'Carla Customer', accountNumber: 'NL91ABNA0417164300' }, emailAddress: 'carla@example.com' },
});
const errorCodeOf = (body: Record<string, unknown>) => (body['error'] as { code?: string } | undefined)?.code;
const stored = (idPayin: string) => sandbox.state().payins.some((p) => p.idPayin === idPayin);

describe.each(['sqlite', 'postgres'] as const)('payment links on %s', (backEnd) => {
  const open = async (name: string) => {
    desk = await openTeamAppDesk({ name: `${name}-${backEnd}`, teamUrl: backEnd === 'postgres' ? await freshDatabase(inject('postgresUrl')) : null, gatewayUrl: sandbox.url, senderOf: sandbox });
    return desk;
  };

  it('the customer creates and pays exactly the linked payin with the token alone; the desk sees it paid', async () => {
    const d = await open('links');
    const before = Date.now();
    const link = await d.call<PaymentLinkIssued>('payins:createLink', { amount: '25.00', currencyCode: 'EUR', validityHours: 2, reference: 'INV-77' });
    expect(link).toMatchObject({ money: { amount: '25.00', currencyCode: 'EUR' }, reference: 'INV-77', state: 'waiting', status: 'QUEUED', gatewayUrl: sandbox.url, apiMajorVersion: 2 });
    expect(link.token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const expiresIn = Date.parse(link.expiresAt) - before;
    expect(expiresIn).toBeGreaterThan(2 * 3_600_000 - 5_000);
    expect(expiresIn).toBeLessThan(2 * 3_600_000 + 5_000);
    const until = `${link.expiresAt.slice(0, 19).replace('T', ' ')} UTC`;
    for (const part of [link.idPayin, link.token, '25.00 EUR', 'INV-77', until, sandbox.url]) expect(link.shareText).toContain(part);
    // Nothing reached the gateway yet: the payin is the customer's to create.
    expect(stored(link.idPayin)).toBe(false);

    // The desk never sends a link's payin itself.
    const sendIt = await d.fails('payins:create', { idPayin: link.idPayin, amount: '25.00', currencyCode: 'EUR', paymentOperatorCode: 'VAPAY_EU', accountName: 'X', accountNumber: '1', emailAddress: 'x@example.com' });
    expect(sendIt.code).toBe('PAYMENT_LINK_ID');
    expect(stored(link.idPayin)).toBe(false);

    // The customer: options for the link's money only, then the payin for another amount, another id, and at last right.
    const options = await asCustomer(link.token, 'POST', '/payins/!availablePaymentOptions', { amount: 25, currencyCode: 'EUR' });
    expect(options.status).toBe(200);
    expect((await asCustomer(link.token, 'POST', '/payins/!availablePaymentOptions', { amount: 30, currencyCode: 'EUR' })).status).toBe(403);
    const wrongAmount = await asCustomer(link.token, 'POST', `/payins/${link.idPayin}`, payinRequest(26));
    expect([wrongAmount.status, errorCodeOf(wrongAmount.body)]).toEqual([403, 'MONEY_LIMIT_EXCEEDED']);
    const wrongCurrency = await asCustomer(link.token, 'POST', `/payins/${link.idPayin}`, payinRequest(25, 'USD', 'VAPAY_US'));
    expect(wrongCurrency.status).toBe(403);
    expect((await asCustomer(link.token, 'POST', '/payins/another-payin', payinRequest(25))).status).toBe(403);
    expect(stored(link.idPayin)).toBe(false);
    expect(stored('another-payin')).toBe(false);
    const created = await asCustomer(link.token, 'POST', `/payins/${link.idPayin}`, payinRequest(25));
    expect(created.status).toBe(201);
    expect((await asCustomer(link.token, 'GET', `/payins/${link.idPayin}`)).status).toBe(200);

    // The desk finds the payin the customer created when it lists its links, and follows it from there.
    const listed = await d.call<PaymentLinkView[]>('payins:links', {});
    expect(listed.map((l) => [l.idPayin, l.state, l.status])).toEqual([[link.idPayin, 'paying', 'PENDING']]);
    const history = await d.call<PaymentDetail>('history:timeline', { kind: 'payin', id: link.idPayin });
    expect(history.status).toBe('PENDING');
    sandbox.markPayinPaid(link.idPayin);
    const paid = await d.call<PayinView>('payins:get', { idPayin: link.idPayin });
    expect(paid).toMatchObject({ status: 'SUCCESS', final: true, requested: { amount: '25.00', currencyCode: 'EUR' } });
    expect((await d.call<PaymentLinkView[]>('payins:links', {}))[0]).toMatchObject({ idPayin: link.idPayin, state: 'paid', status: 'SUCCESS' });

    // Audited without the token; the token is nowhere in what the desk keeps.
    const audit = await d.call<Page<AuditEntryView>>('audit:list', { limit: 100 });
    const issuedEntry = audit.items.find((e) => e.action === 'payment-link.created');
    expect(issuedEntry).toMatchObject({ subject: link.idPayin, details: { amount: '25.00', currencyCode: 'EUR', expiresAt: link.expiresAt, validityHours: 2 } });
    const kept = JSON.stringify([audit, await d.call('history:timeline', { kind: 'payin', id: link.idPayin }), await d.call('history:query', { filters: { kinds: ['payin'] } })]);
    expect(kept).not.toContain(link.token);
    expect(kept).not.toContain(link.token.split('.')[2]);
  });

  it('a link nobody used is expired once its token has run out, and cannot be used any more', async () => {
    // One clock for the desk, the gateway and the token, running at real speed, that the test can move on.
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    const d = await open('expiry');
    const link = await d.call<PaymentLinkIssued>('payins:createLink', { amount: '9.99', currencyCode: 'EUR', validityHours: 1 });
    expect((await d.call<PaymentLinkView[]>('payins:links', {})).map((l) => l.state)).toEqual(['waiting']);

    // Two hours later (the desk, the gateway and the token's clock alike): the token is refused, the desk finds no
    // payin under the id and closes the link.
    vi.setSystemTime(Date.now() + 2 * 3_600_000);
    const late = await asCustomer(link.token, 'POST', `/payins/${link.idPayin}`, payinRequest(9.99));
    expect([late.status, errorCodeOf(late.body)]).toEqual([401, 'TOKEN_EXPIRED']);
    const listed = await d.call<PaymentLinkView[]>('payins:links', {});
    expect(listed.map((l) => [l.idPayin, l.state, l.status])).toEqual([[link.idPayin, 'expired', 'CANCELLED']]);
    expect(stored(link.idPayin)).toBe(false);
    const audit = await d.call<Page<AuditEntryView>>('audit:list', { limit: 100 });
    expect(audit.items.map((e) => e.action)).toContain('payment-link.expired');
  });

  it('refuses a link the currency cannot carry and stores nothing', async () => {
    const d = await open('refusals');
    expect((await d.fails('payins:createLink', { amount: '25.001', currencyCode: 'EUR' })).code).toBe('AMOUNT_PRECISION');
    expect((await d.fails('payins:createLink', { amount: '25.00', currencyCode: 'XXX' })).code).toBe('CURRENCY_UNKNOWN');
    expect((await d.fails('payins:createLink', { amount: '0', currencyCode: 'EUR' })).code).toBe('INVALID_ARGUMENT');
    expect((await d.fails('payins:createLink', { amount: '5.00', currencyCode: 'EUR', validityHours: 721 })).code).toBe('INVALID_ARGUMENT');
    expect(await d.call<PaymentLinkView[]>('payins:links', {})).toEqual([]);
    const audit = await d.call<Page<AuditEntryView>>('audit:list', { limit: 100 });
    expect(audit.items.map((e) => e.action)).not.toContain('payment-link.created');
  });
});
