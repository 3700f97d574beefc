// The CLI says who can still approve, and never points at "batch resume" before the approvals are there: the
// README's old dual-control example (Ada with every role prepares, Bob the only other approver, a policy asking
// 2 approvals of 1,000 EUR or more to a new payee) pauses with "no one on this desk can give the 2nd approval"
// and the way out; once Cy is an approver it names her, `approvals show` and `approvals list` say the same, a
// second approval by Bob is refused, and only then is "batch resume" printed, which sends it. A held payout
// says who can approve it.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../main/cli/index';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { startSandbox, type SandboxHandle } from '../../../sandbox/index';
import { addSandboxProfile } from '../support/cli-sandbox-profile';

let sandbox: SandboxHandle;
const home = mkdtempSync(join(tmpdir(), 'desk-cli-hints-'));
const keyStore = new MemoryKeyStore();
// As `npx payout-desk …` starts it: hints are printed that way.
const env = { ...process.env, npm_command: 'exec', npm_lifecycle_event: undefined, ADA_PASS: 'ada passphrase 1', BOB_PASS: 'bob passphrase 2', CY_PASS: 'cy passphrase 3' };

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['--home', home, ...args], { keyStore, env, io: { stdout: (t) => void (out += t), stderr: (t) => void (err += t) } });
  return { code, out, err };
}
const asAda = ['--as', 'Ada', '--passphrase-env', 'ADA_PASS'];
const asBob = ['--as', 'Bob', '--passphrase-env', 'BOB_PASS'];
const asCy = ['--as', 'Cy', '--passphrase-env', 'CY_PASS'];

beforeAll(async () => {
  sandbox = await startSandbox();
  await addSandboxProfile(cli, home, keyStore, sandbox.url);
  expect((await cli('people', 'add', '--name', 'Ada', '--new-passphrase-env', 'ADA_PASS')).code).toBe(0);
  expect((await cli('people', 'enroll', '--name', 'Bob', '--new-passphrase-env', 'BOB_PASS')).code).toBe(0);
  expect((await cli('people', 'roles', 'Bob', '--roles', 'approver', ...asAda)).code).toBe(0);
  const rules = join(home, 'rules.json');
  writeFileSync(rules, JSON.stringify({ bands: { EUR: [{ atLeast: '1000', approvals: 1 }] }, newOrChangedPayee: 1 }));
  expect((await cli('policy', 'set', '--file', rules, ...asAda)).code).toBe(0);
});
afterAll(async () => {
  await sandbox.close();
});

const header = 'idPayout,amount,currencyCode,accountName,accountNumber,paymentOperatorCode,paymentMethodCode,emailAddress,callbackUrl,reference';

describe('hints that name who can still approve', () => {
  let batchId = '';

  it('a batch needing more approvals than the desk can give says so and what to do, and does not say "batch resume"', async () => {
    const file = join(home, 'big.csv');
    writeFileSync(file, `${header}\r\nhint-1,1500.00,EUR,Nia New,DE02120300000000202051,EU_SEPA,BANK_TRANSFER,nia@example.com,,\r\n`);
    const r = await cli('batch', 'submit', file, '--timeout', '30', ...asAda);
    expect(r.code).toBe(3);
    batchId = /Batch (\S+) submitted/.exec(r.out)?.[1] ?? '';
    expect(r.out).toContain('Paused: Nothing was sent: it needs 2 approvals (1500.00 EUR: 1; new or changed payee: +1), has 0.');
    expect(r.out).toContain(
      'Waiting for approval: it needs 2 more approvals, and only Bob can give one: no one on this desk can give the 2nd approval: grant the approver role to another person ' +
        '(npx payout-desk people roles <name> --roles approver --as <admin> --passphrase-env <VAR>) or lower the policy (npx payout-desk policy set --file rules.json --as <admin> --passphrase-env <VAR>).',
    );
    expect(r.out).toContain(`Bob signs it with: npx payout-desk approvals approve batch ${batchId} --as Bob --passphrase-env BOB_PASS`);
    expect(r.out).not.toContain('batch resume');
  });

  it('after Bob approves: the 2nd approval nobody can give; a second approval by Bob is refused with why', async () => {
    const approved = await cli('approvals', 'approve', 'batch', batchId, ...asBob);
    expect(approved.code).toBe(0);
    expect(approved.out).toContain('Waiting for approval: it needs 1 more approval, and no one on this desk can give the 2nd approval: grant the approver role');
    expect(approved.out).not.toContain('batch resume');
    const again = await cli('approvals', 'approve', 'batch', batchId, ...asBob);
    expect(again.code).toBe(1);
    expect(again.err).toContain('Bob approved this batch already and a second approval by the same person would not count; it needs 1 more approval, and no one on this desk can give the 2nd approval');
    // With a note it is signed another way (the dual-control service directly): refused the same.
    expect((await cli('approvals', 'approve', 'batch', batchId, '--reason', 'sure', ...asBob)).err).toContain('Bob approved this batch already');
    expect((await cli('--json', 'approvals', 'list')).out.match(/"decision": ?"approve"/g)).toHaveLength(1);
  });

  it('once Cy is an approver, show, list and resume name her; her approval brings "batch resume", which sends it', async () => {
    expect((await cli('people', 'enroll', '--name', 'Cy', '--new-passphrase-env', 'CY_PASS')).code).toBe(0);
    expect((await cli('people', 'roles', 'Cy', '--roles', 'approver', ...asAda)).code).toBe(0);
    const shown = await cli('approvals', 'show', 'batch', batchId);
    expect(shown.out).toContain('Waiting for approval: it needs 1 more approval from: Cy.');
    expect(shown.out).toContain(`Cy signs it with: npx payout-desk approvals approve batch ${batchId} --as Cy --passphrase-env CY_PASS`);
    const listed = await cli('approvals', 'list');
    expect(listed.out).toContain(`batch ${batchId} (big.csv):\n  Waiting for approval: it needs 1 more approval from: Cy.`);
    const resumedEarly = await cli('batch', 'resume', batchId, '--timeout', '30', ...asAda);
    expect(resumedEarly.out).toContain('Waiting for approval: it needs 1 more approval from: Cy.');
    expect(resumedEarly.out).not.toContain('batch resume');
    expect(sandbox.state().createAttempts.payouts['hint-1']).toBeUndefined();

    const byCy = await cli('approvals', 'approve', 'batch', batchId, ...asCy);
    expect(byCy.out).toContain('may be sent: approved by 2 of 2 needed');
    expect(byCy.out).toContain(`Approved: a sender sends it with: npx payout-desk batch resume ${batchId} --as Ada --passphrase-env ADA_PASS`);
    expect((await cli('approvals', 'list')).out).not.toContain('Waiting for approval');
    const resumed = await cli('batch', 'resume', batchId, '--timeout', '30', ...asAda);
    expect(resumed.out).toContain('Done: 1 payout, final and successful.');
  });

  it('a held payout says who can approve it instead of "release"', async () => {
    const payout = ['--amount', '1200.00', '--currency', 'EUR', '--account-name', 'Oli Other', '--account-number', 'DE89370400440532013000', '--operator', 'EU_SEPA', '--email', 'oli@example.com', '--id', 'hint-held'];
    const held = await cli('payouts', 'create', ...payout, ...asAda);
    expect(held.code).toBe(4);
    expect(held.err).toContain('Waiting for approval: it needs 2 more approvals from: Bob, Cy.');
    expect(held.err).toContain('An approver signs it with: npx payout-desk approvals approve payout hint-held --as Bob --passphrase-env BOB_PASS');
    expect(held.err).not.toContain('payouts release');
  });
});
