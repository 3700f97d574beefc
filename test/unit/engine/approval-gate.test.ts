// Dual control at the one place every create passes, a first send and a re-send of an unknown outcome alike:
// the engine asks the gate, with the manifest rebuilt from the journal's rows, the people and policy from the
// verified control chain, and the preparer's signature over what they submitted. Each refusal sends nothing,
// says why and is audited; approvals given afterwards let a release (payout) or a resume (batch) send.
import { afterEach, describe, expect, it } from 'vitest';
import { signApproval } from '../../../main/approvals/approval';
import { journalApprovalGate, manifestFromJournal } from '../../../main/approvals/gate';
import type { Subject } from '../../../main/approvals/manifest';
import type { PolicyRules } from '../../../main/approvals/policy';
import { signPreparation } from '../../../main/approvals/preparation';
import { SqliteDualControlRepository } from '../../../main/store/sqlite/dual-control';
import type { ApprovalCheck } from '../../../main/approvals/verify';
import { payoutFieldsOf } from '../../../main/domain/payout';
import type { Environment } from '../../../main/profiles/profile-schema';
import { EngineError, type ApprovalGatePort } from '../../../main/engine';
import { appendRecord, chainOf, member, preparingAs, readerOf, type Member } from '../approvals/helpers';
import { draft, engineFixture, until, type EngineFixture } from './engine-helpers';

const PROFILE = 'prof-1';
let f: EngineFixture;
afterEach(async () => f?.dispose());

const T = Date.now() - 60_000;
const admin = member('ada', ['admin'], T);
const paula = member('paula', ['preparer'], T);
const alice = member('alice', ['approver'], T);
const bob = member('bob', ['approver'], T);

async function desk(environment: Environment, people: Member[] = [admin, paula, alice, bob], options: { concurrency?: number; backoffMs?: number } = {}) {
  f = engineFixture();
  const repo = new SqliteDualControlRepository(f.t.journal);
  // The people as a control chain the first admin signed (what `people seal` or enrolment and grants make).
  if (people.length > 0) for (const r of chainOf(PROFILE, people, { at: T })) await repo.appendChain(r);
  const reader = readerOf(repo, { profileId: PROFILE, environment });
  const ignored: { subject: Subject; checks: readonly ApprovalCheck[] }[] = [];
  const gate = journalApprovalGate({ journal: f.t.journal, repository: repo, control: () => reader.read(), onIgnored: (subject, checks) => void ignored.push({ subject, checks }) });
  // The gate is given to a fresh engine over the same journal and gateway; the preparer named signs what is submitted.
  await f.engine.stop();
  const engineOptions = {
    approvalGate: gate, prepare: preparingAs(repo, people, PROFILE),
    ...(options.concurrency ? { concurrency: options.concurrency } : {}), ...(options.backoffMs ? { backoff: { baseMs: options.backoffMs, capMs: options.backoffMs } } : {}),
  };
  f = engineFixture(engineOptions, f.gateway, f.t);
  const approveAs = async (m: Member, subject: Subject, decision: 'approve' | 'reject' = 'approve', reason: string | null = null) => {
    const state = await reader.read();
    const manifest = (await manifestFromJournal(f.t.journal, state.scope, subject, state.policy.version))!;
    const a = signApproval(m.session, { id: globalThis.crypto.randomUUID(), manifest, decision, reason, signedAt: Date.now() });
    await repo.addApproval(a);
    return a;
  };
  /** The preparer signs a subject stored straight into the journal (as the engine's prepare hook does at submit). */
  const prepareStored = async (subject: Subject, as: Member = paula) => {
    const manifest = (await manifestFromJournal(f.t.journal, PROFILE, subject, 0))!;
    await repo.addPreparation(signPreparation(as.session, { id: globalThis.crypto.randomUUID(), manifest, signedAt: Date.now() }));
  };
  /** A control record signed by the admin (a policy version, a revocation), dated now. */
  const record = (body: Parameters<typeof appendRecord>[1]) => appendRecord(repo, body, [admin], Date.now());
  /** A fresh engine over the same journal, gateway and gate: the desk restarted. */
  const restart = async () => {
    await f.engine.stop();
    f = engineFixture(engineOptions, f.gateway, f.t);
  };
  return { repo, reader, approveAs, prepareStored, record, restart, ignored };
}

const refusals = () => f.t.journal.listAudit(100).filter((e) => e.action === 'approval.refused');
const creates = () => [...f.gateway.createCalls.values()].reduce((a, b) => a + b, 0);
const big = (id: string) => draft(id, { amountMinor: 250_000 }); // 2,500.00 EUR: one approval on LIVE by default

async function heldMessage(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (e) {
    if (e instanceof EngineError && e.code === 'PAYOUT_HELD') return e.message;
    throw e;
  }
  return 'sent';
}

describe('the approval gate in the engine', () => {
  it('changes nothing on a desk without people (TEST or LIVE): payouts and batches go as before', async () => {
    await desk('LIVE', []);
    await f.engine.submitPayout(big('p1'));
    const batch = await f.engine.submitBatch({ fileName: 'june.csv', sha256: 'aa', rows: [big('r1'), big('r2')] });
    expect((await f.engine.waitForBatch(batch.id)).state).toBe('COMPLETED');
    expect(creates()).toBe(3);
    expect(refusals()).toEqual([]);
  });

  it('changes nothing under the TEST default (no approval needed) once people exist', async () => {
    await desk('TEST');
    await f.engine.submitPayout(big('p1'), { preparedBy: 'paula' });
    expect(creates()).toBe(1);
  });

  it('holds a LIVE payout over the threshold until an approver signs, then sends it on release', async () => {
    const { approveAs } = await desk('LIVE');
    const message = await heldMessage(f.engine.submitPayout(big('p1'), { preparedBy: 'paula' }));
    expect(message).toMatch(/held, not sent.*Nothing was sent: it needs 1 approval \(2500\.00 EUR: 1\), has 0/);
    expect(creates()).toBe(0);
    expect(refusals()).toEqual([expect.objectContaining({ subject: 'p1', actor: 'approvals', details: expect.objectContaining({ kind: 'payout', code: 'MISSING_APPROVALS', required: 1 }) })]);
    // A payout under the threshold needs none.
    await f.engine.submitPayout(draft('small', { amountMinor: 99_999 }), { preparedBy: 'paula' });
    expect(f.gateway.createCalls.get('small')).toBe(1);

    await approveAs(alice, { kind: 'payout', id: 'p1' });
    expect((await f.engine.releasePayout('p1')).state).toBe('ACCEPTED');
    expect(f.gateway.createCalls.get('p1')).toBe(1);
  });

  it('pauses a batch that lacks approvals with the reason, sends nothing, and sends it once approved and resumed', async () => {
    const { approveAs } = await desk('LIVE');
    const batch = await f.engine.submitBatch({ fileName: 'june.csv', sha256: 'aa', rows: [big('r1'), big('r2')], preparedBy: 'paula' });
    const paused = await f.engine.waitForBatch(batch.id);
    expect(paused).toMatchObject({ state: 'PAUSED', pauseReason: 'Nothing was sent: it needs 1 approval (5000.00 EUR: 1), has 0' });
    expect(creates()).toBe(0);
    expect(refusals()).toHaveLength(1);
    await approveAs(bob, { kind: 'batch', id: batch.id });
    await f.engine.resumeBatch(batch.id);
    expect((await f.engine.waitForBatch(batch.id)).state).toBe('COMPLETED');
    expect(creates()).toBe(2);
  });

  it('asks again after a try the gateway certainly did not store: a policy changed meanwhile voids the approval', async () => {
    const { record, approveAs } = await desk('LIVE');
    await heldMessage(f.engine.submitPayout(big('p1'), { preparedBy: 'paula' }));
    await approveAs(alice, { kind: 'payout', id: 'p1' });
    f.gateway.failCreates(1, 'unauthorized');
    expect(await heldMessage(f.engine.releasePayout('p1'))).toMatch(/fake unauthorized/);
    expect(f.t.journal.getPayment('payout', 'p1')).toMatchObject({ state: 'HELD', attempts: 1, unknownSince: null });
    expect(f.gateway.stored.has('p1')).toBe(false);
    const rules: PolicyRules = { bands: { '*': [{ atLeast: '1000', approvals: 1 }] }, newOrChangedPayee: 0 };
    await record({ kind: 'policy', version: 1, rules });

    expect(await heldMessage(f.engine.releasePayout('p1'))).toMatch(/decided under policy version 0; the policy is now version 1/);
    expect(f.gateway.stored.has('p1')).toBe(false);
    expect(refusals().at(0)?.details).toMatchObject({ kind: 'payout', code: 'POLICY_CHANGED' });
    await approveAs(bob, { kind: 'payout', id: 'p1' });
    expect((await f.engine.releasePayout('p1')).state).toBe('ACCEPTED');
  });

  it('checks a batch and a payout left unsent by a stopped desk when the engine starts again (recovery)', async () => {
    const { prepareStored } = await desk('LIVE');
    const batch = f.t.journal.createBatch({ fileName: 'june.csv', sha256: 'aa', preparedBy: 'paula', rows: [big('r1')].map((r) => ({ ...r, id: r.idPayout })) });
    f.t.journal.insertPayment('payout', { ...big('p1'), id: 'p1', preparedBy: 'paula' });
    await prepareStored({ kind: 'batch', id: batch.id });
    await prepareStored({ kind: 'payout', id: 'p1' });
    await f.engine.start();
    expect((await f.engine.waitForBatch(batch.id)).state).toBe('PAUSED');
    await until(() => f.t.journal.getPayment('payout', 'p1')?.state === 'HELD');
    expect(creates()).toBe(0);
    expect(refusals().map((e) => e.subject).sort()).toEqual([batch.id, 'p1'].sort());
    expect(refusals().map((e) => e.details)).toEqual([expect.objectContaining({ code: 'MISSING_APPROVALS' }), expect.objectContaining({ code: 'MISSING_APPROVALS' })]);
  });

  it('sends nothing under dual control that its preparer did not sign: stored without a signature, or signed by someone else', async () => {
    const { prepareStored } = await desk('TEST');
    // The TEST default needs no approval: what stops these is the missing preparer's signature alone.
    f.t.journal.insertPayment('payout', { ...big('p1'), id: 'p1', preparedBy: 'paula' });
    f.t.journal.insertPayment('payout', { ...big('p2'), id: 'p2', preparedBy: 'paula' });
    await prepareStored({ kind: 'payout', id: 'p2' }, bob);
    f.t.journal.insertPayment('payout', { ...big('p3'), id: 'p3' });
    await f.engine.start();
    for (const id of ['p1', 'p2', 'p3']) await until(() => f.t.journal.getPayment('payout', id)?.state === 'HELD');
    expect(creates()).toBe(0);
    const why = new Map(refusals().map((e) => [e.subject, e.details as { code: string; message: string }]));
    expect(why.get('p1')).toMatchObject({ code: 'NOT_PREPARED', message: expect.stringMatching(/Paula has not signed payout p1 as its preparer/) });
    expect(why.get('p2')).toMatchObject({ code: 'NOT_PREPARED', message: expect.stringMatching(/Paula has not signed payout p2/) });
    expect(why.get('p3')).toMatchObject({ code: 'NOT_PREPARED', message: expect.stringMatching(/names no preparer/) });
    // Submitted through the engine, the preparer signs before it is stored, and it goes.
    await f.engine.submitPayout(big('p4'), { preparedBy: 'paula' });
    expect(f.gateway.createCalls.get('p4')).toBe(1);
    // A preparer who cannot sign (no such person here): nothing is stored or sent.
    await expect(f.engine.submitPayout(big('p5'), { preparedBy: 'mallory' })).rejects.toMatchObject({ code: 'NOT_SIGNED' });
    expect(f.t.journal.getPayment('payout', 'p5')).toBeUndefined();
  });

  it('fails closed: approvals that cannot be read count as none', async () => {
    f = engineFixture();
    const repo = new SqliteDualControlRepository(f.t.journal);
    for (const r of chainOf(PROFILE, [admin, paula, alice], { at: T })) await repo.appendChain(r);
    const broken = Object.assign(Object.create(repo) as SqliteDualControlRepository, { approvalsFor: () => Promise.reject(new Error('disk I/O error')) });
    const reader = readerOf(repo, { profileId: PROFILE, environment: 'LIVE' });
    const gate = journalApprovalGate({ journal: f.t.journal, repository: broken, control: () => reader.read() });
    await f.engine.stop();
    f = engineFixture({ approvalGate: gate, prepare: preparingAs(repo, [paula], PROFILE) }, f.gateway, f.t);
    expect(await heldMessage(f.engine.submitPayout(big('p1'), { preparedBy: 'paula' }))).toMatch(/the approvals could not be checked \(disk I\/O error\)/);
    expect(creates()).toBe(0);
    expect(refusals()[0]?.details).toMatchObject({ code: 'CHECK_FAILED' });
  });

  it("fails closed: control records cut back under this desk's pin send nothing, whatever the policy", async () => {
    const { repo, reader } = await desk('LIVE');
    await reader.read(); // pins the chain as this desk verified it
    const rules: PolicyRules = { bands: {}, newOrChangedPayee: 0 };
    // The chain cut back under the desk's pin (its newest record removed): nothing leaves, even under a policy needing none.
    await appendRecord(repo, { kind: 'policy', version: 1, rules }, [admin], Date.now());
    await reader.read();
    f.t.journal.db.exec('DROP TRIGGER control_chain_no_delete');
    f.t.journal.db.prepare('DELETE FROM control_chain WHERE seq = 2').run();
    expect(await heldMessage(f.engine.submitPayout(draft('small', { amountMinor: 100 }), { preparedBy: 'paula' }))).toMatch(/no longer reach record 2/);
    expect(creates()).toBe(0);
    expect(refusals()[0]?.details).toMatchObject({ code: 'ROLLED_BACK' });
  });

  describe('a re-send of an unknown outcome is checked like a first send', () => {
    const oneApproval: PolicyRules = { bands: { '*': [{ atLeast: '1000', approvals: 1 }] }, newOrChangedPayee: 0 };
    const twoApprovals: PolicyRules = { bands: { '*': [{ atLeast: '1000', approvals: 2 }] }, newOrChangedPayee: 0 };

    /** p1 approved under policy version 1, its first create timed out (it may be at the gateway): UNKNOWN, waiting to try again. */
    async function unknownAfterApproval() {
      const d = await desk('LIVE', undefined, { backoffMs: 60_000 });
      await d.record({ kind: 'policy', version: 1, rules: oneApproval });
      await heldMessage(f.engine.submitPayout(big('p1'), { preparedBy: 'paula' }));
      await d.approveAs(alice, { kind: 'payout', id: 'p1' });
      f.gateway.failCreates(1, 'timeout');
      await f.engine.releasePayout('p1', { waitMs: 50 });
      await until(() => f.t.journal.getPayment('payout', 'p1')?.state === 'UNKNOWN');
      expect(f.gateway.createCalls.get('p1')).toBe(1);
      expect(f.gateway.stored.has('p1')).toBe(false);
      return d;
    }

    it("a HELD payout marked UNKNOWN in the journal (with another account) is not created on the restart: it was never approved", async () => {
      const { restart } = await desk('LIVE');
      await heldMessage(f.engine.submitPayout(big('p1'), { preparedBy: 'paula' }));
      f.t.journal.db
        .prepare(`UPDATE payments SET state = 'UNKNOWN', unknown_since = ?, account_number = 'GB33BUKB20201555555555' WHERE id = 'p1'`)
        .run(Date.now());
      await restart();
      await f.engine.start();
      await until(() => refusals().length === 2);
      expect(creates()).toBe(0);
      expect(f.gateway.stored.has('p1')).toBe(false);
      expect(refusals()[0]?.details).toMatchObject({ kind: 'payout', code: 'NOT_PREPARED', message: expect.stringMatching(/is not what Paula prepared/) });
      // Not HELD (it may be at the gateway for all this desk knows): it stays UNKNOWN and is only read with GET.
      expect(f.t.journal.getPayment('payout', 'p1')?.state).toBe('UNKNOWN');
    });

    it('is sent again under the policy its approvals were given under, even after a stricter one, with the body approved', async () => {
      const { record, restart } = await unknownAfterApproval();
      await record({ kind: 'policy', version: 2, rules: twoApprovals });
      await restart();
      await f.engine.start();
      await until(() => f.gateway.stored.has('p1'));
      expect(f.gateway.createCalls.get('p1')).toBe(2);
      expect(f.gateway.stored.get('p1')?.request).toEqual(payoutFieldsOf(big('p1')));
      expect(refusals().filter((e) => (e.details as { code: string }).code !== 'MISSING_APPROVALS')).toEqual([]);
    });

    // Version 0 is a policy too (the environment's built-in default, fixed with the profile): its approvals carry a re-send like any other's.
    it('is sent again under the built-in default policy (version 0) its approvals were given under, after the first signed policy version', async () => {
      const d = await desk('LIVE', undefined, { backoffMs: 60_000 });
      await heldMessage(f.engine.submitPayout(big('p1'), { preparedBy: 'paula' }));
      await d.approveAs(alice, { kind: 'payout', id: 'p1' });
      f.gateway.failCreates(1, 'timeout');
      await f.engine.releasePayout('p1', { waitMs: 50 });
      await until(() => f.t.journal.getPayment('payout', 'p1')?.state === 'UNKNOWN');
      await d.record({ kind: 'policy', version: 1, rules: twoApprovals });
      await d.restart();
      await f.engine.start();
      await until(() => f.gateway.stored.has('p1') || refusals().length > 1);
      expect(refusals().map((e) => (e.details as { code: string }).code)).toEqual(['MISSING_APPROVALS']);
      expect(f.gateway.createCalls.get('p1')).toBe(2);
    });

    it('is not sent again once its row was edited in the journal, nor once its approver was revoked: it stays UNKNOWN, read with GET', async () => {
      const edited = await unknownAfterApproval();
      f.t.journal.db.prepare(`UPDATE payments SET account_number = 'GB33BUKB20201555555555' WHERE id = 'p1'`).run();
      await edited.restart();
      await f.engine.start();
      await until(() => refusals().some((e) => (e.details as { code: string }).code === 'NOT_PREPARED'));
      expect(f.gateway.createCalls.get('p1')).toBe(1);
      expect(f.t.journal.getPayment('payout', 'p1')?.state).toBe('UNKNOWN');
      await f.dispose();

      const revoked = await unknownAfterApproval();
      await revoked.record({ kind: 'revoked', personId: 'alice', reason: 'left' });
      await revoked.restart();
      await f.engine.start();
      await until(() => refusals().some((e) => (e.details as { code: string }).code === 'SIGNER_REVOKED'));
      expect(f.gateway.createCalls.get('p1')).toBe(1);
      expect(f.gateway.stored.has('p1')).toBe(false);
      expect(f.t.journal.getPayment('payout', 'p1')?.state).toBe('UNKNOWN');
    });
  });

  describe('a yes of the gate holds only until the create leaves (its clearance is asked again with the rate slot)', () => {
    /** Every create waits for its rate slot until the test lets it through. */
    function holdSlots() {
      const waiting = new Map<string, () => void>();
      f.gateway.slot = (id) => new Promise<void>((resolve) => waiting.set(id, resolve));
      return {
        waiting,
        release(id: string) {
          const go = waiting.get(id);
          if (!go) throw new Error(`${id} is not waiting for a slot`);
          waiting.delete(id);
          go();
        },
      };
    }
    async function approvedBatchWaiting(ids: string[], concurrency?: number) {
      const d = await desk('LIVE', undefined, concurrency ? { concurrency } : {});
      const batch = f.t.journal.createBatch({ fileName: 'june.csv', sha256: 'aa', preparedBy: 'paula', rows: ids.map((id) => ({ ...big(id), id })) });
      await d.prepareStored({ kind: 'batch', id: batch.id });
      await d.approveAs(alice, { kind: 'batch', id: batch.id });
      const slots = holdSlots();
      await f.engine.resumeBatch(batch.id);
      await until(() => slots.waiting.size === Math.min(ids.length, concurrency ?? ids.length));
      return { ...d, batch, slots };
    }
    const stricter: PolicyRules = { bands: { '*': [{ atLeast: '1000', approvals: 2 }] }, newOrChangedPayee: 0 };

    it('a policy raised while the rows wait: none leaves, the batch pauses with the reason, audited; approved anew it sends', async () => {
      const { batch, slots, record, approveAs } = await approvedBatchWaiting(['r1', 'r2']);
      await record({ kind: 'policy', version: 1, rules: stricter });
      slots.release('r1');
      slots.release('r2');
      const paused = await f.engine.waitForBatch(batch.id);
      expect(paused).toMatchObject({ state: 'PAUSED', pauseReason: expect.stringMatching(/policy is now version 1/) });
      expect(creates()).toBe(0);
      expect(f.t.journal.batchCounts(batch.id).byState).toMatchObject({ QUEUED: 2, SENDING: 0 });
      expect(refusals().map((e) => e.details)).toEqual([expect.objectContaining({ kind: 'batch', code: 'POLICY_CHANGED' })]);

      f.gateway.slot = null;
      await approveAs(alice, { kind: 'batch', id: batch.id });
      await approveAs(bob, { kind: 'batch', id: batch.id });
      await f.engine.resumeBatch(batch.id);
      expect((await f.engine.waitForBatch(batch.id)).state).toBe('COMPLETED');
      expect([...f.gateway.createCalls.entries()].sort()).toEqual([['r1', 1], ['r2', 1]]);
    });

    it('rows edited in the journal after the check: none leaves, not even the one already waiting for its slot (simulation seed 370)', async () => {
      // One row at a time: r1 waits for its slot with its body built from the approved row before the edit.
      const { batch, slots } = await approvedBatchWaiting(['r1', 'r2'], 1);
      f.t.journal.db.prepare(`UPDATE payments SET account_number = 'GB33BUKB20201555555555' WHERE id IN ('r1', 'r2')`).run();
      slots.release('r1');
      // At its slot r1 is judged as the journal holds it now: not the row approved, so nothing leaves (before, the row
      // read before the wait left, while the journal said another account). The gate, asked again, finds the batch
      // is not what its preparer signed.
      expect(await f.engine.waitForBatch(batch.id)).toMatchObject({ state: 'PAUSED', pauseReason: expect.stringMatching(/is not what Paula prepared/) });
      expect(f.gateway.stored.has('r1')).toBe(false);
      expect(f.gateway.stored.has('r2')).toBe(false);
      expect(creates()).toBe(0);
      expect(f.t.journal.batchCounts(batch.id).byState).toMatchObject({ QUEUED: 2, SENDING: 0 });
      expect(refusals().at(0)?.details).toMatchObject({ kind: 'batch', code: 'NOT_PREPARED' });
    });

    it('a change that does not touch this batch (an approval of another) is checked again and the rows go, once each', async () => {
      const { batch, slots, approveAs } = await approvedBatchWaiting(['r1', 'r2']);
      const other = f.t.journal.createBatch({ fileName: 'july.csv', sha256: 'bb', preparedBy: 'paula', rows: [{ ...big('s1'), id: 's1' }] });
      await approveAs(bob, { kind: 'batch', id: other.id });
      slots.release('r1');
      await until(() => slots.waiting.has('r1')); // refused at its slot (the store changed): asked the gate again, and back
      slots.release('r1');
      await until(() => slots.waiting.has('r2'));
      slots.release('r2');
      expect((await f.engine.waitForBatch(batch.id)).state).toBe('COMPLETED');
      expect([...f.gateway.createCalls.entries()].sort()).toEqual([['r1', 1], ['r2', 1]]);
      expect(refusals()).toEqual([]);
    });

    it('a gate that cannot be asked again mid-run stops the run: the batch pauses with the reason, nothing more is sent', async () => {
      f = engineFixture();
      let asked = 0;
      // First a yes whose clearance never holds (so the send asks again), then a failure to answer.
      const gate: ApprovalGatePort = {
        check: async () => {
          if (++asked > 1) throw new Error('database is locked');
          return { ok: true, enforced: true, code: null, message: 'ok', verdict: null, clearance: { stillValid: () => false, bodyFor: (row) => payoutFieldsOf(row) } };
        },
      };
      await f.engine.stop();
      f = engineFixture({ approvalGate: gate }, f.gateway, f.t);
      const errors: Error[] = [];
      f.engine.on('background-error', (e: Error) => errors.push(e));
      const batch = await f.engine.submitBatch({ fileName: 'june.csv', sha256: 'aa', rows: [big('r1'), big('r2')] });
      expect(await f.engine.waitForBatch(batch.id)).toMatchObject({ state: 'PAUSED', pauseReason: expect.stringMatching(/could not be checked \(database is locked\)/) });
      expect(creates()).toBe(0);
      expect(asked).toBe(2);
      expect(errors.map((e) => e.message)).toContain('database is locked');
    });

    it('a single payout whose approver is revoked while it waits is held, not sent', async () => {
      const { record, approveAs } = await desk('LIVE');
      await heldMessage(f.engine.submitPayout(big('p1'), { preparedBy: 'paula' }));
      await approveAs(alice, { kind: 'payout', id: 'p1' });
      const slots = holdSlots();
      const release = f.engine.releasePayout('p1');
      await until(() => slots.waiting.has('p1'));
      await record({ kind: 'revoked', personId: 'alice', reason: 'left the company' });
      slots.release('p1');
      expect(await heldMessage(release)).toMatch(/Alice was revoked/);
      expect(f.gateway.stored.has('p1')).toBe(false);
      expect(f.t.journal.getPayment('payout', 'p1')).toMatchObject({ state: 'HELD', attempts: 0 });
      expect(refusals().at(0)?.details).toMatchObject({ kind: 'payout', code: 'SIGNER_REVOKED' });
    });
  });

  describe('tampering, each refused before anything is sent and audited', () => {
    async function approvedBatch() {
      const d = await desk('LIVE');
      // Stored without a run: the gate is asked when the engine starts it (recovery), after the approval.
      const batch = f.t.journal.createBatch({ fileName: 'june.csv', sha256: 'aa', preparedBy: 'paula', rows: [big('r1'), big('r2')].map((r) => ({ ...r, id: r.idPayout })) });
      await d.prepareStored({ kind: 'batch', id: batch.id });
      const approval = await d.approveAs(alice, { kind: 'batch', id: batch.id });
      return { ...d, batch, approval };
    }
    async function runAndExpectRefusal(batchId: string, code: string) {
      await f.engine.resumeBatch(batchId);
      const done = await f.engine.waitForBatch(batchId);
      expect(done.state).toBe('PAUSED');
      expect(creates()).toBe(0);
      expect(refusals().at(0)?.details).toMatchObject({ kind: 'batch', code });
      return done.pauseReason;
    }

    it('sends an approved batch untouched (the control case)', async () => {
      const { batch } = await approvedBatch();
      await f.engine.resumeBatch(batch.id);
      expect((await f.engine.waitForBatch(batch.id)).state).toBe('COMPLETED');
      expect(refusals()).toEqual([]);
    });

    it('a row edited in the journal after approval: not what its preparer signed, and, signed anew, not what was approved', async () => {
      const { batch, prepareStored } = await approvedBatch();
      f.t.journal.db.prepare(`UPDATE payments SET account_number = 'GB33BUKB20201555555555' WHERE id = 'r2'`).run();
      expect(await runAndExpectRefusal(batch.id, 'NOT_PREPARED')).toMatch(/is not what Paula prepared/);
      // Even the preparer signing the edited rows does not carry the approval over to them.
      await prepareStored({ kind: 'batch', id: batch.id });
      await f.engine.resumeBatch(batch.id);
      expect((await f.engine.waitForBatch(batch.id)).pauseReason).toMatch(/changed after the decision/);
      expect(refusals().at(0)?.details).toMatchObject({ kind: 'batch', code: 'MANIFEST_CHANGED' });
      expect(creates()).toBe(0);
    });

    it('a forged signature, and an approval copied to another batch: ignored (never counted, reported), and no refusal for good', async () => {
      const { batch, approval, approveAs, prepareStored, ignored } = await approvedBatch();
      f.t.journal.db.exec('DROP TRIGGER approvals_no_update');
      f.t.journal.db.prepare('UPDATE approvals SET signed_at = signed_at + 1 WHERE id = ?').run(approval.id);
      expect(await runAndExpectRefusal(batch.id, 'MISSING_APPROVALS')).toMatch(/needs 1 approval \(5000\.00 EUR: 1\), has 0/);
      expect(ignored).toEqual([{ subject: { kind: 'batch', id: batch.id }, checks: [expect.objectContaining({ approvalId: approval.id, status: 'FORGED', message: expect.stringMatching(/does not verify/) })] }]);

      const other = f.t.journal.createBatch({ fileName: 'july.csv', sha256: 'bb', preparedBy: 'paula', rows: [big('s1'), big('s2')].map((r) => ({ ...r, id: r.idPayout })) });
      await prepareStored({ kind: 'batch', id: other.id });
      f.t.journal.db.prepare(`INSERT INTO approvals SELECT 'copy', profile_id, subject_kind, ?, manifest_digest, policy_version, decision, reason, signer_id, signed_at, signature, recorded_at FROM approvals WHERE id = ?`).run(other.id, approval.id);
      await f.engine.resumeBatch(other.id);
      expect((await f.engine.waitForBatch(other.id)).pauseReason).toMatch(/needs 1 approval/);
      expect(ignored.at(-1)).toEqual({ subject: { kind: 'batch', id: other.id }, checks: [expect.objectContaining({ approvalId: 'copy', status: 'FORGED' })] });
      expect(creates()).toBe(0);

      // A real approval beside the forged one: the batch goes.
      await approveAs(bob, { kind: 'batch', id: batch.id });
      await f.engine.resumeBatch(batch.id);
      expect((await f.engine.waitForBatch(batch.id)).state).toBe('COMPLETED');
      expect(creates()).toBe(2);
    });

    it('a signer without the approver role when signing', async () => {
      const d = await desk('LIVE');
      const batch = f.t.journal.createBatch({ fileName: 'june.csv', sha256: 'aa', preparedBy: 'paula', rows: [big('r1')].map((r) => ({ ...r, id: r.idPayout })) });
      await d.prepareStored({ kind: 'batch', id: batch.id });
      await d.approveAs(admin, { kind: 'batch', id: batch.id });
      expect(await runAndExpectRefusal(batch.id, 'SIGNER_NOT_APPROVER')).toMatch(/Ada did not hold the approver role/);
    });

    it('a signer revoked after approving: the approval dies with the revocation', async () => {
      const { batch, record } = await approvedBatch();
      await record({ kind: 'revoked', personId: 'alice', reason: 'left' });
      expect(await runAndExpectRefusal(batch.id, 'SIGNER_REVOKED')).toMatch(/Alice was revoked/);
    });

    it('the preparer approving their own batch', async () => {
      const both = member('paula', ['preparer', 'approver'], T);
      const d = await desk('LIVE', [admin, alice, both]);
      const batch = f.t.journal.createBatch({ fileName: 'june.csv', sha256: 'aa', preparedBy: 'paula', rows: [big('r1')].map((r) => ({ ...r, id: r.idPayout })) });
      await d.prepareStored({ kind: 'batch', id: batch.id }, both);
      await d.approveAs(both, { kind: 'batch', id: batch.id });
      expect(await runAndExpectRefusal(batch.id, 'SELF_APPROVAL')).toMatch(/cannot approve their own work/);
    });

    it('a policy change after approval', async () => {
      const { batch, record } = await approvedBatch();
      const rules: PolicyRules = { bands: { '*': [{ atLeast: '1000', approvals: 1 }] }, newOrChangedPayee: 0 };
      await record({ kind: 'policy', version: 1, rules });
      expect(await runAndExpectRefusal(batch.id, 'POLICY_CHANGED')).toMatch(/policy is now version 1/);
    });

    it('a rejection with its reason', async () => {
      const { batch, approveAs } = await approvedBatch();
      await approveAs(bob, { kind: 'batch', id: batch.id }, 'reject', 'r2 is not our supplier');
      expect(await runAndExpectRefusal(batch.id, 'REJECTED')).toMatch(/Bob rejected it: r2 is not our supplier/);
    });
  });
});
