// A real profile (in-memory key store, real RSA key registered with the sandbox), the real
// GatewayClient and the engine over a real journal, built by the app's own DeskRuntime: what the
// app runs, on loopback.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAppContext, type AppContext } from '../../../main/context';
import type { PayoutDraft } from '../../../main/domain/payout';
import { createDeskEvents } from '../../../main/desk/events';
import { journalPath } from '../../../main/desk/profile-engine';
import { createDeskRuntime, type DeskRuntime } from '../../../main/desk/runtime';
import type { PayoutEngine, PayoutEngineOptions } from '../../../main/engine';
import { Journal, openJournal } from '../../../main/store/sqlite';
import { MemoryKeyStore, type KeyStore } from '../../../main/keys/key-store';
import { startSandbox, type SandboxConfigInput, type SandboxHandle } from '../../../sandbox/index';

export const MERCHANT = 'DEMO-MERCHANT';

export function sandboxConfig(overrides: SandboxConfigInput = {}): SandboxConfigInput {
  return {
    rateLimitPerSecond: 10,
    timings: { payoutPendingMs: 50, payoutProcessingMs: 50, payinExpiryMs: 60_000 },
    callbackRetry: { maxAttempts: 2, initialDelayMs: 20, factor: 2, maxDelayMs: 100, timeoutMs: 500 },
    ...overrides,
  };
}

/** Engine timings small enough for tests. */
export const TEST_ENGINE_TIMINGS: Partial<PayoutEngineOptions> = { pollIntervalMs: 200, pollTickMs: 20, backoff: { baseMs: 50, capMs: 500 }, balancesIntervalMs: null };

export interface Desk {
  home: string;
  ctx: AppContext;
  runtime: DeskRuntime;
  profileId: string;
  /** The profile's started engine, on its SQLite journal (these tests read the journal synchronously). */
  engine(): Promise<PayoutEngine<Journal>>;
  dispose(): Promise<void>;
}

/** A runtime's engine whose journal is a single desk's SQLite journal (what these desks open). */
export async function sqliteEngine(runtime: DeskRuntime, profileId: string): Promise<PayoutEngine<Journal>> {
  const engine = await runtime.engineFor(profileId);
  if (!(engine.journal instanceof Journal)) throw new Error('expected the profile on its own SQLite journal');
  return engine as PayoutEngine<Journal>;
}

/** A data folder with one profile on `baseUrl`; its public key is registered with `sandbox` when given. */
export async function createDesk(opts: {
  baseUrl: string;
  sandbox?: SandboxHandle;
  rateLimitPerSec?: number;
  home?: string;
  keyStore?: KeyStore;
  engine?: Partial<PayoutEngineOptions>;
  fetchTimeoutMs?: number;
  journalSynchronous?: 'FULL' | 'NORMAL';
}): Promise<Desk> {
  const home = opts.home ?? mkdtempSync(join(tmpdir(), 'desk-engine-'));
  const ctx = createAppContext({ home, keyStore: opts.keyStore ?? new MemoryKeyStore(), fetchTimeoutMs: opts.fetchTimeoutMs ?? 5_000 });
  const existing = ctx.profiles.list().find((p) => p.name === 'Engine test');
  const profile = existing ?? ctx.profiles.add({ name: 'Engine test', baseUrl: opts.baseUrl, merchantCode: MERCHANT, rateLimitPerSec: opts.rateLimitPerSec ?? 10, pollIntervalSecs: 1 });
  if (!existing) await ctx.keys.generateKey(profile.id, 2048);
  if (opts.sandbox) opts.sandbox.registerPublicKey(MERCHANT, await ctx.keys.publicKeyPem(profile.id));
  const runtime = createDeskRuntime({
    ctx,
    events: createDeskEvents(),
    log: ctx.logger,
    openJournal: (profileId) => openJournal(journalPath(home, profileId), { synchronous: opts.journalSynchronous ?? 'NORMAL' }),
    engineOptions: () => ({ ...TEST_ENGINE_TIMINGS, ...opts.engine }),
  });
  return {
    home,
    ctx,
    runtime,
    profileId: profile.id,
    engine: () => sqliteEngine(runtime, profile.id),
    async dispose() {
      await runtime.close();
      ctx.close();
      if (!opts.home) rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Payout rows for the sandbox: EUR over SEPA; every 10th account ends in 0000 so the sandbox fails it. */
export function payoutRows(count: number, prefix: string): PayoutDraft[] {
  return Array.from({ length: count }, (_, i) => ({
    idPayout: `${prefix}-${String(i + 1).padStart(4, '0')}`,
    amountMinor: 1_00 + i,
    currencyCode: 'EUR',
    accountName: `Beneficiary ${i + 1}`,
    accountNumber: i % 10 === 9 ? `DE89370400${String(i).padStart(8, '1')}0000` : `DE89370400${String(i).padStart(8, '1')}1234`,
    paymentOperatorCode: 'EU_SEPA',
    paymentMethodCode: 'BANK_TRANSFER',
    emailAddress: `b${i + 1}@example.com`,
  }));
}

export async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export { startSandbox };
