// The approvals queue reuses each waiting subject's manifest digests and payee flags between opens
// (desk/subject-facts.ts). What it shows must never be older than the journal: a row edited after the queue
// was read (on the desk's own connection, or by another process on the file) shows at the next open, and so
// does a decision given meanwhile. Reused or not, the queue lists what a service with nothing reused lists.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { manifestFromJournal } from '../../../main/approvals/gate';
import { signPreparation } from '../../../main/approvals/preparation';
import { createAppContext, type AppContext } from '../../../main/context';
import { approvalsService } from '../../../main/desk/approvals';
import { dualControlService, type DualControlService } from '../../../main/desk/dual-control';
import { createDeskEvents } from '../../../main/desk/events';
import { createDeskRuntime, type DeskRuntime } from '../../../main/desk/runtime';
import { journalWriteMarker, SubjectFactsCache } from '../../../main/desk/subject-facts';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { silentLogger } from '../../../main/log';
import type { UnlockedSession } from '../../../main/people/key-vault';
import { MIN_KDF } from '../../../main/people/person-key';
import type { Journal } from '../../../main/store/sqlite';
import { payout, sqliteJournalOf } from '../journal/helpers';

const PROFILE = 'shop';
let home: string;
let ctx: AppContext;
let rt: DeskRuntime;
let dc: DualControlService;
let journal: Journal;
let ada: UnlockedSession;
let bob: UnlockedSession;
let cy: UnlockedSession;
let batchIds: string[];

const queue = () => approvalsService(rt, dc).queue(ctx.profiles.get(PROFILE), undefined);
/** The queue as a service that has never seen this journal works it out. */
const freshQueue = () => approvalsService(rt, dualControlService(rt, { kdf: MIN_KDF, facts: new SubjectFactsCache() })).queue(ctx.profiles.get(PROFILE), undefined);

async function prepareBatch(name: string, rows: number): Promise<string> {
  const batch = journal.createBatch({
    fileName: `${name}.csv`, sha256: 'a'.repeat(64), preparedBy: ada.personId,
    rows: Array.from({ length: rows }, (_, i) => payout(`${name}-${i}`, { amountMinor: 10_000 + i, accountName: `Payee ${name} ${i}`, emailAddress: `${name}-${i}@example.com` })),
  });
  const state = await rt.controlFor(PROFILE);
  const manifest = (await manifestFromJournal(journal, state.scope, { kind: 'batch', id: batch.id }, 0))!;
  await (await rt.dualControlFor(PROFILE)).addPreparation(signPreparation(ada, { id: `prep-${name}`, manifest, signedAt: Date.now() }));
  journal.setBatchState(batch.id, 'PAUSED', 'waiting for approvals');
  return batch.id;
}

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), 'approvals-queue-facts-'));
  ctx = createAppContext({ home, keyStore: new MemoryKeyStore() });
  ctx.profiles.add({ id: PROFILE, name: 'Shop', baseUrl: 'https://gateway.example.invalid', merchantCode: 'M1', useDeprecatedSecret: true });
  rt = createDeskRuntime({ ctx, events: createDeskEvents(), log: silentLogger });
  dc = dualControlService(rt, { kdf: MIN_KDF });
  ada = (await dc.addPerson(PROFILE, { name: 'Ada', passphrase: 'ada passphrase 1' })).session;
  const approver = async (name: string) => {
    const { person, session } = await dc.enroll(PROFILE, { name, passphrase: `${name} passphrase 1` });
    await dc.setRoles(PROFILE, person.id, ['approver'], ada);
    return session;
  };
  bob = await approver('Bob');
  cy = await approver('Cy');
  await dc.setPolicy(PROFILE, { bands: { '*': [{ atLeast: '0', approvals: 2 }] }, newOrChangedPayee: 0 }, ada);
  journal = await sqliteJournalOf(rt, PROFILE);
  batchIds = [await prepareBatch('june', 3), await prepareBatch('july', 4)];
  // A single payout held by the gate waits too.
  journal.insertPayment('payout', payout('po-1', { amountMinor: 150_000, preparedBy: ada.personId }));
  const state = await rt.controlFor(PROFILE);
  const manifest = (await manifestFromJournal(journal, state.scope, { kind: 'payout', id: 'po-1' }, 0))!;
  await (await rt.dualControlFor(PROFILE)).addPreparation(signPreparation(ada, { id: 'prep-po-1', manifest, signedAt: Date.now() }));
  journal.markHeld('payout', 'po-1', 'waiting for approvals');
  // Bob approved each batch: one approval of the two needed.
  for (const id of batchIds) await dc.decide(PROFILE, { kind: 'batch', id }, 'approve', null, bob);
});
afterEach(async () => {
  await rt.close();
  ctx.close();
  rmSync(home, { recursive: true, force: true });
});

const itemOf = async (id: string) => (await queue()).find((item) => item.subject.id === id);

describe('the approvals queue, reused between opens', () => {
  it('lists the same items, opened again, as a service that worked everything out afresh', async () => {
    const first = await queue();
    expect(first.map((i) => [i.subject.kind, i.state, i.approvedBy.length]).sort()).toEqual([
      ['batch', 'waiting', 1], ['batch', 'waiting', 1], ['payout', 'waiting', 0],
    ]);
    const marker = journalWriteMarker(journal);
    const again = await queue();
    // Opening the queue writes nothing: the reuse holds from one open to the next.
    expect(journalWriteMarker(journal)).toBe(marker);
    expect(again).toEqual(first);
    expect(await freshQueue()).toEqual(first);
  });

  it('shows a row edited after the queue was read at the next open (the approval given before it no longer counts)', async () => {
    const [june] = batchIds;
    const before = await itemOf(june!);
    expect(before).toMatchObject({ state: 'waiting', approvedBy: [expect.objectContaining({ name: 'Bob' })] });
    journal.db.prepare(`UPDATE payments SET amount_minor = 99999, account_number = 'GB33BUKB20201555555555' WHERE id = 'june-1'`).run();
    const after = await itemOf(june!);
    expect(after?.approvedBy).toEqual([]);
    expect(after?.message).toMatch(/changed after the decision/);
    expect(after?.totals).not.toEqual(before?.totals);
    expect(after).toEqual((await freshQueue()).find((item) => item.subject.id === june));
  });

  it('shows a row edited by another process on the journal file at the next open', async () => {
    const [, july] = batchIds;
    expect((await itemOf(july!))?.approvedBy).toHaveLength(1);
    const other = new Database(journal.db.name);
    try {
      other.prepare(`UPDATE payments SET callback_url = 'https://evil.example/cb' WHERE id = 'july-2'`).run();
    } finally {
      other.close();
    }
    const after = await itemOf(july!);
    expect(after?.approvedBy).toEqual([]);
    expect(after?.message).toMatch(/changed after the decision/);
  });

  it('shows a decision given after the queue was read at the next open', async () => {
    const [june, july] = batchIds;
    await queue();
    await dc.decide(PROFILE, { kind: 'batch', id: june! }, 'approve', null, cy);
    await dc.decide(PROFILE, { kind: 'batch', id: july! }, 'reject', 'wrong month', cy);
    const items = await queue();
    // Approved and still paused: it stays, for a sender to resume; rejected: it stays, saying so.
    expect(items.find((i) => i.subject.id === june)).toMatchObject({ state: 'approved', approvedBy: [expect.objectContaining({ name: 'Bob' }), expect.objectContaining({ name: 'Cy' })] });
    expect(items.find((i) => i.subject.id === july)).toMatchObject({ state: 'rejected', rejectedBy: [expect.objectContaining({ name: 'Cy', reason: 'wrong month' })] });
    // Once resumed (no longer waiting for a sender), an approved batch leaves the queue.
    journal.setBatchState(june!, 'RUNNING');
    expect((await queue()).some((i) => i.subject.id === june)).toBe(false);
  });

  it('lists a payout held after the queue was read, and drops one released, at the next open', async () => {
    expect((await queue()).filter((i) => i.subject.kind === 'payout').map((i) => i.subject.id)).toEqual(['po-1']);
    journal.insertPayment('payout', payout('po-2', { amountMinor: 250_000, preparedBy: ada.personId }));
    journal.markHeld('payout', 'po-2', 'waiting for approvals');
    journal.releaseHeld('payout', 'po-1', 'person:ada');
    expect((await queue()).filter((i) => i.subject.kind === 'payout').map((i) => i.subject.id)).toEqual(['po-2']);
  });
});
