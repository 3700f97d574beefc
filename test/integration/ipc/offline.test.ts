// Offline over IPC: the Demo profile's sandbox (started in-process by demo mode) is stopped after a
// payout and a small batch went out. Everything the journal holds still answers, a new payout is
// journaled as QUEUED (never failed), the connection state says offline and why, and a CSV file
// still validates. Then the sandbox comes back on the same port and the queued payout goes out once.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArgsOf, ConnectionState, IpcHandlerMap, PaymentDetail } from '../../../contract/api';
import { startSandbox, type SandboxHandle } from '../../../sandbox';
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
/** Set before demo.resume() to bring the sandbox back where the profile expects it. */
let restartPort: number | undefined;

const call = callerOf(() => handlers);

const payout = (overrides: Partial<ArgsOf<'payouts:create'>> = {}): ArgsOf<'payouts:create'> => ({
  idPayout: 'online-1', amount: '125.00', currencyCode: 'EUR', accountName: 'Jane Doe', accountNumber: 'DE89370400440532013000',
  paymentOperatorCode: 'EU_SEPA', emailAddress: 'jane@example.com', ...overrides,
});

const csvBytes = (lines: string[]) => new TextEncoder().encode(lines.join('\n'));
const HEADER = 'idPayout,amount,currencyCode,accountName,accountNumber,paymentOperatorCode,emailAddress';

let profileId = '';
let batchId = '';
let sandboxPort = 0;
const sandbox = (): SandboxHandle => {
  const handle = demo.sandboxFor(profileId);
  if (!handle) throw new Error('the Demo profile has no sandbox');
  return handle;
};

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'desk-offline-'));
  ctx = createAppContext({ home, keyStore: new MemoryKeyStore(), logger: log });
  events = createDeskEvents();
  runtime = createDeskRuntime({ ctx, events, log });
  // The app's own demo mode; only the port of a restart is chosen here (the app picks a free one).
  demo = new DemoMode({ ctx, log, start: (config, opts) => startSandbox(config, { ...opts, ...(restartPort ? { port: restartPort } : {}) }) });
  handlers = createIpcHandlers(bindActiveProfile(createDeskServices(runtime, { name: 'Payout Desk', version: 'test', platform: process.platform, demoAvailable: true }, demo), ctx), { log });
});

afterAll(async () => {
  await runtime?.close();
  await demo?.close();
  ctx?.close();
  await rm(home, { recursive: true, force: true });
});

describe('the desk over IPC when the gateway goes away', () => {
  it('while online: a Demo profile sends a payout and a small batch, and balances are read', async () => {
    const profile = await call('profiles:createDemo');
    profileId = profile.id;
    sandboxPort = sandbox().port;
    expect((await call('profiles:testConnection', {})).channelName).toBe('Demo Store');

    await call('payouts:create', payout());
    const single = await until(() => call('payouts:get', { idPayout: 'online-1' }), (d: PaymentDetail) => d.final);
    expect(single).toMatchObject({ status: 'SUCCESS', final: true });

    const file = csvBytes([
      HEADER,
      'ob-1,10.00,EUR,Ann,DE89370400440532013000,EU_SEPA,ann@example.com',
      'ob-2,20.00,EUR,Bob,12340000,EU_SEPA,bob@example.com',
    ]);
    const checked = await call('batches:validateFile', { source: { kind: 'bytes', fileName: 'online.csv', bytes: file } });
    expect(checked.errors).toEqual([]);
    const batch = await call('batches:submit', { validationId: checked.validationId, confirmedWarningRows: checked.warnings.map((w) => w.rowNumber) });
    batchId = batch.id;
    const done = await until(() => call('batches:get', { batchId }), (b) => b.progress.pending === 0);
    expect(done.progress).toMatchObject({ total: 2, done: 2, failed: 1 });

    const balances = await call('balances:refresh');
    expect(balances.find((b) => b.currencyCode === 'EUR')?.observedAt).not.toBeNull();
    expect((await call('app:connectionState')).status).toBe('online');
  });

  it('stops the gateway', async () => {
    // As test/e2e/support/desk-bridge.ts stopGateway(): the in-process sandbox closes its port.
    await sandbox().close();
    await expect(fetch(`http://127.0.0.1:${sandboxPort}/currencies`)).rejects.toThrow();
  });

  it('answers history, timelines, batches, results, the export, keys and the last balances from the journal', async () => {
    const history = await call('history:query', { limit: 10 });
    expect(history.items.map((r) => r.id).sort()).toEqual(['ob-1', 'ob-2', 'online-1']);
    expect(history.total).toBe(3);

    const timeline = await call('history:timeline', { kind: 'payout', id: 'online-1' });
    expect(timeline).toMatchObject({ status: 'SUCCESS', final: true });
    expect(timeline.events.map((e) => e.status)).toEqual(expect.arrayContaining(['QUEUED', 'SUCCESS']));

    const batches = await call('batches:list', {});
    expect(batches.items.map((b) => b.id)).toEqual([batchId]);
    expect(batches.items[0]?.progress).toMatchObject({ total: 2, done: 2, failed: 1 });

    const results = await call('batches:results', { batchId });
    expect(results.map((r) => [r.idPayout, r.status])).toEqual([['ob-1', 'SUCCESS'], ['ob-2', 'FAILED']]);
    const exported = await call('batches:exportResults', { batchId });
    expect(exported.content).toContain('ob-2');
    expect(exported.content).toContain('ACCOUNT_REJECTED');

    const keys = await call('keys:list', {});
    expect(keys.filter((k) => k.status === 'active')).toHaveLength(1);

    const balances = await call('balances:get');
    const eur = balances.find((b) => b.currencyCode === 'EUR');
    expect(eur?.observedAt).not.toBeNull();
    expect(eur?.available.amount).toMatch(/^\d+\.\d{2}$/);
    expect((await call('balances:series', { currencyCode: 'EUR' })).length).toBeGreaterThan(0);
    expect(await call('audit:verify')).toMatchObject({ ok: true });
  });

  it('a refresh that needs the gateway answers with a typed, retryable error, not a crash', async () => {
    const refreshed = await handlers['balances:refresh'](undefined);
    expect(refreshed.ok).toBe(false);
    if (!refreshed.ok) expect(refreshed.error.retryable).toBe(true);
  });

  it('accepts a new payout into the journal as QUEUED (never failed), and the connection state turns offline with a reason', async () => {
    const validated = await call('payouts:validate', payout({ idPayout: 'offline-1', amount: '42.00' }));
    expect(validated.valid).toBe(true);
    // payouts:create waits up to 10 s for the gateway, then answers with the journal's record.
    const created = await call('payouts:create', payout({ idPayout: 'offline-1', amount: '42.00' }));
    expect(created).toMatchObject({ id: 'offline-1', localState: 'QUEUED', final: false, money: { amount: '42.00', currencyCode: 'EUR' } });
    expect(created.events.map((e) => e.status)).not.toContain('FAILED');
    expect(created.events.map((e) => e.status)).not.toContain('REJECTED');

    const state: ConnectionState = await call('app:connectionState');
    expect(state).toMatchObject({ status: 'offline', profileId, environment: 'TEST' });
    expect(state.lastError?.message).toBeTruthy();
    expect(state.lastError?.message).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}/);
    // The payout waiting to go out is counted.
    expect(state.queued).toBe(1);

    // Still QUEUED a little later: the engine keeps it and retries, it does not give up.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await call('payouts:get', { idPayout: 'offline-1' })).toMatchObject({ localState: 'QUEUED', final: false });
    const queued = await call('history:query', { filters: { search: 'offline-1' }, limit: 5 });
    expect(queued.items.map((r) => [r.id, r.localState])).toEqual([['offline-1', 'QUEUED']]);
  }, 30_000);

  it('still validates a CSV batch offline: currencies read before, no operator list, the last stored balances', async () => {
    const file = csvBytes([
      HEADER,
      'off-b-1,15.00,EUR,Cid,DE89370400440532013000,EU_SEPA,cid@example.com',
      'off-b-2,2.5,USD,Dee,DE89370400440532013000,US_ACH,dee@example.com',
      'off-b-3,1.2345,EUR,Eve,DE89370400440532013000,EU_SEPA,eve@example.com',
    ]);
    const checked = await call('batches:validateFile', { source: { kind: 'bytes', fileName: 'offline.csv', bytes: file } });
    expect(checked.counts).toMatchObject({ rows: 3, valid: 2, invalid: 1 });
    expect(checked.errors).toEqual([expect.objectContaining({ rowNumber: 4, column: 'amount' })]);
    const eur = checked.funding.find((f) => f.currencyCode === 'EUR');
    // The balance is the last snapshot taken while online (no new one can be read).
    expect(eur?.available).not.toBeNull();
    expect(eur?.shortfall).toBeNull();
  });

  it('when the sandbox comes back on the same port, the queued payout goes out once and the state is online again', async () => {
    // Demo mode's own restart path (what the app runs at start-up): DemoMode.resume() starts a fresh
    // sandbox for the profile, points the profile at it and registers its keys again. Two things are
    // the test's: resume() does nothing while demo mode still holds the profile's (closed) sandbox,
    // so demo.close() drops it first; and resume() asks for port 0, so the injected start pins the
    // old port (startSandbox takes { port, host }). The engine is not restarted: it must find the
    // gateway again by itself. A fresh sandbox keeps nothing of the old one, which does not matter
    // here: everything sent before is final in the journal and no longer asked about.
    restartPort = sandboxPort;
    await demo.close();
    await demo.resume(profileId);
    expect(sandbox().port).toBe(sandboxPort);
    expect(ctx.profiles.get(profileId).baseUrl).toBe(`http://127.0.0.1:${sandboxPort}`);

    // The engine is still retrying with capped backoff (at most 30 s apart); no user action needed.
    const sent = await until(() => call('payouts:get', { idPayout: 'offline-1' }), (d: PaymentDetail) => d.localState !== 'QUEUED' && d.localState !== 'SENDING', 60_000);
    expect(sent.localState).toBe('ACCEPTED');
    const final = await until(() => call('payouts:get', { idPayout: 'offline-1' }), (d: PaymentDetail) => d.final, 30_000);
    expect(final).toMatchObject({ status: 'SUCCESS', money: { amount: '42.00', currencyCode: 'EUR' } });
    expect(sandbox().state().createAttempts.payouts['offline-1']).toBe(1);
    expect(sandbox().state().payouts.map((p) => p.idPayout)).toEqual(['offline-1']);

    const state = await call('app:connectionState');
    expect(state).toMatchObject({ status: 'online', queued: 0 });
  }, 120_000);
});
