// Two desks of a team as the app runs them (runtime, services, IPC handlers), on one team database and one
// sandbox gateway: a desk without the merchant's key prepares, the sender desk sends, and each sees the
// other's work as it happens (LISTEN/NOTIFY), without asking the gateway itself. Dual control spans the
// desks: people enrol at their own desk, an admin grants roles from another, approvals are shared.
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ApprovalItem, AuditEntryView, AuditVerification, BatchValidation, BatchView, ConnectionState, ControlInfo, DeskSessionView, HistoryRow, Page, PaymentDetail, PersonInfo } from '../../../contract/api';
import { startSandbox, type SandboxHandle } from '../../../sandbox/index';
import { sandboxConfig } from '../engine/setup';
import { freshDatabase } from './cluster';
import { startCutProxy } from './cut-proxy';
import { journalPath } from '../../../main/desk/profile-engine';
import { openJournal } from '../../../main/store/sqlite';
import { dualControlService } from '../../../main/desk/dual-control';
import { TeamAuditSeal } from '../../../main/store/postgres/audit-seal';
import { eventually, openTeamAppDesk, TEAM_PROFILE, teamCsv, type TeamAppDesk } from './team-app-desk';

let sandbox: SandboxHandle;
const desks: TeamAppDesk[] = [];

beforeAll(async () => {
  sandbox = await startSandbox(sandboxConfig());
});
afterEach(async () => {
  for (const d of desks.splice(0)) await d.close();
});
afterAll(async () => {
  await sandbox.close();
});

/** A preparing desk (no merchant key) and a sender desk on a fresh team database. */
async function team(): Promise<{ prep: TeamAppDesk; sender: TeamAppDesk }> {
  const teamUrl = await freshDatabase(inject('postgresUrl'));
  const prep = await openTeamAppDesk({ name: 'prep', teamUrl, gatewayUrl: sandbox.url });
  const sender = await openTeamAppDesk({ name: 'sender', teamUrl, gatewayUrl: sandbox.url, senderOf: sandbox });
  desks.push(prep, sender);
  // The sender desk's engine runs, as it does in the app once the profile is used.
  await sender.runtime.engineFor(TEAM_PROFILE);
  return { prep, sender };
}

async function submitCsv(desk: TeamAppDesk, prefix: string, rows: number): Promise<BatchView> {
  const validation = await desk.call<BatchValidation>('batches:validateFile', { source: teamCsv(prefix, rows) });
  expect(validation.errors).toEqual([]);
  return desk.call<BatchView>('batches:submit', { validationId: validation.validationId, confirmedWarningRows: validation.warnings.map((w) => w.rowNumber) });
}

const storedAtGateway = (prefix: string) => sandbox.state().payouts.filter((p) => p.idPayout.startsWith(prefix));

describe('two desks of a team on one database', () => {
  it('a batch prepared at a desk without the key is sent by the sender desk; both see it final, live', async () => {
    const { prep, sender } = await team();
    const submitted = await submitCsv(prep, 'tb1', 12);
    // Stored in the team journal; this desk sends nothing and says who does.
    expect(submitted.progress).toMatchObject({ state: 'RUNNING', stateWord: 'RUNNING', total: 12 });
    expect(submitted.progress.stateReason).toMatch(/team's sender desks/);

    await eventually(async () => (await prep.call<BatchView>('batches:get', { batchId: submitted.id })).progress.pending === 0, 'the batch final at the preparing desk');
    // The notices of the last writes reach the preparing desk after the rows do: wait for them too.
    await eventually(() => prep.seen.batchProgress.some((p) => p.batchId === submitted.id && p.state === 'COMPLETED'), 'the batch heard COMPLETED at the preparing desk');
    await eventually(() => new Set(prep.seen.paymentStatusChanged.filter((e) => e.id.startsWith('tb1-') && e.final).map((e) => e.id)).size === 12, 'every final status heard at the preparing desk');
    const atPrep = await prep.call<BatchView>('batches:get', { batchId: submitted.id });
    const atSender = await sender.call<BatchView>('batches:get', { batchId: submitted.id });
    expect(atPrep.progress).toMatchObject({ state: 'COMPLETED', total: 12, done: 12, pending: 0 });
    expect(atSender.progress).toMatchObject({ state: 'COMPLETED', total: 12, done: 12, pending: 0 });
    // Every id stored exactly once at the gateway.
    expect(storedAtGateway('tb1-')).toHaveLength(12);
    expect(Object.entries(sandbox.state().createAttempts.payouts).filter(([id, n]) => id.startsWith('tb1-') && n !== 1)).toEqual([]);

    // The preparing desk saw the sender's work as events of its own (it never asked the gateway): the batch
    // heard COMPLETED (waited for above), and every payout's final status, exactly those at the gateway.
    expect([...new Set(prep.seen.paymentStatusChanged.filter((e) => e.id.startsWith('tb1-') && e.final).map((e) => e.id))].sort()).toEqual(storedAtGateway('tb1-').map((p) => p.idPayout).sort());
    // ...and its history screen reads the shared journal.
    const history = await prep.call<Page<HistoryRow>>('history:query', { filters: { batchId: submitted.id }, limit: 50 });
    expect(history.total).toBe(12);
    expect(history.items.every((r) => r.final)).toBe(true);
    // A desk never hears its own writes back: the sender's events come from its engine, once per change.
    const senderFinals = sender.seen.paymentStatusChanged.filter((e) => e.id === 'tb1-0001' && e.final);
    expect(senderFinals).toHaveLength(1);
  });

  it('a single payout entered at the preparing desk waits QUEUED there and is sent by the sender desk', async () => {
    const { prep } = await team();
    const created = await prep.call<PaymentDetail>('payouts:create', {
      idPayout: 'tp-single-1', amount: '42.00', currencyCode: 'EUR', accountName: 'Jane Doe', accountNumber: 'DE89370400440532013000', paymentOperatorCode: 'EU_SEPA', emailAddress: 'jane@example.com',
    });
    expect(created.localState).toBe('QUEUED');
    // The change notice reaches the preparing desk on its own schedule, after the row is written: wait for the notice.
    await eventually(async () => prep.seen.paymentStatusChanged.some((e) => e.id === 'tp-single-1' && e.final), 'the final status heard at the preparing desk');
    expect((await prep.call<PaymentDetail>('payouts:get', { idPayout: 'tp-single-1' })).final).toBe(true);
    expect(storedAtGateway('tp-single-1')).toHaveLength(1);
  });

  it('the preparing desk does not talk to the gateway: balances it cannot read say why', async () => {
    const { prep } = await team();
    const e = await prep.fails('balances:refresh');
    expect(e.message).toMatch(/merchant's key is not on it/);
  });

  it('dual control across desks: enrol at your own desk, roles from another, approve and send at the sender desk', async () => {
    const { prep, sender } = await team();
    // Ada sets the team up at the preparing desk (the first person holds every role).
    const ada = (await prep.call<{ person: PersonInfo }>('people:add', { name: 'Ada', roles: ['admin'], passphrase: 'ada-long-passphrase' })).person;
    // Bob enrols at the sender desk: his key is made there; he is a viewer until Ada grants more.
    const bobSession = await sender.call<DeskSessionView>('people:enroll', { name: 'Bob', passphrase: 'bob-long-passphrase' });
    const bob = bobSession.unlocked!.personId;
    expect((await prep.call<PersonInfo[]>('people:list')).find((p) => p.id === bob)).toMatchObject({ name: 'Bob', roles: ['viewer'], keyOnThisMachine: false });
    expect((await sender.call<PersonInfo[]>('people:list')).find((p) => p.id === ada.id)).toMatchObject({ keyOnThisMachine: false });
    const before = sender.seen.approvalsChanged.length;
    // A signed record of Ada's, made at her desk, read and verified at Bob's.
    expect(await prep.call('people:setRoles', { personId: bob, roles: ['approver', 'sender'] })).toMatchObject({ person: { roles: ['approver', 'sender'] }, proposal: null });
    await prep.call('approvals:setPolicy', { rules: { bands: { EUR: [{ atLeast: '0', approvals: 1 }] }, newOrChangedPayee: 0 } });
    await eventually(() => sender.seen.approvalsChanged.length > before, "the sender desk told of Ada's changes");
    // Both desks hold the same control records: the root made at the preparing desk, found by the sender desk in
    // the team database, whose people compare its fingerprint with Ada's out of band before confirming it.
    const madeAt = await prep.call<ControlInfo>('people:control');
    expect(madeAt).toMatchObject({ confirmed: true, records: 4, problem: null });
    expect(await sender.call<ControlInfo>('people:control')).toMatchObject({ fingerprint: madeAt.fingerprint, confirmed: false, records: 4, problem: null });
    expect(await sender.call<ControlInfo>('people:confirmRoot', { fingerprint: madeAt.fingerprint })).toMatchObject({ confirmed: true });

    const submitted = await submitCsv(prep, 'tdc', 3);
    // The sender desk takes the batch up, the gate finds no approval: paused, nothing sent.
    await eventually(async () => (await prep.call<BatchView>('batches:get', { batchId: submitted.id })).progress.state === 'PAUSED', 'the batch paused for approval');
    expect(storedAtGateway('tdc-')).toHaveLength(0);
    const queue = await sender.call<ApprovalItem[]>('approvals:queue');
    expect(queue.map((i) => [i.subject.id, i.state, i.forMe])).toEqual([[submitted.id, 'waiting', true]]);

    await sender.call('approvals:approve', { kind: 'batch', id: submitted.id, passphrase: 'bob-long-passphrase' });
    await sender.call('batches:resume', { batchId: submitted.id });
    await eventually(async () => (await prep.call<BatchView>('batches:get', { batchId: submitted.id })).progress.pending === 0, 'the approved batch final');
    expect(storedAtGateway('tdc-')).toHaveLength(3);
    // The preparer's queue no longer waits for anything, and the approval is shared.
    expect(await prep.call<ApprovalItem[]>('approvals:queue')).toEqual([]);
    const audit = (await (await prep.runtime.journalFor(TEAM_PROFILE)).listAudit(100)).map((e) => e.action);
    expect(audit).toEqual(expect.arrayContaining(['person.added', 'person.enrolled', 'person.roles-changed', 'policy.changed', 'approval.given', 'batch.paused', 'batch.running']));
    // The audit screen shows the team's log and this desk's own (its settings, keys, secrets), and verifies both.
    await sender.call('settings:update', { pollIntervalSecs: 2 });
    const listed = await sender.call<Page<AuditEntryView>>('audit:list', { limit: 500 });
    expect(listed.items.filter((e) => e.log === 'team').map((e) => e.action)).toContain('approval.given');
    expect(listed.items.filter((e) => e.log === 'desk').map((e) => e.action)).toContain('profile.updated');
    expect(listed.items.filter((e) => e.log === 'team').map((e) => e.action)).not.toContain('profile.updated');
    // With dual control on, a desk's entries are the team's once an admin registered its audit key (finding 10).
    const unregistered = await sender.call<AuditVerification>('audit:verify');
    expect(unregistered).toMatchObject({ ok: false, firstBrokenSeq: null });
    expect(unregistered.message).toMatch(/^Team log: Not the team's: .* desk (prep|sender)'s key/);
    const svc = dualControlService(prep.runtime);
    const adaSession = await svc.unlock(TEAM_PROFILE, ada.id, 'ada-long-passphrase');
    const seal = await prep.runtime.auditSeal(TEAM_PROFILE);
    if (!(seal instanceof TeamAuditSeal)) throw new Error('not a team seal');
    for (const d of await seal.desks()) await svc.registerDesk(TEAM_PROFILE, { keyId: d.keyId, publicKey: d.publicKey!, deskName: d.deskName! }, adaSession);
    const verified = await sender.call<AuditVerification>('audit:verify');
    expect(verified).toMatchObject({ ok: true, firstBrokenSeq: null });
    expect(verified.message).toMatch(/^Team log: All \d+ audit entries are intact.*This desk's own log: All \d+ audit entries are intact/);
  });

  it('a desk that loses the team database says so and sends nothing; once it is back it says so and carries on', async () => {
    const teamUrl = await freshDatabase(inject('postgresUrl'));
    const proxy = await startCutProxy(teamUrl);
    try {
      const desk = await openTeamAppDesk({ name: 'far', teamUrl: proxy.url, gatewayUrl: sandbox.url, senderOf: sandbox });
      desks.push(desk);
      await desk.call('profiles:use', { profileId: TEAM_PROFILE });
      await desk.runtime.engineFor(TEAM_PROFILE);
      await eventually(async () => (await desk.call<ConnectionState>('app:connectionState')).teamDatabase?.state === 'connected', 'the team database connected');
      await desk.call<Page<HistoryRow>>('history:query', {});

      proxy.cut();
      await eventually(() => desk.seen.connectionChanged.some((c) => c.teamDatabase?.state === 'unreachable'), 'the desk saying the database is gone');
      const state = await desk.call<ConnectionState>('app:connectionState');
      expect(state.teamDatabase).toMatchObject({ state: 'unreachable', where: expect.stringContaining('127.0.0.1') });
      // Reads and sends fail with the same plain words, and may be tried again; nothing reaches the gateway.
      const read = await desk.fails('history:query', {});
      expect(read).toMatchObject({ code: 'TEAM_DB_UNREACHABLE', retryable: true });
      expect(read.message).toMatch(/sends nothing until it is back/);
      const send = await desk.fails('payouts:create', {
        idPayout: 'off-1', amount: '5.00', currencyCode: 'EUR', accountName: 'Jane Doe', accountNumber: 'DE89370400440532013000', paymentOperatorCode: 'EU_SEPA', emailAddress: 'jane@example.com',
      });
      expect(send.code).toMatch(/^(TEAM_DB_UNREACHABLE|DATABASE_UNREACHABLE)$/);
      expect(storedAtGateway('off-1')).toEqual([]);
      // Its audit screen still shows this desk's own log; verify says the team's cannot be checked now.
      expect((await desk.call<Page<AuditEntryView>>('audit:list', { limit: 100 })).items.every((e) => e.log === 'desk')).toBe(true);
      const unchecked = await desk.call<AuditVerification>('audit:verify');
      expect(unchecked.ok).toBe(false);
      expect(unchecked.message).toMatch(/^Team log: cannot be checked/);
      // This desk's own settings change while it is cut off, audited in its own sealed journal (not the team's).
      await desk.call('settings:update', { pollIntervalSecs: 3 });
      const own = openJournal(journalPath(desk.home, TEAM_PROFILE));
      try {
        const changed = own.listAudit(10).filter((e) => e.action === 'profile.updated').map((e) => JSON.stringify(e.details));
        expect(changed.some((d) => d.includes('"field":"pollIntervalSecs"') && d.includes('"to":3'))).toBe(true);
      } finally {
        own.close();
      }

      proxy.restore();
      await eventually(async () => (await desk.call<ConnectionState>('app:connectionState')).teamDatabase?.state === 'connected', 'the database back');
      await desk.call('payouts:create', {
        idPayout: 'off-2', amount: '5.00', currencyCode: 'EUR', accountName: 'Jane Doe', accountNumber: 'DE89370400440532013000', paymentOperatorCode: 'EU_SEPA', emailAddress: 'jane@example.com',
      });
      await eventually(() => storedAtGateway('off-2').length === 1, 'the payout sent once the database is back');
      expect(storedAtGateway('off-1')).toEqual([]);
    } finally {
      await proxy.close();
    }
  });
});
