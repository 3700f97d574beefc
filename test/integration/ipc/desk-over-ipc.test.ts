// The IPC handlers over the real services: profile store, key custody (in-memory key store), SQLite
// journal, engine, CSV importer and the sandbox started by demo mode on loopback. The same calls the
// renderer makes, through the same handler map main/ipc/register.ts registers.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArgsOf, BatchProgress, IpcHandlerMap, PaymentDetail } from '../../../contract/api';
import { createAppContext, type AppContext } from '../../../main/context';
import { DemoMode } from '../../../main/demo/demo-mode';
import { bindActiveProfile, createDeskServices } from '../../../main/desk';
import { createDeskEvents, type DeskEvents } from '../../../main/desk/events';
import { createIpcHandlers } from '../../../main/ipc/handlers';
import { createDeskRuntime, type DeskRuntime } from '../../../main/desk/runtime';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { createCapturingLogger } from '../../../main/log';
import { callerOf, until } from './ipc-helpers';

let home = '';
let ctx: AppContext;
let runtime: DeskRuntime;
let demo: DemoMode;
let events: DeskEvents;
let handlers: IpcHandlerMap;
const log = createCapturingLogger();

const call = callerOf(() => handlers);

const payout = (overrides: Partial<ArgsOf<'payouts:validate'>> = {}): ArgsOf<'payouts:validate'> => ({
  amount: '1250.50', currencyCode: 'EUR', accountName: 'Jane Doe', accountNumber: 'DE89370400440532013000',
  paymentOperatorCode: 'EU_SEPA', emailAddress: 'jane@example.com', ...overrides,
});

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'desk-ipc-'));
  ctx = createAppContext({ home, keyStore: new MemoryKeyStore(), logger: log });
  events = createDeskEvents();
  runtime = createDeskRuntime({ ctx, events, log });
  demo = new DemoMode({ ctx, log });
  handlers = createIpcHandlers(bindActiveProfile(createDeskServices(runtime, { name: 'Payout Desk', version: 'test', platform: process.platform, demoAvailable: true }, demo), ctx), { log });
});

afterAll(async () => {
  await runtime?.close();
  await demo?.close();
  ctx?.close();
  await rm(home, { recursive: true, force: true });
});

describe('the desk over IPC against the demo sandbox', () => {
  it('starts with no profile and says so', async () => {
    expect(await call('profiles:list')).toEqual({ profiles: [], activeProfileId: null });
    expect((await call('app:connectionState')).status).toBe('no-profile');
    const noProfile = await handlers['balances:get'](undefined);
    expect(noProfile).toMatchObject({ ok: false, error: { code: 'NO_PROFILE' } });
  });

  it('creates a TEST Demo profile in one call and connects to the sandbox', async () => {
    const profile = await call('profiles:createDemo');
    expect(profile).toMatchObject({ isDemo: true, environment: 'TEST', merchantCode: 'DEMO-MERCHANT' });
    expect(profile.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(profile.activeKeyId).not.toBeNull();
    expect((await call('profiles:list')).activeProfileId).toBe(profile.id);
    const test = await call('profiles:testConnection', {});
    expect(test.channelName).toBe('Demo Store');
    expect(JSON.stringify(test)).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\./);
    expect(await call('app:connectionState')).toMatchObject({ status: 'online', channelName: 'Demo Store', environment: 'TEST' });
  });

  it('lists currencies and operators from the gateway', async () => {
    expect(await call('payouts:currencies')).toEqual(expect.arrayContaining([{ code: 'KWD', name: 'Kuwaiti Dinar', decimals: 3 }]));
    const operators = await call('payouts:operators', { currencyCode: 'EUR' });
    expect(operators.map((o) => o.code)).toContain('EU_SEPA');
  });

  it('validates a payout field by field and previews the exact body', async () => {
    const bad = await call('payouts:validate', payout({ amount: '12.345', emailAddress: 'nope' }));
    expect(bad.valid).toBe(false);
    expect(bad.issues.map((i) => i.field).sort()).toEqual(['amount', 'emailAddress']);
    const good = await call('payouts:validate', payout());
    expect(good.valid).toBe(true);
    expect(good.preview?.requestBody).toContain('"amount":1250.5,"currencyCode":"EUR"');
    expect(good.preview?.money).toEqual({ amount: '1250.50', currencyCode: 'EUR' });
  });

  it('answers each validation with the currency\'s balance and what the payout would leave of it, exactly', async () => {
    const good = await call('payouts:validate', payout({ amount: '1250.50' }));
    const eur = (await call('balances:get')).find((b) => b.currencyCode === 'EUR');
    if (!good.balance || !eur) throw new Error('no EUR balance read');
    expect(good.balance.available).toEqual(eur.available);
    expect(good.balance.observedAt).toBe(eur.observedAt);
    const cents = (amount: string) => BigInt(amount.replace('.', ''));
    expect(cents(good.balance.afterThis!.amount)).toBe(cents(eur.available.amount) - 125050n);
    // An amount that is not valid yet: the balance, and nothing computed from it.
    const typing = await call('payouts:validate', payout({ amount: '12.' }));
    expect(typing.balance).toEqual({ ...good.balance, afterThis: null });
    // More than there is: "short by" is the negative remainder, and the funding rule refuses it.
    const tooMuch = (cents(eur.available.amount) + 1n).toString();
    const over = await call('payouts:validate', payout({ amount: `${tooMuch.slice(0, -2)}.${tooMuch.slice(-2)}` }));
    expect(over.issues.map((i) => i.code)).toContain('INSUFFICIENT_BALANCE');
    expect(over.balance?.afterThis).toEqual({ amount: '-0.01', currencyCode: 'EUR' });
    // A currency the desk has never read a balance of: none.
    expect((await call('payouts:validate', payout({ currencyCode: 'XTS' }))).balance).toBeNull();
  });

  it('sends one payout to SUCCESS, and a repeated create with the same id pays once', async () => {
    const preview = (await call('payouts:validate', payout())).preview;
    if (!preview) throw new Error('no preview');
    const args = { ...payout(), idPayout: preview.idPayout };
    const first = await call('payouts:create', args);
    const again = await call('payouts:create', args);
    expect(again.id).toBe(first.id);
    const final = await until(() => call('payouts:get', { idPayout: preview.idPayout }), (d: PaymentDetail) => d.final);
    expect(final).toMatchObject({ status: 'SUCCESS', money: { amount: '1250.50', currencyCode: 'EUR' } });
    expect(final.events.map((e) => e.status)).toEqual(expect.arrayContaining(['QUEUED', 'SUCCESS']));
    expect(demo.sandboxFor('demo')?.state().createAttempts.payouts[preview.idPayout]).toBe(1);
  });

  it('validates a CSV batch, submits it, reports progress and exports the results', async () => {
    const csv = [
      'idPayout,amount,currencyCode,accountName,accountNumber,paymentOperatorCode,emailAddress,Cost centre',
      'b-1,10.00,EUR,Ann,DE89370400440532013000,EU_SEPA,ann@example.com,CC-7',
      'b-2,20.00,EUR,Bob,12340000,EU_SEPA,bob@example.com,CC-8',
      'b-3,oops,EUR,Cid,DE89370400440532013000,EU_SEPA,cid@example.com,CC-9',
    ].join('\n');
    const bad = await call('batches:validateFile', { source: { kind: 'base64', fileName: 'june.csv', base64: Buffer.from(csv).toString('base64') } });
    expect(bad.counts).toMatchObject({ rows: 3, valid: 2, invalid: 1 });
    expect(bad.errors[0]).toMatchObject({ rowNumber: 4, column: 'amount' });
    await expect(handlers['batches:submit']({ validationId: bad.validationId, confirmedWarningRows: [] })).resolves.toMatchObject({ ok: false, error: { code: 'BATCH_HAS_ERRORS', message: '1 problem in the file must be fixed first; nothing was sent' } });

    const fixed = csv.replace('oops', '30.00');
    const checked = await call('batches:validateFile', { source: { kind: 'bytes', fileName: 'june.csv', bytes: new TextEncoder().encode(fixed) } });
    expect(checked.errors).toEqual([]);
    expect(checked.funding).toEqual([expect.objectContaining({ currencyCode: 'EUR', required: { amount: '60.00', currencyCode: 'EUR' }, shortfall: null })]);

    const progress: BatchProgress[] = [];
    const off = events.on('batchProgress', (p) => progress.push(p));
    const batch = await call('batches:submit', { validationId: checked.validationId, confirmedWarningRows: checked.warnings.map((w) => w.rowNumber) });
    // The same validation cannot be sent twice.
    await expect(handlers['batches:submit']({ validationId: checked.validationId, confirmedWarningRows: [] })).resolves.toMatchObject({ ok: false, error: { code: 'VALIDATION_EXPIRED' } });
    const done = await until(() => call('batches:get', { batchId: batch.id }), (b) => b.progress.done === 3);
    off();
    expect(done.progress).toMatchObject({ total: 3, done: 3, failed: 1 });
    expect(progress.length).toBeGreaterThan(0);
    const results = await call('batches:results', { batchId: batch.id });
    expect(results.find((r) => r.idPayout === 'b-2')).toMatchObject({ status: 'FAILED', failureReason: 'ACCOUNT_REJECTED' });
    const exported = await call('batches:exportResults', { batchId: batch.id });
    expect(exported.content).toContain('b-2');
    expect(exported.content).toContain('ACCOUNT_REJECTED');
    // After a restart (fresh services over the same journal) the file's own columns are still exported.
    const restarted = createIpcHandlers(bindActiveProfile(createDeskServices(runtime, { name: 'Payout Desk', version: 'test', platform: process.platform, demoAvailable: true }, demo), ctx), { log });
    const again = await restarted['batches:exportResults']({ batchId: batch.id });
    if (!again.ok) throw new Error(again.error.message);
    const [header, ...lines] = (again.data as { content: string }).content.replace(/^\uFEFF/, '').trim().split(/\r?\n/);
    expect(header?.split(',')).toContain('Cost centre');
    expect(lines.find((l) => l.startsWith('b-2,'))).toContain(',CC-8,');

    // A file sent once (ids generated by the desk) and dropped again: its file-level warning is row 0;
    // it must be confirmed, and then the file goes out again under new ids.
    const monthly = new TextEncoder().encode('amount,currencyCode,accountName,accountNumber,paymentOperatorCode,emailAddress\n5.00,EUR,Dee,DE89370400440532013000,EU_SEPA,dee@example.com\n');
    const first = await call('batches:validateFile', { source: { kind: 'bytes', fileName: 'monthly.csv', bytes: monthly } });
    await call('batches:submit', { validationId: first.validationId, confirmedWarningRows: first.warnings.map((w) => w.rowNumber) });
    const twice = await call('batches:validateFile', { source: { kind: 'bytes', fileName: 'monthly.csv', bytes: monthly } });
    expect(twice.warnings.map((w) => [w.rowNumber, w.code])).toContainEqual([0, 'FILE_ALREADY_SUBMITTED']);
    await expect(handlers['batches:submit']({ validationId: twice.validationId, confirmedWarningRows: [] })).resolves.toMatchObject({ ok: false, error: { code: 'WARNINGS_NOT_CONFIRMED', message: expect.stringMatching(/^1 warning needs a confirmation \(row 0\)/) } });
    const resent = await call('batches:submit', { validationId: twice.validationId, confirmedWarningRows: twice.warnings.map((w) => w.rowNumber) });
    expect(resent.progress.total).toBe(1);
    // Only exactly the failed rows, and only once.
    await expect(handlers['batches:retryFailed']({ batchId: batch.id, idPayouts: ['b-2', 'b-1'] })).resolves.toMatchObject({ ok: false, error: { code: 'RETRY_ROWS_CHANGED' } });
    const retry = await call('batches:retryFailed', { batchId: batch.id, idPayouts: ['b-2'] });
    // Retried once: b-2's intent now has a newer attempt, so the same failure is never sent again.
    await expect(handlers['batches:retryFailed']({ batchId: batch.id, idPayouts: ['b-2'] })).resolves.toMatchObject({ ok: false, error: { code: 'NOTHING_TO_RETRY' } });
    expect(retry.progress.total).toBe(1);
    const afterRetry = await call('batches:results', { batchId: batch.id });
    expect(afterRetry.find((r) => r.idPayout === 'b-2')).toMatchObject({ retryable: false, retriedAs: expect.any(String) });
  });

  it('refuses a batch the balance cannot cover, and sends only the funded currencies when asked', async () => {
    const csv = [
      'amount,currencyCode,accountName,accountNumber,paymentOperatorCode,emailAddress',
      '9000000.00,EUR,Big Supplier,DE89370400440532013000,EU_SEPA,big@example.com',
      '7.00,USD,Small Supplier,DE89370400440532013000,US_ACH,small@example.com',
    ].join('\n');
    const checked = await call('batches:validateFile', { source: { kind: 'bytes', fileName: 'too-much.csv', bytes: new TextEncoder().encode(csv) } });
    expect(checked.errors).toEqual([]);
    const eur = checked.funding.find((f) => f.currencyCode === 'EUR');
    expect(eur?.shortfall).not.toBeNull();
    const rows = checked.warnings.map((w) => w.rowNumber);
    const refused = await handlers['batches:submit']({ validationId: checked.validationId, confirmedWarningRows: rows });
    expect(refused).toMatchObject({ ok: false, error: { code: 'INSUFFICIENT_BALANCE' } });
    expect(refused.ok ? '' : refused.error.message).toMatch(/^EUR short by [\d.]+ \(needs 9000000\.00, available [\d.]+\); nothing was sent/);
    // The validation is still there: the user can choose to send the funded currencies only.
    const usdOnly = await call('batches:submit', { validationId: checked.validationId, confirmedWarningRows: rows, currencyCodes: ['USD'] });
    expect(usdOnly.progress.total).toBe(1);
  });

  it('answers history, balances and audit from the journal', async () => {
    const failed = await call('history:query', { filters: { statuses: ['FAILED'] }, limit: 10 });
    expect(failed.items.map((r) => r.id)).toContain('b-2');
    const page = await call('history:query', { offset: 1, limit: 2, sort: { field: 'amount', direction: 'asc' } });
    expect(page.items).toHaveLength(2);
    const balances = await call('balances:refresh');
    expect(balances.find((b) => b.currencyCode === 'EUR')?.available.amount).toMatch(/^\d+\.\d{2}$/);
    expect((await call('balances:series', { currencyCode: 'EUR' })).length).toBeGreaterThan(0);
    expect(await call('audit:verify')).toMatchObject({ ok: true });
    expect((await call('audit:list', { limit: 5 })).items).toHaveLength(5);
    const csv = await call('history:export', {});
    expect(csv.content.split('\n').length).toBeGreaterThan(4);
  });

  it('creates a payin, marks it paid in the sandbox and shares a token for it alone', async () => {
    const options = await call('payins:options', { money: { amount: '100.00', currencyCode: 'EUR' } });
    const operator = options.find((o) => o.paymentMethodCode === 'VAPAY')?.operators[0]?.code;
    expect(operator).toBeDefined();
    const payin = await call('payins:create', {
      amount: '100.00', currencyCode: 'EUR', paymentOperatorCode: operator ?? '', accountName: 'Customer', accountNumber: '12345678', emailAddress: 'c@example.com',
    });
    expect(payin.account?.accountNumber).toBeTruthy();
    expect(payin.reference).toBeTruthy();
    const paid = await call('payins:markPaidDemo', { idPayin: payin.idPayin });
    expect(paid.status).toBe('SUCCESS');
    expect(await call('payins:accountData', { idPayin: payin.idPayin })).toMatchObject({ request: expect.anything() });
    const share = await call('payins:shareToken', { idPayin: payin.idPayin, validitySecs: 600 });
    expect(share.token.split('.')).toHaveLength(3);
  });

  it('rotates the key and keeps working; no key material ever reaches a log', async () => {
    const { active, previous } = await call('keys:rotate', {});
    expect(previous?.status).toBe('standby');
    expect(active.status).toBe('active');
    expect((await call('profiles:testConnection', {})).channelName).toBe('Demo Store');
    const letter = await call('keys:letter', { keyId: active.id });
    expect(letter.content).toContain(active.fingerprint);
    expect(log.raw.join('\n')).not.toMatch(/PRIVATE KEY/);
  });
});
