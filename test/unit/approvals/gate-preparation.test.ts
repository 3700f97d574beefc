// Who prepared what, as the approval gate checks it before anything under dual control leaves (gate.ts
// preparationProblem and manifestFromJournal), one reason at a time: each refusal names what a person must fix,
// and a preparation of another subject, profile or content never stands in for the one required.
import { describe, expect, it } from 'vitest';
import { manifestFromJournal, preparationProblem } from '../../../main/approvals/gate';
import { preparationDigest, signPreparation, type PreparationRecord } from '../../../main/approvals/preparation';
import type { JournalPort } from '../../../main/journal';
import { payout, tempJournal } from '../journal/helpers';
import { manifest, member, row, T0 } from './helpers';

const paula = member('paula', ['preparer']);
const peter = member('peter', ['preparer']);
const people = [paula.person, peter.person];
const batch = manifest([row('p-1', 10_000), row('p-2', 2_500)]);
const what = 'batch batch-1';

const prepared = (by = paula, on = batch, signedAt = T0 + 10): PreparationRecord => signPreparation(by.session, { id: `prep-${by.person.id}-${on.subject.id}`, manifest: on, signedAt });

describe('the preparation the gate requires', () => {
  it('holds when the named preparer signed exactly this manifest while holding the role', () => {
    expect(preparationProblem(batch, [prepared()], people)).toBeNull();
    expect(preparationProblem(batch, [prepared()], people, preparationDigest(batch))).toBeNull();
  });

  it('is missing when nobody is named, or the one named is no person of the control records', () => {
    expect(preparationProblem(manifest([row('p-1', 1)], { preparedBy: null }), [], people)).toBe(`Nothing was sent: ${what} names no preparer, and with dual control on everything sent is prepared by a person who signs it`);
    expect(preparationProblem(manifest([row('p-1', 1)], { preparedBy: 'mallory' }), [prepared()], people)).toBe(`Nothing was sent: ${what} names a preparer who is no person of the control records (mallory)`);
  });

  it('is missing when the preparer signed only another subject: another batch, a payout of the same id, or someone else signed this one', () => {
    const otherBatch = manifest([row('p-1', 10_000), row('p-2', 2_500)], { subject: { kind: 'batch', id: 'batch-2' } });
    const payoutOfSameId = manifest([row('p-1', 10_000)], { subject: { kind: 'payout', id: 'batch-1' } });
    const byPeter = prepared(peter);
    const refusal = `Nothing was sent: Paula has not signed ${what} as its preparer`;
    expect(preparationProblem(batch, [prepared(paula, otherBatch)], people)).toBe(refusal);
    expect(preparationProblem(batch, [prepared(paula, payoutOfSameId)], people)).toBe(refusal);
    expect(preparationProblem(batch, [byPeter], people)).toBe(refusal);
  });

  it('does not verify when the signature was altered, or was given under another profile', () => {
    const altered = { ...prepared(), signedAt: T0 + 11 };
    const otherProfile = prepared(paula, manifest([row('p-1', 10_000), row('p-2', 2_500)], { profileId: 'prof-2' }));
    const refusal = `Nothing was sent: the preparer's signature on ${what} does not verify`;
    expect(preparationProblem(batch, [altered], people)).toBe(refusal);
    expect(preparationProblem(batch, [{ ...otherProfile, subject: batch.subject }], people)).toBe(refusal);
  });

  it('is not this manifest when a row changed after the preparer signed, or the digest computed for it differs', () => {
    const before = manifest([row('p-1', 10_000), row('p-2', 2_499)]);
    const refusal = `Nothing was sent: ${what} is not what Paula prepared (a row, its callback address or the preparer changed since)`;
    expect(preparationProblem(batch, [prepared(paula, before)], people)).toBe(refusal);
    // The digest the gate computed in its one pass over the rows is the one compared.
    expect(preparationProblem(batch, [prepared()], people, preparationDigest(before))).toBe(refusal);
  });

  it('does not count when the preparer did not hold the role when signing, or when the store took the signature', () => {
    const late = member('lara', ['preparer'], T0 + 100);
    const lara = manifest([row('p-1', 1)], { preparedBy: 'lara' });
    expect(preparationProblem(lara, [prepared(late, lara, T0 + 10)], [late.person])).toBe('Nothing was sent: Lara did not hold the preparer role when preparing batch batch-1');
    expect(preparationProblem(lara, [prepared(late, lara, T0 + 200)], [late.person])).toBeNull();
    // One signature from before the grant does not spoil a later one of the same content.
    expect(preparationProblem(lara, [prepared(late, lara, T0 + 10), prepared(late, lara, T0 + 200)], [late.person])).toBeNull();
    const removed = { ...late.person, grants: late.person.grants.map((g) => ({ ...g, removedAt: T0 + 300 })) };
    expect(preparationProblem(lara, [{ ...prepared(late, lara, T0 + 200), recordedAt: T0 + 250 }], [removed])).toBeNull();
    expect(preparationProblem(lara, [{ ...prepared(late, lara, T0 + 200), recordedAt: T0 + 400 }], [removed])).toBe('Nothing was sent: Lara did not hold the preparer role when preparing batch batch-1');
  });
});

describe('the manifest the gate rebuilds from the journal', () => {
  /** The SQLite journal with some answers replaced (a row gone between two reads). */
  const answering = (journal: JournalPort, overrides: Record<string, unknown>): JournalPort =>
    new Proxy(journal, {
      get(target, prop, receiver) {
        if (typeof prop === 'string' && prop in overrides) return overrides[prop];
        const value: unknown = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });

  it('pins the file of a batch, and no file for a single payout even when a batch has the same id', async () => {
    const t = tempJournal();
    try {
      t.journal.createBatch({ id: 'same', fileName: 'run.csv', sha256: 'f'.repeat(64), rows: [payout('b-1')], preparedBy: 'paula' });
      t.journal.insertPayment('payout', payout('same', { preparedBy: 'paula' }));
      expect((await manifestFromJournal(t.journal, 'prof-1', { kind: 'batch', id: 'same' }, 0))?.fileSha256).toBe('f'.repeat(64));
      expect((await manifestFromJournal(t.journal, 'prof-1', { kind: 'payout', id: 'same' }, 0))?.fileSha256).toBeNull();
      // A batch row gone between the reads: rebuilt with no file (and so signed by nobody), never an error.
      expect((await manifestFromJournal(answering(t.journal, { getBatch: async () => undefined }), 'prof-1', { kind: 'batch', id: 'same' }, 0))?.fileSha256).toBeNull();
      // A payout whose row is gone is no manifest at all; a batch with no rows is one with none.
      expect(await manifestFromJournal(answering(t.journal, { manifestRows: async () => [] }), 'prof-1', { kind: 'payout', id: 'same' }, 0)).toBeUndefined();
      expect((await manifestFromJournal(answering(t.journal, { manifestRows: async () => [] }), 'prof-1', { kind: 'batch', id: 'same' }, 0))?.rows).toEqual([]);
    } finally {
      t.dispose();
    }
  });
});
