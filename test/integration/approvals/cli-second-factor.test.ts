// The second factor on the command line: Bob sets it up at his desk (a QR code and secret, then the first code,
// then ten recovery codes shown once); under a policy that asks for it, his approval is refused until he gives
// a code, from an environment variable or a file and never from argv; a recovery code works once; an admin
// without a second factor is told to set one up before changing roles.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../main/cli/index';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { codeAt } from '../../../main/people/second-factor';
import { startSandbox, type SandboxHandle } from '../../../sandbox/index';
import { addSandboxProfile } from '../support/cli-sandbox-profile';

let sandbox: SandboxHandle;
const home = mkdtempSync(join(tmpdir(), 'desk-cli-2fa-'));
const keyStore = new MemoryKeyStore();
const baseEnv = { ...process.env, ADA_PASS: 'ada passphrase 1', BOB_PASS: 'bob passphrase 2' };

async function cli(extraEnv: Record<string, string>, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['--home', home, ...args], { keyStore, env: { ...baseEnv, ...extraEnv }, io: { stdout: (t) => void (out += t), stderr: (t) => void (err += t) } });
  return { code, out, err };
}
const asAda = ['--as', 'Ada', '--passphrase-env', 'ADA_PASS'];
const asBob = ['--as', 'Bob', '--passphrase-env', 'BOB_PASS'];

beforeAll(async () => {
  sandbox = await startSandbox();
  await addSandboxProfile((...args: string[]) => cli({}, ...args), home, keyStore, sandbox.url);
  expect((await cli({}, 'people', 'add', '--name', 'Ada', '--new-passphrase-env', 'ADA_PASS')).code).toBe(0);
  expect((await cli({}, 'people', 'enroll', '--name', 'Bob', '--new-passphrase-env', 'BOB_PASS')).code).toBe(0);
  expect((await cli({}, 'people', 'roles', 'Bob', '--roles', 'approver', ...asAda)).code).toBe(0);
  const rules = join(home, 'rules.json');
  writeFileSync(rules, JSON.stringify({ bands: { EUR: [{ atLeast: '1000', approvals: 1 }] }, newOrChangedPayee: 0, secondFactor: true }));
  expect((await cli({}, 'policy', 'set', '--file', rules, ...asAda)).code).toBe(0);
});
afterAll(async () => {
  await sandbox.close();
});

const header = 'idPayout,amount,currencyCode,accountName,accountNumber,paymentOperatorCode,paymentMethodCode,emailAddress,callbackUrl,reference';

describe('second factor on the command line', { timeout: 60_000 }, () => {
  let secret = '';
  let recovery: string[] = [];
  let batchId = '';

  it('policy show says the policy asks for it', async () => {
    expect((await cli({}, 'policy', 'show')).out).toContain('a second factor on every approval and admin change');
  });

  it('enrol prints a QR code, the otpauth URI and the secret, and how to confirm', async () => {
    const r = await cli({}, 'people', 'second-factor', 'enrol', ...asBob);
    expect(r.err).toBe('');
    const uri = /otpauth:\/\/totp\/\S+/.exec(r.out)?.[0] ?? '';
    secret = new URL(uri).searchParams.get('secret') ?? '';
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(r.out).toContain(`type the secret ${secret}`);
    expect(r.out).toMatch(/[▀▄█]/);
    expect(r.out).toContain('people second-factor confirm --as Bob --passphrase-env <VAR> --code-env <VAR>');
  });

  it('confirm takes the code the app shows and prints ten recovery codes', async () => {
    const r = await cli({ BOB_CODE: codeAt(secret, Date.now()) }, 'people', 'second-factor', 'confirm', ...asBob, '--code-env', 'BOB_CODE');
    expect(r.err).toBe('');
    recovery = [...r.out.matchAll(/^ {2}([A-Z2-9]{5}-[A-Z2-9]{5})$/gm)].map((m) => m[1]!);
    expect(recovery).toHaveLength(10);
    expect(r.out).toContain('shown only now');
    expect((await cli({}, 'people', 'second-factor', 'status', ...asBob)).out).toContain('Bob has a second factor on this desk (10 recovery codes left)');
  });

  it('an approval without a code is refused, saying where the code goes; a code on the command line is not an option', async () => {
    const file = join(home, 'big.csv');
    writeFileSync(file, `${header}\r\n2fa-1,1500.00,EUR,Nia New,DE02120300000000202051,EU_SEPA,BANK_TRANSFER,nia@example.com,,\r\n`);
    const submitted = await cli({}, 'batch', 'submit', file, '--timeout', '30', ...asAda);
    batchId = /Batch (\S+) submitted/.exec(submitted.out)?.[1] ?? '';
    expect(batchId).not.toBe('');
    const refused = await cli({}, 'approvals', 'approve', 'batch', batchId, ...asBob);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('A code of your second factor is needed to approve: give the code your authenticator app shows (or a recovery code) with --code-env <VAR> or --code-file <file>');
    const argv = await cli({}, 'approvals', 'approve', 'batch', batchId, ...asBob, '--code', '123456');
    expect(argv.code).not.toBe(0);
    expect(argv.err).toContain("unknown option '--code'");
  });

  it('the app\'s next code approves; the same code again is a replay', async () => {
    // The confirming code used this step: the app's next one (30 s on, within the step either side) is new.
    const next = codeAt(secret, Date.now() + 30_000);
    const codeFile = join(home, 'code.txt');
    writeFileSync(codeFile, `${next}\n`);
    const approved = await cli({}, 'approvals', 'approve', 'batch', batchId, ...asBob, '--code-file', codeFile);
    expect(approved.err).toBe('');
    expect(approved.out).toContain(`Approved batch ${batchId}`);
    const replay = await cli({ BOB_CODE: next }, 'people', 'roles', 'Bob', '--roles', 'approver', ...asBob, '--code-env', 'BOB_CODE');
    expect(replay.err).toContain('That code was used already');
  });

  it('a recovery code works once in place of the app', async () => {
    const remove = await cli({ BOB_CODE: recovery[0]! }, 'people', 'second-factor', 'remove', ...asBob, '--code-env', 'BOB_CODE');
    // The policy asks everyone for one: it cannot be removed, and the recovery code is not spent on the refusal.
    expect(remove.code).toBe(1);
    expect(remove.err).toContain('requires a second factor');
    expect((await cli({}, 'people', 'second-factor', 'status', ...asBob)).out).toContain('(10 recovery codes left)');
  });

  it('people alerts lists the kinds, and mutes one for --as at this desk', async () => {
    const muted = await cli({}, 'people', 'alerts', ...asBob, '--mute', 'approval-waiting');
    expect(muted.err).toBe('');
    expect(muted.out).toMatch(/muted {2}approval-waiting +Something waits for my approval/);
    expect(muted.out).toMatch(/on {5}payout-held/);
    expect((await cli({}, 'people', 'alerts', ...asBob)).out).toMatch(/muted {2}approval-waiting/);
    expect((await cli({}, 'people', 'alerts', ...asBob, '--unmute', 'approval-waiting')).out).toMatch(/on {5}approval-waiting/);
    const wrong = await cli({}, 'people', 'alerts', ...asBob, '--mute', 'everything');
    expect(wrong.code).toBe(2);
    expect(wrong.err).toContain('"everything" is not a kind of alert');
  });

  it('an admin without a second factor is told to set one up before changing roles', async () => {
    const r = await cli({}, 'people', 'roles', 'Bob', '--roles', 'approver,viewer', ...asAda);
    expect(r.code).toBe(1);
    expect(r.err).toContain('Ada needs a second factor to sign admin changes on this profile: set one up first');
  });
});
