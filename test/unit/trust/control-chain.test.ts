// The control chain: people, roles, revocations and policy versions are what records signed by the people
// entitled to make them say, and a desk believes a chain only as far as it holds against its keychain pin.
// Each case is something a holder of the journal file or of the team database's password could do to the rows.
import { describe, expect, it } from 'vitest';
import { MemoryDualControlRepository } from '../../../main/trust/repository';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { currentRoles, heldRoleAt } from '../../../main/people/roles';
import { draftRecord, recordHash, signRecord, type ChainRecord } from '../../../main/trust/chain-record';
import { replayChain } from '../../../main/trust/chain-state';
import { readControlPin } from '../../../main/trust/control-pin';
import { ControlReader } from '../../../main/trust/control-state';
import { appendRecord, chainOf, member, readerOf, T0 } from '../approvals/helpers';

const ada = member('ada', ['admin', 'preparer']);
const bob = member('bob', ['approver']);
const cleo = member('cleo', ['admin']);
const mallory = member('mallory', ['viewer']);

async function repoWith(records: ChainRecord[]): Promise<MemoryDualControlRepository> {
  const repo = new MemoryDualControlRepository(() => T0);
  for (const r of records) await repo.appendChain(r);
  return repo;
}

/** A copy of a stored record with one field changed, as someone with the rows would write it. */
const edited = (r: ChainRecord, change: (copy: ChainRecord) => void): ChainRecord => {
  const copy = structuredClone(r);
  change(copy);
  return copy;
};

describe('replaying the control chain', () => {
  it('gives the people, roles and policy versions its records make, and nothing else', async () => {
    const repo = await repoWith(chainOf('prof-1', [ada, bob]));
    await appendRecord(repo, { kind: 'policy', version: 1, rules: { bands: { '*': [{ atLeast: '100', approvals: 1 }] }, newOrChangedPayee: 0 } }, [ada]);
    await appendRecord(repo, { kind: 'roles', personId: 'bob', roles: ['approver', 'sender'] }, [ada]);
    const { replay, problem } = replayChain(await repo.chain());
    const state = replay.state()!;
    expect(problem).toBeNull();
    expect(state.people.map((p) => [p.id, currentRoles(p)])).toEqual([['ada', ['preparer', 'admin']], ['bob', ['approver', 'sender']]]);
    expect(state.policies.map((p) => p.version)).toEqual([1]);
    expect(state.head.seq).toBe(3);
  });

  it('stops at a record whose content was edited (a swapped public key, a role added)', async () => {
    const [genesis] = chainOf('prof-1', [ada, bob]);
    const swapped = edited(genesis!, (c) => {
      if (c.body.kind === 'genesis') c.body.people[1]!.publicKey = mallory.person.publicKey;
    });
    expect(replayChain([swapped]).problem).toMatchObject({ code: 'BAD_HASH', seq: 1 });
    // Recomputing the hash leaves the root's signature over the old one.
    const rehashed = { ...swapped, hash: recordHash(swapped) };
    expect(replayChain([rehashed]).problem).toMatchObject({ code: 'BAD_SIGNATURE', seq: 1 });
  });

  it('refuses a record signed by someone who may not make it: a grant by a non-admin, an enrolment signed by another', async () => {
    const repo = await repoWith(chainOf('prof-1', [ada, bob, mallory]));
    const [head] = (await repo.chain()).slice(-1);
    const selfGrant = signRecord(draftRecord({ head: head!, at: T0, body: { kind: 'roles', personId: 'mallory', roles: ['approver', 'admin'] } }), mallory.session);
    expect(replayChain([...(await repo.chain()), selfGrant]).problem).toMatchObject({ code: 'NOT_ALLOWED', seq: 2, message: expect.stringMatching(/Mallory is not an admin/) });
    const fake = member('eve', ['viewer']);
    const enrolledForEve = signRecord(draftRecord({ head: head!, at: T0, body: { kind: 'enrolled', person: { id: 'eve', name: 'Eve', publicKey: fake.person.publicKey } } }), ada.session);
    expect(replayChain([...(await repo.chain()), enrolledForEve]).problem).toMatchObject({ code: 'NOT_ALLOWED' });
  });

  it('stops at a removed, reordered or inserted record: each names the one before it', async () => {
    const repo = await repoWith(chainOf('prof-1', [ada, bob]));
    const r2 = await appendRecord(repo, { kind: 'revoked', personId: 'bob', reason: 'left' }, [ada]);
    const r3 = await appendRecord(repo, { kind: 'policy', version: 1, rules: { bands: {}, newOrChangedPayee: 0 } }, [ada]);
    const [genesis] = await repo.chain();
    expect(replayChain([genesis!, r3]).problem).toMatchObject({ code: 'BROKEN_LINK', seq: 3 });
    expect(replayChain([genesis!, r3, r2]).problem).toMatchObject({ code: 'BROKEN_LINK' });
    // With the revocation gone the chain up to it still holds: Bob is an approver again only in a chain that stops there.
    const upTo = replayChain([genesis!]).replay.state()!;
    expect(heldRoleAt(upTo.people.find((p) => p.id === 'bob')!, 'approver', T0 + 1)).toBe(true);
  });

  it('needs two admins for a grant of approver and for a policy once secondAdmin is on and there are two admins', async () => {
    const repo = await repoWith(chainOf('prof-1', [ada, cleo, mallory], { policy: { version: 1, rules: { bands: {}, newOrChangedPayee: 0, secondAdmin: true } } }));
    const head = (await repo.chain()).at(-1)!;
    const byOne = signRecord(draftRecord({ head, at: T0, body: { kind: 'roles', personId: 'mallory', roles: ['approver'] } }), ada.session);
    expect(replayChain([...(await repo.chain()), byOne]).problem).toMatchObject({ code: 'NOT_ALLOWED', message: expect.stringMatching(/needs 2 admins' signatures/) });
    const byTwo = signRecord(byOne, cleo.session);
    expect(replayChain([...(await repo.chain()), byTwo]).problem).toBeNull();
    // A grant that adds no power (preparer) needs one.
    const preparer = signRecord(draftRecord({ head, at: T0, body: { kind: 'roles', personId: 'mallory', roles: ['preparer'] } }), ada.session);
    expect(replayChain([...(await repo.chain()), preparer]).problem).toBeNull();
  });

  it('never leaves the chain without an admin', async () => {
    const repo = await repoWith(chainOf('prof-1', [ada, bob]));
    const head = (await repo.chain()).at(-1)!;
    const dropAdmin = signRecord(draftRecord({ head, at: T0, body: { kind: 'roles', personId: 'ada', roles: ['preparer'] } }), ada.session);
    expect(replayChain([...(await repo.chain()), dropAdmin]).problem).toMatchObject({ code: 'NOT_ALLOWED', message: expect.stringMatching(/without an admin/) });
  });
});

describe('a desk believes the chain as far as it holds against its keychain pin', () => {
  it('pins the root and head it first verifies, and follows the head as records are added', async () => {
    const keyStore = new MemoryKeyStore();
    const repo = await repoWith(chainOf('prof-1', [ada, bob]));
    const reader = readerOf(repo, { keyStore });
    const first = await reader.read();
    expect(first.problem).toBeNull();
    expect(first.enforced).toBe(true);
    expect(await readControlPin(keyStore, 'prof-1')).toMatchObject({ on: true, fingerprint: first.chain!.fingerprint, head: { seq: 1 } });
    await appendRecord(repo, { kind: 'roles', personId: 'bob', roles: ['approver', 'preparer'] }, [ada]);
    await reader.read();
    expect((await readControlPin(keyStore, 'prof-1'))?.head?.seq).toBe(2);
  });

  it('refuses a chain replaced by another root (ROOT_MISMATCH), cut back (ROLLED_BACK) or deleted (CHAIN_MISSING)', async () => {
    const keyStore = new MemoryKeyStore();
    const repo = await repoWith(chainOf('prof-1', [ada, bob]));
    await appendRecord(repo, { kind: 'revoked', personId: 'bob', reason: 'left' }, [ada]);
    await readerOf(repo, { keyStore }).read();

    const replaced = await repoWith(chainOf('prof-1', [member('mal', ['admin'])]));
    expect((await readerOf(replaced, { keyStore }).read()).problem).toMatchObject({ code: 'ROOT_MISMATCH' });

    const cut = await repoWith((await repo.chain()).slice(0, 1));
    const cutState = await readerOf(cut, { keyStore }).read();
    expect(cutState.problem).toMatchObject({ code: 'ROLLED_BACK' });
    // The revocation was cut: Bob would approve again. He does not, because nothing is sent under a cut chain.
    expect(cutState.enforced).toBe(true);

    const empty = new MemoryDualControlRepository();
    const none = await readerOf(empty, { keyStore }).read();
    expect(none.problem).toMatchObject({ code: 'CHAIN_MISSING' });
    expect(none.enforced).toBe(true);
  });

  it('says dual control is provably off only when no chain, no earlier rows and no pin say otherwise', async () => {
    const state = await readerOf(new MemoryDualControlRepository()).read();
    expect(state).toMatchObject({ enforced: false, problem: null });
  });

  it('waits for an admin to seal people from before the chain (NOT_SEALED), and pins that dual control was on', async () => {
    const keyStore = new MemoryKeyStore();
    const repo = new MemoryDualControlRepository();
    repo.legacyRows = { people: [ada.person, bob.person], policies: [] };
    const state = await readerOf(repo, { keyStore }).read();
    expect(state).toMatchObject({ enforced: true, problem: { code: 'NOT_SEALED' } });
    // Deleting those rows afterwards does not switch it off at this desk.
    repo.legacyRows = null;
    expect((await readerOf(repo, { keyStore }).read()).problem).toMatchObject({ code: 'CHAIN_MISSING' });
  });

  it('carries its own copy of the chain to a store that has none (a profile pointed at a new team database)', async () => {
    const keyStore = new MemoryKeyStore();
    const own = await repoWith(chainOf('prof-1', [ada, bob]));
    await readerOf(own, { keyStore }).read();
    const team = new MemoryDualControlRepository();
    let carried = 0;
    const reader = new ControlReader({
      repository: team, keyStore, profileId: 'prof-1', environment: 'TEST', where: 'the team database', mirror: own, onCarried: (n) => void (carried = n),
    });
    const state = await reader.read();
    expect(state.problem).toBeNull();
    expect(state.people.map((p) => p.id)).toEqual(['ada', 'bob']);
    expect(carried).toBe(1);
    expect((await team.chain()).length).toBe(1);
  });
});
