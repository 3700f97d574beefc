// The approvals queue answers within a time budget (issue 25): a subject whose manifest, digests and payee flags are
// not worked out under the journal as it is now, and that does not fit in the budget, is listed 'unchecked' — from
// cheap reads, with no approval counted or shown — and checked in the background, which then says approvalsChanged.
// What the queue shows is never older than the journal, and opening a subject (approvals:show) always checks it in
// full: a row edited behind the desk's back is shown as such whatever the queue showed before. A budget of 0 here
// makes every subject not known yet wait for the background check, as 50 batches of 10,000 rows do.
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ApprovalItem } from '../../../contract/api';
import { manifestFromJournal } from '../../../main/approvals/gate';
import { signPreparation } from '../../../main/approvals/preparation';
import { createAppContext, type AppContext } from '../../../main/context';
import { approvalsService, QUEUE_CHECK_ROWS_MAX, queueChecked } from '../../../main/desk/approvals';
import { dualControlService, type DualControlService } from '../../../main/desk/dual-control';
import { createDeskEvents } from '../../../main/desk/events';
import { createDeskRuntime, type DeskRuntime } from '../../../main/desk/runtime';
import { SubjectFactsCache } from '../../../main/desk/subject-facts';
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
let june: string;
let july: string;
let events: { profileId: string; subject: unknown }[];

/** The queue as the app's first open after start asks it: nothing worked out yet, and no time to work anything out. */
const lazyQueue = () => approvalsService(rt, dc, { checkBudgetMs: 0, alwaysRows: 0 }).queue(ctx.profiles.get(PROFILE), undefined);
/** The queue as a service that has never seen this journal works it out, all of it, before answering. */
const checkedQueue = () =>
  approvalsService(rt, dualControlService(rt, { kdf: MIN_KDF, facts: new SubjectFactsCache() }), { checkBudgetMs: Infinity }).queue(ctx.profiles.get(PROFILE), undefined);
const show = (id: string) => approvalsService(rt, dc).show(ctx.profiles.get(PROFILE), { kind: 'batch', id });
const byId = (items: ApprovalItem[], id: string) => items.find((i) => i.subject.id === id);

async function prepareBatch(name: string, rows: number): Promise<string> {
  const batch = journal.createBatch({
    fileName: `${name}.csv`, sha256: 'a'.repeat(64), preparedBy: ada.personId,
    rows: Array.from({ length: rows }, (_, i) => payout(`${name}-${i}`, { amountMinor: 10_000 + i, currencyCode: i === 0 ? 'USD' : 'EUR', accountName: `Payee ${name} ${i}`, emailAddress: `${name}-${i}@example.com` })),
  });
  const state = await rt.controlFor(PROFILE);
  const manifest = (await manifestFromJournal(journal, state.scope, { kind: 'batch', id: batch.id }, 0))!;
  await (await rt.dualControlFor(PROFILE)).addPreparation(signPreparation(ada, { id: `prep-${name}`, manifest, signedAt: Date.now() }));
  journal.setBatchState(batch.id, 'PAUSED', 'waiting for approvals');
  return batch.id;
}

/** Edits a row as someone with the journal file would: another connection, no event, no audit entry. */
function editBehindTheDesksBack(sql: string): void {
  const other = new Database(journal.db.name);
  try {
    other.prepare(sql).run();
  } finally {
    other.close();
  }
}

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), 'approvals-queue-unchecked-'));
  ctx = createAppContext({ home, keyStore: new MemoryKeyStore() });
  ctx.profiles.add({ id: PROFILE, name: 'Shop', baseUrl: 'https://gateway.example.invalid', merchantCode: 'M1', useDeprecatedSecret: true });
  rt = createDeskRuntime({ ctx, events: createDeskEvents(), log: silentLogger });
  dc = dualControlService(rt, { kdf: MIN_KDF, facts: new SubjectFactsCache() });
  ada = (await dc.addPerson(PROFILE, { name: 'Ada', passphrase: 'ada passphrase 1' })).session;
  const enrolled = await dc.enroll(PROFILE, { name: 'Bob', passphrase: 'Bob passphrase 1' });
  await dc.setRoles(PROFILE, enrolled.person.id, ['approver'], ada);
  bob = enrolled.session;
  const cy = await dc.enroll(PROFILE, { name: 'Cy', passphrase: 'Cy passphrase 1' });
  await dc.setRoles(PROFILE, cy.person.id, ['approver'], ada);
  await dc.setPolicy(PROFILE, { bands: { '*': [{ atLeast: '0', approvals: 2 }] }, newOrChangedPayee: 0 }, ada);
  journal = await sqliteJournalOf(rt, PROFILE);
  june = await prepareBatch('june', 3);
  july = await prepareBatch('july', 4);
  for (const id of [june, july]) await dc.decide(PROFILE, { kind: 'batch', id }, 'approve', null, bob);
  events = [];
  rt.events.on('approvalsChanged', (e) => events.push(e));
});
afterEach(async () => {
  await queueChecked(rt, PROFILE);
  await rt.close();
  ctx.close();
  rmSync(home, { recursive: true, force: true });
});

describe('the approvals queue, checked in the background', () => {
  it('always counts a small subject in the open, even with no time left: an approver sees it at once', async () => {
    const items = await approvalsService(rt, dc, { checkBudgetMs: 0 }).queue(ctx.profiles.get(PROFILE), undefined);
    expect(items.map((i) => [i.state, i.approvedBy.map((p) => p.name)])).toEqual([['waiting', ['Bob']], ['waiting', ['Bob']]]);
    expect(items).toEqual(await checkedQueue());
  });

  it('checks a subject bigger than an open works out itself only where there is no background pass (the CLI: no time limit)', async () => {
    const big = await prepareBatch('big', QUEUE_CHECK_ROWS_MAX + 1);
    expect(byId(await approvalsService(rt, dc).queue(ctx.profiles.get(PROFILE), undefined), big)?.state).toBe('unchecked');
    await queueChecked(rt, PROFILE);
    const fresh = dualControlService(rt, { kdf: MIN_KDF, facts: new SubjectFactsCache() });
    expect(byId(await approvalsService(rt, fresh, { checkBudgetMs: Infinity }).queue(ctx.profiles.get(PROFILE), undefined), big)).toMatchObject({ state: 'waiting', rows: QUEUE_CHECK_ROWS_MAX + 1 });
  });

  it('lists what it had no time to check as unchecked, with no approval shown and nothing asked of anyone, then says when it is checked', async () => {
    const first = await lazyQueue();
    expect(first.map((i) => i.state)).toEqual(['unchecked', 'unchecked']);
    const checked = await checkedQueue();
    for (const id of [june, july]) {
      const item = byId(first, id)!;
      // What is read without the rows: who prepared it, its title, its send state, its file's totals as submitted.
      expect(item).toMatchObject({ approvedBy: [], rejectedBy: [], required: 0, stillNeeded: null, forMe: false, sendState: 'PAUSED', preparedBy: { name: 'Ada' } });
      const sure = byId(checked, id)!;
      expect(sure.state).toBe('waiting');
      expect(sure.approvedBy.map((p) => p.name)).toEqual(['Bob']);
      expect({ title: item.title, rows: item.rows, totals: item.totals, preparedAt: item.preparedAt }).toEqual({ title: sure.title, rows: sure.rows, totals: sure.totals, preparedAt: sure.preparedAt });
    }
    await queueChecked(rt, PROFILE);
    expect(events).toEqual([{ profileId: PROFILE, subject: null }]);
    // Read again (still no time to check anything): everything is known now, and is what a full check finds.
    expect(await lazyQueue()).toEqual(checked);
    await queueChecked(rt, PROFILE);
    expect(events).toHaveLength(1);
  });

  it('does not show a subject whose rows changed with the facts worked out before: unchecked, then the approval given before is void', async () => {
    await lazyQueue();
    await queueChecked(rt, PROFILE);
    expect(byId(await lazyQueue(), june)).toMatchObject({ state: 'waiting', approvedBy: [expect.objectContaining({ name: 'Bob' })] });
    editBehindTheDesksBack(`UPDATE payments SET amount_minor = 99999, account_number = 'GB33BUKB20201555555555' WHERE id = 'june-1'`);
    const after = byId(await lazyQueue(), june)!;
    expect(after).toMatchObject({ state: 'unchecked', approvedBy: [], forMe: false });
    await queueChecked(rt, PROFILE);
    const rechecked = byId(await lazyQueue(), june)!;
    expect(rechecked).toMatchObject({ state: 'waiting', approvedBy: [] });
    expect(rechecked.message).toMatch(/changed after the decision/);
    expect(rechecked).toEqual(byId(await checkedQueue(), june));
  });

  it('marks a subject tampered with when it is opened, whatever the queue showed of it before', async () => {
    await lazyQueue();
    await queueChecked(rt, PROFILE);
    expect(byId(await lazyQueue(), july)).toMatchObject({ state: 'waiting', approvedBy: [expect.objectContaining({ name: 'Bob' })] });
    editBehindTheDesksBack(`UPDATE payments SET callback_url = 'https://evil.example/cb' WHERE id = 'july-2'`);
    const opened = await show(july);
    expect(opened.state).toBe('waiting');
    expect(opened.approvedBy).toEqual([]);
    expect(opened.message).toMatch(/changed after the decision/);
    expect(opened.decisions).toEqual([expect.objectContaining({ signer: expect.objectContaining({ name: 'Bob' }), status: 'MANIFEST_CHANGED' })]);
  });

  it('serves nothing worked out before a write made during the background check, and checks again after it', async () => {
    let edited = false;
    // Right after the background check worked out its first subject, a row is edited (the journal written meanwhile).
    const editing: DualControlService = {
      ...dc,
      show: async (...args) => {
        const view = await dc.show(...args);
        if (!edited) {
          edited = true;
          journal.db.prepare(`UPDATE payments SET amount_minor = 77777 WHERE id = 'june-0'`).run();
        }
        return view;
      },
    };
    const approvals = approvalsService(rt, editing, { checkBudgetMs: 0, alwaysRows: 0 });
    const open = () => approvals.queue(ctx.profiles.get(PROFILE), undefined);
    await open();
    await queueChecked(rt, PROFILE);
    expect(edited).toBe(true);
    // Given up without a word: what it worked out would be older than the journal.
    expect(events).toEqual([]);
    for (const id of [june, july]) expect(await dc.knownView(PROFILE, { kind: 'batch', id })).toBeUndefined();
    // Tried again a second later, with the edit: then it says so, and the queue shows the approval void.
    await vi.waitFor(() => expect(events).toEqual([{ profileId: PROFILE, subject: null }]), { timeout: 5_000 });
    await queueChecked(rt, PROFILE);
    const rechecked = byId(await lazyQueue(), june)!;
    expect(rechecked).toMatchObject({ state: 'waiting', approvedBy: [] });
    expect(rechecked.message).toMatch(/changed after the decision/);
  });

  it('works everything out before answering when it has the time, as the queue always did', async () => {
    const items = await approvalsService(rt, dc).queue(ctx.profiles.get(PROFILE), undefined);
    expect(items.map((i) => i.state)).toEqual(['waiting', 'waiting']);
    await queueChecked(rt, PROFILE);
    expect(events).toEqual([]);
  });
});
