// Benchmark: how close the shared rate limiter runs to the gateway's limit without a single 429.
// Starts the sandbox in-process (limit 10/s unless --limit), drives N mixed calls from C concurrent
// callers through one GatewayClient, and prints the achieved rates and the sandbox's 429 count.
//   npx tsx bench/limiter.ts [--calls 300] [--callers 8] [--limit 10]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createAppContext } from '../main/context';
import { MemoryKeyStore } from '../main/keys/key-store';
import { startSandbox } from '../sandbox/index';

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '300' },
    callers: { type: 'string', default: '8' },
    limit: { type: 'string', default: '10' },
  },
});
const calls = Number(values.calls);
const callers = Number(values.callers);
const limit = Number(values.limit);

const sandbox = await startSandbox({ rateLimitPerSecond: limit, timings: { payoutPendingMs: 50, payoutProcessingMs: 50 } });
const home = mkdtempSync(join(tmpdir(), 'bench-limiter-'));
const ctx = createAppContext({ home, keyStore: new MemoryKeyStore() });
try {
  const profile = ctx.profiles.add({ name: 'Bench', baseUrl: sandbox.url, merchantCode: 'DEMO-MERCHANT', rateLimitPerSec: limit });
  await ctx.keys.generateKey(profile.id, 2048);
  sandbox.registerPublicKey('DEMO-MERCHANT', await ctx.keys.publicKeyPem(profile.id));
  const client = ctx.gatewayFor(profile.id);
  const limiter = ctx.limiterFor(profile);

  const payout = (i: number) => ({
    amountMinor: 1000 + i,
    currencyCode: 'EUR',
    accountName: 'Bench Payee',
    accountNumber: `DE8937040044053201${String(i).padStart(4, '1')}`,
    paymentOperatorCode: 'EU_SEPA',
    paymentMethodCode: 'BANK_TRANSFER',
    emailAddress: 'bench@example.com',
  });
  const work: (() => Promise<unknown>)[] = Array.from({ length: calls }, (_, i) => {
    switch (i % 5) {
      case 0:
        return () => client.createPayout(`bench-${i}`, payout(i));
      case 1:
        return () => client.getPayout(`bench-${i - 1}`).catch(() => undefined);
      case 2:
        return () => client.balances(['EUR', 'USD']);
      case 3:
        return () => client.merchantInfo();
      default:
        return () => client.paymentOperators();
    }
  });

  let next = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (next < work.length) {
        const job = work[next++]!;
        await job().catch(() => void failures++);
      }
    }),
  );
  const elapsedMs = performance.now() - started;
  const stats = limiter.stats();
  const state = sandbox.state();
  const sustained = stats.sustainedPerSec ?? 0;
  console.log(`limiter benchmark: ${calls} mixed calls, ${callers} concurrent callers, gateway limit ${limit}/s`);
  console.log(`  requests sent (incl. token + currency list): ${stats.released}`);
  console.log(`  wall time: ${(elapsedMs / 1000).toFixed(2)} s  → ${(calls / (elapsedMs / 1000)).toFixed(2)} calls/s`);
  console.log(`  sustained rate: ${sustained.toFixed(2)} req/s (${((sustained / limit) * 100).toFixed(1)} % of the limit)`);
  console.log(`  429 answers from the sandbox: ${state.rateLimitedCount}`);
  console.log(`  failed calls: ${failures}`);
} finally {
  ctx.close();
  await sandbox.close();
  rmSync(home, { recursive: true, force: true });
}
