// verifyApprovals at its edges (found thin by issue 25's mutation run): the exact limits of the clock skew a
// signing time may have, a revocation dated later than now, and the words of each refusal a person reads.
import { describe, expect, it } from 'vitest';
import { signPolicy, type PolicyRules } from '../../../main/approvals/policy';
import { verifyApprovals } from '../../../main/approvals/verify';
import { approve, manifest, member, row, T0 } from './helpers';

const SKEW = 5 * 60_000;
const NOW = T0 + 60 * 60_000;
const admin = member('ada', ['admin']);
const alice = member('alice', ['approver'], T0 - 10 * SKEW);
const RULES: PolicyRules = { bands: { '*': [{ atLeast: '0', approvals: 1 }] }, newOrChangedPayee: 0 };
const policy = signPolicy(admin.session, { profileId: 'prof-1', version: 1, rules: RULES, setAt: T0 - 500 });
const m = manifest([row('p1', 100)], { policyVersion: 1 });

const verdict = (signedAt: number, people = [alice.person]) => verifyApprovals(m, [approve(alice, m, 'approve', null, signedAt)], people, policy, { now: NOW });

describe('when an approval may have been signed', () => {
  it('counts a signature dated the full skew before preparation, or the full skew after now', () => {
    expect(verdict(T0 - SKEW)).toMatchObject({ ok: true, approvedBy: ['alice'], message: 'approved by 1 of 1 needed' });
    expect(verdict(NOW + SKEW).ok).toBe(true);
    expect(verdict(T0 - SKEW).checks).toEqual([expect.objectContaining({ status: 'counted', message: 'approved by Alice' })]);
  });

  it('voids one dated a millisecond beyond either, saying when it was dated', () => {
    const early = verdict(T0 - SKEW - 1);
    expect(early).toMatchObject({ ok: false, code: 'SIGNED_OUT_OF_TIME' });
    expect(early.checks[0]?.message).toBe(`Alice's signature is dated ${new Date(T0 - SKEW - 1).toISOString()}, outside the time since the batch was prepared`);
    expect(verdict(NOW + SKEW + 1).code).toBe('SIGNED_OUT_OF_TIME');
  });
});

describe('a revoked approver', () => {
  it('revoked at this very moment: the decision is void', () => {
    const revoked = { ...alice.person, revokedAt: NOW };
    expect(verdict(T0 + 10, [revoked])).toMatchObject({ ok: false, code: 'SIGNER_REVOKED' });
  });

  it('whose revocation is dated later than now still counts until then', () => {
    const later = { ...alice.person, revokedAt: NOW + 1 };
    expect(verdict(T0 + 10, [later]).ok).toBe(true);
  });
});

describe('the words of a refusal', () => {
  it('an approval of another subject is named as replayed, with what it was given for', () => {
    const other = manifest([row('p1', 100)], { policyVersion: 1, subject: { kind: 'payout', id: 'p9' } });
    const v = verifyApprovals(m, [approve(alice, other, 'approve', null, T0 + 10)], [alice.person], policy, { now: NOW });
    expect(v.ignored.map((c) => [c.status, c.message])).toEqual([[
      'REPLAYED',
      `approval ${v.ignored[0]?.approvalId} by Alice was given for payout p9 of profile prof-1, not for this batch batch-1`,
    ]]);
  });

  it('a second approval by the same person is counted once, and says so', () => {
    const v = verifyApprovals(m, [approve(alice, m, 'approve', null, T0 + 10), approve(alice, m, 'approve', null, T0 + 20)], [alice.person], policy, { now: NOW });
    expect(v.approvedBy).toEqual(['alice']);
    expect(v.checks.map((c) => [c.status, c.message])).toEqual([['counted', 'approved by Alice'], ['duplicate', 'approved by Alice (again: counted once)']]);
  });

  it('a refusal for too few approvals names the currencies that need them, not those that need none', () => {
    const mixed: PolicyRules = { bands: { EUR: [{ atLeast: '0', approvals: 0 }], '*': [{ atLeast: '0', approvals: 1 }] }, newOrChangedPayee: 0 };
    const v1 = signPolicy(admin.session, { profileId: 'prof-1', version: 1, rules: mixed, setAt: T0 - 500 });
    const both = manifest([row('p1', 100), row('p2', 50_000, { currencyCode: 'USD' })], { policyVersion: 1 });
    expect(verifyApprovals(both, [], [alice.person], v1, { now: NOW }).message).toBe('Nothing was sent: it needs 1 approval (500.00 USD: 1), has 0');
  });

  it('with several reasons to need approvals, it names each', () => {
    const rules: PolicyRules = { bands: { '*': [{ atLeast: '0', approvals: 1 }] }, newOrChangedPayee: 1 };
    const v1 = signPolicy(admin.session, { profileId: 'prof-1', version: 1, rules, setAt: T0 - 500 });
    const both = manifest([row('p1', 100), row('p2', 50_000, { currencyCode: 'USD' })], { policyVersion: 1 });
    expect(verifyApprovals(both, [], [alice.person], v1, { now: NOW, newOrChangedPayees: 1 }).message).toMatch(/^Nothing was sent: it needs 2 approvals \(1\.00 EUR: 1; 500\.00 USD: 1; new or changed payee: \+1\), has 0$/);
  });

  it("a policy of another profile refuses before any approval is looked at, with none counted or ignored", () => {
    const foreign = signPolicy(admin.session, { profileId: 'prof-2', version: 1, rules: RULES, setAt: T0 - 500 });
    const v = verifyApprovals(m, [approve(alice, m, 'approve', null, T0 + 10)], [alice.person], foreign, { now: NOW });
    expect(v).toMatchObject({ ok: false, code: 'POLICY_INVALID', message: "The approval policy is profile prof-2's, not prof-1's", approvedBy: [], checks: [], ignored: [] });
  });
});
