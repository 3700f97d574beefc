// Alerts reach the people who must act, at the desk where their key is: the approver hears that a payout waits for
// their approval (who prepared it, its total), once, also after the desk restarts; the preparer hears that their
// payout was held, returned or is missing and that their batch paused or finished with failures; a muted kind is
// not told; a desk without dual control gives no personal alerts (its desk-wide notifications stay). A person's
// e-mail digest carries the alerts given to them, through the profile's SMTP server (a real one on loopback), once.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BatchProgress } from '../../../contract/api';
import { createAppContext, type AppContext } from '../../../main/context';
import { AlertMemory } from '../../../main/desk/alert-memory';
import { alertSwitches } from '../../../main/desk/alerts-ipc';
import { startAlerts, type Alert, type Alerts } from '../../../main/desk/alerts';
import { approvalsService } from '../../../main/desk/approvals';
import { dualControlService, type DualControlService } from '../../../main/desk/dual-control';
import { createDeskEvents } from '../../../main/desk/events';
import { createDeskRuntime, type DeskRuntime } from '../../../main/desk/runtime';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { silentLogger } from '../../../main/log';
import type { UnlockedSession } from '../../../main/people/key-vault';
import { MIN_KDF } from '../../../main/people/person-key';
import { payout, sqliteJournalOf } from '../journal/helpers';
import { DIGEST_GATHER_MS, sendDueDigests } from '../../../main/desk/alert-digest';
import { parseMail, startSmtpFixture, type RcptAnswer, type SmtpFixture } from '../../integration/support/smtp-fixture';

const PROFILE = 'shop';
let home: string;
let ctx: AppContext;
let rt: DeskRuntime;
let dc: DualControlService;
let alerts: Alerts;
let delivered: Alert[];
let ada: { id: string; session: UnlockedSession };
let bob: { id: string; session: UnlockedSession };

function start(): void {
  delivered = [];
  alerts = startAlerts({ rt, dc, approvals: approvalsService(rt, dc), memory: AlertMemory.inHome(home), deliver: (a) => delivered.push(a), settleMs: 10 });
}

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), 'alerts-'));
  ctx = createAppContext({ home, keyStore: new MemoryKeyStore() });
  ctx.profiles.add({ id: PROFILE, name: 'Shop', baseUrl: 'https://gateway.example.invalid', merchantCode: 'M1', useDeprecatedSecret: true });
  ctx.profiles.setCurrent(PROFILE);
  rt = createDeskRuntime({ ctx, events: createDeskEvents(), log: silentLogger });
  dc = dualControlService(rt, { kdf: MIN_KDF });
  const first = await dc.addPerson(PROFILE, { name: 'Ada', passphrase: 'ada passphrase 1' });
  ada = { id: first.person.id, session: first.session };
  const enrolled = await dc.enroll(PROFILE, { name: 'Bob', passphrase: 'bob passphrase 1' });
  bob = { id: enrolled.person.id, session: enrolled.session };
  await dc.setRoles(PROFILE, bob.id, ['approver'], ada.session);
  await dc.setPolicy(PROFILE, { bands: { EUR: [{ atLeast: '1000', approvals: 1 }] }, newOrChangedPayee: 0 }, ada.session);
  start();
});
afterEach(async () => {
  alerts.stop();
  await rt.close();
  ctx.close();
  rmSync(home, { recursive: true, force: true });
});

/** Ada prepared a payout of 1,500 EUR, and the gate held it for an approval. */
async function heldPayout(id: string): Promise<void> {
  const journal = await sqliteJournalOf(rt, PROFILE);
  journal.insertPayment('payout', payout(id, { amountMinor: 150_000, preparedBy: ada.id }));
  journal.markHeld('payout', id, 'needs 1 approval');
  rt.events.emit('paymentStatusChanged', { kind: 'payout', id, status: 'HELD', previousStatus: 'QUEUED', final: false, source: 'local', observedAt: new Date().toISOString(), batchId: null });
  await alerts.flush();
}

const progress = (over: Partial<BatchProgress>): BatchProgress => ({
  batchId: 'b-1', state: 'RUNNING', total: 10, done: 10, failed: 0, pending: 0, sent: 10, ratePerSec: 0, etaSeconds: null, stateWord: '', stateReason: null, ...over,
});

/** Ada's batch pauses, finishes with two failures (told twice), and one of its payouts is returned, then missing. */
async function preparersBatchEvents(): Promise<void> {
  const journal = await sqliteJournalOf(rt, PROFILE);
  journal.createBatch({ id: 'b-1', fileName: 'june.csv', sha256: 'a'.repeat(64), actor: 'test', preparedBy: ada.id, rows: [payout('b1-1', { preparedBy: ada.id }), payout('b1-2', { preparedBy: ada.id })] });
  rt.events.emit('batchProgress', progress({ state: 'PAUSED', stateReason: 'needs 1 approval' }));
  rt.events.emit('batchProgress', progress({ state: 'COMPLETED', failed: 2 }));
  rt.events.emit('batchProgress', progress({ state: 'COMPLETED', failed: 2 }));
  for (const status of ['RETURNED', 'MISSING']) {
    rt.events.emit('paymentStatusChanged', { kind: 'payout', id: 'b1-1', status, previousStatus: 'SUCCESS', final: status === 'RETURNED', source: 'poll', observedAt: new Date().toISOString(), batchId: 'b-1' });
  }
  await alerts.flush();
}

describe('alerts for whoever must act', () => {
  it('the approver hears what waits for them, with who prepared it and the total; the preparer that it was held', async () => {
    await heldPayout('po-1');
    const forBob = delivered.filter((a) => a.personId === bob.id);
    expect(forBob).toEqual([expect.objectContaining({ kind: 'approval-waiting', title: 'Waits for your approval, Bob', body: expect.stringMatching(/^Payout .*: 1500\.00 EUR, prepared by Ada$/) })]);
    // Ada prepared it: she cannot approve it, and hears that it was held.
    expect(delivered.filter((a) => a.personId === ada.id).map((a) => a.kind)).toEqual(['payout-held']);
  });

  it('one event alerts a person once, also after the desk restarts', async () => {
    await heldPayout('po-1');
    rt.events.emit('approvalsChanged', { profileId: PROFILE, subject: null });
    await alerts.flush();
    alerts.stop();
    start();
    rt.events.emit('approvalsChanged', { profileId: PROFILE, subject: null });
    await alerts.flush();
    expect(delivered).toEqual([]);
    // Another payout waiting is another event.
    await heldPayout('po-2');
    expect(delivered.filter((a) => a.kind === 'approval-waiting')).toHaveLength(1);
  });

  it('a muted kind is not told to that person; the others still are', async () => {
    AlertMemory.inHome(home).setMuted(PROFILE, bob.id, 'approval-waiting', true);
    alerts.stop();
    start();
    await heldPayout('po-1');
    expect(delivered.map((a) => `${a.personId === bob.id ? 'bob' : 'ada'}:${a.kind}`)).toEqual(['ada:payout-held']);
  });

  it('the unlocked person mutes a kind at their desk through the switches the screen calls', async () => {
    const switches = alertSwitches(rt);
    const profile = ctx.profiles.get(PROFILE);
    await expect(switches.alerts(profile)).rejects.toMatchObject({ code: 'LOCKED' });
    rt.setSession(PROFILE, ada.session);
    const views = await switches.muteAlert(profile, { kind: 'payout-held', muted: true });
    expect(views).toHaveLength(8);
    expect(views.find((v) => v.kind === 'payout-held')).toEqual({ kind: 'payout-held', label: 'A payout I prepared was held', muted: true });
    expect((await switches.alerts(profile)).filter((v) => v.muted).map((v) => v.kind)).toEqual(['payout-held']);
    await heldPayout('po-1');
    expect(delivered.map((a) => `${a.personId === bob.id ? 'bob' : 'ada'}:${a.kind}`)).toEqual(['bob:approval-waiting']);
  });

  it('the preparer hears that their batch paused, finished with failures, and that a payout of theirs returned or is missing', async () => {
    await preparersBatchEvents();
    expect(delivered.filter((a) => a.personId === ada.id).map((a) => [a.kind, a.body])).toEqual([
      ['batch-paused', 'Batch b-1: needs 1 approval'],
      ['batch-failures', 'Batch b-1: 2 of 10 failed'],
      ['payout-returned', 'Payment b1-1 was paid and then returned by the bank'],
      ['payout-missing', 'The gateway accepted payment b1-1 and now says it does not know it'],
    ]);
  });

  it('a desk without dual control gives no personal alerts', async () => {
    ctx.profiles.add({ id: 'plain', name: 'Plain', baseUrl: 'https://gateway.example.invalid', merchantCode: 'M2', useDeprecatedSecret: true });
    ctx.profiles.setCurrent('plain');
    await rt.auditSeal('plain');
    const journal = await sqliteJournalOf(rt, 'plain');
    journal.insertPayment('payout', payout('p-1'));
    rt.events.emit('paymentStatusChanged', { kind: 'payout', id: 'p-1', status: 'MISSING', previousStatus: 'PENDING', final: false, source: 'poll', observedAt: new Date().toISOString(), batchId: null });
    rt.events.emit('approvalsChanged', { profileId: 'plain', subject: null });
    await alerts.flush();
    expect(delivered).toEqual([]);
  });
});

describe('alerts of the calendar', () => {
  const at = (ms: number) => ({ at: ms, zone: 'UTC', local: new Date(ms).toISOString().slice(0, 16) });

  it("the preparer hears that a scheduled run will be short of funds on its day, once per shortfall", async () => {
    const journal = await sqliteJournalOf(rt, PROFILE);
    const day = Date.parse('2030-12-28T09:00:00Z');
    journal.insertBalanceSnapshots([{ currencyCode: 'EUR', availableMinor: 1_000_000, reservedMinor: 0 }]);
    journal.createBatch({ id: 'run-1', fileName: 'december.csv', sha256: 'a'.repeat(64), preparedBy: ada.id, schedule: at(day), rows: [payout('r-1', { amountMinor: 1_500_000, preparedBy: ada.id })] });
    // Covered on its own: no alert.
    journal.insertPayment('payout', { ...payout('p-1', { amountMinor: 100_000, preparedBy: ada.id }), schedule: at(day - 86_400_000) });
    rt.events.emit('schedulesChanged', { profileId: PROFILE, subject: { kind: 'batch', id: 'run-1' }, change: 'scheduled' });
    rt.events.emit('schedulesChanged', { profileId: PROFILE, subject: { kind: 'batch', id: 'run-1' }, change: 'scheduled' });
    await alerts.flush();
    const short = delivered.filter((a) => a.kind === 'schedule-short');
    expect(short).toEqual([expect.objectContaining({ personId: ada.id, title: 'A scheduled run will be short of funds', body: 'Batch run-1 on 2030-12-28: EUR short by 6000.00 (the balance last read against what is due by then)' })]);
  });

  it("a payout held by its schedule is no 'payout held' alert: nothing is wrong with it", async () => {
    const journal = await sqliteJournalOf(rt, PROFILE);
    journal.insertPayment('payout', { ...payout('p-dated', { preparedBy: ada.id }), schedule: at(Date.now() + 86_400_000) });
    rt.events.emit('paymentStatusChanged', { kind: 'payout', id: 'p-dated', status: 'HELD', previousStatus: 'QUEUED', final: false, source: 'local', observedAt: new Date().toISOString(), batchId: null });
    await alerts.flush();
    expect(delivered.filter((a) => a.kind === 'payout-held')).toEqual([]);
  });

  it('a run past its late window reaches its preparer and the senders at this desk', async () => {
    await dc.setRoles(PROFILE, bob.id, ['approver', 'sender'], ada.session);
    const journal = await sqliteJournalOf(rt, PROFILE);
    journal.insertPayment('payout', { ...payout('p-1', { preparedBy: ada.id }), schedule: at(Date.now() - 8 * 3_600_000) });
    journal.markScheduleLate('payout', 'p-1', 'engine');
    rt.events.emit('schedulesChanged', { profileId: PROFILE, subject: { kind: 'payout', id: 'p-1' }, change: 'late' });
    await alerts.flush();
    const late = delivered.filter((a) => a.kind === 'schedule-late');
    expect(late.map((a) => a.personId).sort()).toEqual([ada.id, bob.id].sort());
    expect(late[0]?.body).toMatch(/^Payout p-1 was due .* UTC and is past its late window: a sender confirms its release/);
  });
});

describe('e-mail digests of alerts', () => {
  let smtp: SmtpFixture;
  let answer: RcptAnswer = null;
  const HOUR = 3_600_000;
  const text = (n: number) => parseMail(smtp.mails[n]!.raw).parts[0]!.body.toString('utf8');

  beforeEach(async () => {
    answer = null;
    smtp = await startSmtpFixture({ rcpt: () => answer });
    ctx.profiles.update(PROFILE, { smtp: { host: '127.0.0.1', port: smtp.port, security: 'none', username: null, from: 'payouts@shop.example', replyTo: null } });
  });
  afterEach(() => smtp.close());

  /** Bob turns his digest on at his desk, through the call the People screen makes. */
  async function bobDigest(every: 'hourly' | 'daily') {
    rt.setSession(PROFILE, bob.session);
    return alertSwitches(rt).setAlertDigest(ctx.profiles.get(PROFILE), { email: 'bob@shop.example', every });
  }

  it("mails a person the alerts given to them, gathered, once, and never another person's", async () => {
    expect(await bobDigest('hourly')).toMatchObject({ email: 'bob@shop.example', every: 'hourly', waiting: 0 });
    const t0 = Date.now();
    await heldPayout('po-1');
    await heldPayout('po-2');
    const memory = AlertMemory.inHome(home);
    // Not before the gathering moment; then one mail with both, to Bob only (Ada has no digest).
    expect(await sendDueDigests(rt, memory, t0 + 1_000)).toBe(0);
    expect(await sendDueDigests(rt, memory, t0 + DIGEST_GATHER_MS + 1_000)).toBe(1);
    expect(smtp.mails.map((m) => m.to)).toEqual([['bob@shop.example']]);
    expect(parseMail(smtp.mails[0]!.raw).headers.get('subject')).toBe('Payout Desk: 2 alerts for Bob (Shop)');
    expect(text(0).match(/Waits for your approval, Bob: Payout .*: 1500\.00 EUR, prepared by Ada/g)).toHaveLength(2);
    // Sent is sent: nothing waits, nothing goes again.
    expect(await sendDueDigests(rt, memory, t0 + 2 * HOUR)).toBe(0);
    expect(await alertSwitches(rt).alertDigest(ctx.profiles.get(PROFILE))).toMatchObject({ waiting: 0, lastError: null, lastSentAt: expect.any(String) });
    // The next alert waits for the hour to pass since the last digest.
    await heldPayout('po-3');
    expect(await sendDueDigests(rt, memory, t0 + DIGEST_GATHER_MS + 30 * 60_000)).toBe(0);
    expect(await sendDueDigests(rt, memory, t0 + DIGEST_GATHER_MS + HOUR + 1_000)).toBe(1);
    expect(smtp.mails).toHaveLength(2);
    expect(parseMail(smtp.mails[1]!.raw).headers.get('subject')).toBe('Payout Desk: 1 alert for Bob (Shop)');
  });

  it("carries each of the preparer's alerts to their mail: held, paused, finished with failures, returned, missing", async () => {
    rt.setSession(PROFILE, ada.session);
    await alertSwitches(rt).setAlertDigest(ctx.profiles.get(PROFILE), { email: 'ada@shop.example', every: 'daily' });
    const t0 = Date.now();
    await heldPayout('po-1');
    await preparersBatchEvents();
    expect(await sendDueDigests(rt, AlertMemory.inHome(home), t0 + DIGEST_GATHER_MS + 1_000)).toBe(1);
    expect(smtp.mails.map((m) => m.to)).toEqual([['ada@shop.example']]);
    const mail = text(0);
    for (const line of [
      'Your payout was held: Payment po-1 was not sent',
      'Your batch paused: Batch b-1: needs 1 approval',
      'Your batch finished with failures: Batch b-1: 2 of 10 failed',
      'Your payout was returned: Payment b1-1 was paid and then returned by the bank',
      'Your payout is missing at the gateway: The gateway accepted payment b1-1',
    ]) expect(mail).toContain(line);
  });

  it('keeps the alerts and shows why when the server refuses, and sends them when it takes the mail', async () => {
    await bobDigest('daily');
    const t0 = Date.now();
    await heldPayout('po-1');
    const memory = AlertMemory.inHome(home);
    answer = { code: 550, message: 'mailbox unavailable' };
    expect(await sendDueDigests(rt, memory, t0 + DIGEST_GATHER_MS + 1_000)).toBe(0);
    const failed = await alertSwitches(rt).alertDigest(ctx.profiles.get(PROFILE));
    expect(failed).toMatchObject({ waiting: 1, lastSentAt: null });
    expect(failed.lastError).toMatch(/^refused: .*550/);
    answer = null;
    expect(await sendDueDigests(rt, memory, t0 + DIGEST_GATHER_MS + 120_000)).toBe(1);
    expect(await alertSwitches(rt).alertDigest(ctx.profiles.get(PROFILE))).toMatchObject({ waiting: 0, lastError: null });
    // Off: nothing waits for a digest any more, and an address that is not one is refused.
    expect(await alertSwitches(rt).setAlertDigest(ctx.profiles.get(PROFILE), { email: null, every: 'daily' })).toMatchObject({ email: null, waiting: 0 });
    await expect(alertSwitches(rt).setAlertDigest(ctx.profiles.get(PROFILE), { email: 'bob at shop', every: 'daily' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('mails nothing of a muted kind, and says so when the profile has no SMTP server', async () => {
    await bobDigest('hourly');
    AlertMemory.inHome(home).setMuted(PROFILE, bob.id, 'approval-waiting', true);
    const t0 = Date.now();
    await heldPayout('po-1');
    expect(await sendDueDigests(rt, AlertMemory.inHome(home), t0 + DIGEST_GATHER_MS + 1_000)).toBe(0);
    expect(smtp.mails).toEqual([]);
    AlertMemory.inHome(home).setMuted(PROFILE, bob.id, 'approval-waiting', false);
    await heldPayout('po-2');
    ctx.profiles.update(PROFILE, { smtp: null });
    expect(await sendDueDigests(rt, AlertMemory.inHome(home), t0 + DIGEST_GATHER_MS + 1_000)).toBe(0);
    // Both payouts wait for Bob now that the kind is on again; they stay queued, with the reason.
    const digest = AlertMemory.inHome(home).digest(PROFILE, bob.id);
    expect(digest?.waiting.map((w) => w.kind)).toEqual(['approval-waiting', 'approval-waiting']);
    expect(digest?.lastError).toContain('has no SMTP server');
  });
});

