// The payee book in the approval gate: rows to a new payee or to changed bank details count toward the
// policy's newOrChangedPayee. A policy needing no approval by amount but one for a new payee holds a
// batch with a new payee until an approver signs, and lets a batch to known payees go.
import { afterEach, describe, expect, it } from 'vitest';
import { signApproval } from '../../../main/approvals/approval';
import { journalApprovalGate, manifestFromJournal } from '../../../main/approvals/gate';
import { signPreparation } from '../../../main/approvals/preparation';
import { SqliteDualControlRepository } from '../../../main/store/sqlite/dual-control';
import { newOrChangedPayeeCount } from '../../../main/payees/match';
import { SqlitePayeeRepository } from '../../../main/store/sqlite/payees';
import { chainOf, member, readerOf } from '../approvals/helpers';
import { version } from './helpers';
import { payout, tempJournal, type TempJournal } from '../journal/helpers';

const PROFILE = 'prof-1';
const T = Date.now() - 60_000;
const admin = member('ada', ['admin'], T);
const paula = member('paula', ['preparer'], T);
const alice = member('alice', ['approver'], T);

let t: TempJournal;
let repo: SqliteDualControlRepository;
afterEach(() => t?.dispose());

async function desk(newOrChangedPayee: number) {
  t = tempJournal();
  repo = new SqliteDualControlRepository(t.journal);
  // The people and policy version 1 as the control chain's first record, signed by the admin.
  const policy = { version: 1, rules: { bands: { EUR: [{ atLeast: '1000', approvals: 1 }] }, newOrChangedPayee } };
  for (const r of chainOf(PROFILE, [admin, paula, alice], { at: T, policy })) await repo.appendChain(r);
  const reader = readerOf(repo, { profileId: PROFILE, environment: 'TEST' });
  const payees = new SqlitePayeeRepository(t.journal);
  const gate = journalApprovalGate({
    journal: t.journal, repository: repo, control: () => reader.read(), newOrChangedPayees: newOrChangedPayeeCount(payees), payeesMarker: () => payees.changeMarker(),
  });
  // Ada Lovelace was paid before (the payout went to the gateway).
  t.journal.insertPayment('payout', payout('earlier'));
  t.journal.markSending('payout', 'earlier');
  return { repo, gate, payees };
}

/** A batch Paula prepared: stored, and signed by her as the engine's prepare hook would. */
async function batch(id: string, rows: ReturnType<typeof payout>[]) {
  t.journal.createBatch({ id, fileName: `${id}.csv`, sha256: id, rows, preparedBy: 'paula' });
  const manifest = (await manifestFromJournal(t.journal, PROFILE, { kind: 'batch', id }, 0))!;
  await repo.addPreparation(signPreparation(paula.session, { id: `prep-${id}`, manifest, signedAt: Date.now() }));
}

describe('new and changed payees at the gate', () => {
  it('asks one more approval for a batch with a new payee under newOrChangedPayee: 1, and sends it once an approver signed', async () => {
    const { repo, gate } = await desk(1);
    await batch('b1', [payout('r1'), payout('r2', { accountName: 'Hedy Lamarr', emailAddress: 'hedy@example.com', accountNumber: 'DE02120300000000202051' })]);
    const refused = await gate.check({ kind: 'batch', id: 'b1' });
    expect(refused).toMatchObject({ ok: false, code: 'MISSING_APPROVALS', verdict: { requirement: { required: 1, payeeExtra: 1 } } });
    expect(refused.message).toContain('new or changed payee: +1');
    const manifest = (await manifestFromJournal(t.journal, PROFILE, { kind: 'batch', id: 'b1' }, 1))!;
    await repo.addApproval(signApproval(alice.session, { id: 'a1', manifest, decision: 'approve', signedAt: Date.now() }));
    expect(await gate.check({ kind: 'batch', id: 'b1' })).toMatchObject({ ok: true });
  });

  it('counts changed bank details of a known payee the same way, and lets a batch to known payees go without approval', async () => {
    const { gate } = await desk(1);
    await batch('b-known', [payout('k1'), payout('k2')]);
    expect(await gate.check({ kind: 'batch', id: 'b-known' })).toMatchObject({ ok: true, verdict: { requirement: { required: 0, payeeExtra: 0 } } });
    await batch('b-changed', [payout('c1', { accountNumber: 'DE02100500000054540402' })]);
    expect(await gate.check({ kind: 'batch', id: 'b-changed' })).toMatchObject({ ok: false, verdict: { requirement: { required: 1, payeeExtra: 1 } } });
  });

  it("a yes stops holding once the payee book changes (a send asks again); the new verdict follows the book in force", async () => {
    const { gate, payees } = await desk(1);
    await batch('b-known', [payout('k1')]);
    const yes = await gate.check({ kind: 'batch', id: 'b-known' });
    expect(yes).toMatchObject({ ok: true, verdict: { requirement: { required: 0 } } });
    // A change of Ada's bank details waits for approval: not in force, yet the book moved.
    await payees.addVersions([version('ada', 1, { name: 'Ada Lovelace', emailAddress: 'ada@example.com', accountNumber: 'DE02100500000054540402' }, { waiting: true })]);
    expect(yes.clearance?.stillValid()).toBe(false);
    expect(await gate.check({ kind: 'batch', id: 'b-known' })).toMatchObject({ ok: true, verdict: { requirement: { required: 0 } } });
    // Put in force, the row to her old account is now to changed bank details: one more approval.
    const before = await gate.check({ kind: 'batch', id: 'b-known' });
    await payees.activate('ada', 1, Date.now(), 'alice');
    expect(before.clearance?.stillValid()).toBe(false);
    expect(await gate.check({ kind: 'batch', id: 'b-known' })).toMatchObject({ ok: false, verdict: { requirement: { required: 1, payeeExtra: 1 } } });
  });

  it('adds nothing when the policy asks no extra approval for new payees (newOrChangedPayee: 0)', async () => {
    const { gate } = await desk(0);
    await batch('b1', [payout('r1', { accountName: 'Hedy Lamarr', emailAddress: 'hedy@example.com' })]);
    expect(await gate.check({ kind: 'batch', id: 'b1' })).toMatchObject({ ok: true, verdict: { requirement: { required: 0, payeeExtra: 0 } } });
  });
});
