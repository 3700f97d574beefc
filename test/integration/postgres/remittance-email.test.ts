// Remittance advice by e-mail, once per payout, on both back ends: two requests at the same moment (two clicks, the
// app and the CLI, or two desks of a team on one team database) claim the payout's mail record in one statement before
// the SMTP server is spoken to, so one mail leaves and the other request says why it sent nothing. The record (state,
// server reply, message id) is the same whichever desk reads it.
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { PaymentDetail, RemittanceEmailView, Result } from '../../../contract/api';
import type { RemittanceMailClaim } from '../../../main/journal/port';
import { startSandbox, type SandboxHandle } from '../../../sandbox/index';
import { sandboxConfig } from '../engine/setup';
import { readAdviceMail, startSmtpFixture, type SmtpFixture } from '../support/smtp-fixture';
import { freshDatabase } from './cluster';
import { eventually, openTeamAppDesk, TEAM_PROFILE, type TeamAppDesk } from './team-app-desk';

const PASSWORD = 'team-smtp-pw-8Kd!';
let sandbox: SandboxHandle;
let smtp: SmtpFixture;
const desks: TeamAppDesk[] = [];

beforeAll(async () => {
  sandbox = await startSandbox(sandboxConfig());
  smtp = await startSmtpFixture({ login: { username: 'desk@team.test', password: PASSWORD } });
});
afterEach(async () => {
  for (const d of desks.splice(0)) await d.close();
});
afterAll(async () => {
  await smtp.close();
  await sandbox.close();
});

async function openDesk(name: string, teamUrl: string | null, sender: boolean): Promise<TeamAppDesk> {
  const d = await openTeamAppDesk({ name, teamUrl, gatewayUrl: sandbox.url, ...(sender ? { senderOf: sandbox } : {}) });
  desks.push(d);
  // Each desk has its own keychain: the SMTP password is set at each, as a team's desks each set theirs.
  await d.call('profiles:setSmtp', { host: '127.0.0.1', port: smtp.port, security: 'none', username: 'desk@team.test', from: 'payouts@team.test', password: PASSWORD });
  return d;
}

async function pay(d: TeamAppDesk, idPayout: string, amount: string): Promise<PaymentDetail> {
  await d.call('payouts:create', { idPayout, amount, currencyCode: 'EUR', accountName: `Payee ${idPayout}`, accountNumber: 'DE89370400440532013000', paymentOperatorCode: 'EU_SEPA', emailAddress: `${idPayout}@example.com` });
  await eventually(async () => (await d.call<PaymentDetail>('payouts:get', { idPayout })).final, `${idPayout} final`);
  return d.call<PaymentDetail>('payouts:get', { idPayout });
}

const mailsTo = (address: string) => smtp.mails.filter((m) => m.to.includes(address));

/** Two requests at once: exactly one mails; the other is told why it sent nothing. */
function oneSentOneRefused(results: Result<unknown>[]): void {
  const ok = results.filter((r) => r.ok);
  const refused = results.filter((r): r is Extract<Result<unknown>, { ok: false }> => !r.ok);
  expect(ok).toHaveLength(1);
  expect(refused).toHaveLength(1);
  expect(['ALREADY_EMAILED', 'EMAIL_IN_PROGRESS']).toContain(refused[0]!.error.code);
}

describe.each(['sqlite', 'postgres'] as const)('remittance e-mail on %s', (backEnd) => {
  it('mails a payout once when two requests come at the same moment, and journals the send', async () => {
    const d = await openDesk(`mail-${backEnd}`, backEnd === 'postgres' ? await freshDatabase(inject('postgresUrl')) : null, true);
    const paid = await pay(d, `once-${backEnd}`, '123.45');
    expect(paid.status).toBe('SUCCESS');
    const results = await Promise.all([0, 1].map(() => d.handlers['payouts:emailRemittance']({ idPayout: paid.id })));
    oneSentOneRefused(results);
    expect(mailsTo(paid.emailAddress)).toHaveLength(1);
    expect(readAdviceMail(mailsTo(paid.emailAddress)[0]!.raw).pdfText).toContain(paid.id);
    const record = await d.call<RemittanceEmailView>('payouts:remittanceEmail', { idPayout: paid.id });
    expect(record).toMatchObject({ state: 'sent', to: paid.emailAddress, attempts: 1, sends: 1 });
    // Asked again later: refused, saying when; nothing more leaves.
    expect((await d.fails('payouts:emailRemittance', { idPayout: paid.id })).code).toBe('ALREADY_EMAILED');
    expect(mailsTo(paid.emailAddress)).toHaveLength(1);
  });
});

describe('remittance e-mail on a team database', () => {
  it('two desks asked at the same moment send one mail between them; both see the same record', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const sender = await openDesk('mail-sender', url, true);
    const other = await openDesk('mail-other', url, false);
    const paid = await pay(sender, 'team-once-1', '250.00');
    expect(paid.status).toBe('SUCCESS');
    await eventually(async () => (await other.call<PaymentDetail>('payouts:get', { idPayout: paid.id })).status === 'SUCCESS', 'the other desk sees it paid');

    const results = await Promise.all([sender, other].map((d) => d.handlers['payouts:emailRemittance']({ idPayout: paid.id })));
    oneSentOneRefused(results);
    expect(mailsTo(paid.emailAddress)).toHaveLength(1);
    const seen = await Promise.all([sender, other].map((d) => d.call<RemittanceEmailView>('payouts:remittanceEmail', { idPayout: paid.id })));
    expect(seen[0]).toEqual(seen[1]);
    expect(seen[0]).toMatchObject({ state: 'sent', sends: 1 });
    // A desk asking later is refused too, whichever it is.
    expect((await other.fails('payouts:emailRemittance', { idPayout: paid.id })).code).toBe('ALREADY_EMAILED');
  });

  it('lets one claim of many win on the database: a new row once, and a row taken over only by the claim that read it', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const one = await openDesk('claim-one', url, false);
    const two = await openDesk('claim-two', url, false);
    const journals = await Promise.all([one, two].map((d) => d.runtime.journalFor(TEAM_PROFILE)));
    const claim = (n: number): RemittanceMailClaim => ({ payoutId: 'claimed-1', batchId: null, recipient: 'x@example.com', messageId: `<m${n}@team.test>`, requestedBy: `desk-${n}`, claim: randomUUID(), at: Date.now() });
    const first = Array.from({ length: 12 }, (_, n) => claim(n));
    const won = await Promise.all(first.map((c, n) => journals[n % 2]!.claimRemittanceMail(c, null)));
    expect(won.filter(Boolean)).toHaveLength(1);
    const winner = first[won.indexOf(true)]!;
    const [row] = await journals[1]!.remittanceMails(['claimed-1']);
    expect(row).toMatchObject({ claim: winner.claim, state: 'queued', messageId: winner.messageId });

    // A claim that read an older claim changes nothing; of many that read the current one, one takes it over.
    expect(await journals[0]!.claimRemittanceMail(claim(99), first.find((c) => c !== winner)!.claim)).toBe(false);
    const again = Array.from({ length: 12 }, (_, n) => claim(100 + n));
    const took = await Promise.all(again.map((c, n) => journals[n % 2]!.claimRemittanceMail(c, winner.claim)));
    expect(took.filter(Boolean)).toHaveLength(1);
    // The first claim lost the row: its late outcome is not written over the new claim's.
    expect(await journals[0]!.recordRemittanceMail('claimed-1', winner.claim, { state: 'sent', attempts: 1, lastReply: '250 ok', at: Date.now() })).toBe(false);
    expect((await journals[0]!.remittanceMails(['claimed-1']))[0]).toMatchObject({ state: 'queued', sends: 0, claim: again[took.indexOf(true)]!.claim });
  });
});
