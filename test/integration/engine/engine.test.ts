// The engine over the real GatewayClient and the real sandbox: payouts reach their final status,
// the status history shows where each change came from, and an unreachable gateway loses nothing.
import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createDesk, payoutRows, sandboxConfig, startSandbox, until, type Desk } from './setup';
import type { SandboxHandle } from '../../../sandbox/index';

let desk: Desk | undefined;
let sandbox: SandboxHandle | undefined;
afterEach(async () => {
  await desk?.dispose();
  await sandbox?.close();
  desk = undefined;
  sandbox = undefined;
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('engine against the sandbox', () => {
  it('sends a payout once and follows it to SUCCESS through polls and callbacks', async () => {
    sandbox = await startSandbox(sandboxConfig());
    desk = await createDesk({ baseUrl: sandbox.url, sandbox, engine: { callbackListen: { host: '127.0.0.1', port: 0 }, pollIntervalMs: 60_000 } });
    const engine = desk.registry.engineFor(desk.profileId);
    await engine.start();
    const [row] = payoutRows(1, 'single');
    const record = await engine.submitPayout(row!);
    expect(record.state).toBe('ACCEPTED');
    // Polling is slowed to a minute: only the sandbox's callbacks can bring the final status.
    await until(() => engine.journal.getPayment('payout', row!.idPayout)?.isFinal === true, 10_000, 'final status');
    const payment = engine.journal.getPayment('payout', row!.idPayout)!;
    expect(payment).toMatchObject({ status: 'SUCCESS', feeCurrencyCode: 'EUR', isTest: true });
    expect(payment.feeMinor).toBeGreaterThan(0);
    const sources = engine.journal.timeline('payout', row!.idPayout).map((e) => `${e.status}/${e.source}`);
    expect(sources[0]).toBe('QUEUED/local');
    expect(sources[1]).toBe('ACCEPTED/create');
    expect(sources.at(-1)).toBe('SUCCESS/callback');
    const state = sandbox.state();
    expect(state.payouts.map((p) => p.idPayout)).toEqual([row!.idPayout]);
    expect(state.createAttempts.payouts[row!.idPayout]).toBe(1);
  });

  it('keeps payouts queued while the gateway is unreachable, then sends them when it comes back', async () => {
    const port = await freePort();
    desk = await createDesk({ baseUrl: `http://127.0.0.1:${port}`, fetchTimeoutMs: 1_000 });
    const engine = desk.registry.engineFor(desk.profileId);
    const connection: string[] = [];
    engine.on('connection', (e) => connection.push(e.state));
    await engine.start();
    const rows = payoutRows(12, 'offline');
    const batch = engine.submitBatch({ fileName: 'offline.json', sha256: 'off', rows: rows.slice(2) });
    const single = await engine.submitPayout(rows[0]!, { waitMs: 300 });
    // Waiting for its turn (SENDING) or back in the queue after a refused connection: never failed.
    expect(['QUEUED', 'SENDING']).toContain(single.state);
    expect(single.isFinal).toBe(false);
    await new Promise((r) => setTimeout(r, 1_500));
    const all = engine.journal.history({ kind: 'payout', pageSize: 100 }).rows;
    expect(all).toHaveLength(11);
    expect(all.every((p) => (p.state === 'QUEUED' || p.state === 'SENDING') && !p.isFinal)).toBe(true);
    expect(all.some((p) => p.lastError !== null)).toBe(true);
    expect(connection).toContain('offline');

    // The gateway comes back on the same address.
    sandbox = await startSandbox(sandboxConfig(), { port });
    sandbox.registerPublicKey('DEMO-MERCHANT', await desk.ctx.keys.publicKeyPem(desk.profileId));
    await until(() => engine.journal.batchCounts(batch.id).sent === 10, 20_000, 'batch sent after reconnect');
    await until(() => engine.journal.getPayment('payout', rows[0]!.idPayout)?.state === 'ACCEPTED', 20_000, 'single sent');
    expect(engine.connectionState.state).toBe('online');
    expect(new Set(sandbox.state().payouts.map((p) => p.idPayout)).size).toBe(11);
  });
});
