// The outbox's rules on a real SQLite journal with a scripted transport: what a failure means (4xx and a dropped
// connection are tried again, 5xx is refused, TLS and login failures are the desk's own and never retried), what a
// second request finds (sent: refused unless forced; being sent: refused; never finished: forced only), that attempts
// stop after the pauses run out, and that a send which lost its record to a forced one writes nothing over it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PaymentRecord } from '../../../main/journal/types';
import { openJournal, type Journal } from '../../../main/store/sqlite/journal';
import { classifyMailError, type AdviceMail, type MailTransport } from '../../../main/remittance/mail';
import { MAIL_STALE_MS, mailBlocker, sendAdviceMail, type OutboxDeps } from '../../../main/remittance/outbox';
import { SmtpSettingsSchema } from '../../../main/profiles/profile-schema';

let dir = '';
let journal: Journal;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'outbox-'));
  journal = openJournal(join(dir, 'journal.db'));
});
afterEach(() => {
  journal.close();
  rmSync(dir, { recursive: true, force: true });
});

const payout = (id: string) => ({ id, accountName: 'Jane Doe', emailAddress: 'jane@example.com' }) as PaymentRecord;
const mail = (ids: readonly PaymentRecord[], messageId: string): Promise<AdviceMail> =>
  Promise.resolve({ to: { name: 'Jane Doe', address: 'jane@example.com' }, subject: 's', text: 't', messageId, payoutIds: ids.map((p) => p.id) });

/** A transport that answers each send with the next scripted outcome (an error to throw, or a reply). */
function scripted(...outcomes: (Error | string)[]): MailTransport & { sent: AdviceMail[] } {
  const sent: AdviceMail[] = [];
  return {
    sent,
    async send(m) {
      const next = outcomes.shift();
      if (next === undefined) throw new Error('no more scripted answers');
      if (next instanceof Error) throw next;
      sent.push(m);
      return { reply: next };
    },
    close() {},
  };
}

let clock = 1_000_000;
const deps = (transport: MailTransport, extra: Partial<OutboxDeps> = {}): OutboxDeps => ({
  journal, transport: async () => transport, actor: 'clerk@desk-1', messageId: () => `<m${clock}@acme.test>`, now: () => clock, backoffMs: [10, 20, 30], sleep: async (ms) => void (clock += ms), ...extra,
});
const smtpError = (responseCode: number, response: string) => Object.assign(new Error(`Message failed: ${response}`), { responseCode, response, code: 'EENVELOPE' });

describe('what a failed send means', () => {
  it('tries again after 4xx and a lost connection, stops at 5xx, and never retries the desk’s own TLS or login failure', () => {
    expect(classifyMailError(smtpError(421, '421 4.7.0 Try again later'), null)).toMatchObject({ kind: 'transient', reply: '421 4.7.0 Try again later' });
    expect(classifyMailError(smtpError(550, '550 5.1.1 No such user'), null)).toMatchObject({ kind: 'refused', reply: '550 5.1.1 No such user' });
    expect(classifyMailError(Object.assign(new Error('Connection closed unexpectedly'), { code: 'ECONNECTION' }), null)).toMatchObject({ kind: 'transient', reply: 'ECONNECTION: Connection closed unexpectedly' });
    expect(classifyMailError(Object.assign(new Error('Greeting never received'), { code: 'ETIMEDOUT' }), null).kind).toBe('transient');
    expect(classifyMailError(Object.assign(new Error('Invalid login'), { code: 'EAUTH', responseCode: 535, response: '535 5.7.8 Authentication failed' }), null).kind).toBe('failed');
    expect(classifyMailError(Object.assign(new Error('STARTTLS not offered'), { code: 'ETLS', responseCode: 502, response: '502 Unknown command' }), null).kind).toBe('failed');
    expect(classifyMailError(new Error('self-signed certificate'), null).kind).toBe('failed');
  });

  it('cuts the password out of a reply that would carry it', () => {
    const e = classifyMailError(smtpError(535, '535 bad credentials for hunter2-pw'), 'hunter2-pw');
    expect(e.reply).toBe('535 bad credentials for (hidden)');
  });
});

describe('a second request', () => {
  const record = { payoutId: 'p', batchId: null, recipient: 'jane@example.com', attempts: 1, lastReply: '250 ok', messageId: '<m>', sends: 1, requestedBy: 'clerk@desk-1', claim: 'c', createdAt: 0 };
  it('is refused for an advice already sent (saying when), and for one being sent; a refusal or failure may be tried again', () => {
    const sent = { ...record, state: 'sent' as const, sentAt: Date.UTC(2026, 4, 3, 9, 15, 2), updatedAt: Date.UTC(2026, 4, 3, 9, 15, 2) };
    expect(mailBlocker('p', sent, false, sent.updatedAt + 1)).toMatchObject({ code: 'ALREADY_EMAILED', message: expect.stringContaining('was already e-mailed to jane@example.com on 2026-05-03 09:15:02 UTC (by clerk@desk-1)') });
    expect(mailBlocker('p', sent, true, sent.updatedAt + 1)).toBeNull();
    const busy = { ...record, state: 'retrying' as const, sentAt: null, updatedAt: 5_000 };
    expect(mailBlocker('p', busy, true, 5_000 + MAIL_STALE_MS - 1)?.code).toBe('EMAIL_IN_PROGRESS');
    // Never finished (its desk stopped): the server may have taken it, so only a forced send mails it again.
    expect(mailBlocker('p', busy, false, 5_000 + MAIL_STALE_MS)?.code).toBe('EMAIL_OUTCOME_UNKNOWN');
    expect(mailBlocker('p', busy, true, 5_000 + MAIL_STALE_MS)).toBeNull();
    for (const state of ['refused', 'failed'] as const) expect(mailBlocker('p', { ...record, state, sentAt: null, updatedAt: 0 }, false, 1)).toBeNull();
    expect(mailBlocker('p', undefined, false, 1)).toBeNull();
  });
});

describe('sending through the journal', () => {
  it('gives up after the pauses run out: failed, with the last reply, every attempt journaled', async () => {
    const busy = () => smtpError(451, '451 4.3.0 Mailbox busy');
    const t = scripted(busy(), busy(), busy(), busy());
    const started = clock;
    const r = await sendAdviceMail(deps(t), { payouts: [payout('p-1')], batchId: null, recipient: 'jane@example.com', build: mail }, false);
    expect(r.outcome).toMatchObject({ state: 'failed', attempts: 4, reply: '451 4.3.0 Mailbox busy' });
    expect(clock - started).toBe(60);
    expect(journal.remittanceMails(['p-1'])[0]).toMatchObject({ state: 'failed', attempts: 4, lastReply: '451 4.3.0 Mailbox busy', sends: 0, sentAt: null });
    // A failed send may be asked again without forcing, and succeeds.
    const ok = await sendAdviceMail(deps(scripted('250 2.0.0 queued')), { payouts: [payout('p-1')], batchId: null, recipient: 'jane@example.com', build: mail }, false);
    expect(ok.outcome).toMatchObject({ state: 'sent', attempts: 1 });
    expect(journal.remittanceMails(['p-1'])[0]).toMatchObject({ state: 'sent', attempts: 1, sends: 1, lastReply: '250 2.0.0 queued' });
  });

  it('records an advice that could not be made as failed, without speaking to the server', async () => {
    const t = scripted('250 ok');
    const r = await sendAdviceMail(deps(t), { payouts: [payout('p-2')], batchId: null, recipient: 'jane@example.com', build: () => Promise.reject(new Error('pdfkit is not installed')) }, false);
    expect(r.outcome).toMatchObject({ state: 'failed', attempts: 0, reply: 'the advice could not be made: pdfkit is not installed' });
    expect(t.sent).toEqual([]);
  });

  it('lets a forced send take over a send that never finished; the old one then writes nothing over it', async () => {
    // A send that stops between its claim and its outcome: its record stays queued.
    expect(journal.claimRemittanceMail({ payoutId: 'p-3', batchId: null, recipient: 'jane@example.com', messageId: '<old@acme.test>', requestedBy: 'clerk@desk-1', claim: 'old', at: clock }, null)).toBe(true);
    clock += MAIL_STALE_MS;
    const refused = await sendAdviceMail(deps(scripted('250 ok')), { payouts: [payout('p-3')], batchId: null, recipient: 'jane@example.com', build: mail }, false);
    expect(refused.skipped[0]?.blocker.code).toBe('EMAIL_OUTCOME_UNKNOWN');
    const forced = await sendAdviceMail(deps(scripted('250 ok')), { payouts: [payout('p-3')], batchId: null, recipient: 'jane@example.com', build: mail }, true);
    expect(forced.outcome?.state).toBe('sent');
    expect(journal.recordRemittanceMail('p-3', 'old', { state: 'failed', attempts: 9, lastReply: 'late', at: clock })).toBe(false);
    expect(journal.remittanceMails(['p-3'])[0]).toMatchObject({ state: 'sent', sends: 1 });
  });
});

describe('SMTP settings in a profile', () => {
  const base = { host: 'smtp.example.com', port: 587, security: 'starttls', username: 'payouts@example.com', from: 'payouts@example.com' };
  it('takes a host, one plain From address and a loopback server for clear text only', () => {
    expect(SmtpSettingsSchema.parse(base)).toEqual({ ...base, replyTo: null });
    const problems = (input: object) => {
      const r = SmtpSettingsSchema.safeParse(input);
      return r.success ? [] : r.error.issues.map((i) => i.message);
    };
    expect(problems({ ...base, security: 'none' })[0]).toMatch(/allowed only for a server on this machine .* not smtp\.example\.com/);
    expect(problems({ ...base, security: 'none', host: '127.0.0.1', port: 25 })).toEqual([]);
    expect(problems({ ...base, host: 'smtp://smtp.example.com' })[0]).toMatch(/no scheme, no port/);
    expect(problems({ ...base, from: 'Payouts <payouts@example.com>' })[0]).toMatch(/From address must be an e-mail address/);
    expect(problems({ ...base, replyTo: 'a@example.com, b@example.com' })[0]).toMatch(/Reply-to address must be an e-mail address/);
    expect(problems({ ...base, port: 0 })[0]).toBe('SMTP port must be 1-65535');
  });
});
