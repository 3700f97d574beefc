// The CLI's twin of the e-mail of remittance advice: `profiles smtp set|show|test|clear` (the password from standard
// input only, never printed), `payouts remittance <id> --email` once (a second run refused and exiting 1, --force
// sending again) and `batch remittance <batchId> --email`, against the sandbox and a real SMTP server on loopback.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatchRemittanceEmailOutcome, RemittanceEmailView } from '../../../contract/api';
import { runCli } from '../../../main/cli/index';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { smtpPasswordAccount } from '../../../main/keys/smtp-password';
import { startSandbox, type SandboxHandle } from '../../../sandbox/index';
import { addSandboxProfile } from '../support/cli-sandbox-profile';
import { readAdviceMail, startSmtpFixture, type SmtpFixture } from '../support/smtp-fixture';

const PASSWORD = 'cli-smtp-pw-Wq3#';
const home = mkdtempSync(join(tmpdir(), 'desk-cli-mail-'));
const keyStore = new MemoryKeyStore();
let sandbox: SandboxHandle;
let smtp: SmtpFixture;
let profile = '';
const printed: string[] = [];

async function cli(args: string[], stdin?: string): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['--home', home, ...args], {
    keyStore,
    io: { stdout: (t) => void (out += t), stderr: (t) => void (err += t), ...(stdin !== undefined ? { readStdin: async () => stdin } : {}) },
  });
  printed.push(out, err);
  return { code, out, err };
}
const ok = async (args: string[], stdin?: string): Promise<string> => {
  const r = await cli(args, stdin);
  if (r.code !== 0) throw new Error(`${args.join(' ')}: exit ${r.code}: ${r.err}${r.out}`);
  return r.out;
};

beforeAll(async () => {
  sandbox = await startSandbox();
  smtp = await startSmtpFixture({ login: { username: 'desk@shop.test', password: PASSWORD } });
  profile = await addSandboxProfile((...args) => cli(args), home, keyStore, sandbox.url);
});
afterAll(async () => {
  await smtp.close();
  await sandbox.close();
  rmSync(home, { recursive: true, force: true });
});

describe('profiles smtp', () => {
  it('sets the server from options and the password from standard input, and shows it without the password', async () => {
    expect(await ok(['profiles', 'smtp', 'show', profile])).toContain('e-mails no remittance advice (no SMTP server)');
    const usage = await cli(['profiles', 'smtp', 'set', profile, '--host', '127.0.0.1']);
    expect(usage.code).toBe(2);
    expect(usage.err).toContain('give at least --host and --from');
    const set = await ok(['profiles', 'smtp', 'set', profile, '--host', '127.0.0.1', '--port', String(smtp.port), '--security', 'none', '--username', 'desk@shop.test', '--from', 'payouts@shop.test', '--password-stdin'], `${PASSWORD}\n`);
    expect(set).toContain('the password is in the keychain');
    expect(set).toContain(`e-mails remittance advice through 127.0.0.1:${smtp.port}`);
    expect(await keyStore.get(smtpPasswordAccount(profile))).toBe(PASSWORD);
    expect(JSON.parse(await ok(['--json', 'profiles', 'smtp', 'show', profile]))).toEqual({
      profile, smtp: { host: '127.0.0.1', port: smtp.port, security: 'none', username: 'desk@shop.test', from: 'payouts@shop.test', replyTo: null }, passwordStored: true,
    });
    // Only the options given change.
    await ok(['profiles', 'smtp', 'set', profile, '--reply-to', 'finance@shop.test']);
    expect(await ok(['profiles', 'smtp', 'show', profile])).toMatch(/reply-to\s+finance@shop\.test/);
    expect(await keyStore.get(smtpPasswordAccount(profile))).toBe(PASSWORD);
    const test = await ok(['profiles', 'smtp', 'test', profile, '--to', 'me@shop.test']);
    expect(test).toContain('Test e-mail sent to me@shop.test');
    expect(smtp.mails.at(-1)!.to).toEqual(['me@shop.test']);
  });
});

describe('remittance --email', () => {
  it('e-mails a paid payout once; a second run is refused and exits 1; --force sends it again', async () => {
    const created = await ok(['payouts', 'create', '--amount', '88.10', '--currency', 'EUR', '--account-name', 'Jane Doe', '--account-number', 'DE89370400440532013000', '--operator', 'EU_SEPA', '--email', 'jane@example.com', '--wait', '--timeout', '30']);
    const id = /Payout (\S+): ACCEPTED/.exec(created)?.[1] ?? '';
    expect(created).toMatch(/Final: SUCCESS/);
    const both = await cli(['payouts', 'remittance', id, '--email', '--out', join(home, 'x.pdf')]);
    expect(both.code).toBe(2);
    expect(both.err).toContain('Give --out <file> or --email, not both');

    const sent = await ok(['payouts', 'remittance', id, '--email']);
    expect(sent).toContain(`Remittance advice of payout ${id} e-mailed to jane@example.com.`);
    expect(sent).toMatch(/server: 250 /);
    const mail = readAdviceMail(smtp.mails.at(-1)!.raw);
    expect(mail.pdfText).toContain(id);
    expect(mail.pdfText).toContain('88.10 EUR');
    expect(mail.headers.get('reply-to')).toBe('finance@shop.test');

    const again = await cli(['payouts', 'remittance', id, '--email']);
    expect(again.code).toBe(1);
    expect(again.err).toContain('was already e-mailed to jane@example.com on');
    const count = smtp.mails.length;
    const forced = JSON.parse(await ok(['--json', 'payouts', 'remittance', id, '--email', '--force'])) as RemittanceEmailView;
    expect(forced).toMatchObject({ idPayout: id, state: 'sent', sends: 2 });
    expect(smtp.mails).toHaveLength(count + 1);
    // Saving the PDF still works as before.
    await ok(['payouts', 'remittance', id, '--out', join(home, 'advice.pdf')]);
  });

  it('e-mails a batch one advice per payee and says what it left out', async () => {
    const file = join(home, 'run.csv');
    writeFileSync(file, [
      'amount,currencyCode,accountName,accountNumber,paymentOperatorCode,emailAddress,reference',
      '10.00,EUR,Ann One,DE02120300000000202051,EU_SEPA,ann@example.com,INV-1',
      '20.50,EUR,Bob Two,DE02100500000054540402,EU_SEPA,bob@example.com,INV-2',
      `30.00,EUR,Cy Three,DE94370400440532010000,EU_SEPA,cy@example.com,INV-3`,
    ].join('\r\n'));
    const batchId = 'cli-mail-run';
    // One row fails (an account ending 0000): the command says so with exit 1, the batch is complete.
    const submitted = await cli(['batch', 'submit', file, '--batch', batchId, '--timeout', '60']);
    expect(submitted.out, submitted.err).toContain('COMPLETED');
    const count = smtp.mails.length;
    const outcome = JSON.parse(await ok(['--json', 'batch', 'remittance', batchId, '--email'])) as BatchRemittanceEmailOutcome;
    expect(outcome).toMatchObject({ mails: 2, payouts: 2, notPaid: 1, skipped: [] });
    expect(smtp.mails.slice(count).map((m) => m.to[0]).sort()).toEqual(['ann@example.com', 'bob@example.com']);
    const human = await ok(['batch', 'remittance', batchId, '--email']);
    expect(human).toContain('E-mailed remittance advice to 0 payees (0 paid payouts).');
    expect(human).toContain('1 payout not paid left out');
    expect(human).toMatch(/skipped 2 payouts: already e-mailed/);
  });

  it('never prints the password', () => {
    expect(printed.join('\n')).not.toContain(PASSWORD);
  });
});
