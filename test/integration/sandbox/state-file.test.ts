// `--state <file>`: a restarted sandbox still knows the keys registered with it and the payments made
// through it (GET after the restart finds them), finishes payouts that were on their way, and writes
// the file atomically (never a half-written file in its place).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../../sandbox/index';
import { MERCHANT, SandboxClient, payoutBody, rsaKeys, testConfig, waitFor } from './helpers';

const keys = rsaKeys();
// No fixed JWT key: the one the state file keeps must be what makes old tokens valid after a restart.
const config = () => ({ ...testConfig({ timings: { payoutPendingMs: 300, payoutProcessingMs: 300, payinExpiryMs: 60_000 } }), tokens: {} });

describe('sandbox --state', () => {
  it('keeps a registered key, the payments and the balances across a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sbx-state-'));
    const stateFile = join(dir, 'state.json');
    const first = await startSandbox(config(), { stateFile });
    const register = await fetch(`${first.url}/_sandbox/merchants/${MERCHANT}/keys`, { method: 'POST', body: keys.publicPem, headers: { 'content-type': 'text/plain' } });
    expect(register.status).toBe(201);
    const before = new SandboxClient(first, keys);
    const token = await before.token();
    const created = await before.request('POST', '/payouts/kept-1', { token, body: payoutBody() });
    expect(created.status).toBe(201);
    const available = first.state().balances[MERCHANT]!['EUR']!.availableMinor;
    // Stopped while the payout is still PENDING.
    await first.close();

    const second = await startSandbox(config(), { stateFile });
    try {
      const after = new SandboxClient(second, keys);
      // The key registered before the restart still signs a token request.
      const fresh = await after.token();
      const read = await after.request('GET', '/payouts/kept-1', { token: fresh });
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({ paymentMethodResponse: { idPayout: 'kept-1' }, paymentRequested: { money: { amount: 1250.5, currencyCode: 'EUR' } } });
      // A token issued before the restart is still good (the signing key is kept too).
      expect((await after.request('GET', '/payouts/kept-1', { token })).status).toBe(200);
      expect(second.state().balances[MERCHANT]!['EUR']!.availableMinor).toBe(available);
      expect(second.state().createAttempts.payouts['kept-1']).toBe(1);
      // A payout that was on its way carries on to its final status.
      await waitFor(() => second.state().payouts.find((p) => p.idPayout === 'kept-1' && p.status === 'SUCCESS'), 5_000, 'SUCCESS after restart');
      // The same id is still taken: nothing is paid twice across a restart.
      expect((await after.request('POST', '/payouts/kept-1', { token: fresh, body: payoutBody() })).status).toBe(409);
    } finally {
      await second.close();
    }
    // Only the state file is left: every write went through a temp file renamed into place.
    expect(readdirSync(dir)).toEqual(['state.json']);
    expect(JSON.parse(readFileSync(stateFile, 'utf8'))).toMatchObject({ version: 1, payouts: [{ idPayout: 'kept-1', status: 'SUCCESS' }] });
  });

  it('the sandbox CLI with --state: a key registered just before SIGTERM is in the file the process leaves', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sbx-state-'));
    const stateFile = join(dir, 'state.json');
    const root = join(import.meta.dirname, '../../..');
    // Node with tsx's loader, one process: the tsx command relays a SIGTERM to its child and, when the child does
    // not say within 30 ms that it got it (a loaded CI machine), kills it outright and exits 143. This test is about
    // the sandbox's own shutdown write, not that relay.
    const child = spawn(process.execPath, ['--import', 'tsx', 'sandbox/cli.ts', '--port', '0', '--state', stateFile], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const url = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /sandbox listening on (\S+)\n/.exec(out);
        if (match) resolve(match[1]!);
      });
      child.on('exit', (code) => reject(new Error(`sandbox exited with ${String(code)}`)));
    });
    const register = await fetch(`${url}/_sandbox/merchants/${MERCHANT}/keys`, { method: 'POST', body: keys.publicPem, headers: { 'content-type': 'text/plain' } });
    expect(register.status).toBe(201);
    // Right away (inside the 200 ms write delay): the write on shutdown, if not the delayed one, must keep it.
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const saved = JSON.parse(readFileSync(stateFile, 'utf8')) as { merchants: { code: string; publicKeysPem: string[] }[] };
    expect(saved.merchants.find((m) => m.code === MERCHANT)?.publicKeysPem).toEqual([keys.publicPem]);
  }, 60_000);

  it('refuses to start on a file it did not write, and says how to start fresh', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sbx-state-'));
    const stateFile = join(dir, 'state.json');
    writeFileSync(stateFile, '{"payouts": 3}');
    await expect(startSandbox(config(), { stateFile })).rejects.toThrow(/not a state this sandbox wrote.*move it away/);
  });
});
