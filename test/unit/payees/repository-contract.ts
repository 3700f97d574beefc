// The contract every adapter of PayeeRepository keeps, run against each of them: in memory and SQLite here
// (repository.test.ts), PostgreSQL in test/integration/postgres/payee-repository.test.ts. Versions are only
// added, put in force once or closed once; one version in force and one waiting per payee; one payee in
// force per name key; refusals are worded alike, since the desk shows them as they are.
import { describe, expect, it } from 'vitest';
import type { PayeeApprovalRecord } from '../../../main/payees/approval';
import { stateOf } from '../../../main/payees/payee';
import type { PayeeRepository } from '../../../main/payees/repository';
import { T0, version } from './helpers';

const states = async (repo: PayeeRepository, id: string) => (await repo.versions(id)).map((v) => `${v.version}:${stateOf(v)}`);

/** A payee approval as stored (its signature is not checked by the repository). */
function approval(id: string, payeeId: string, payeeVersion: number, overrides: Partial<PayeeApprovalRecord> = {}): PayeeApprovalRecord {
  return {
    id, profileId: 'prof-1', payeeId, payeeVersion, changeDigest: `digest-${payeeId}-${payeeVersion}`, policyVersion: 1, decision: 'approve', reason: null,
    signerId: 'alice', signedAt: T0 + 50, signature: `sig-${id}`, ...overrides,
  };
}

/** `make` gives an empty payee book whose recording clock reads T0. */
export function payeeRepositoryContract(name: string, make: () => Promise<PayeeRepository> | PayeeRepository): void {
  describe(`the ${name} payee book`, () => {
    it('keeps every version: a version in force supersedes the one before, which stays', async () => {
      const repo = await make();
      await repo.addVersions([version('g', 1)]);
      await repo.addVersions([version('g', 2, { emailAddress: 'grace@navy.example' })]);
      expect(await states(repo, 'g')).toEqual(['1:superseded', '2:in force']);
      expect((await repo.versions('g'))[0]).toMatchObject({ closedAt: T0 + 2, closedBy: 'paula', closeReason: 'superseded' });
      expect((await repo.list()).map((v) => v.version)).toEqual([2]);
      expect((await repo.list({ all: true })).map((v) => v.version)).toEqual([1, 2]);
    });

    it('gives back a version exactly as it was added', async () => {
      const repo = await make();
      const v = version('g', 1, { referenceDefault: 'Invoice 7', name: 'Grâce Höpper' }, { bankChange: true, by: null });
      const sourced = { ...v, source: 'import' as const, sourceRef: 'payees.csv' };
      await repo.addVersions([sourced]);
      expect(await repo.versions('g')).toEqual([sourced]);
      const waiting = version('h', 1, { name: 'Hedy Lamarr' }, { waiting: true });
      await repo.addVersions([waiting]);
      expect(await repo.versions('h')).toEqual([waiting]);
    });

    it('lists by payee id in byte order, then by version', async () => {
      const repo = await make();
      await repo.addVersions([version('b', 1, { name: 'B' }), version('Z', 1, { name: 'Z' }), version('a', 1, { name: 'A' }), version('a', 2, { name: 'A' })]);
      expect((await repo.list({ all: true })).map((v) => `${v.payeeId}${v.version}`)).toEqual(['Z1', 'a1', 'a2', 'b1']);
    });

    it('stores a change awaiting approval without putting it in force, and allows one at a time', async () => {
      const repo = await make();
      await repo.addVersions([version('g', 1)]);
      await repo.addVersions([version('g', 2, { accountNumber: 'DE89370400440532013000' }, { waiting: true })]);
      expect(await states(repo, 'g')).toEqual(['1:in force', '2:awaiting approval']);
      await expect(repo.addVersions([version('g', 3, { accountNumber: 'DE02120300000000202051' }, { waiting: true })])).rejects.toMatchObject({ code: 'CHANGE_WAITING' });
      await repo.activate('g', 2, T0 + 100, 'alice');
      expect(await states(repo, 'g')).toEqual(['1:superseded', '2:in force']);
      expect((await repo.versions('g'))[0]).toMatchObject({ closedAt: T0 + 100, closedBy: 'alice' });
      expect((await repo.versions('g'))[1]).toMatchObject({ effectiveAt: T0 + 100, closedAt: null });
      await expect(repo.activate('g', 2, T0 + 200, 'alice')).rejects.toMatchObject({ code: 'NOT_WAITING' });
    });

    it('closes a rejected change and leaves the version in force as it was', async () => {
      const repo = await make();
      await repo.addVersions([version('g', 1), version('g', 2, { accountNumber: 'DE89370400440532013000' }, { waiting: true })]);
      await repo.close('g', 2, T0 + 100, 'alice', 'rejected');
      expect(await states(repo, 'g')).toEqual(['1:in force', '2:rejected']);
      expect((await repo.versions('g'))[1]).toMatchObject({ closedAt: T0 + 100, closedBy: 'alice', effectiveAt: null });
      await expect(repo.close('g', 2, T0 + 200, 'alice', 'withdrawn')).rejects.toMatchObject({ code: 'NOT_WAITING' });
    });

    it('refuses a second payee in force under the same name key (case and Unicode form ignored), adding nothing of the batch', async () => {
      const repo = await make();
      await repo.addVersions([version('a', 1, { name: 'Élodie Durand' })]);
      await expect(repo.addVersions([version('x', 1, { name: 'Other' }), version('b', 1, { name: 'E\u0301LODIE  durand' })])).rejects.toMatchObject({ code: 'DUPLICATE' });
      expect((await repo.list()).map((v) => v.payeeId)).toEqual(['a']);
      await expect(repo.addVersions([version('a', 1, { name: 'Élodie Durand' })])).rejects.toMatchObject({ code: 'DUPLICATE' });
    });

    it('words its refusals as every other adapter does', async () => {
      const repo = await make();
      await repo.addVersions([version('g', 1), version('g', 2, { accountNumber: 'DE89370400440532013000' }, { waiting: true })]);
      await expect(repo.addVersions([version('g', 1)])).rejects.toThrow(expect.objectContaining({ name: 'PayeeError', code: 'DUPLICATE', message: 'payee g version 1 already exists' }));
      await expect(repo.addVersions([version('g', 3, {}, { waiting: true })])).rejects.toThrow(
        expect.objectContaining({ code: 'CHANGE_WAITING', message: 'a change of payee g already awaits approval' }),
      );
      await expect(repo.addVersions([version('h', 1)])).rejects.toThrow(expect.objectContaining({ code: 'DUPLICATE', message: 'a payee named "Grace Hopper" is already in the book' }));
      await expect(repo.activate('g', 9, T0, 'alice')).rejects.toThrow(expect.objectContaining({ code: 'NOT_FOUND', message: 'no payee g version 9' }));
      await expect(repo.close('nobody', 1, T0, 'alice', 'withdrawn')).rejects.toThrow(expect.objectContaining({ code: 'NOT_FOUND', message: 'no payee nobody version 1' }));
      await expect(repo.activate('g', 1, T0, 'alice')).rejects.toThrow(expect.objectContaining({ code: 'NOT_WAITING', message: 'payee g version 1 is in force, not awaiting approval' }));
      await repo.close('g', 2, T0 + 100, 'alice', 'withdrawn');
      await expect(repo.close('g', 2, T0, 'alice', 'rejected')).rejects.toThrow(expect.objectContaining({ code: 'NOT_WAITING', message: 'payee g version 2 is withdrawn, not awaiting approval' }));
      await repo.addVersions([version('g', 3, { emailAddress: 'grace@navy.example' })]);
      await expect(repo.activate('g', 1, T0, 'alice')).rejects.toThrow(expect.objectContaining({ code: 'NOT_WAITING', message: 'payee g version 1 is superseded, not awaiting approval' }));
    });

    it("refuses to put a change in force under a name another payee holds in force, changing nothing", async () => {
      const repo = await make();
      await repo.addVersions([version('a', 1, { name: 'Ada Lovelace' }), version('g', 1), version('g', 2, { name: 'ADA lovelace' }, { waiting: true })]);
      await expect(repo.activate('g', 2, T0 + 100, 'alice')).rejects.toThrow(expect.objectContaining({ code: 'DUPLICATE', message: 'a payee named "ADA lovelace" is already in the book' }));
      expect(await states(repo, 'g')).toEqual(['1:in force', '2:awaiting approval']);
      expect(await states(repo, 'a')).toEqual(['1:in force']);
    });

    it('finds open versions by name key or e-mail key', async () => {
      const repo = await make();
      await repo.addVersions([version('g', 1), version('h', 1, { name: 'Hedy Lamarr', emailAddress: 'hedy@example.com' })]);
      expect((await repo.openByKeys(['grace hopper'], [])).map((v) => v.payeeId)).toEqual(['g']);
      expect((await repo.openByKeys([], ['hedy@example.com'])).map((v) => v.payeeId)).toEqual(['h']);
      expect((await repo.openByKeys(['grace hopper', 'grace hopper'], ['hedy@example.com', 'grace@example.com'])).map((v) => v.payeeId)).toEqual(['g', 'h']);
      expect(await repo.openByKeys(['nobody'], [''])).toEqual([]);
    });

    it('leaves closed versions out of a look-up by key, and keeps a waiting one in', async () => {
      const repo = await make();
      const navy = { emailAddress: 'grace@navy.example' };
      await repo.addVersions([version('g', 1), version('g', 2, navy), version('g', 3, { ...navy, accountNumber: 'DE89370400440532013000' }, { waiting: true })]);
      expect((await repo.openByKeys(['grace hopper'], [])).map((v) => `${v.version}:${stateOf(v)}`)).toEqual(['2:in force', '3:awaiting approval']);
      expect(await repo.openByKeys([], ['grace@example.com'])).toEqual([]);
    });

    it('keeps approvals as given, by change, in the order they were recorded; an id is stored once', async () => {
      const repo = await make();
      const first = approval('ap-2', 'g', 2, { reason: 'checked by phone' });
      const second = approval('ap-1', 'g', 2, { decision: 'reject', reason: 'wrong IBAN', signerId: 'bob' });
      await repo.addApproval(first);
      await repo.addApproval(second);
      await repo.addApproval(approval('ap-3', 'g', 3));
      expect(await repo.approvalsFor('g', 2)).toEqual([first, second]);
      expect((await repo.approvalsFor('g', 3)).map((a) => a.id)).toEqual(['ap-3']);
      expect(await repo.approvalsFor('h', 2)).toEqual([]);
      await expect(repo.addApproval({ ...first, signerId: 'mallory' })).rejects.toThrow(expect.objectContaining({ code: 'DUPLICATE', message: 'approval ap-2 already exists' }));
      expect((await repo.approvalsFor('g', 2))[0]!.signerId).toBe('alice');
    });

    it('moves its change marker when a version is added, put in force or closed; not on reads or refusals', async () => {
      const repo = await make();
      const seen = [repo.changeMarker()];
      const moved = () => {
        const m = repo.changeMarker();
        expect(seen).not.toContain(m);
        seen.push(m);
      };
      await repo.addVersions([version('g', 1)]);
      moved();
      await repo.addVersions([version('g', 2, { accountNumber: 'DE89370400440532013000' }, { waiting: true }), version('h', 1, { name: 'Hedy Lamarr' }, { waiting: true })]);
      moved();
      await repo.activate('g', 2, T0 + 100, 'alice');
      moved();
      await repo.close('h', 1, T0 + 100, 'alice', 'withdrawn');
      moved();
      await repo.list({ all: true });
      await repo.openByKeys(['grace hopper'], []);
      await expect(repo.addVersions([version('g', 1)])).rejects.toMatchObject({ code: 'DUPLICATE' });
      await expect(repo.activate('g', 2, T0, 'alice')).rejects.toMatchObject({ code: 'NOT_WAITING' });
      expect(repo.changeMarker()).toBe(seen.at(-1));
    });
  });
}
