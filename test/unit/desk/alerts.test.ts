// Alerts reach the people who must act, at the desk where their key is: the approver hears that a payout waits for
// their approval (who prepared it, its total), once, also after the desk restarts; the preparer hears that their
// payout was held, returned or is missing and that their batch paused or finished with failures; a muted kind is
// not told; a desk without dual control gives no personal alerts (its desk-wide notifications stay).
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

const PROFILE = 'shop';
let home: string;
let ctx: AppContext;
let rt: DeskRuntime;
let dc: DualControlService;
let alerts: Alerts;
let delivered: Alert[];
let ada: { id: string; session: UnlockedSession };
let bob: { id: string };

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
  bob = { id: enrolled.person.id };
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
    expect(views).toHaveLength(6);
    expect(views.find((v) => v.kind === 'payout-held')).toEqual({ kind: 'payout-held', label: 'A payout I prepared was held', muted: true });
    expect((await switches.alerts(profile)).filter((v) => v.muted).map((v) => v.kind)).toEqual(['payout-held']);
    await heldPayout('po-1');
    expect(delivered.map((a) => `${a.personId === bob.id ? 'bob' : 'ada'}:${a.kind}`)).toEqual(['bob:approval-waiting']);
  });

  it('the preparer hears that their batch paused, finished with failures, and that a payout of theirs returned or is missing', async () => {
    const journal = await sqliteJournalOf(rt, PROFILE);
    journal.createBatch({ id: 'b-1', fileName: 'june.csv', sha256: 'a'.repeat(64), actor: 'test', preparedBy: ada.id, rows: [payout('b1-1', { preparedBy: ada.id }), payout('b1-2', { preparedBy: ada.id })] });
    rt.events.emit('batchProgress', progress({ state: 'PAUSED', stateReason: 'needs 1 approval' }));
    rt.events.emit('batchProgress', progress({ state: 'COMPLETED', failed: 2 }));
    rt.events.emit('batchProgress', progress({ state: 'COMPLETED', failed: 2 }));
    for (const status of ['RETURNED', 'MISSING']) {
      rt.events.emit('paymentStatusChanged', { kind: 'payout', id: 'b1-1', status, previousStatus: 'SUCCESS', final: status === 'RETURNED', source: 'poll', observedAt: new Date().toISOString(), batchId: 'b-1' });
    }
    await alerts.flush();
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
