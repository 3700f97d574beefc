// `sandbox-setup`: from a running sandbox to a profile that pays, in one command; run again it reuses
// the profile and key (e.g. after a sandbox without --state forgot the key); a wrong address says how
// to start the sandbox.
import { mkdtempSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../main/cli/index';
import { KeyStoreError, MemoryKeyStore } from '../../../main/keys/key-store';
import { startSandbox, type SandboxHandle } from '../../../sandbox/index';

let sandbox: SandboxHandle;
const home = mkdtempSync(join(tmpdir(), 'desk-cli-setup-'));
const keyStore = new MemoryKeyStore();

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['--home', home, ...args], { keyStore, io: { stdout: (t) => void (out += t), stderr: (t) => void (err += t) } });
  return { code, out, err };
}

const payout = ['--amount', '12.50', '--currency', 'EUR', '--account-name', 'Jane Doe', '--account-number', 'DE89370400440532013000', '--operator', 'EU_SEPA', '--email', 'jane@example.com'];

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(async () => sandbox.close());

describe('sandbox-setup', () => {
  it('yields a current profile that can create a payout', async () => {
    const setup = await cli('sandbox-setup', '--url', sandbox.url);
    expect(setup.err).toBe('');
    expect(setup.code).toBe(0);
    expect(setup.out).toContain(`Created profile sandbox "Sandbox" for ${sandbox.url} (merchant DEMO-MERCHANT, TEST)`);
    expect(setup.out).toContain('Registered the public key with the sandbox.');
    expect(setup.out).toContain('Connection works: channel "Demo Store"');
    // The next step is printed as this CLI is started here (vitest under npx: "npx payout-desk").
    expect(setup.out).toMatch(/\n {2}(npx payout-desk|npm run -s cli --|payout-desk) payouts create --amount 12\.50/);
    const sent = await cli('payouts', 'create', ...payout);
    expect(sent.err).toBe('');
    expect(sent.code).toBe(0);
    expect(sandbox.state().payouts).toHaveLength(1);
  });

  it('run again, reuses the profile and its key and registers it with a sandbox that forgot it', async () => {
    const before = (await cli('--json', 'profiles', 'show')).out;
    await sandbox.close();
    sandbox = await startSandbox();
    const setup = await cli('sandbox-setup', '--url', sandbox.url);
    expect(setup.code).toBe(0);
    expect(setup.out).toContain('Using its active key');
    expect((JSON.parse(before) as { activeKeyId: string }).activeKeyId).toBe((JSON.parse((await cli('--json', 'profiles', 'show')).out) as { activeKeyId: string }).activeKeyId);
    expect((await cli('profiles', 'list')).out.match(/"Sandbox"/g)).toHaveLength(1);
    // Another amount: the same one again would be a possible duplicate of the first run's payout.
    expect((await cli('payouts', 'create', ...payout.map((a) => (a === '12.50' ? '12.51' : a)))).code).toBe(0);
    expect(sandbox.state().payouts).toHaveLength(1);
  });

  it('says how to start the sandbox when none answers at the address', async () => {
    const r = await cli('sandbox-setup', '--url', 'http://127.0.0.1:9', '--name', 'Nowhere', '--wait', '0');
    expect(r.code).toBe(1);
    expect(r.err).toContain('No sandbox answers at http://127.0.0.1:9');
    expect(r.err).toContain('npm run sandbox -- --port 8787 --state');
  });

  it('waits for a sandbox started in the background a moment before (npm run sandbox … &)', async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    const late = new Promise<void>((resolve) => setTimeout(resolve, 1_000)).then(() => startSandbox(undefined, { port }));
    try {
      const r = await cli('sandbox-setup', '--url', `http://127.0.0.1:${port}`, '--name', 'Late', '--no-use');
      expect(r.err).toContain(`Waiting up to 20 s for the sandbox at http://127.0.0.1:${port} to start`);
      expect(r.code).toBe(0);
      expect(r.out).toContain('Connection works');
    } finally {
      await (await late).close();
    }
  });

  it('names the merchant code when the sandbox has no such merchant', async () => {
    const r = await cli('sandbox-setup', '--url', sandbox.url, '--name', 'Other', '--merchant-code', 'NOPE');
    expect(r.code).toBe(1);
    expect(r.err).toContain('has no merchant NOPE (it has: DEMO-MERCHANT)');
    // Nothing was created for a setup that could not work.
    expect((await cli('profiles', 'list')).out).not.toMatch(/"Other"|"Nowhere"/);
  });

  it('makes nothing when the keychain cannot be reached: no profile is left without its key', async () => {
    const noBus = new KeyStoreError('Cannot autolaunch D-Bus without X11 $DISPLAY');
    const unreachable = new (class extends MemoryKeyStore {
      override async get(): Promise<string | null> {
        throw noBus;
      }
      override async set(): Promise<void> {
        throw noBus;
      }
    })();
    let err = '';
    const code = await runCli(['--home', home, 'sandbox-setup', '--url', sandbox.url, '--name', 'Keyless'], { keyStore: unreachable, io: { stdout: () => undefined, stderr: (t) => void (err += t) } });
    expect(code).not.toBe(0);
    expect(err).toContain('Cannot autolaunch D-Bus');
    expect((await cli('profiles', 'list')).out).not.toContain('Keyless');
  });
});
