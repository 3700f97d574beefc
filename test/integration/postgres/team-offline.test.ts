// A team desk that loses its database sends nothing: every send needs a claim and a slot of the team's budget,
// both in the database, so once the connection is cut no create leaves but those already on the wire; the
// desk says why (its background errors). When the database is back, the desk started again finishes the
// batch: every id stored once, the journal as the sandbox says.
import diagnostics from 'node:diagnostics_channel';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { openTeamDesk, type TeamDesk } from '../../../main/compose/team-desk';
import type { SandboxHandle } from '../../../sandbox/index';
import { createDesk, payoutRows, sandboxConfig, startSandbox, TEST_ENGINE_TIMINGS, until } from '../engine/setup';
import { freshDatabase } from './cluster';
import { startCutProxy, type CutProxy } from './cut-proxy';

const GATEWAY_TIMEOUT_MS = 2_000;
let sandbox: SandboxHandle | undefined;
let proxy: CutProxy | undefined;
const desks: TeamDesk[] = [];
let home: string | undefined;
let stopWatching: (() => void) | undefined;
afterEach(async () => {
  stopWatching?.();
  for (const d of desks.splice(0)) await d.close().catch(() => undefined);
  await proxy?.close();
  await sandbox?.close();
  if (home) rmSync(home, { recursive: true, force: true });
});

describe('a team desk without its database', () => {
  it('sends nothing once the database is gone, says why, and finishes the batch once it is back', { timeout: 120_000 }, async () => {
    sandbox = await startSandbox(sandboxConfig({ rateLimitPerSecond: 10, faults: { latencyMs: 5, latencyJitterMs: 20, seed: 3 } }));
    home = mkdtempSync(join(tmpdir(), 'team-offline-'));
    const keyStore = new MemoryKeyStore();
    const setup = await createDesk({ baseUrl: sandbox.url, sandbox, home, keyStore, rateLimitPerSec: 10 });
    await setup.runtime.close();
    proxy = await startCutProxy(await freshDatabase(inject('postgresUrl')));
    // The desk reaches its team database through the proxy the test cuts.
    setup.ctx.profiles.update(setup.profileId, { teamDatabase: { url: proxy.url, tls: 'disable', caFile: null } });
    setup.ctx.close();
    const creates: { id: string; at: number }[] = [];
    const watch = (message: unknown) => {
      const { server, request } = message as { server: Server; request: IncomingMessage };
      if ((server.address() as AddressInfo | null)?.port !== sandbox?.port) return;
      if (request.method === 'POST' && request.url?.startsWith('/payouts/off-')) creates.push({ id: request.url.slice('/payouts/'.length), at: performance.now() });
    };
    diagnostics.subscribe('http.server.request.start', watch);
    stopWatching = () => diagnostics.unsubscribe('http.server.request.start', watch);
    const open = async () => {
      const desk = await openTeamDesk({
        home: home!, keyStore, profileId: setup.profileId, deskName: 'desk-offline',
        fetchTimeoutMs: GATEWAY_TIMEOUT_MS, leaseMs: 7_000, engineOptions: { ...TEST_ENGINE_TIMINGS, heldElsewhereRetryMs: 300 },
      });
      desks.push(desk);
      return desk;
    };

    const desk = await open();
    const errors: string[] = [];
    desk.engine.on('background-error', (e) => errors.push(e.message));
    const rows = payoutRows(100, 'off');
    await desk.engine.submitBatch({ id: 'off-batch', fileName: 'off.json', sha256: 'offline', rows });
    await until(() => creates.length >= 15, 30_000, '15 creates');
    proxy.cut();
    const cutAt = performance.now();
    const sentBefore = creates.length;
    // Longer than the lease: a desk that kept sending on its own would have sent tens by now.
    await new Promise((r) => setTimeout(r, 9_000));
    const late = creates.filter((c) => c.at > cutAt + GATEWAY_TIMEOUT_MS);
    expect(late).toEqual([]);
    expect(sentBefore).toBeLessThan(rows.length);
    expect(errors.some((e) => e.includes('the team database cannot be reached'))).toBe(true);
    const afterCut = creates.filter((c) => c.at > cutAt).length;

    // Back: the desk is started again (a new life, as after a restart) and finishes with whatever its first life held.
    proxy.restore();
    await desks.shift()!.close().catch(() => undefined);
    const again = await open();
    await again.engine.resumeBatch('off-batch');
    await until(async () => {
      const counts = await again.journal.batchCounts('off-batch');
      return counts.final === counts.total;
    }, 60_000, 'every payout final');
    const stored = sandbox.state().payouts.filter((p) => p.idPayout.startsWith('off-'));
    expect(stored).toHaveLength(100);
    expect(new Set(stored.map((p) => p.idPayout)).size).toBe(100);
    const bySandbox = new Map(stored.map((p) => [p.idPayout, p.status as string]));
    const mismatches: string[] = [];
    for (const r of rows) {
      const p = await again.journal.getPayment('payout', r.idPayout);
      if (p?.status !== bySandbox.get(r.idPayout)) mismatches.push(`${r.idPayout}: ${p?.status} vs ${bySandbox.get(r.idPayout)}`);
    }
    expect(mismatches).toEqual([]);
    console.log(`team offline test: ${sentBefore} creates before the cut, ${afterCut} within the ${GATEWAY_TIMEOUT_MS} ms a request on the wire may take, none later; ${errors.length} background errors while cut, e.g. "${errors.find((e) => e.includes('team database'))}"`);
  });
});
