// The CLI's money-safety commands against the sandbox, as the UI has them: a payout that cannot be
// sent (key not registered yet) is kept HELD with its reason (exit 4) and is sent exactly once by
// `payouts release` after the fix, or dropped by `payouts discard`; `payouts get` shows the reason,
// the intent, its attempts and the retry links; `batch retry-failed` lists exactly the rows main marks
// retryable with exact totals, needs a confirmation (--yes, or an answer on a terminal), sends only
// those rows as a new batch, and refuses a second time.
import axios from 'axios';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchResultRow, BatchView, Page, PaymentDetail } from '../../../contract/api';
import { runCli, type CliIo } from '../../../main/cli/index';
import { createAppContext } from '../../../main/context';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { startSandbox, type SandboxHandle } from '../../../sandbox/index';

let sandbox: SandboxHandle;
const home = mkdtempSync(join(tmpdir(), 'desk-cli-safety-'));
const keyStore = new MemoryKeyStore();
const PROFILE = 'sandbox-eu';

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  return cliWith({}, ...args);
}

/** Runs the CLI with extra io (e.g. `ask`, as a person at a terminal would answer). */
async function cliWith(extra: Partial<CliIo>, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['--home', home, ...args], { keyStore, io: { stdout: (t) => void (out += t), stderr: (t) => void (err += t), ...extra } });
  return { code, out, err };
}

async function json<T>(...args: string[]): Promise<T> {
  const r = await cli('--json', ...args);
  if (r.code !== 0) throw new Error(`exit ${r.code}: ${r.err}${r.out}`);
  return JSON.parse(r.out) as T;
}

const payout = ['--amount', '40.00', '--currency', 'EUR', '--account-name', 'Hal Held', '--account-number', 'DE89370400440532013000', '--operator', 'EU_SEPA', '--email', 'hal@example.com'];
const storedAtSandbox = (id: string) => sandbox.state().payouts.filter((p) => p.idPayout === id).length;

beforeAll(async () => {
  sandbox = await startSandbox();
  expect((await cli('profiles', 'add', '--name', 'Sandbox EU', '--base-url', sandbox.url, '--merchant-code', 'DEMO-MERCHANT')).code).toBe(0);
  expect((await cli('keys', 'generate', '--bits', '2048')).code).toBe(0);
  // The public key is NOT registered at the sandbox yet: the gateway refuses every signed request.
  const ctx = createAppContext({ home, keyStore });
  ctx.profiles.update(PROFILE, { pollIntervalSecs: 1 });
  ctx.close();
});
afterAll(async () => sandbox.close());

describe('held payouts', () => {
  it('keeps a payout the gateway refuses to authenticate as HELD, says why and how to release or discard it', async () => {
    const r = await cli('payouts', 'create', ...payout, '--id', 'held-1');
    expect(r.code).toBe(4);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/^error: Payout held-1 is held, not sent; .*Reason: .*(signature|key)/i);
    expect(r.err).toContain('Payout held-1 is kept as HELD under its id: nothing was sent');
    expect(r.err).toContain('payout-desk payouts release held-1');
    expect(r.err).toContain('payout-desk payouts discard held-1');
    expect(r.err).not.toMatch(/unexpected problem/i);
    expect(storedAtSandbox('held-1')).toBe(0);

    // Another amount: the same one again would be a possible duplicate of held-1 (held payouts may still pay).
    const asJson = await cli('--json', 'payouts', 'create', ...payout.map((a) => (a === '40.00' ? '40.01' : a)), '--id', 'held-2');
    expect(asJson.code).toBe(4);
    expect(JSON.parse(asJson.err)).toMatchObject({ error: { code: 'PAYOUT_HELD', idPayout: 'held-2', message: expect.stringMatching(/^Payout held-2 is held, not sent; /) } });

    // The same --id again is not a new payout: it is still held, and still not sent.
    const again = await cli('payouts', 'create', ...payout, '--id', 'held-1');
    expect(again.code).toBe(4);
    expect(again.err).toMatch(/^error: Payout held-1 is already in the journal and is held: Held, not sent: /);
    expect(storedAtSandbox('held-1')).toBe(0);
  });

  it('shows a held payout with its reason and intent, in one status vocabulary', async () => {
    const r = await cli('payouts', 'get', 'held-1');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^Payout held-1 {2}HELD\n/);
    expect(r.out).toMatch(/\n {2}Reason: {5}Held, not sent: .+ Release it after the fix, or discard it\.\n/);
    expect(r.out).not.toContain('local state');
    const detail = await json<PaymentDetail>('payouts', 'get', 'held-1');
    expect(detail).toMatchObject({ id: 'held-1', localState: 'HELD', final: false });
    expect(detail.intentId).toBeTruthy();
    expect(r.out).toContain(`  Intent:     ${detail.intentId}\n`);
    expect(r.out).toMatch(/Attempts of this intent \(1, oldest first; \* this one\):\n {2}\* {2}held-1 {2}HELD /);
  });

  it('a release before the cause is fixed keeps it held; after registering the key it is sent exactly once', async () => {
    const early = await cli('payouts', 'release', 'held-1');
    expect(early.code).toBe(4);
    expect(early.err).toMatch(/^error: Payout held-1 is held, not sent; /);
    expect(early.err).toContain('payout-desk payouts discard held-1');
    expect(storedAtSandbox('held-1')).toBe(0);

    const pemFile = join(home, 'public.pem');
    expect((await cli('keys', 'export-public', '--out', pemFile)).code).toBe(0);
    await axios.post(`${sandbox.url}/_sandbox/merchants/DEMO-MERCHANT/keys`, readFileSync(pemFile, 'utf8'), { headers: { 'Content-Type': 'text/plain' } });

    const released = await cli('payouts', 'release', 'held-1');
    expect(released).toMatchObject({ code: 0, err: '' });
    expect(released.out).toMatch(/^Released payout held-1\.\nPayout held-1: [A-Z_]+ \(the gateway has it\)\n {2}40\.00 EUR to Hal Held, DE89370400440532013000\n$/);
    expect(storedAtSandbox('held-1')).toBe(1);
    expect(sandbox.state().createAttempts.payouts['held-1']).toBe(1);

    // Released once: a second release is refused and sends nothing.
    const twice = await cli('payouts', 'release', 'held-1');
    expect(twice.code).toBe(1);
    expect(twice.err).toMatch(/^error: payout held-1 is accepted, not held/);
    expect(sandbox.state().createAttempts.payouts['held-1']).toBe(1);
    expect((await json<PaymentDetail>('payouts', 'get', 'held-1')).localState).toBe('ACCEPTED');
  });

  it('discards a held payout: final, never sent, the reason kept', async () => {
    const r = await cli('payouts', 'discard', 'held-2', '--reason', 'wrong beneficiary');
    expect(r).toMatchObject({ code: 0, err: '' });
    expect(r.out).toMatch(/^Payout held-2: DISCARDED \(final\); it was never sent\.\n/);
    expect(r.out).toContain('wrong beneficiary');
    const get = await cli('payouts', 'get', 'held-2');
    expect(get.out).toMatch(/^Payout held-2 {2}DISCARDED \(final\)\n/);
    expect(get.out).toContain('Discarded, never sent: discarded while held: wrong beneficiary');
    expect(await json<PaymentDetail>('payouts', 'get', 'held-2')).toMatchObject({ localState: 'DISCARDED', final: true });

    const again = await cli('--json', 'payouts', 'discard', 'held-2');
    expect(again.code).toBe(1);
    expect(JSON.parse(again.err)).toMatchObject({ error: { code: 'BAD_STATE' } });
    expect((await cli('payouts', 'release', 'held-2')).code).toBe(1);
    expect(storedAtSandbox('held-2')).toBe(0);
    expect(sandbox.state().createAttempts.payouts['held-2']).toBeUndefined();
  });
});

describe('batch retry-failed', () => {
  let batchId = '';
  let failedIds: string[] = [];
  let okId = '';
  let retryId = '';
  const header = 'idPayout,amount,currencyCode,accountName,accountNumber,paymentOperatorCode,paymentMethodCode,emailAddress,callbackUrl,reference';
  // Accounts ending in 0000 fail at the sandbox (ACCOUNT_REJECTED); 0.10 + 0.20 must total exactly 0.30.
  const rows = [
    ',0.10,EUR,Ann Fail,DE89120300000000200000,EU_SEPA,BANK_TRANSFER,ann@example.com,,R-1',
    ',12.00,EUR,Bob Paid,DE02100500000054540402,EU_SEPA,BANK_TRANSFER,bob@example.com,,R-2',
    ',0.20,EUR,Cid Fail,DE26512108001245120000,EU_SEPA,BANK_TRANSFER,cid@example.com,,R-3',
    ',7.25,USD,Dee Fail,US123450000,US_ACH,BANK_TRANSFER,dee@example.com,,R-4',
  ];

  it('submits a batch in which three rows fail', async () => {
    const file = join(home, 'retry.csv');
    writeFileSync(file, `${[header, ...rows].join('\r\n')}\r\n`);
    const r = await cli('batch', 'submit', file, '--timeout', '60');
    expect(r, r.err).toMatchObject({ code: 1, err: '' });
    batchId = /Batch (\S+) submitted: 4 payouts/.exec(r.out)?.[1] ?? '';
    expect(r.out).toContain('Done: 3 of 4 payouts failed or were refused');
    const results = await json<BatchView & { rows: BatchResultRow[] }>('batch', 'status', batchId, '--rows');
    failedIds = results.rows.filter((x) => x.status === 'FAILED').map((x) => x.idPayout);
    okId = results.rows.find((x) => x.status === 'SUCCESS')?.idPayout ?? '';
    expect(failedIds).toHaveLength(3);
    expect(results.rows.filter((x) => x.retryable).map((x) => x.idPayout)).toEqual(failedIds);
    const human = await cli('batch', 'status', batchId);
    expect(human.out).toContain(`retryable now: 3 rows; review and send them again with "batch retry-failed ${batchId}"`);
  });

  it('refuses without --yes when there is no terminal, and when the person says no; nothing is sent', async () => {
    const before = sandbox.state().payouts.length;
    const noTty = await cli('batch', 'retry-failed', batchId);
    expect(noTty.code).toBe(2);
    expect(noTty.out).toContain('3 of 4 rows failed without being paid');
    expect(noTty.err).toMatch(/^error: Not confirmed: no terminal to ask on\. .* run again with --yes/);

    const questions: string[] = [];
    const no = await cliWith({ ask: async (q) => (questions.push(q), 'n') }, 'batch', 'retry-failed', batchId);
    expect(no.code).toBe(1);
    expect(questions).toEqual(['Send these 3 payouts again? [y/N] ']);
    expect(no.err).toMatch(/^error: Not confirmed; nothing was sent/);
    expect(sandbox.state().payouts.length).toBe(before);
    expect((await json<Page<BatchView>>('batch', 'list')).items.map((b) => b.id)).toEqual([batchId]);
  });

  it('lists exactly the retryable rows with exact totals and, with --yes, sends only those as a new batch', async () => {
    const before = sandbox.state().payouts.length;
    const r = await cli('batch', 'retry-failed', batchId, '--yes', '--timeout', '60');
    // The retried rows fail again (same accounts), so the command ends with exit code 1.
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/Total to send again:\n {2}EUR {15}0\.30 {2}\(2 payouts\)\n {2}USD {15}7\.25 {2}\(1 payout\)\n/);
    for (const id of failedIds) expect(r.out).toContain(id);
    expect(r.out.split('Total to send again:')[0]).not.toContain(okId);
    retryId = /Retry batch (\S+) submitted: 3 payouts sent again from batch (\S+)/.exec(r.out)?.[1] ?? '';
    expect(retryId).not.toBe('');
    expect(retryId).not.toBe(batchId);

    const retried = await json<BatchView & { rows: BatchResultRow[] }>('batch', 'status', retryId, '--rows');
    expect(retried.rows.map((x) => x.retryOf).sort()).toEqual([...failedIds].sort());
    expect(retried.rows.every((x) => !failedIds.includes(x.idPayout) && x.idPayout !== okId)).toBe(true);
    // Only the three failed rows went to the gateway again, each once, under new ids.
    expect(sandbox.state().payouts.length).toBe(before + 3);
    for (const x of retried.rows) expect(sandbox.state().createAttempts.payouts[x.idPayout]).toBe(1);
    for (const id of [...failedIds, okId]) expect(sandbox.state().createAttempts.payouts[id]).toBe(1);

    const original = await cli('batch', 'status', batchId, '--rows');
    expect(original.out).toContain(`retried: 3 rows sent again in batch ${retryId}`);
    const first = retried.rows.find((x) => x.retryOf === failedIds[0])!;
    expect(original.out).toMatch(new RegExp(`${failedIds[0]}\\s+FAILED\\s+.*retried as ${first.idPayout}`));
    expect((await cli('batch', 'status', retryId)).out).toContain(`retry of: 3 rows sent again from batch ${batchId} (same intents, new ids)`);

    // The retry is an attempt of the same intent: `payouts get` shows both, the current one marked.
    const get = await cli('payouts', 'get', first.idPayout);
    expect(get.out).toContain(`  Retry of:   ${failedIds[0]}\n`);
    expect(get.out).toMatch(new RegExp(`Attempts of this intent \\(2, oldest first; \\* this one\\):\\n {5}${failedIds[0]}  FAILED .*\\n {2}\\* {2}${first.idPayout}  FAILED `));
    const old = await cli('payouts', 'get', failedIds[0]!);
    expect(old.out).toContain(`  Retried as: ${first.idPayout}\n`);
    expect(old.out).toContain('  Failure:    ACCOUNT_REJECTED\n');
  });

  it('refuses a second retry of the same batch: nothing is retryable any more', async () => {
    const before = sandbox.state().payouts.length;
    const r = await cli('batch', 'retry-failed', batchId, '--yes');
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^error: Batch \S+ has no rows to retry \(3 already sent again\): .*nothing was sent/);
    expect(sandbox.state().payouts.length).toBe(before);
  });
});
