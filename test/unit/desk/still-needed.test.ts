// "needs 1 more approval from: Bob, Cy": who can still approve a batch or payout (approver now, not revoked,
// not its preparer, not counted yet), and what to do when the desk's people cannot give every missing approval.
import { describe, expect, it } from 'vitest';
import { signPolicy } from '../../../main/approvals/policy';
import { verifyApprovals } from '../../../main/approvals/verify';
import { ordinal, stillNeeded, stillNeededText } from '../../../main/desk/still-needed';
import { approve, manifest, member, row, T0 } from '../approvals/helpers';

const paula = member('paula', ['preparer', 'approver']);
const bob = member('bob', ['approver']);
const cy = member('cy', ['approver']);
const vic = member('vic', ['viewer']);
const people = [paula, bob, cy, vic].map((m) => m.person);
const policy = (approvals: number) => signPolicy(paula.session, { profileId: 'prof-1', version: 0, rules: { bands: { EUR: [{ atLeast: '0', approvals }] }, newOrChangedPayee: 0 }, setAt: T0 - 500 });
const m = manifest([row('r1', 150_000)]);
const now = T0 + 5000;
const fix = { grant: 'grant the approver role to another person (people roles …)', policy: 'lower the policy (policy set …)' };

describe('who can still approve', () => {
  it('names every approver who did not prepare it and has not approved it yet; never a viewer', () => {
    const n = stillNeeded(verifyApprovals(m, [], people, policy(1), { now }), people, 'paula', now);
    expect(n).toEqual({ more: 1, given: 0, from: [{ id: 'bob', name: 'Bob' }, { id: 'cy', name: 'Cy' }] });
    expect(stillNeededText(n!, fix)).toBe('needs 1 more approval from: Bob, Cy');
  });

  it('leaves out who approved already, and says how many are still missing', () => {
    const verdict = verifyApprovals(m, [approve(bob, m)], people, policy(2), { now });
    const n = stillNeeded(verdict, people, 'paula', now)!;
    expect(n).toEqual({ more: 1, given: 1, from: [{ id: 'cy', name: 'Cy' }] });
    expect(stillNeededText(n, fix)).toBe('needs 1 more approval from: Cy');
    expect(stillNeededText(stillNeeded(verifyApprovals(m, [], people, policy(2), { now }), people, 'paula', now)!, fix)).toBe('needs 2 more approvals from: Bob, Cy');
  });

  it('leaves out a revoked approver', () => {
    const revoked = [paula.person, { ...bob.person, revokedAt: T0 }, cy.person];
    expect(stillNeeded(verifyApprovals(m, [], revoked, policy(1), { now }), revoked, 'paula', now)?.from.map((p) => p.name)).toEqual(['Cy']);
  });

  it('says which approval no one on the desk can give, and the way out, when the approvers run out (the README example that got stuck)', () => {
    // Paula prepared it with every role; Bob is the only other approver; it needs two.
    const two = [paula.person, bob.person];
    const none = stillNeeded(verifyApprovals(m, [], two, policy(2), { now }), two, 'paula', now)!;
    expect(stillNeededText(none, fix)).toBe(
      'needs 2 more approvals, and only Bob can give one: no one on this desk can give the 2nd approval: grant the approver role to another person (people roles …) or lower the policy (policy set …)',
    );
    const afterBob = stillNeeded(verifyApprovals(m, [approve(bob, m)], two, policy(2), { now }), two, 'paula', now)!;
    expect(stillNeededText(afterBob, fix)).toBe('needs 1 more approval, and no one on this desk can give the 2nd approval: grant the approver role to another person (people roles …) or lower the policy (policy set …)');
    const alone = [paula.person];
    expect(stillNeededText(stillNeeded(verifyApprovals(m, [], alone, policy(1), { now }), alone, 'paula', now)!)).toBe(
      'needs 1 more approval, and no one on this desk can give the 1st approval: grant the approver role to another person or lower the policy',
    );
    expect(stillNeededText(stillNeeded(verifyApprovals(m, [], alone, policy(3), { now }), alone, 'paula', now)!)).toMatch(/^needs 3 more approvals, and no one on this desk can give any of them: /);
    expect(stillNeededText({ more: 3, given: 0, from: [{ id: 'bob', name: 'Bob' }, { id: 'cy', name: 'Cy' }] })).toMatch(/^needs 3 more approvals, and only Bob, Cy can give one each: no one on this desk can give the 3rd approval: /);
  });

  it('is null once nothing is missing: approved, rejected or no approval needed', () => {
    expect(stillNeeded(verifyApprovals(m, [approve(bob, m)], people, policy(1), { now }), people, 'paula', now)).toBeNull();
    expect(stillNeeded(verifyApprovals(m, [approve(bob, m, 'reject', 'wrong IBAN')], people, policy(2), { now }), people, 'paula', now)).toBeNull();
    expect(stillNeeded(verifyApprovals(m, [], people, policy(0), { now }), people, 'paula', now)).toBeNull();
  });

  it('writes ordinals', () => {
    expect([1, 2, 3, 4, 11, 12, 13, 21, 22].map(ordinal)).toEqual(['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd']);
  });
});
