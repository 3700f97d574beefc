// Remittance advice by e-mail through the desk's IPC handlers, against the sandbox gateway and a real SMTP server on
// loopback (smtp-server): the SMTP settings and their password (keychain only), one mail per paid payout with the PDF
// attached (read back with pdftotext), a second request refused and a forced one sent and audited, a 421 tried again,
// a 550 refused for good and shown with the server's words, payouts not paid (failed, returned) never advised, a
// batch mailed per payee with what was skipped and why, STARTTLS that must happen, and the password nowhere else.
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ArgsOf, AuditEntryView, Channel, IpcHandlerMap, Result, ResultOf } from '../../../contract/api';
import { createAppContext, type AppContext } from '../../../main/context';
import { bindActiveProfile, createDeskServices } from '../../../main/desk';
import { createDeskEvents } from '../../../main/desk/events';
import { journalPath } from '../../../main/desk/profile-engine';
import { createDeskRuntime, type DeskRuntime } from '../../../main/desk/runtime';
import { createIpcHandlers } from '../../../main/ipc/handlers';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { smtpPasswordAccount } from '../../../main/keys/smtp-password';
import { createCapturingLogger } from '../../../main/log';
import { startSandbox, type SandboxHandle } from '../../../sandbox/index';
import { MERCHANT, sandboxConfig, TEST_ENGINE_TIMINGS } from '../engine/setup';
import { readAdviceMail, startSmtpFixture, type RcptAnswer, type SmtpFixture } from '../support/smtp-fixture';

const PASSWORD = 'smtp-Pa55word-q7Z!x';
const PROFILE = 'shop';
let home = '';
let sandbox: SandboxHandle;
let smtp: SmtpFixture;
let keyStore: MemoryKeyStore;
let ctx: AppContext;
let runtime: DeskRuntime;
let handlers: IpcHandlerMap;
const log = createCapturingLogger();
/** Every answer of every call, to look for the password in. */
const answers: Result<unknown>[] = [];
/** How the SMTP server answers RCPT TO, set by each test: address → the reply for its nth try. */
let rcptRule: (address: string, nth: number) => RcptAnswer = () => null;
const tries = new Map<string, number>();

async function invoke<C extends Channel>(channel: C, args?: ArgsOf<C>): Promise<Result<ResultOf<C>>> {
  const r = (await handlers[channel](args)) as Result<ResultOf<C>>;
  answers.push(r);
  return r;
}
async function call<C extends Channel>(channel: C, args?: ArgsOf<C>): Promise<ResultOf<C>> {
  const r = await invoke(channel, args);
  if (!r.ok) throw new Error(`${channel}: ${r.error.code} ${r.error.message}`);
  return r.data;
}
async function fails<C extends Channel>(channel: C, args?: ArgsOf<C>): Promise<{ code: string; message: string }> {
  const r = await invoke(channel, args);
  if (r.ok) throw new Error(`${channel} should have failed`);
  return r.error;
}

async function untilFinal(idPayout: string): Promise<ResultOf<'payouts:get'>> {
  const end = Date.now() + 30_000;
  for (;;) {
    const detail = await call('payouts:get', { idPayout });
    if (detail.final || Date.now() > end) return detail;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A payout sent to the sandbox and read until final (an account ending 0000 fails; any other is paid). IBANs with their check digits. */
async function pay(idPayout: string, amount: string, accountName: string, emailAddress: string, iban = 'DE70370400440532011111'): Promise<ResultOf<'payouts:get'>> {
  await call('payouts:create', { idPayout, amount, currencyCode: 'EUR', accountName, accountNumber: iban, paymentOperatorCode: 'EU_SEPA', emailAddress, reference: `INV-${idPayout}` });
  return untilFinal(idPayout);
}

const auditOf = async (action: string): Promise<AuditEntryView[]> => (await call('audit:list', { limit: 200 })).items.filter((e) => e.action === action);
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

beforeAll(async () => {
  sandbox = await startSandbox(sandboxConfig());
  smtp = await startSmtpFixture({
    login: { username: 'desk@acme.test', password: PASSWORD },
    rcpt: (address) => {
      const nth = (tries.get(address) ?? 0) + 1;
      tries.set(address, nth);
      return rcptRule(address, nth);
    },
  });
  home = await mkdtemp(join(tmpdir(), 'desk-remittance-mail-'));
  keyStore = new MemoryKeyStore();
  ctx = createAppContext({ home, keyStore, logger: log });
  ctx.profiles.add({ id: PROFILE, name: 'Acme Supplies', baseUrl: sandbox.url, merchantCode: MERCHANT, pollIntervalSecs: 1 });
  await ctx.keys.generateKey(PROFILE, 2048);
  sandbox.registerPublicKey(MERCHANT, await ctx.keys.publicKeyPem(PROFILE));
  runtime = createDeskRuntime({ ctx, events: createDeskEvents(), log, engineOptions: () => TEST_ENGINE_TIMINGS });
  handlers = createIpcHandlers(bindActiveProfile(createDeskServices(runtime, { name: 'Payout Desk', version: 'test', platform: process.platform, demoAvailable: false }, null), ctx), { log });
});

afterAll(async () => {
  await runtime?.close();
  ctx?.close();
  await smtp?.close();
  await sandbox?.close();
  await rm(home, { recursive: true, force: true });
});

describe('remittance advice by e-mail', () => {
  it('keeps the SMTP server in the profile and its password in the keychain only; a test e-mail goes through it', async () => {
    expect(await call('profiles:smtp', {})).toEqual({ config: null, passwordStored: false });
    // Clear text to another machine would carry the login and every advice: refused, nothing stored.
    const remote = await fails('profiles:setSmtp', { host: 'smtp.example.com', security: 'none', from: 'payouts@acme.test', username: 'desk@acme.test', password: PASSWORD });
    expect(remote.code).toBe('PROFILE_INVALID');
    expect(remote.message).toContain('allowed only for a server on this machine');
    expect((await fails('profiles:setSmtp', { host: '127.0.0.1', security: 'none', from: 'payouts, finance@acme.test' })).message).toMatch(/From address must be an e-mail address/);
    expect(await call('profiles:smtp', {})).toEqual({ config: null, passwordStored: false });
    expect(await keyStore.get(smtpPasswordAccount(PROFILE))).toBeNull();

    const view = await call('profiles:setSmtp', { host: '127.0.0.1', port: smtp.port, security: 'none', username: 'desk@acme.test', from: 'payouts@acme.test', replyTo: 'finance@acme.test', password: PASSWORD });
    expect(view).toEqual({ config: { host: '127.0.0.1', port: smtp.port, security: 'none', username: 'desk@acme.test', from: 'payouts@acme.test', replyTo: 'finance@acme.test' }, passwordStored: true });
    expect(await keyStore.get(smtpPasswordAccount(PROFILE))).toBe(PASSWORD);
    expect(await auditOf('smtp-password.set')).toHaveLength(1);

    const test = await call('profiles:testSmtp', {});
    expect(test.to).toBe('payouts@acme.test');
    expect(test.reply).toMatch(/^250 /);
    expect(smtp.mails).toHaveLength(1);
    expect(smtp.mails[0]!.to).toEqual(['payouts@acme.test']);
    expect(readAdviceMail(smtp.mails[0]!.raw).headers.get('subject')).toBe('Payout Desk test e-mail (Acme Supplies)');
    // The server saw the login with the keychain's password: the checks below for where it must not be can fail.
    expect(smtp.logins).toEqual([{ username: 'desk@acme.test', password: PASSWORD }]);
  });

  it("e-mails a paid payout's advice once, the PDF attached: the payee, the amount and the payout id", async () => {
    const paid = await pay('rm-paid-1', '1250.50', 'Jane Doe', 'jane@example.com');
    expect(paid.status).toBe('SUCCESS');
    expect(await call('payouts:remittanceEmail', { idPayout: paid.id })).toBeNull();
    const before = smtp.mails.length;
    const sent = await call('payouts:emailRemittance', { idPayout: paid.id });
    expect(sent).toMatchObject({ idPayout: paid.id, batchId: null, to: 'jane@example.com', state: 'sent', attempts: 1, sends: 1, requestedBy: expect.stringContaining('@') });
    expect(sent.lastReply).toMatch(/^250 /);
    expect(sent.sentAt).not.toBeNull();

    expect(smtp.mails).toHaveLength(before + 1);
    const received = smtp.mails.at(-1)!;
    expect(received).toMatchObject({ from: 'payouts@acme.test', to: ['jane@example.com'] });
    const mail = readAdviceMail(received.raw);
    expect(mail.headers.get('message-id')).toBe(sent.messageId);
    expect(mail.headers.get('from')).toBe('Acme Supplies <payouts@acme.test>');
    expect(mail.headers.get('reply-to')).toBe('finance@acme.test');
    expect(mail.headers.get('to')).toBe('Jane Doe <jane@example.com>');
    expect(mail.headers.get('subject')).toBe('Remittance advice from Acme Supplies: 1250.50 EUR paid (INV-rm-paid-1)');
    expect(mail.text).toContain('Acme Supplies has paid you 1250.50 EUR into your account ending');
    expect(mail.pdfName).toBe('remittance-rm-paid-1.pdf');
    expect(mail.pdf!.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(mail.pdfText).toContain('Remittance advice');
    expect(mail.pdfText).toMatch(/Paid to\s+Jane Doe <jane@example\.com>/);
    expect(mail.pdfText).toContain('rm-paid-1');
    expect(mail.pdfText).toContain('1250.50 EUR');
    expect(mail.pdfText).toMatch(/Payer\s+Acme Supplies/);

    // Journaled and audited: whom, which payouts, the server's answer and the PDF's SHA-256 (not the PDF).
    expect(await call('payouts:remittanceEmail', { idPayout: paid.id })).toEqual(sent);
    const [audit] = await auditOf('remittance.emailed');
    expect(audit).toMatchObject({ subject: paid.id, details: { to: 'jane@example.com', payouts: [paid.id], state: 'sent', attempts: 1, messageId: sent.messageId, sha256: sha256(mail.pdf!) } });
  });

  it('refuses a second e-mail of the same advice, saying when it went; Send again mails it once more, audited', async () => {
    const first = (await call('payouts:remittanceEmail', { idPayout: 'rm-paid-1' }))!;
    const count = smtp.mails.length;
    const again = await fails('payouts:emailRemittance', { idPayout: 'rm-paid-1' });
    expect(again.code).toBe('ALREADY_EMAILED');
    expect(again.message).toContain(`was already e-mailed to jane@example.com on ${first.sentAt!.slice(0, 10)} ${first.sentAt!.slice(11, 19)} UTC`);
    expect(again.message).toContain('Send again');
    expect(smtp.mails).toHaveLength(count);

    const resent = await call('payouts:emailRemittance', { idPayout: 'rm-paid-1', force: true });
    expect(resent).toMatchObject({ state: 'sent', sends: 2, attempts: 1 });
    expect(resent.messageId).not.toBe(first.messageId);
    expect(smtp.mails).toHaveLength(count + 1);
    const audits = await auditOf('remittance.emailed');
    expect(audits[0]).toMatchObject({ subject: 'rm-paid-1', details: { force: true, resent: 1, messageId: resent.messageId } });
  });

  it('tries again after a 421 from the server, and the advice is sent', async () => {
    rcptRule = (address, nth) => (address === 'tom@example.com' && nth === 1 ? { code: 421, message: 'Too busy, try again later' } : null);
    await pay('rm-busy-1', '310.00', 'Tom Busy', 'tom@example.com', 'DE46370400440532012222');
    const count = smtp.mails.length;
    const sent = await call('payouts:emailRemittance', { idPayout: 'rm-busy-1' });
    expect(sent).toMatchObject({ state: 'sent', attempts: 2, sends: 1 });
    expect(tries.get('tom@example.com')).toBe(2);
    expect(smtp.mails).toHaveLength(count + 1);
    expect(smtp.mails.at(-1)!.to).toEqual(['tom@example.com']);
  }, 30_000);

  it("records a 550 as refused with the server's reply, tries no more, and shows it on the payout", async () => {
    rcptRule = (address) => (address === 'gone@example.com' ? { code: 550, message: 'No such user here' } : null);
    await pay('rm-gone-1', '75.25', 'Gone Payee', 'gone@example.com', 'DE22370400440532013333');
    const count = smtp.mails.length;
    const refused = await fails('payouts:emailRemittance', { idPayout: 'rm-gone-1' });
    expect(refused.code).toBe('EMAIL_REFUSED');
    expect(refused.message).toContain('refused the remittance advice of payout rm-gone-1 for gone@example.com: 550');
    expect(refused.message).toContain('No such user here');
    expect(tries.get('gone@example.com')).toBe(1);
    expect(smtp.mails).toHaveLength(count);
    const shown = (await call('payouts:remittanceEmail', { idPayout: 'rm-gone-1' }))!;
    expect(shown).toMatchObject({ state: 'refused', attempts: 1, sends: 0, sentAt: null, to: 'gone@example.com' });
    expect(shown.lastReply).toMatch(/^550 .*No such user here/);
    expect((await auditOf('remittance.email-failed'))[0]).toMatchObject({ subject: 'rm-gone-1', details: { state: 'refused', attempts: 1 } });

    // A refusal is not a send: once the address works, asking again mails it (no Send again needed).
    rcptRule = () => null;
    expect(await call('payouts:emailRemittance', { idPayout: 'rm-gone-1' })).toMatchObject({ state: 'sent', attempts: 1, sends: 1 });
  });

  it('never advises a payout that did not pay: failed, or paid and returned', async () => {
    const failed = await pay('rm-failed-1', '40.00', 'Dave Delta', 'dave@example.com', 'DE94370400440532010000');
    expect(failed.status).toBe('FAILED');
    const returned = await pay('rm-returned-1', '30.00', 'Erin Echo', 'erin@example.com', 'DE95370400440532014444');
    expect(returned.status).toBe('SUCCESS');
    sandbox.returnPayout('rm-returned-1');
    expect((await (await runtime.engineFor(PROFILE)).refreshPayment('payout', 'rm-returned-1')).status).toBe('RETURNED');
    const count = tries.size;
    for (const [id, why] of [['rm-failed-1', /is FAILED, not paid/], ['rm-returned-1', /came back \(RETURNED\)/]] as const) {
      const refused = await fails('payouts:emailRemittance', { idPayout: id, force: true });
      expect(refused.code, id).toBe('NOT_PAID');
      expect(refused.message).toMatch(why);
      expect(await call('payouts:remittanceEmail', { idPayout: id }), id).toBeNull();
    }
    expect(tries.size, 'the SMTP server was not asked').toBe(count);
  });

  it('mails a batch one advice per payee, each payout once, and says how many were skipped and why', async () => {
    const header = 'idPayout,amount,currencyCode,accountName,accountNumber,paymentOperatorCode,emailAddress,reference';
    const a = 'Supplier A GmbH,DE21370400440532021111,EU_SEPA,a@example.com';
    const csv = [
      header,
      `rb-a1,10.00,EUR,${a},INV-A1`,
      `rb-a2,12.50,EUR,${a},INV-A2`,
      `rb-b1,20.00,EUR,Supplier B GmbH,DE94370400440532022222,EU_SEPA,b@example.com,INV-B1`,
      `rb-c1,30.00,EUR,Supplier C GmbH,DE45370400440532020000,EU_SEPA,c@example.com,INV-C1`,
      `rb-d1,40.00,EUR,Supplier D GmbH,DE46370400440532024444,EU_SEPA,d@example.com,INV-D1`,
    ].join('\n');
    const validation = await call('batches:validateFile', { source: { kind: 'bytes', fileName: 'suppliers-may.csv', bytes: new TextEncoder().encode(csv) } });
    expect(validation.counts.invalid).toBe(0);
    const batch = await call('batches:submit', { validationId: validation.validationId, confirmedWarningRows: [...new Set(validation.warnings.map((w) => w.rowNumber))] });
    for (const id of ['rb-a1', 'rb-a2', 'rb-b1', 'rb-c1', 'rb-d1']) await untilFinal(id);
    // A's first payout was mailed on its own before; D's payout is from before e-mail addresses were checked (none).
    await call('payouts:emailRemittance', { idPayout: 'rb-a1' });
    const journal = new Database(journalPath(home, PROFILE));
    journal.prepare("UPDATE payments SET email_address = '' WHERE id = 'rb-d1'").run();
    journal.close();

    const count = smtp.mails.length;
    const outcome = await call('batches:emailRemittance', { batchId: batch.id });
    expect(outcome).toMatchObject({ mails: 2, payouts: 2, notPaid: 1, refused: [], failed: [] });
    expect(outcome.skipped).toEqual([
      { code: 'ALREADY_EMAILED', reason: expect.stringContaining('already e-mailed'), idPayouts: ['rb-a1'] },
      { code: 'NO_EMAIL_ADDRESS', reason: expect.stringContaining('no usable e-mail address'), idPayouts: ['rb-d1'] },
    ]);
    const mails = smtp.mails.slice(count).map((m) => ({ to: m.to, ...readAdviceMail(m.raw) }));
    expect(mails.map((m) => m.to)).toEqual([['a@example.com'], ['b@example.com']]);
    // A's advice carries the payout not mailed before, not the one that was; the batch file names the run.
    expect(mails[0]!.pdfText).toContain('rb-a2');
    expect(mails[0]!.pdfText).toContain('12.50 EUR');
    expect(mails[0]!.pdfText).not.toContain('rb-a1');
    expect(mails[0]!.pdfText).toContain('suppliers-may.csv');
    expect(mails[0]!.pdfName).toBe('remittance-suppliers-may-supplier-a-gmbh.pdf');
    expect(mails[1]!.pdfText).toContain('rb-b1');
    expect(mails[1]!.pdfText).toContain('20.00 EUR');
    expect(await call('payouts:remittanceEmail', { idPayout: 'rb-b1' })).toMatchObject({ state: 'sent', batchId: batch.id, to: 'b@example.com' });
    expect(await call('payouts:remittanceEmail', { idPayout: 'rb-c1' })).toBeNull();
    const d = await fails('payouts:emailRemittance', { idPayout: 'rb-d1' });
    expect(d).toMatchObject({ code: 'NO_EMAIL_ADDRESS', message: expect.stringContaining('Payout rb-d1 to Supplier D GmbH has no e-mail address') });

    // Asked again: nothing is mailed twice.
    const again = await call('batches:emailRemittance', { batchId: batch.id });
    expect(again).toMatchObject({ mails: 0, payouts: 0 });
    expect(again.skipped.find((s) => s.code === 'ALREADY_EMAILED')?.idPayouts).toEqual(['rb-a1', 'rb-a2', 'rb-b1']);
    expect(smtp.mails).toHaveLength(count + 2);
  });

  it('sends nothing, not even the login, to a server that does not take STARTTLS when it is required', async () => {
    const plain = await startSmtpFixture({ login: { username: 'desk@acme.test', password: PASSWORD } });
    try {
      await call('profiles:setSmtp', { host: '127.0.0.1', port: plain.port, security: 'starttls', from: 'payouts@acme.test' });
      expect((await call('profiles:smtp', {})).config).toMatchObject({ security: 'starttls', username: 'desk@acme.test', replyTo: 'finance@acme.test' });
      const test = await fails('profiles:testSmtp', { to: 'finance@acme.test' });
      expect(test.code).toBe('SMTP_TEST_FAILED');
      await pay('rm-tls-1', '55.00', 'Tina TLS', 'tina@example.com', 'DE71370400440532015555');
      const failed = await fails('payouts:emailRemittance', { idPayout: 'rm-tls-1' });
      expect(failed.code).toBe('EMAIL_FAILED');
      expect(await call('payouts:remittanceEmail', { idPayout: 'rm-tls-1' })).toMatchObject({ state: 'failed', attempts: 1, sends: 0 });
      expect(plain.logins).toEqual([]);
      expect(plain.mails).toEqual([]);
    } finally {
      await plain.close();
    }
  });

  it('never lets the password reach a log, an IPC answer, the audit log, the profile or the journal', async () => {
    expect(answers.length).toBeGreaterThan(20);
    expect(JSON.stringify(answers)).not.toContain(PASSWORD);
    expect([...log.lines, ...log.raw].join('\n')).not.toContain(PASSWORD);
    const audit = (await call('audit:list', { limit: 500 })).items;
    expect(audit.some((e) => e.action === 'remittance.emailed')).toBe(true);
    expect(JSON.stringify(audit)).not.toContain(PASSWORD);
    for (const file of [join(home, 'desk.db'), journalPath(home, PROFILE)]) {
      for (const f of [file, `${file}-wal`]) {
        let bytes: Buffer;
        try {
          bytes = readFileSync(f);
        } catch {
          continue;
        }
        expect(bytes.includes(Buffer.from(PASSWORD)), f).toBe(false);
      }
    }
    // Clearing the SMTP server takes its password out of the keychain.
    await call('profiles:clearSmtp', {});
    expect(await keyStore.get(smtpPasswordAccount(PROFILE))).toBeNull();
    expect(await call('profiles:smtp', {})).toEqual({ config: null, passwordStored: false });
  });
});
