// Requests per second the sandbox serves for GET /payouts/{id} on loopback, rate limit off.
// Target: ≥ 2,000 requests/s on the 2-core build machine, so later benchmarks know the sandbox is not the
// bottleneck. Run: npx tsx bench/sandbox.ts [--seconds 10] [--connections 20]
import { generateKeyPairSync, sign } from 'node:crypto';
import autocannon from 'autocannon';
import { startSandbox } from '../sandbox/index';

const TARGET_RPS = 2_000;

function argNumber(name: string, fallback: number): number {
  const index = process.argv.indexOf(`--${name}`);
  const value = index === -1 ? undefined : Number(process.argv[index + 1]);
  return value !== undefined && Number.isFinite(value) && value > 0 ? value : fallback;
}

async function main(): Promise<void> {
  const seconds = argNumber('seconds', 10);
  const connections = argNumber('connections', 20);
  const sandbox = await startSandbox({ rateLimitPerSecond: null });
  try {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    sandbox.registerPublicKey('DEMO-MERCHANT', publicKey.export({ type: 'spki', format: 'pem' }).toString());
    const headers = { 'content-type': 'application/json', 'x-api-version': '2' };
    const readHeaders = { 'x-api-version': '2' };
    const tokenBody = JSON.stringify({
      merchantCode: 'DEMO-MERCHANT',
      validitySecs: 3600,
      operations: ['(GET|POST) /payouts/.*'],
      timestamp: Date.now(),
    });
    const tokenResponse = await fetch(`${sandbox.url}/auth-tokens`, {
      method: 'POST',
      headers: { ...headers, 'x-signature': sign('sha256', Buffer.from(tokenBody), privateKey).toString('base64') },
      body: tokenBody,
    });
    const { token } = (await tokenResponse.json()) as { token: string };
    const authorization = `Bearer ${token}`;
    const auth = { ...headers, authorization };
    const created = await fetch(`${sandbox.url}/payouts/bench-payout-1`, {
      method: 'POST',
      headers: auth,
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

    const result = await autocannon({
      url: `${sandbox.url}/payouts/bench-payout-1`,
      method: 'GET',
      headers: { ...readHeaders, authorization },
      connections,
      duration: seconds,
    });
    const ok = result['2xx'];
    const rps = Math.round(result.requests.average);
    console.log(`GET /payouts/{id}: ${rps} requests/s average (${connections} connections, ${seconds} s)`);
    console.log(`  total ${result.requests.total}, 2xx ${ok}, non-2xx ${result.non2xx}, errors ${result.errors}`);
    console.log(`  latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms`);
    console.log(`  target ${TARGET_RPS} requests/s: ${rps >= TARGET_RPS ? 'met' : 'NOT met'}`);
    if (result.non2xx > 0 || result.errors > 0) process.exitCode = 1;
  } finally {
    await sandbox.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
