// The shipped default config, config validation, and the CLI start line.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultSandboxConfig, parseSandboxConfig, startSandbox } from '../../../sandbox/index';

const root = join(import.meta.dirname, '../../..');
const tempDirs: string[] = [];
afterAll(() => Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true }))));

describe('config', () => {
  it('ships sandbox/default-config.json equal to defaultSandboxConfig()', async () => {
    const shipped: unknown = JSON.parse(await readFile(join(root, 'sandbox/default-config.json'), 'utf8'));
    expect(parseSandboxConfig(shipped)).toEqual(defaultSandboxConfig());
  });

  it('has the agreed demo merchant, currencies and operators', () => {
    const config = defaultSandboxConfig();
    expect(config.merchants[0]).toMatchObject({ code: 'DEMO-MERCHANT', channelName: 'Demo Store' });
    expect(config.currencies.map((c) => [c.code, c.decimals])).toEqual([
      ['EUR', 2],
      ['USD', 2],
      ['GBP', 2],
      ['JPY', 0],
      ['KWD', 3],
    ]);
    expect(config.paymentOperators.find((o) => o.code === 'EU_SEPA')?.paymentMethodCode).toBe('BANK_TRANSFER');
    expect(config.rateLimitPerSecond).toBe(10);
  });

  it.each([
    [{ rateLimitPerSecond: -1 }, 'rateLimitPerSecond'],
    [{ merchants: [] }, 'merchants'],
    [{ timings: { payoutPendingMs: 'soon' } }, 'timings.payoutPendingMs'],
    [{ paymentOperators: [{ code: 'X', name: 'X', paymentMethodCode: 'NOPE', currencyCodes: ['EUR'] }] }, 'NOPE'],
    [{ unknownSetting: true }, 'unknownSetting'],
  ])('refuses an invalid config with a message naming the problem (%o)', (input, mention) => {
    expect(() => parseSandboxConfig(input)).toThrow(mention);
  });

  it('refuses a public key that is not RSA PEM at start', async () => {
    await expect(
      startSandbox({ merchants: [{ code: 'M', channelName: 'M', publicKeysPem: ['-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----'] }] }),
    ).rejects.toThrow(/PEM/);
  });
});

describe('npm run sandbox', () => {
  it('prints exactly "sandbox listening on http://127.0.0.1:<port>" for --port 0 and serves there', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sandbox-cli-'));
    tempDirs.push(dir);
    const configFile = join(dir, 'config.json');
    await writeFile(configFile, JSON.stringify({ merchants: [{ code: 'CLI-M', channelName: 'CLI Shop' }] }));
    const child = spawn(join(root, 'node_modules/.bin/tsx'), ['sandbox/cli.ts', '--port', '0', '--config', configFile], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          const newline = out.indexOf('\n');
          if (newline !== -1) resolve(out.slice(0, newline));
        });
        child.on('exit', (code) => reject(new Error(`sandbox exited with ${String(code)}`)));
      });
      expect(line).toMatch(/^sandbox listening on http:\/\/127\.0\.0\.1:\d+$/);
      const port = Number(line.split(':').at(-1));
      expect(port).toBeGreaterThan(0);
      const state = await fetch(`http://127.0.0.1:${port}/_sandbox/state`);
      expect(Object.keys(((await state.json()) as { balances: object }).balances)).toEqual(['CLI-M']);
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('exits non-zero with a clear message for a bad config file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sandbox-cli-'));
    tempDirs.push(dir);
    const configFile = join(dir, 'bad.json');
    await writeFile(configFile, '{"rateLimitPerSecond": "fast"}');
    const child = spawn(join(root, 'node_modules/.bin/tsx'), ['sandbox/cli.ts', '--port', '0', '--config', configFile], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(err).toContain('rateLimitPerSecond');
  });
});
