// A row its preparer confirmed as a possible duplicate of an earlier payout is signed as such in the manifest, and a
// policy that counts possible duplicates asks for the same extra approvals as a new or changed payee. The count rests on
// what the preparer signed: a database writer who clears the flag in the journal gets nothing sent.
import { afterEach, describe, expect, it } from 'vitest';
import { manifestFromJournal } from '../../../main/approvals/gate';
import { requiredApprovals, type ApprovalPolicy, type PolicyRules } from '../../../main/approvals/policy';
import { member } from '../approvals/helpers';
import { draft, type EngineFixture } from './engine-helpers';
import { dualControlDesk, DESK_PROFILE as PROFILE } from './dual-control-desk';

let f: EngineFixture;
afterEach(async () => f?.dispose());

const T = Date.now() - 60_000;
const admin = member('ada', ['admin'], T);
const paula = member('paula', ['preparer'], T);
const alice = member('alice', ['approver'], T);
const bob = member('bob', ['approver'], T);

const RULES: PolicyRules = { bands: { '*': [{ atLeast: '1000', approvals: 1 }] }, newOrChangedPayee: 1, countPossibleDuplicates: true };

async function desk(rules: PolicyRules) {
  const d = await dualControlDesk({ members: [admin, paula, alice, bob], preparers: [paula], environment: 'LIVE', chainAt: T, policy: { rules, admins: [admin], at: T + 1_000 } });
  f = d.f;
  return { approveAs: d.approveAs };
}

const creates = () => [...f.gateway.createCalls.values()].reduce((a, b) => a + b, 0);

describe('possible duplicates in the approval policy', () => {
  it('counts like a new payee only when the policy says so', () => {
    const policy = (rules: PolicyRules): ApprovalPolicy => ({ profileId: PROFILE, version: 1, rules, setBy: 'ada', setAt: T, signature: 'x' });
    const manifest = { totals: [{ currency: 'EUR', amount: '1500.00', count: 2 }], possibleDuplicates: ['r2'] };
    expect(requiredApprovals(policy(RULES), manifest)).toMatchObject({ required: 2, payeeExtra: 1, possibleDuplicates: 1 });
    expect(requiredApprovals(policy({ ...RULES, countPossibleDuplicates: false }), manifest)).toMatchObject({ required: 1, payeeExtra: 0 });
    expect(requiredApprovals(policy(RULES), { totals: manifest.totals })).toMatchObject({ required: 1, payeeExtra: 0 });
  });

  it('signs the confirmed rows in the manifest; a batch with one needs the extra approval', async () => {
    const { approveAs } = await desk(RULES);
    await f.engine.start();
    const batch = await f.engine.submitBatch({
      fileName: 'december.csv', sha256: 'aa', preparedBy: 'paula',
      rows: [draft('r1', { amountMinor: 100_000 }), { ...draft('r2', { amountMinor: 100_000 }), possibleDuplicate: true }],
    });
    const manifest = (await manifestFromJournal(f.t.journal, PROFILE, { kind: 'batch', id: batch.id }, 1))!;
    expect(manifest).toMatchObject({ version: 3, possibleDuplicates: ['r2'] });
    expect(await f.engine.waitForBatch(batch.id)).toMatchObject({ state: 'PAUSED', pauseReason: expect.stringMatching(/needs 2 approvals/) });
    await approveAs(alice, { kind: 'batch', id: batch.id });
    await f.engine.resumeBatch(batch.id);
    expect((await f.engine.waitForBatch(batch.id)).state).toBe('PAUSED');
    expect(creates()).toBe(0);
    await approveAs(bob, { kind: 'batch', id: batch.id });
    await f.engine.resumeBatch(batch.id);
    expect((await f.engine.waitForBatch(batch.id)).state).toBe('COMPLETED');
    expect(creates()).toBe(2);
  });

  it('sends nothing when the flag is cleared in the journal by hand: the preparer signed it', async () => {
    const { approveAs } = await desk(RULES);
    await f.engine.start();
    const batch = await f.engine.submitBatch({ fileName: 'december.csv', sha256: 'aa', preparedBy: 'paula', rows: [{ ...draft('r1', { amountMinor: 150_000 }), possibleDuplicate: true }] });
    await f.engine.waitForBatch(batch.id);
    await approveAs(alice, { kind: 'batch', id: batch.id });
    // A database writer makes the row look like no duplicate, to need one approval fewer.
    f.t.journal.db.prepare(`UPDATE payments SET details_json = NULL WHERE id = 'r1'`).run();
    await f.engine.resumeBatch(batch.id);
    expect(await f.engine.waitForBatch(batch.id)).toMatchObject({ state: 'PAUSED', pauseReason: expect.stringMatching(/is not what Paula prepared/) });
    expect(creates()).toBe(0);
  });
});
