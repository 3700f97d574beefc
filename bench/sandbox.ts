// Requests per second the sandbox serves for GET /payouts/{id} on loopback, rate limit off.
// Target: ≥ 2,000 requests/s on the 2-core build machine, so later benchmarks know the sandbox is not the
// bottleneck. The sandbox runs in its own process (as `npm run sandbox` does), so autocannon's own work does not
// share its event loop. Run: npx tsx bench/sandbox.ts [--seconds 10] [--connections 20]
import { spawn } from 'node:child_process';
import { generateKeyPairSync, sign } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';

const TARGET_RPS = 2_000;
const MERCHANT = 'DEMO-MERCHANT';
const root = join(import.meta.dirname, '..');

function argNumber(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index === -1 ? undefined : Number(process.argv[index + 1]);
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback;
}

async function startSandboxProcess(configFile: string) {
  const child = spawn(join(root, 'node_modules/.bin/tsx'), ['sandbox/cli.ts', '--port', '0', '--config', configFile], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /sandbox listening on (http:\/\/\S+)/.exec(out);
      if (found?.[1]) resolve(found[1]);
    });
    child.once('exit', (code) => reject(new Error(`sandbox exited early with code ${String(code)}`)));
  });
  return { url, stop: () => child.kill('SIGTERM') };
}

async function prepare(url: string): Promise<string> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const registered = await fetch(`${url}/_sandbox/merchants/${MERCHANT}/keys`, { method: 'POST', body: pem });
  if (registered.status !== 201) throw new Error(`key registration failed: ${registered.status}`);
  const headers = { 'content-type': 'application/json', 'x-api-version': '2' };
  const tokenBody = JSON.stringify({
    merchantCode: MERCHANT,
    validitySecs: 3600,
    operations: ['(GET|POST) /payouts/.*'],
    timestamp: Date.now(),
  });
  const tokenResponse = await fetch(`${url}/auth-tokens`, {
    method: 'POST',
    headers: { ...headers, 'x-signature': sign('sha256', Buffer.from(tokenBody), privateKey).toString('base64') },
    body: tokenBody,
  });
  const { token } = (await tokenResponse.json()) as { token: string };
  const created = await fetch(`${url}/payouts/bench-payout-1`, {
    method: 'POST',
    headers: { ...headers, authorization: `Bearer ${token}` },
    body: JSON.stringify({
      paymentRequested: { money: { amount: 10.5, currencyCode: 'EUR' } },
      paymentMethod: {
        paymentMethodCode: 'BANK_TRANSFER',
        paymentOperatorCode: 'EU_SEPA',
        account: { accountName: 'Bench Account', accountNumber: 'DE89370400440532013001' },
        emailAddress: 'bench@example.com',
      },
    }),
  });
  if (created.status !== 201) throw new Error(`could not create the payout: ${created.status}`);
  return token;
}

async function main(): Promise<void> {
  const seconds = argNumber('seconds', 10);
  const connections = argNumber('connections', 20);
  const dir = await mkdtemp(join(tmpdir(), 'bench-sandbox-'));
  const configFile = join(dir, 'config.json');
  await writeFile(configFile, JSON.stringify({ rateLimitPerSecond: null }));
  const sandbox = await startSandboxProcess(configFile);
  try {
    const token = await prepare(sandbox.url);
    const result = await autocannon({
      url: `${sandbox.url}/payouts/bench-payout-1`,
      method: 'GET',
      headers: { 'x-api-version': '2', authorization: `Bearer ${token}` },
      connections,
      duration: seconds,
    });
    const rps = Math.round(result.requests.average);
    console.log(`GET /payouts/{id}: ${rps} requests/s average (${connections} connections, ${seconds} s)`);
    console.log(`  total ${result.requests.total}, 2xx ${result['2xx']}, non-2xx ${result.non2xx}, errors ${result.errors}`);
    console.log(`  latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms`);
    console.log(`  target ${TARGET_RPS} requests/s: ${rps >= TARGET_RPS ? 'met' : 'NOT met'}`);
    if (result.non2xx > 0 || result.errors > 0) process.exitCode = 1;
  } finally {
    sandbox.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
