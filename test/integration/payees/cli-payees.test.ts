// The payee book through the CLI against the sandbox: payees saved by hand and exported (formulas
// neutralised), a bad import refused whole with row numbers, then under dual control a change of bank
// details that waits for an approver, and a batch paying a new payee that needs the policy's extra
// approval (shown row by row to the approver) before it is sent; the new payee then saved from its payout.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntryView, BatchView, Page } from '../../../contract/api';
import { runCli } from '../../../main/cli/index';
import type { SubjectView } from '../../../main/desk/dual-control';
import type { PayeeView } from '../../../main/desk/payees';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { startSandbox, type SandboxHandle } from '../../../sandbox/index';
import { addSandboxProfile } from '../support/cli-sandbox-profile';

let sandbox: SandboxHandle;
const home = mkdtempSync(join(tmpdir(), 'desk-cli-payees-'));
const keyStore = new MemoryKeyStore();
const env = { ...process.env, ADA_PASS: 'ada passphrase 1', BOB_PASS: 'bob passphrase 2', EVE_PASS: 'eve passphrase 3' };

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['--home', home, ...args], { keyStore, env, io: { stdout: (t) => void (out += t), stderr: (t) => void (err += t) } });
  return { code, out, err };
}
async function json<T>(...args: string[]): Promise<T> {
  const r = await cli('--json', ...args);
  if (r.code !== 0) throw new Error(`exit ${r.code}: ${r.err}${r.out}`);
  return JSON.parse(r.out) as T;
}
const file = (name: string, lines: string[]) => {
  const path = join(home, name);
  writeFileSync(path, `${lines.join('\r\n')}\r\n`);
  return path;
};
const audit = async () => (await json<Page<AuditEntryView>>('audit', 'list', '--limit', '200')).items;
const asAda = ['--as', 'Ada', '--passphrase-env', 'ADA_PASS'];
const asBob = ['--as', 'Bob', '--passphrase-env', 'BOB_PASS'];
const asEve = ['--as', 'Eve', '--passphrase-env', 'EVE_PASS'];

beforeAll(async () => {
  sandbox = await startSandbox();
  await addSandboxProfile(cli, home, keyStore, sandbox.url);
});
afterAll(async () => {
  await sandbox.close();
});

describe('the payee book from the CLI', () => {
  it('saves payees by hand and exports them with formulas neutralised', async () => {
    expect((await cli('payees', 'list')).out).toContain('No payees yet');
    const added = await cli('payees', 'add', '--name', 'Ann One', '--account', 'de02 1203 0000 0000 2020 51', '--operator', 'EU_SEPA', '--email', 'ann@example.com', '--reference', 'Rent');
    expect(added.code).toBe(0);
    expect(added.out).toMatch(/Added \S+ {2}Ann One {2}DE02120300000000202051 \(EU_SEPA\) {2}<ann@example.com> {2}ref "Rent" {2}\[in force, version 1\]/);
    expect((await cli('payees', 'add', '--name', '@SUM(A1)', '--account', 'NL91ABNA0417164300', '--operator', 'EU_SEPA', '--email', 'sum@example.com')).code).toBe(0);
    const bad = await cli('payees', 'add', '--name', 'Typo', '--account', 'NL91ABNA0417164301', '--operator', 'EU_SEPA', '--email', 'typo@example.com');
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/check digits do not match/);
    const out = join(home, 'payees.csv');
    expect((await cli('payees', 'export', '--out', out)).code).toBe(0);
    const text = readFileSync(out, 'utf8');
    expect(text).toContain("'@SUM(A1)");
    expect(text.split('\r\n').filter(Boolean)).toHaveLength(3);
  });

  it('refuses an import with a bad row whole, naming the row, and imports a good file', async () => {
    const bad = file('bad.csv', ['accountName,accountNumber,paymentOperatorCode,emailAddress', 'Bob Two,DE02100500000054540402,EU_SEPA,bob@example.com', 'Cy Three,1.23457E+11,EU_SEPA,cy@example.com']);
    const refused = await cli('payees', 'import', bad);
    expect(refused.code).toBe(1);
    expect(refused.out).toContain('Nothing was imported: 1 problem');
    expect(refused.out).toMatch(/row 3 \(accountNumber\): "1\.23457E\+11" is in exponent notation/);
    expect((await json<PayeeView[]>('payees', 'list')).map((p) => p.name)).toEqual(['@SUM(A1)', 'Ann One']);
    const good = file('good.csv', ['accountName,accountNumber,paymentOperatorCode,emailAddress', 'Bob Two,DE02100500000054540402,EU_SEPA,bob@example.com']);
    expect((await cli('payees', 'import', good)).out).toContain('Imported: 1 added, 0 changed, 0 awaiting approval, 0 unchanged');
  });

  it('makes a change of bank details wait for an approver once dual control is on', async () => {
    await json('people', 'add', '--name', 'Ada', '--new-passphrase-env', 'ADA_PASS');
    // The others enrol themselves (here: their own desk), then Ada grants their roles.
    await json('people', 'enroll', '--name', 'Bob', '--new-passphrase-env', 'BOB_PASS');
    await json('people', 'enroll', '--name', 'Eve', '--new-passphrase-env', 'EVE_PASS');
    await json('people', 'roles', 'Bob', '--roles', 'approver', ...asAda);
    await json('people', 'roles', 'Eve', '--roles', 'preparer', ...asAda);
    const rules = join(home, 'rules.json');
    writeFileSync(rules, JSON.stringify({ bands: {}, newOrChangedPayee: 1 }));
    expect((await cli('policy', 'set', '--file', rules, ...asAda)).code).toBe(0);

    expect((await cli('payees', 'edit', 'Ann One', '--account', 'DE89370400440532013000')).err).toMatch(/Dual control is on for this profile: name a preparer with --as <person>/);
    const edit = await cli('payees', 'edit', 'ann one', '--account', 'DE89370400440532013000', ...asEve);
    expect(edit.code).toBe(3);
    expect(edit.out).toContain('awaits 1 approval of its bank details; until then it is not in force');
    expect((await json<PayeeView[]>('payees', 'list')).find((p) => p.name === 'Ann One')).toMatchObject({ accountNumber: 'DE02120300000000202051', waiting: { version: 2 } });
    expect((await cli('payees', 'approve', 'Ann One', ...asEve)).err).toMatch(/Eve does not hold the approver role/);
    const approved = await cli('payees', 'approve', 'Ann One', ...asBob);
    expect(approved.out).toContain('Ann One version 2 is in force (approved by 1 of 1 needed)');
    expect((await cli('payees', 'show', 'Ann One')).out).toMatch(/1 {2}Ann One {2}DE02120300000000202051 .*superseded[\s\S]*2 {2}Ann One {2}DE89370400440532013000 .*in force from/);
    const people = await json<{ id: string; name: string }[]>('people', 'list');
    const actor = (name: string) => expect.objectContaining({ actor: `person:${people.find((p) => p.name === name)!.id}` });
    expect((await audit()).filter((e) => e.action.startsWith('payee')).slice(0, 3)).toMatchObject([
      { action: 'payee.change-approved', details: actor('Bob') }, { action: 'payee.approval.given', details: actor('Bob') }, { action: 'payee.change-requested', details: actor('Eve') },
    ]);
  });

  it('holds a batch paying a new payee for the extra approval, shows the row to the approver, then sends it', async () => {
    const batchFile = file('june.csv', [
      'idPayout,amount,currencyCode,accountName,accountNumber,paymentOperatorCode,paymentMethodCode,emailAddress,callbackUrl,reference',
      'pb-1,10.00,EUR,Dee Four,DE89370400440532013000,EU_SEPA,BANK_TRANSFER,dee@example.com,,',
    ]);
    const r = await cli('batch', 'submit', batchFile, '--timeout', '30', ...asEve);
    expect(r.code).toBe(3);
    const batchId = /Batch (\S+) submitted/.exec(r.out)?.[1] ?? '';
    expect(r.out).toContain('Paused: Nothing was sent: it needs 1 approval (new or changed payee: +1), has 0.');
    expect(sandbox.state().createAttempts.payouts['pb-1']).toBeUndefined();
    const shown = await json<SubjectView>('approvals', 'show', 'batch', batchId);
    expect(shown.payeeFlags).toEqual([{ rowId: 'pb-1', flag: 'new', payeeId: null, reason: 'new payee: Dee Four is not in the payee book and was never paid' }]);
    expect((await cli('approvals', 'show', 'batch', batchId)).out).toContain('row pb-1: new payee: Dee Four is not in the payee book and was never paid');
    expect((await cli('approvals', 'approve', 'batch', batchId, ...asBob)).out).toContain('may be sent: approved by 1 of 1 needed');
    const resumed = JSON.parse((await cli('--json', 'batch', 'resume', batchId, '--timeout', '30', ...asAda)).out) as BatchView;
    expect(resumed.progress.sent).toBe(1);
    expect(sandbox.state().createAttempts.payouts['pb-1']).toBe(1);

    const saved = await json<{ payee: PayeeView; inForce: boolean }>('payees', 'add', '--from-payout', 'pb-1', ...asEve);
    expect(saved).toMatchObject({ inForce: true, payee: { name: 'Dee Four', source: 'payout', sourceRef: 'pb-1' } });
    expect((await cli('audit', 'verify')).code).toBe(0);
  });

  it('fills a single payout from the payee book (--payee); its first payout is a new payee and waits for the extra approval', async () => {
    expect((await cli('payouts', 'create', '--amount', '5.00', '--currency', 'EUR', '--payee', 'Bob Two', '--email', 'x@example.com', ...asEve)).err).toMatch(/--payee takes the beneficiary from the payee book/);
    expect((await cli('payouts', 'create', '--amount', '5.00', '--currency', 'EUR', '--account-name', 'Bob Two', ...asEve)).err).toMatch(/or --payee <payee> from the payee book/);
    const held = await cli('payouts', 'create', '--amount', '5.00', '--currency', 'EUR', '--payee', 'bob two', '--id', 'pb-single', ...asEve);
    expect(held.code).toBe(4);
    expect(held.err).toMatch(/Nothing was sent: it needs 1 approval \(new or changed payee: \+1\), has 0/);
    expect((await json<SubjectView>('approvals', 'show', 'payout', 'pb-single')).payeeFlags).toEqual([expect.objectContaining({ rowId: 'pb-single', flag: 'new', payeeId: expect.any(String) })]);
    expect((await cli('approvals', 'approve', 'payout', 'pb-single', ...asBob)).code).toBe(0);
    expect((await cli('payouts', 'release', 'pb-single', ...asAda)).code).toBe(0);
    expect(sandbox.state().createAttempts.payouts['pb-single']).toBe(1);
    const sent = await json<{ accountName: string; accountNumber: string }>('payouts', 'get', 'pb-single');
    expect(sent).toMatchObject({ accountName: 'Bob Two', accountNumber: 'DE02100500000054540402' });
  });
});
