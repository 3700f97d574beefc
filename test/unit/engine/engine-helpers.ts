// Builds an engine over a temp journal and a FakeGateway with test-sized timings.
import type { PayoutDraft } from '../../../main/domain/payout';
import { PayoutEngine, type PayoutEngineOptions } from '../../../main/engine';
import { tempJournal, type TempJournal } from '../journal/helpers';
import { FakeGateway } from './fake-gateway';

export interface EngineFixture {
  engine: PayoutEngine;
  gateway: FakeGateway;
  t: TempJournal;
  dispose(): Promise<void>;
}

export function engineFixture(options: Partial<PayoutEngineOptions> = {}, gateway = new FakeGateway(), t = tempJournal()): EngineFixture {
  const engine = new PayoutEngine({
    journal: t.journal,
    gateway,
    pollIntervalMs: 20,
    pollTickMs: 5,
    backoff: { baseMs: 5, capMs: 20 },
    ...options,
  });
  return {
    engine,
    gateway,
    t,
    async dispose() {
      await engine.stop();
      t.dispose();
    },
  };
}

export function draft(idPayout: string, overrides: Partial<PayoutDraft> = {}): PayoutDraft {
  return {
    idPayout,
    amountMinor: 10_000,
    currencyCode: 'EUR',
    accountName: 'Grace Hopper',
    accountNumber: 'NL91ABNA0417164300',
    paymentOperatorCode: 'EU_SEPA',
    paymentMethodCode: 'BANK_TRANSFER',
    emailAddress: 'grace@example.com',
    ...overrides,
  };
}

export async function until(check: () => boolean, timeoutMs = 3_000): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}
