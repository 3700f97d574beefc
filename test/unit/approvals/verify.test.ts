// The policy matrix and the tamper cases of verifyApprovals: each refusal is specific.
import { describe, expect, it } from 'vitest';
import type { ApprovalRecord } from '../../../main/approvals/approval';
import { checkRules, defaultPolicy, requiredApprovals, signPolicy, type ApprovalPolicy, type PolicyRules } from '../../../main/approvals/policy';
import { verifyApprovals } from '../../../main/approvals/verify';
import type { Person } from '../../../main/people/roles';
import { draftRecord, signRecord } from '../../../main/trust/chain-record';
import { replayChain } from '../../../main/trust/chain-state';
import { approve, chainOf, manifest, member, row, T0 } from './helpers';

const NOW = T0 + 60_000;
const admin = member('ada', ['admin']);
const paula = member('paula', ['preparer', 'approver']);
const alice = member('alice', ['approver']);
const bob = member('bob', ['approver']);
const carol = member('carol', ['approver']);
const victor = member('victor', ['viewer']);
const people = [admin, paula, alice, bob, carol, victor].map((m) => m.person);

const RULES: PolicyRules = {
  bands: {
    EUR: [{ atLeast: '0', approvals: 0 }, { atLeast: '1000', approvals: 1 }, { atLeast: '10000', approvals: 2 }, { atLeast: '100000', approvals: 3 }],
    '*': [{ atLeast: '500', approvals: 1 }],
  },
  newOrChangedPayee: 1,
};
const policyV1 = signPolicy(admin.session, { profileId: 'prof-1', version: 1, rules: RULES, setAt: T0 - 500 });

const verify = (m = manifest([row('p1', 100)], { policyVersion: 1 }), approvals: ApprovalRecord[] = [], policy: ApprovalPolicy = policyV1, who: Person[] = people, newOrChangedPayees = 0) =>
  verifyApprovals(m, approvals, who, policy, { now: NOW, newOrChangedPayees });

describe('the policy matrix', () => {
  const cases: [string, Parameters<typeof row>[], number, number][] = [
    ['EUR below every band', [['p1', 99_999]], 0, 0],
    ['EUR at the first band exactly', [['p1', 100_000]], 0, 1],
    ['EUR rows summed per batch into the second band', [['p1', 600_000], ['p2', 400_000]], 0, 2],
    ['EUR in the top band', [['p1', 10_000_000]], 0, 3],
    ['the top band plus a new payee stays capped at 3', [['p1', 10_000_000]], 1, 3],
    ['a new payee adds one', [['p1', 100]], 1, 1],
    ['a currency without bands of its own uses "*"', [['p1', 50_000, { currencyCode: 'USD' }]], 0, 1],
    ['the largest need of any currency counts, currencies are not added together', [['p1', 60_000, { currencyCode: 'USD' }], ['p2', 1_100_000]], 0, 2],
    ['"*" below its band', [['p1', 49_999, { currencyCode: 'GBP' }]], 0, 0],
    ['a 0-decimal currency is compared in its own units', [['p1', 500, { currencyCode: 'JPY' }]], 0, 1],
  ];
  it.each(cases)('%s', (_name, rows, newPayees, expected) => {
    expect(requiredApprovals(policyV1, manifest(rows.map((r) => row(...r))), newPayees).required).toBe(expected);
  });

  it('defaults: TEST needs none; LIVE needs one from 1000 of any currency', () => {
    const small = manifest([row('p1', 99_999)]);
    const large = manifest([row('p1', 100_000, { currencyCode: 'USD' })]);
    expect(requiredApprovals(defaultPolicy('prof-1', 'TEST'), large).required).toBe(0);
    expect(requiredApprovals(defaultPolicy('prof-1', 'LIVE'), small).required).toBe(0);
    expect(requiredApprovals(defaultPolicy('prof-1', 'LIVE'), large).required).toBe(1);
  });

  it('refuses rules it could not apply exactly', () => {
    expect(() => checkRules({ bands: { EUR: [{ atLeast: '10', approvals: 4 }] }, newOrChangedPayee: 0 })).toThrow(/0 to 3/);
    expect(() => checkRules({ bands: { EUR: [{ atLeast: '1e3', approvals: 1 }] }, newOrChangedPayee: 0 })).toThrow(/decimal/);
    expect(() => checkRules({ bands: { eur: [] }, newOrChangedPayee: 0 })).toThrow(/currency code/);
    expect(() => checkRules({ bands: { EUR: [{ atLeast: '10', approvals: 1 }, { atLeast: '10.0', approvals: 2 }] }, newOrChangedPayee: 0 })).toThrow(/same amount/);
    expect(() => checkRules({ bands: {}, newOrChangedPayee: -1 })).toThrow(/newOrChangedPayee/);
  });
});

describe('verifyApprovals', () => {
  const big = manifest([row('p1', 1_500_000), row('p2', 50_000)], { policyVersion: 1 }); // 15,500 EUR: 2 approvals

  it('passes with nothing when the policy needs nothing (the TEST default)', () => {
    const m = manifest([row('p1', 10_000_000)]);
    expect(verify(m, [], defaultPolicy('prof-1', 'TEST'))).toMatchObject({ ok: true, message: 'no approval needed' });
  });

  it('passes with enough distinct approvers, and counts one person once', () => {
    expect(verify(big, [approve(alice, big), approve(bob, big)])).toMatchObject({ ok: true, approvedBy: ['alice', 'bob'] });
    const twice = verify(big, [approve(alice, big), approve(alice, big)]);
    expect(twice).toMatchObject({ ok: false, code: 'MISSING_APPROVALS' });
    expect(twice.checks.map((c) => c.status)).toEqual(['counted', 'duplicate']);
    expect(twice.message).toMatch(/needs 2 approvals \(15500\.00 EUR: 2\), has 1/);
  });

  it('refuses a missing signature', () => {
    expect(verify(big, [approve(alice, big)])).toMatchObject({ ok: false, code: 'MISSING_APPROVALS' });
  });

  it('refuses a row edited after approval (the manifest rebuilt from the rows differs)', () => {
    const approvals = [approve(alice, big), approve(bob, big)];
    const edited = manifest([row('p1', 1_500_000, { accountNumber: 'GB33BUKB20201555555555' }), row('p2', 50_000)], { policyVersion: 1 });
    expect(verify(edited, approvals)).toMatchObject({ ok: false, code: 'MANIFEST_CHANGED' });
  });

  // Nobody's decision: whoever can write a row must not be able to stop a payout for good with one. Each is
  // ignored, never counted, and reported (the gate raises the alarm and audits it).
  it('ignores a forged signature, an altered approval and a signer who is no person of the desk: never counted, never a refusal, reported', () => {
    const good = [approve(alice, big), approve(bob, big)];
    const forged: ApprovalRecord = { ...approve(carol, big), signature: approve(carol, manifest([row('x', 1)], { policyVersion: 1 })).signature };
    const withForged = verify(big, [...good, forged]);
    expect(withForged).toMatchObject({ ok: true, approvedBy: ['alice', 'bob'] });
    expect(withForged.ignored).toEqual([expect.objectContaining({ approvalId: forged.id, signerId: 'carol', status: 'FORGED' })]);
    // A forged rejection stops nothing either.
    const forgedRejection: ApprovalRecord = { ...approve(carol, big, 'reject', 'stop it'), signature: forged.signature };
    expect(verify(big, [...good, forgedRejection])).toMatchObject({ ok: true, ignored: [expect.objectContaining({ status: 'FORGED', decision: 'reject' })] });
    // An approval given to another name does not count for that name: one approver left, short of two.
    const altered: ApprovalRecord = { ...approve(carol, big), decision: 'approve', signerId: 'alice' };
    const short = verify(big, [good[1]!, altered]);
    expect(short).toMatchObject({ ok: false, code: 'MISSING_APPROVALS', approvedBy: ['bob'] });
    expect(short.ignored.map((c) => [c.approvalId, c.status])).toEqual([[altered.id, 'FORGED']]);
    const stranger = member('mallory', ['approver']);
    const withStranger = verify(big, [...good, approve(stranger, big)]);
    expect(withStranger).toMatchObject({ ok: true, approvedBy: ['alice', 'bob'] });
    expect(withStranger.ignored).toEqual([expect.objectContaining({ signerId: 'mallory', status: 'FORGED', message: expect.stringMatching(/no person of this desk/) })]);
    expect(verify(big, [approve(stranger, big), approve(stranger, big)])).toMatchObject({ ok: false, code: 'MISSING_APPROVALS', approvedBy: [] });
  });

  it('ignores an approval replayed for another batch or another profile: it does not count here, and is reported', () => {
    const other = manifest([row('p1', 1_500_000), row('p2', 50_000)], { policyVersion: 1, subject: { kind: 'batch', id: 'batch-2' } });
    const asPayout = manifest([row('p1', 1_500_000), row('p2', 50_000)], { policyVersion: 1, subject: { kind: 'payout', id: 'batch-1' } });
    const otherProfile = manifest([row('p1', 1_500_000), row('p2', 50_000)], { policyVersion: 1, profileId: 'prof-2' });
    for (const elsewhere of [other, asPayout, otherProfile]) {
      const replayed = approve(alice, elsewhere);
      const verdict = verify(big, [replayed, approve(bob, big)]);
      expect(verdict).toMatchObject({ ok: false, code: 'MISSING_APPROVALS', approvedBy: ['bob'] });
      expect(verdict.ignored).toEqual([expect.objectContaining({ approvalId: replayed.id, status: 'REPLAYED' })]);
      // With a second approver of this batch, the replayed one stops nothing.
      expect(verify(big, [replayed, approve(bob, big), approve(carol, big)])).toMatchObject({ ok: true, approvedBy: ['bob', 'carol'] });
    }
  });

  it('refuses an approval recorded after its signer lost the approver role, whatever signing time they wrote', () => {
    const removed: Person = { ...carol.person, grants: [{ ...carol.person.grants[0]!, removedAt: T0 + 5000 }] };
    const who = people.map((p) => (p.id === 'carol' ? removed : p));
    const backdated: ApprovalRecord = { ...approve(carol, big, 'approve', null, T0 + 1000), recordedAt: T0 + 6000 };
    const verdict = verify(big, [approve(alice, big), backdated], policyV1, who);
    expect(verdict).toMatchObject({ ok: false, code: 'SIGNER_NOT_APPROVER' });
    expect(verdict.message).toMatch(/no longer held the approver role when their decision was recorded/);
    // Recorded while the role held: it counts.
    const inTime: ApprovalRecord = { ...approve(carol, big, 'approve', null, T0 + 1000), recordedAt: T0 + 2000 };
    expect(verify(big, [approve(alice, big), inTime], policyV1, who)).toMatchObject({ ok: true, approvedBy: ['alice', 'carol'] });
  });

  it('refuses a signer who lacked the approver role when signing, or was revoked', () => {
    expect(verify(big, [approve(alice, big), approve(victor, big)])).toMatchObject({ ok: false, code: 'SIGNER_NOT_APPROVER' });
    const lateGrant: Person = { ...carol.person, grants: [{ ...carol.person.grants[0]!, grantedAt: T0 + 5000 }] };
    const whoLate = people.map((p) => (p.id === 'carol' ? lateGrant : p));
    expect(verify(big, [approve(alice, big), approve(carol, big, 'approve', null, T0 + 1000)], policyV1, whoLate)).toMatchObject({ ok: false, code: 'SIGNER_NOT_APPROVER' });
    // The role taken away after signing: the signature stands.
    const removedLater: Person = { ...carol.person, grants: [{ ...carol.person.grants[0]!, removedAt: T0 + 5000 }] };
    expect(verify(big, [approve(alice, big), approve(carol, big)], policyV1, people.map((p) => (p.id === 'carol' ? removedLater : p))).ok).toBe(true);
    // Revoked after approving, before sending: the approval dies with the revocation.
    const revoked: Person = { ...carol.person, revokedAt: T0 + 5000 };
    expect(verify(big, [approve(alice, big), approve(carol, big)], policyV1, people.map((p) => (p.id === 'carol' ? revoked : p)))).toMatchObject({ ok: false, code: 'SIGNER_REVOKED' });
  });

  it('refuses self-approval by the preparer, and a signature dated before the batch was prepared', () => {
    expect(verify(big, [approve(alice, big), approve(paula, big)])).toMatchObject({ ok: false, code: 'SELF_APPROVAL' });
    expect(verify(big, [approve(alice, big), approve(bob, big, 'approve', null, T0 - 5 * 60_000 - 1)])).toMatchObject({ ok: false, code: 'SIGNED_OUT_OF_TIME' });
    expect(verify(big, [approve(alice, big), approve(bob, big, 'approve', null, NOW + 5 * 60_000 + 1)])).toMatchObject({ ok: false, code: 'SIGNED_OUT_OF_TIME' });
    // Clocks a little apart (another desk's): still counted.
    expect(verify(big, [approve(alice, big), approve(bob, big, 'approve', null, T0 - 500)])).toMatchObject({ ok: true });
  });

  it('refuses once the policy changed after approval', () => {
    const approvals = [approve(alice, big), approve(bob, big)];
    const v2 = signPolicy(admin.session, { profileId: 'prof-1', version: 2, rules: RULES, setAt: T0 + 2000 });
    const rebuilt = manifest([row('p1', 1_500_000), row('p2', 50_000)], { policyVersion: 2 });
    expect(verify(rebuilt, approvals, v2)).toMatchObject({ ok: false, code: 'POLICY_CHANGED' });
  });

  it("applies the policy the control chain vouches for, and refuses another profile's", () => {
    // The chain's admins signed the record it came from: the policy carries the record's hash, not a signature of its own.
    const fromChain: ApprovalPolicy = { ...policyV1, signature: 'c'.repeat(64) };
    expect(verify(big, [approve(alice, big), approve(bob, big)], fromChain)).toMatchObject({ ok: true });
    expect(verify(big, [approve(alice, big)], fromChain)).toMatchObject({ ok: false, code: 'MISSING_APPROVALS' });
    const otherProfile: ApprovalPolicy = { ...policyV1, profileId: 'prof-2' };
    expect(verify(big, [approve(alice, big), approve(bob, big)], otherProfile)).toMatchObject({ ok: false, code: 'POLICY_INVALID' });
  });

  it('never sees a policy set by a non-admin, or altered after signing: the chain stops at its record', () => {
    const [genesis] = chainOf('prof-1', [admin, alice]);
    const draft = draftRecord({ head: genesis!, at: T0, body: { kind: 'policy', version: 1, rules: RULES } });
    expect(replayChain([genesis!, signRecord(draft, admin.session)]).problem).toBeNull();
    expect(replayChain([genesis!, signRecord(draft, alice.session)]).problem).toMatchObject({ code: 'NOT_ALLOWED', seq: 2 });
    const loosened = structuredClone(signRecord(draft, admin.session));
    if (loosened.body.kind === 'policy') loosened.body.rules = { bands: {}, newOrChangedPayee: 0 };
    const { replay, problem } = replayChain([genesis!, loosened]);
    expect(problem).toMatchObject({ code: 'BAD_HASH', seq: 2 });
    expect(replay.state()!.policies).toEqual([]);
  });

  it('refuses on a rejection by an approver, which needs a reason', () => {
    expect(() => approve(alice, big, 'reject')).toThrow(/reason/);
    const verdict = verify(big, [approve(alice, big), approve(bob, big), approve(carol, big, 'reject', 'IBAN belongs to another company')]);
    expect(verdict).toMatchObject({ ok: false, code: 'REJECTED' });
    expect(verdict.message).toMatch(/Carol rejected it: IBAN belongs to another company/);
  });
});
