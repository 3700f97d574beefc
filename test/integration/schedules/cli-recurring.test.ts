// Recurring payouts from the CLI against the sandbox, on a desk without people (dual control off): a payee of the book
// paid weekly; the date within the lead days is made at once as a scheduled payout, listed under the payee; a later
// date skipped; paused, nothing more is made; ended.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { PaymentDetail, RecurringRunResult, RecurringView } from '../../../contract/api';
import { runCli } from '../../../main/cli/index';
import type { PayeeView } from '../../../main/desk/payees';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { dateIn, WEEKDAYS } from '../../../main/schedules/recurrence';
import { startSandbox, type SandboxHandle } from '../../../sandbox/index';
import { addSandboxProfile } from '../support/cli-sandbox-profile';

let sandbox: SandboxHandle;
const home = mkdtempSync(join(tmpdir(), 'desk-cli-recurring-'));
const keyStore = new MemoryKeyStore();

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['--home', home, ...args], { keyStore, env: process.env, io: { stdout: (t) => void (out += t), stderr: (t) => void (err += t) } });
  return { code, out, err };
}
async function json<T>(...args: string[]): Promise<T> {
  const r = await cli('--json', ...args);
  if (r.code !== 0) throw new Error(`exit ${r.code}: ${r.err}${r.out}`);
  return JSON.parse(r.out) as T;
}

beforeAll(async () => {
  sandbox = await startSandbox();
  await addSandboxProfile(cli, home, keyStore, sandbox.url);
});
afterAll(async () => {
  await sandbox.close();
});

it('pays a payee weekly: the date within the lead days made at once, a later one skipped, then paused and ended', async () => {
  const zone = 'Europe/Berlin';
  const first = dateIn(Date.now(), zone, 3);
  const weekday = WEEKDAYS[(new Date(`${first}T12:00:00Z`).getUTCDay() + 6) % 7]!;
  const payee = await json<{ payee: PayeeView }>('payees', 'add', '--name', 'Cleaner Co', '--account', 'NL91ABNA0417164300', '--operator', 'EU_SEPA', '--email', 'clean@example.com');
  const t = await json<RecurringView>('recurring', 'add', '--payee', 'Cleaner Co', '--amount', '80.00', '--currency', 'EUR', '--rule', `weekly ${weekday}`, '--reference', 'Cleaning {dd.MM.yyyy}', '--zone', zone, '--time', '07:30');
  expect(t).toMatchObject({ payeeId: payee.payee.id, state: 'ACTIVE', leadDays: 5, occurrences: [{ date: first, state: 'CREATED' }] });
  const payoutId = t.occurrences[0]!.payoutId!;
  const made = await json<PaymentDetail>('payouts', 'get', payoutId);
  expect(made).toMatchObject({ status: 'HELD', money: { amount: '80.00', currencyCode: 'EUR' }, accountName: 'Cleaner Co' });
  expect(t.referencePattern).toBe('Cleaning {dd.MM.yyyy}');

  const listed = await cli('recurring', 'list', '--payee', 'Cleaner Co');
  expect(listed.code).toBe(0);
  expect(listed.out).toContain(`${t.id}  Cleaner Co  80.00 EUR  every `);
  expect(listed.out).toMatch(new RegExp(`${first} {2}CREATED {2}${payoutId}`));

  const next = dateIn(Date.now(), zone, 10);
  expect((await cli('recurring', 'skip', t.id, first)).err).toContain('schedule cancel payout');
  const skipped = await json<RecurringView>('recurring', 'skip', t.id, next, '--reason', 'office closed');
  expect(skipped.occurrences.map((o) => [o.date, o.state])).toEqual([[next, 'SKIPPED'], [first, 'CREATED']]);
  expect((await json<RecurringView>('recurring', 'pause', t.id)).state).toBe('PAUSED');
  expect(await json<RecurringRunResult>('recurring', 'run')).toEqual({ created: [], missed: [], failed: [], waiting: null });
  expect((await json<RecurringView>('recurring', 'end', t.id)).state).toBe('ENDED');
  const resumed = await cli('recurring', 'resume', t.id);
  expect(resumed.code).not.toBe(0);
  expect(resumed.err).toContain('is ended');
});
