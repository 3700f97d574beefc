// Dual control at the one place every payout and batch passes before its first create: the engine asks
// the gate, with the manifest rebuilt from the journal's rows. Each refusal sends nothing, says why and
// is audited; approvals given afterwards let a release (payout) or a resume (batch) send.
import { afterEach, describe, expect, it } from 'vitest';
import { signApproval } from '../../../main/approvals/approval';
import { journalApprovalGate, manifestFromJournal } from '../../../main/approvals/gate';
import type { Subject } from '../../../main/approvals/manifest';
import { signPolicy, type PolicyRules } from '../../../main/approvals/policy';
import { SqliteDualControlRepository } from '../../../main/approvals/sqlite-repository';
import type { Environment } from '../../../main/profiles/profile-schema';
import { EngineError, type ApprovalGatePort } from '../../../main/engine';
import { member, type Member } from '../approvals/helpers';
import { draft, engineFixture, until, type EngineFixture } from './engine-helpers';

const PROFILE = 'prof-1';
let f: EngineFixture;
afterEach(async () => f?.dispose());

const T = Date.now() - 60_000;
const admin = member('ada', ['admin'], T);
const paula = member('paula', ['preparer'], T);
const alice = member('alice', ['approver'], T);
const bob = member('bob', ['approver'], T);

async function desk(environment: Environment, people: Member[] = [admin, paula, alice, bob], concurrency?: number) {
  f = engineFixture();
  const repo = new SqliteDualControlRepository(f.t.journal);
  for (const m of people) await repo.addPerson(m.person, m.person.grants.map((g) => g.role), T, null);
  const gate = journalApprovalGate({ profileId: PROFILE, environment, journal: f.t.journal, repository: repo });
  // The gate is given to a fresh engine over the same journal and gateway.
  await f.engine.stop();
  f = engineFixture({ approvalGate: gate, ...(concurrency ? { concurrency } : {}) }, f.gateway, f.t);
  const approveAs = async (m: Member, subject: Subject, decision: 'approve' | 'reject' = 'approve', reason: string | null = null) => {
    const policy = (await repo.currentPolicy())?.version ?? 0;
    const manifest = (await manifestFromJournal(f.t.journal, PROFILE, subject, policy))!;
    const a = signApproval(m.session, { id: globalThis.crypto.randomUUID(), manifest, decision, reason, signedAt: Date.now() });
    await repo.addApproval(a);
    return a;
  };
  return { repo, approveAs };
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
    const { repo, approveAs } = await desk('LIVE');
    await heldMessage(f.engine.submitPayout(big('p1'), { preparedBy: 'paula' }));
    await approveAs(alice, { kind: 'payout', id: 'p1' });
    f.gateway.failCreates(1, 'unauthorized');
    expect(await heldMessage(f.engine.releasePayout('p1'))).toMatch(/fake unauthorized/);
    expect(f.t.journal.getPayment('payout', 'p1')).toMatchObject({ state: 'HELD', attempts: 1, unknownSince: null });
    expect(f.gateway.stored.has('p1')).toBe(false);
    const rules: PolicyRules = { bands: { '*': [{ atLeast: '1000', approvals: 1 }] }, newOrChangedPayee: 0 };
    await repo.addPolicy(signPolicy(admin.session, { profileId: PROFILE, version: 1, rules, setAt: Date.now() }));

    expect(await heldMessage(f.engine.releasePayout('p1'))).toMatch(/decided under policy version 0; the policy is now version 1/);
    expect(f.gateway.stored.has('p1')).toBe(false);
    expect(refusals().at(0)?.details).toMatchObject({ kind: 'payout', code: 'POLICY_CHANGED' });
    await approveAs(bob, { kind: 'payout', id: 'p1' });
    expect((await f.engine.releasePayout('p1')).state).toBe('ACCEPTED');
  });

  it('checks a batch and a payout left unsent by a stopped desk when the engine starts again (recovery)', async () => {
    await desk('LIVE');
    const batch = f.t.journal.createBatch({ fileName: 'june.csv', sha256: 'aa', preparedBy: 'paula', rows: [big('r1')].map((r) => ({ ...r, id: r.idPayout })) });
    f.t.journal.insertPayment('payout', { ...big('p1'), id: 'p1', preparedBy: 'paula' });
    await f.engine.start();
    expect((await f.engine.waitForBatch(batch.id)).state).toBe('PAUSED');
    await until(() => f.t.journal.getPayment('payout', 'p1')?.state === 'HELD');
    expect(creates()).toBe(0);
    expect(refusals().map((e) => e.subject).sort()).toEqual([batch.id, 'p1'].sort());
  });

  it('fails closed: approvals that cannot be read count as none', async () => {
    f = engineFixture();
    const repo = new SqliteDualControlRepository(f.t.journal);
    await repo.addPerson(alice.person, ['approver'], T, null);
    const broken = Object.assign(Object.create(repo) as SqliteDualControlRepository, { approvalsFor: () => Promise.reject(new Error('disk I/O error')) });
    const gate = journalApprovalGate({ profileId: PROFILE, environment: 'LIVE', journal: f.t.journal, repository: broken });
    await f.engine.stop();
    f = engineFixture({ approvalGate: gate }, f.gateway, f.t);
    expect(await heldMessage(f.engine.submitPayout(big('p1')))).toMatch(/the approvals could not be checked \(disk I\/O error\)/);
    expect(creates()).toBe(0);
    expect(refusals()[0]?.details).toMatchObject({ code: 'CHECK_FAILED' });
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
      const d = await desk('LIVE', undefined, concurrency);
      const batch = f.t.journal.createBatch({ fileName: 'june.csv', sha256: 'aa', preparedBy: 'paula', rows: ids.map((id) => ({ ...big(id), id })) });
      await d.approveAs(alice, { kind: 'batch', id: batch.id });
      const slots = holdSlots();
      await f.engine.resumeBatch(batch.id);
      await until(() => slots.waiting.size === Math.min(ids.length, concurrency ?? ids.length));
      return { ...d, batch, slots };
    }
    const stricter: PolicyRules = { bands: { '*': [{ atLeast: '1000', approvals: 2 }] }, newOrChangedPayee: 0 };

    it('a policy raised while the rows wait: none leaves, the batch pauses with the reason, audited; approved anew it sends', async () => {
      const { batch, slots, repo, approveAs } = await approvedBatchWaiting(['r1', 'r2']);
      await repo.addPolicy(signPolicy(admin.session, { profileId: PROFILE, version: 1, rules: stricter, setAt: Date.now() }));
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

    it('rows edited in the journal after the check: only what was approved leaves, and an edited row does not', async () => {
      // One row at a time: r1 is on its way (read before the edit), r2 is read after it.
      const { batch, slots } = await approvedBatchWaiting(['r1', 'r2'], 1);
      const approvedAccount = f.t.journal.getPayment('payout', 'r1')?.accountNumber;
      f.t.journal.db.prepare(`UPDATE payments SET account_number = 'GB33BUKB20201555555555' WHERE id IN ('r1', 'r2')`).run();
      slots.release('r1');
      await until(() => slots.waiting.has('r2'));
      slots.release('r2');
      expect(await f.engine.waitForBatch(batch.id)).toMatchObject({ state: 'PAUSED', pauseReason: expect.stringMatching(/changed after the decision/) });
      expect(f.gateway.stored.get('r1')?.request.accountNumber).toBe(approvedAccount);
      expect(f.gateway.stored.has('r2')).toBe(false);
      expect(refusals().at(0)?.details).toMatchObject({ kind: 'batch', code: 'MANIFEST_CHANGED' });
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
          return { ok: true, enforced: true, code: null, message: 'ok', verdict: null, clearance: { stillValid: () => false, covers: () => true } };
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
      const { repo, approveAs } = await desk('LIVE');
      await heldMessage(f.engine.submitPayout(big('p1'), { preparedBy: 'paula' }));
      await approveAs(alice, { kind: 'payout', id: 'p1' });
      const slots = holdSlots();
      const release = f.engine.releasePayout('p1');
      await until(() => slots.waiting.has('p1'));
      await repo.revokePerson('alice', Date.now(), 'ada', 'left the company');
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

    it('a row edited in the journal after approval', async () => {
      const { batch } = await approvedBatch();
      f.t.journal.db.prepare(`UPDATE payments SET account_number = 'GB33BUKB20201555555555' WHERE id = 'r2'`).run();
      expect(await runAndExpectRefusal(batch.id, 'MANIFEST_CHANGED')).toMatch(/changed after the decision/);
    });

    it('a forged signature, and an approval copied to another batch', async () => {
      const { batch, approval } = await approvedBatch();
      f.t.journal.db.exec('DROP TRIGGER approvals_no_update');
      f.t.journal.db.prepare('UPDATE approvals SET signed_at = signed_at + 1 WHERE id = ?').run(approval.id);
      expect(await runAndExpectRefusal(batch.id, 'FORGED')).toMatch(/does not verify/);

      const other = f.t.journal.createBatch({ fileName: 'july.csv', sha256: 'bb', preparedBy: 'paula', rows: [big('s1'), big('s2')].map((r) => ({ ...r, id: r.idPayout })) });
      f.t.journal.db.prepare(`INSERT INTO approvals SELECT 'copy', profile_id, subject_kind, ?, manifest_digest, policy_version, decision, reason, signer_id, signed_at, signature, recorded_at FROM approvals WHERE id = ?`).run(other.id, approval.id);
      await f.engine.resumeBatch(other.id);
      expect((await f.engine.waitForBatch(other.id)).pauseReason).toMatch(/does not verify/);
      expect(creates()).toBe(0);
    });

    it('a signer without the approver role when signing', async () => {
      const d = await desk('LIVE');
      const batch = f.t.journal.createBatch({ fileName: 'june.csv', sha256: 'aa', preparedBy: 'paula', rows: [big('r1')].map((r) => ({ ...r, id: r.idPayout })) });
      await d.approveAs(admin, { kind: 'batch', id: batch.id });
      expect(await runAndExpectRefusal(batch.id, 'SIGNER_NOT_APPROVER')).toMatch(/Ada did not hold the approver role/);
    });

    it('a signer revoked after approving: the approval dies with the revocation', async () => {
      const { batch, repo } = await approvedBatch();
      await repo.revokePerson('alice', Date.now(), 'ada', 'left');
      expect(await runAndExpectRefusal(batch.id, 'SIGNER_REVOKED')).toMatch(/Alice was revoked/);
    });

    it('the preparer approving their own batch', async () => {
      const both = member('paula', ['preparer', 'approver'], T);
      const d = await desk('LIVE', [admin, alice, both]);
      const batch = f.t.journal.createBatch({ fileName: 'june.csv', sha256: 'aa', preparedBy: 'paula', rows: [big('r1')].map((r) => ({ ...r, id: r.idPayout })) });
      await d.approveAs(both, { kind: 'batch', id: batch.id });
      expect(await runAndExpectRefusal(batch.id, 'SELF_APPROVAL')).toMatch(/cannot approve their own work/);
    });

    it('a policy change after approval', async () => {
      const { batch, repo } = await approvedBatch();
      const rules: PolicyRules = { bands: { '*': [{ atLeast: '1000', approvals: 1 }] }, newOrChangedPayee: 0 };
      await repo.addPolicy(signPolicy(admin.session, { profileId: PROFILE, version: 1, rules, setAt: Date.now() }));
      expect(await runAndExpectRefusal(batch.id, 'POLICY_CHANGED')).toMatch(/policy is now version 1/);
    });

    it('a rejection with its reason', async () => {
      const { batch, approveAs } = await approvedBatch();
      await approveAs(bob, { kind: 'batch', id: batch.id }, 'reject', 'r2 is not our supplier');
      expect(await runAndExpectRefusal(batch.id, 'REJECTED')).toMatch(/Bob rejected it: r2 is not our supplier/);
    });
  });
});
