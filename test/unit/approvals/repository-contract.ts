// The contract every adapter of DualControlRepository keeps, run against each of them: in memory and
// SQLite here (test/unit/approvals/repository.test.ts), PostgreSQL in test/integration/postgres/.
import { describe, expect, it } from 'vitest';
import { RepositoryError, type DualControlRepository } from '../../../main/approvals/repository';
import { signPolicy } from '../../../main/approvals/policy';
import { verifyApprovals } from '../../../main/approvals/verify';
import { heldRoleAt } from '../../../main/people/roles';
import { approve, manifest, member, row, T0 } from './helpers';

/** `make` gives an empty repository whose recording clock reads T0. */
export function repositoryContract(name: string, make: () => Promise<DualControlRepository> | DualControlRepository): void {
  describe(`the ${name} repository`, () => {
    const alice = member('alice', ['approver']);
    const bob = member('bob', ['approver']);
    const admin = member('ada', ['admin']);

    it('keeps people with their role history: grants are closed, never rewritten', async () => {
      const repo = await make();
      await repo.addPerson(alice.person, ['approver', 'viewer'], 100, null);
      await repo.setRoles('alice', ['viewer', 'preparer'], 200, 'ada');
      const p = (await repo.getPerson('alice'))!;
      expect(p.publicKey).toBe(alice.person.publicKey);
      expect(heldRoleAt(p, 'approver', 150)).toBe(true);
      expect(heldRoleAt(p, 'approver', 200)).toBe(false);
      expect(heldRoleAt(p, 'preparer', 200)).toBe(true);
      expect(heldRoleAt(p, 'viewer', 250)).toBe(true);
      await repo.revokePerson('alice', 300, 'ada', 'left the company');
      const revoked = (await repo.getPerson('alice'))!;
      expect(revoked).toMatchObject({ revokedAt: 300, revokedBy: 'ada', revokeReason: 'left the company' });
      expect(revoked.grants.every((g) => g.removedAt !== null)).toBe(true);
      await expect(repo.setRoles('alice', ['approver'], 400, 'ada')).rejects.toThrow(RepositoryError);
      await expect(repo.addPerson(alice.person, [], 0, null)).rejects.toThrow(/already exists/);
      expect((await repo.listPeople()).map((x) => x.id)).toEqual(['alice']);
    });

    it('stores approvals exactly as signed, so they still verify when read back', async () => {
      const repo = await make();
      const m = manifest([row('p1', 100)]);
      const a = approve(alice, m);
      const r = approve(bob, m, 'reject', 'wrong IBAN');
      await repo.addApproval(a);
      await repo.addApproval(r);
      await repo.addApproval(approve(bob, manifest([row('p1', 100)], { subject: { kind: 'payout', id: 'p1' } })));
      const stored = await repo.approvalsFor(m.subject);
      expect(stored).toEqual([a, r]);
      await expect(repo.addApproval(a)).rejects.toThrow(/already exists/);
      expect((await repo.listApprovals(2)).map((x) => x.id)).toHaveLength(2);
    });

    it('keeps policy versions in order and refuses a skipped or repeated version', async () => {
      const repo = await make();
      expect(await repo.currentPolicy()).toBeNull();
      const rules = { bands: { EUR: [{ atLeast: '10.50', approvals: 2 }] }, newOrChangedPayee: 1 };
      const v1 = signPolicy(admin.session, { profileId: 'prof-1', version: 1, rules, setAt: T0 });
      await repo.addPolicy(v1);
      await expect(repo.addPolicy(v1)).rejects.toThrow(/next policy version is 2/);
      await expect(repo.addPolicy({ ...v1, version: 3 })).rejects.toThrow(/next policy version is 2/);
      const back = (await repo.currentPolicy())!;
      expect(back).toEqual(v1);
      // Read back, the signature still holds (the stored rules give the same canonical bytes).
      await repo.addPerson(admin.person, ['admin'], T0 - 1000, null);
      const m = manifest([row('p1', 100)], { policyVersion: 1 });
      expect(verifyApprovals(m, [], await repo.listPeople(), back, { now: T0 + 1 })).toMatchObject({ ok: true });
      const v2 = signPolicy(admin.session, { profileId: 'prof-1', version: 2, rules: { bands: {}, newOrChangedPayee: 0 }, setAt: T0 + 5 });
      await repo.addPolicy(v2);
      expect(await repo.listPolicies()).toEqual([v1, v2]);
    });

    it('moves its change marker with every kind of write, and only with writes (what a yes of the gate rests on)', async () => {
      const repo = await make();
      const markers = [repo.changeMarker()];
      const moved = async (write: () => Promise<unknown>) => {
        await write();
        const now = repo.changeMarker();
        expect(markers).not.toContain(now);
        markers.push(now);
      };
      await moved(() => repo.addPerson(alice.person, ['approver'], 100, null));
      await moved(() => repo.addPerson(admin.person, ['admin'], 100, null));
      await moved(() => repo.setRoles('alice', ['approver', 'viewer'], 200, 'ada'));
      await moved(() => repo.setRoles('alice', ['viewer'], 250, 'ada'));
      await moved(() => repo.addApproval(approve(bob, manifest([row('p1', 100)]))));
      await moved(() => repo.addPolicy(signPolicy(admin.session, { profileId: 'prof-1', version: 1, rules: { bands: {}, newOrChangedPayee: 0 }, setAt: T0 })));
      await moved(() => repo.revokePerson('alice', 300, 'ada', 'left'));
      // Reads leave it where it is.
      await repo.listPeople();
      await repo.approvalsFor({ kind: 'batch', id: 'b1' });
      await repo.currentPolicy();
      expect(repo.changeMarker()).toBe(markers.at(-1));
    });
  });
}
