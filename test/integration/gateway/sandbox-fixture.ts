// A running sandbox plus an app context whose profile points at it, with a registered key.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, type SandboxConfigInput, type SandboxHandle } from '../../../sandbox/index';
import { createAppContext, type AppContext } from '../../../main/context';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import type { Logger } from '../../../main/log';
import type { ProfileInput } from '../../../main/profiles/profile-schema';

export interface SandboxFixture {
  sandbox: SandboxHandle;
  ctx: AppContext;
  profileId: string;
  home: string;
  close(): Promise<void>;
}

export async function sandboxFixture(
  options: { config?: SandboxConfigInput; profile?: Partial<ProfileInput>; logger?: Logger; fetchTimeoutMs?: number; register?: boolean } = {},
): Promise<SandboxFixture> {
  const sandbox = await startSandbox(options.config ?? {});
  const home = mkdtempSync(join(tmpdir(), 'desk-int-'));
  const ctx = createAppContext({
    home,
    keyStore: new MemoryKeyStore(),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.fetchTimeoutMs ? { fetchTimeoutMs: options.fetchTimeoutMs } : {}),
  });
  const profile = ctx.profiles.add({ name: 'Sandbox', baseUrl: sandbox.url, merchantCode: 'DEMO-MERCHANT', ...options.profile });
  await ctx.keys.generateKey(profile.id, 2048);
  if (options.register !== false) sandbox.registerPublicKey('DEMO-MERCHANT', await ctx.keys.publicKeyPem(profile.id));
  return {
    sandbox,
    ctx,
    profileId: profile.id,
    home,
    async close() {
      ctx.close();
      await sandbox.close();
    },
  };
}

export const samplePayout = {
  amountMinor: 125050,
  currencyCode: 'EUR',
  accountName: 'Jane Doe',
  accountNumber: 'DE89370400440532013000',
  paymentOperatorCode: 'EU_SEPA',
  paymentMethodCode: 'BANK_TRANSFER',
  emailAddress: 'jane@example.com',
};

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `fn` until `done` says so or the time is up. */
export async function eventually<T>(fn: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (done(value) || Date.now() > until) return value;
    await sleep(150);
  }
}
