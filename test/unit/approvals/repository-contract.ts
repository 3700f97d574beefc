// The contract every adapter of DualControlRepository keeps, run against each of them: in memory and
// SQLite here (test/unit/approvals/repository.test.ts), PostgreSQL in test/integration/postgres/.
// The store keeps records; it never judges them (the chain's replay and the gate do): the one rule it holds
// itself is that a control record follows the newest one stored.
import { describe, expect, it } from 'vitest';
import { approvalSignatureValid } from '../../../main/approvals/approval';
import { signPreparation, preparationSignatureValid } from '../../../main/approvals/preparation';
import type { DualControlRepository } from '../../../main/trust/repository';
import { verifyApprovals } from '../../../main/approvals/verify';
import { heldRoleAt } from '../../../main/people/roles';
import { draftRecord, signRecord } from '../../../main/trust/chain-record';
import { replayChain } from '../../../main/trust/chain-state';
import { appendRecord, approve, chainOf, manifest, member, row, T0 } from './helpers';

export interface ContractOptions {
  /** What the store's clock reads (T0 for adapters given a clock); absent: its own clock (the database's), read as now. */
  recordsAt?: number;
}

/** `make` gives an empty repository. */
export function repositoryContract(name: string, make: () => Promise<DualControlRepository> | DualControlRepository, options: ContractOptions = {}): void {
  describe(`the ${name} repository`, () => {
    const alice = member('alice', ['approver', 'viewer']);
    const bob = member('bob', ['approver']);
    const admin = member('ada', ['admin']);
    const cleo = member('cleo', ['admin']);
    const paula = member('paula', ['preparer']);

    /** recordedAt is the store's time: T0 for a given clock, else the database's (this machine's) now. */
    const expectRecordedAt = (recordedAt: number | undefined, before: number, after: number) => {
      if (options.recordsAt !== undefined) {
        expect(recordedAt).toBe(options.recordsAt);
      } else {
        expect(recordedAt).toBeGreaterThanOrEqual(before - 5_000);
        expect(recordedAt).toBeLessThanOrEqual(after + 5_000);
      }
    };

    it('keeps the control chain as signed and in order, so people keep their role history when it is replayed', async () => {
      const repo = await make();
      expect(await repo.chain()).toEqual([]);
      const [genesis] = chainOf('prof-1', [admin, alice], { at: 100 });
      await repo.appendChain(genesis!);
      const r2 = await appendRecord(repo, { kind: 'roles', personId: 'alice', roles: ['preparer', 'viewer'] }, [admin], 200);
      const r3 = await appendRecord(repo, { kind: 'revoked', personId: 'alice', reason: 'left the company' }, [admin], 300);
      // Read back, every record still gives its hash and its signatures verify.
      expect(await repo.chain()).toEqual([genesis, r2, r3]);
      const { replay, problem } = replayChain(await repo.chain());
      expect(problem).toBeNull();
      const p = replay.state()!.people.find((x) => x.id === 'alice')!;
      expect(p.publicKey).toBe(alice.person.publicKey);
      expect(heldRoleAt(p, 'approver', 150)).toBe(true);
      expect(heldRoleAt(p, 'approver', 200)).toBe(false);
      expect(heldRoleAt(p, 'preparer', 200)).toBe(true);
      expect(heldRoleAt(p, 'viewer', 250)).toBe(true);
      expect(p).toMatchObject({ revokedAt: 300, revokedBy: 'ada', revokeReason: 'left the company' });
      expect(p.grants.every((g) => g.removedAt !== null)).toBe(true);
      // Grants are closed, never rewritten: the approver grant from the start is still there, ended at 200.
      expect(p.grants.filter((g) => g.role === 'approver')).toEqual([expect.objectContaining({ grantedAt: 100, removedAt: 200 })]);
    });

    it('refuses a control record that does not follow the newest one stored (repeated, skipped, or drafted on another head)', async () => {
      const repo = await make();
      const [genesis] = chainOf('prof-1', [admin, alice], { at: 100 });
      await repo.appendChain(genesis!);
      const r2 = await appendRecord(repo, { kind: 'roles', personId: 'alice', roles: ['viewer'] }, [admin], 200);
      await expect(repo.appendChain(r2)).rejects.toMatchObject({ code: 'CHAIN_MOVED' });
      await expect(repo.appendChain(genesis!)).rejects.toMatchObject({ code: 'CHAIN_MOVED' });
      // Two admins racing: the second drafted on the genesis as well.
      const raced = signRecord(draftRecord({ head: genesis!, at: 210, body: { kind: 'revoked', personId: 'alice', reason: 'left' } }), admin.session);
      await expect(repo.appendChain(raced)).rejects.toMatchObject({ code: 'CHAIN_MOVED' });
      const skipped = signRecord(draftRecord({ head: { seq: r2.seq + 1, hash: r2.hash }, at: 300, body: { kind: 'revoked', personId: 'alice', reason: 'left' } }), admin.session);
      await expect(repo.appendChain(skipped)).rejects.toMatchObject({ code: 'CHAIN_MOVED' });
      expect(await repo.chain()).toEqual([genesis, r2]);
      // A record that follows the head is stored whatever it says: whether it holds is the replay's question.
      await appendRecord(repo, { kind: 'roles', personId: 'alice', roles: ['admin'] }, [alice], 400);
      const { replay, problem } = replayChain(await repo.chain());
      expect(problem).toMatchObject({ code: 'NOT_ALLOWED', seq: 3 });
      expect(replay.length).toBe(2);
    });

    it('keeps a policy record exactly, so it still verifies read back and its version applies', async () => {
      const repo = await make();
      const rules = { bands: { EUR: [{ atLeast: '10.50', approvals: 2 }] }, newOrChangedPayee: 1 };
      for (const r of chainOf('prof-1', [admin], { at: T0 - 1000 })) await repo.appendChain(r);
      await appendRecord(repo, { kind: 'policy', version: 1, rules }, [admin], T0);
      await appendRecord(repo, { kind: 'policy', version: 2, rules: { bands: {}, newOrChangedPayee: 0 } }, [admin], T0 + 5);
      // Read back, the stored rules give the same canonical bytes: the hash, and the admin's signature over it, hold.
      const { replay, problem } = replayChain(await repo.chain());
      expect(problem).toBeNull();
      const state = replay.state()!;
      expect(state.policies.map((p) => [p.version, p.rules])).toEqual([[1, rules], [2, { bands: {}, newOrChangedPayee: 0 }]]);
      const m = manifest([row('p1', 100_000)], { policyVersion: 2 });
      expect(verifyApprovals(m, [], state.people, state.policies[1]!, { now: T0 + 10 })).toMatchObject({ ok: true });
      expect(verifyApprovals({ ...m, policyVersion: 1 }, [], state.people, state.policies[0]!, { now: T0 + 10 })).toMatchObject({ ok: false, code: 'MISSING_APPROVALS' });
      // A repeated or skipped version does not hold on this chain: the replay stops at its record.
      for (const version of [2, 4]) {
        const head = (await repo.chain()).at(-1)!;
        const next = signRecord(draftRecord({ head, at: T0 + 20, body: { kind: 'policy', version, rules: { bands: {}, newOrChangedPayee: 0 } } }), admin.session);
        expect(replayChain([...(await repo.chain()), next]).problem).toMatchObject({ code: 'NOT_ALLOWED', seq: 4, message: expect.stringMatching(/does not follow the one before/) });
      }
    });

    it('keeps proposals: the newest copy of each record (one with more signatures is added, not written over)', async () => {
      const repo = await make();
      expect(await repo.proposals()).toEqual([]);
      const [genesis] = chainOf('prof-1', [admin, cleo, alice], { at: 100 });
      await repo.appendChain(genesis!);
      const grant = signRecord(draftRecord({ head: genesis!, at: 200, body: { kind: 'roles', personId: 'alice', roles: ['approver', 'viewer', 'admin'] } }), admin.session);
      const policy = signRecord(draftRecord({ head: genesis!, at: 210, body: { kind: 'policy', version: 1, rules: { bands: {}, newOrChangedPayee: 0 } } }), admin.session);
      await repo.addProposal(grant);
      await repo.addProposal(policy);
      expect(await repo.proposals()).toEqual([grant, policy]);
      const cosigned = signRecord(grant, cleo.session);
      await repo.addProposal(cosigned);
      const back = await repo.proposals();
      expect(back).toHaveLength(2);
      expect(back.find((p) => p.hash === grant.hash)).toEqual(cosigned);
      expect(back.find((p) => p.hash === policy.hash)).toEqual(policy);
      // A proposal is not part of the chain until it is appended.
      expect(await repo.chain()).toEqual([genesis]);
    });

    it('stores approvals exactly as signed, with the time the store took them, so they still verify when read back', async () => {
      const repo = await make();
      const m = manifest([row('p1', 100)]);
      const a = approve(alice, m);
      const r = approve(bob, m, 'reject', 'wrong IBAN');
      const before = Date.now();
      await repo.addApproval(a);
      // A recording time written by the signer is not the one kept: the store's clock says when it took it.
      await repo.addApproval({ ...r, recordedAt: 5 });
      await repo.addApproval(approve(bob, manifest([row('p1', 100)], { subject: { kind: 'payout', id: 'p1' } })));
      const after = Date.now();
      const stored = await repo.approvalsFor(m.subject);
      expect(stored.map(({ recordedAt: _, ...rest }) => rest)).toEqual([a, r]);
      for (const s of stored) expectRecordedAt(s.recordedAt, before, after);
      expect(approvalSignatureValid(stored[0]!, alice.person.publicKey)).toBe(true);
      expect(approvalSignatureValid(stored[1]!, bob.person.publicKey)).toBe(true);
      await expect(repo.addApproval(a)).rejects.toThrow(/already exists/);
      expect((await repo.listApprovals(2)).map((x) => x.id)).toHaveLength(2);
      expect((await repo.listApprovals()).map((x) => x.id)).toHaveLength(3);
    });

    it("stores the preparers' signatures exactly as signed, with the time the store took them", async () => {
      const repo = await make();
      const m = manifest([row('p1', 100, { callbackUrl: 'https://desk.example/callback' })]);
      const p = signPreparation(paula.session, { id: 'prep-1', manifest: m, signedAt: T0 });
      const before = Date.now();
      await repo.addPreparation(p);
      await repo.addPreparation(signPreparation(paula.session, { id: 'prep-2', manifest: manifest([row('p2', 1)], { subject: { kind: 'payout', id: 'p2' } }), signedAt: T0 }));
      const after = Date.now();
      const stored = await repo.preparationsFor(m.subject);
      expect(stored.map(({ recordedAt: _, ...rest }) => rest)).toEqual([p]);
      expectRecordedAt(stored[0]!.recordedAt, before, after);
      expect(preparationSignatureValid(stored[0]!, paula.person.publicKey)).toBe(true);
      await expect(repo.addPreparation(p)).rejects.toMatchObject({ code: 'DUPLICATE' });
      expect(await repo.preparationsFor({ kind: 'batch', id: 'nothing' })).toEqual([]);
    });

    it('has no rows from before the chain when it is new', async () => {
      const repo = await make();
      expect(await repo.legacy()).toBeNull();
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
      const [genesis] = chainOf('prof-1', [admin, cleo, alice], { at: 100 });
      await moved(() => repo.appendChain(genesis!));
      await moved(() => appendRecord(repo, { kind: 'roles', personId: 'alice', roles: ['approver', 'viewer'] }, [admin], 200));
      await moved(() => repo.addProposal(signRecord(draftRecord({ head: genesis!, at: 210, body: { kind: 'roles', personId: 'alice', roles: ['viewer'] } }), admin.session)));
      await moved(() => repo.addApproval(approve(bob, manifest([row('p1', 100)]))));
      await moved(() => repo.addPreparation(signPreparation(paula.session, { id: 'prep-m', manifest: manifest([row('p1', 100)]), signedAt: T0 })));
      await moved(() => appendRecord(repo, { kind: 'policy', version: 1, rules: { bands: {}, newOrChangedPayee: 0 } }, [admin], T0));
      await moved(() => appendRecord(repo, { kind: 'revoked', personId: 'alice', reason: 'left' }, [admin], T0 + 1));
      // Reads leave it where it is.
      await repo.chain();
      await repo.proposals();
      await repo.legacy();
      await repo.approvalsFor({ kind: 'batch', id: 'b1' });
      await repo.listApprovals();
      await repo.preparationsFor({ kind: 'batch', id: 'b1' });
      expect(repo.changeMarker()).toBe(markers.at(-1));
    });
  });
}
