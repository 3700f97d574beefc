// Issue 23's findings, each as someone with the journal file (SQLite) would try it against the desk: the engine,
// the one approval gate, the control chain checked against this desk's keychain pin, a fake gateway that records
// every create's exact body. Each case failed on the code before the issue: it says how in its name.
import { afterEach, describe, expect, it } from 'vitest';
import { signApproval, type ApprovalRecord } from '../../../main/approvals/approval';
import { journalApprovalGate, manifestFromJournal } from '../../../main/approvals/gate';
import type { Subject } from '../../../main/approvals/manifest';
import { SqliteDualControlRepository } from '../../../main/store/sqlite/dual-control';
import type { ApprovalCheck } from '../../../main/approvals/verify';
import { verifyApprovals } from '../../../main/approvals/verify';
import { EngineError } from '../../../main/engine';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { UnlockedSession } from '../../../main/people/key-vault';
import { generatePersonKey } from '../../../main/people/person-key';
import { keepRejection, keptRejections, keptRejectionsAccount } from '../../../main/approvals/kept-rejections';
import { appendRecord, chainOf, member, preparingAs, readerOf, type Member } from '../approvals/helpers';
import { draft, engineFixture, until, type EngineFixture } from './engine-helpers';

const PROFILE = 'prof-1';
const T = Date.now() - 60_000;
const ada = member('ada', ['admin'], T);
const paula = member('paula', ['preparer', 'approver'], T);
const alice = member('alice', ['approver'], T);
const bob = member('bob', ['approver'], T);
const people = [ada, paula, alice, bob];

let f: EngineFixture;
afterEach(async () => f?.dispose());

/** 2,500.00 EUR: LIVE's default policy needs one approval from 1,000. */
const big = (id: string, overrides = {}) => draft(id, { amountMinor: 250_000, ...overrides });

async function desk(options: { keyStore?: MemoryKeyStore } = {}) {
  f = engineFixture();
  const repo = new SqliteDualControlRepository(f.t.journal);
  for (const r of chainOf(PROFILE, people, { at: T })) await repo.appendChain(r);
  const keyStore = options.keyStore ?? new MemoryKeyStore();
  const ignored: ApprovalCheck[] = [];
  const reader = readerOf(repo, { profileId: PROFILE, environment: 'LIVE', keyStore });
  await reader.read();
  const engineWith = async () => {
    await f.engine.stop();
    const gate = journalApprovalGate({
      journal: f.t.journal, repository: repo, control: () => readerOf(repo, { profileId: PROFILE, environment: 'LIVE', keyStore }).read(), onIgnored: (_s, list) => void ignored.push(...list),
      keptRejections: (subject) => keptRejections(keyStore, PROFILE, subject),
    });
    f = engineFixture({ approvalGate: gate, prepare: preparingAs(repo, people, PROFILE) }, f.gateway, f.t);
    await f.engine.start();
  };
  await engineWith();
  const approveAs = async (m: Member, subject: Subject): Promise<ApprovalRecord> => {
    const manifest = (await manifestFromJournal(f.t.journal, PROFILE, subject, 0))!;
    const a = signApproval(m.session, { id: globalThis.crypto.randomUUID(), manifest, decision: 'approve', signedAt: Date.now() });
    await repo.addApproval(a);
    return a;
  };
  /** A rejection as the desk stores it (dual-control.ts decide): in the journal and in this desk's keychain. */
  const rejectAs = async (m: Member, subject: Subject): Promise<ApprovalRecord> => {
    const manifest = (await manifestFromJournal(f.t.journal, PROFILE, subject, 0))!;
    const a = signApproval(m.session, { id: globalThis.crypto.randomUUID(), manifest, decision: 'reject', reason: 'amount looks wrong', signedAt: Date.now() });
    await repo.addApproval(a);
    await keepRejection(keyStore, PROFILE, a, Date.now());
    return a;
  };
  /** Writes as the holder of the journal file: the append-only triggers go first. */
  const sql = (text: string, ...params: unknown[]) => {
    for (const t of ['control_chain', 'approvals', 'preparations']) for (const g of ['no_update', 'no_delete']) f.t.journal.db.exec(`DROP TRIGGER IF EXISTS ${t}_${g}`);
    return f.t.journal.db.prepare(text).run(...params);
  };
  return { repo, approveAs, rejectAs, sql, restart: engineWith, ignored, keyStore };
}

async function held(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (e) {
    if (e instanceof EngineError && e.code === 'PAYOUT_HELD') return e.message;
    throw e;
  }
  return 'sent';
}

const creates = () => [...f.gateway.createCalls.values()].reduce((a, b) => a + b, 0);

describe('finding 1: a row marked UNKNOWN is checked like any create', () => {
  it('a held LIVE payout flipped to UNKNOWN with another account is not created after a restart (it was, with 0 approvals)', async () => {
    const { sql, restart } = await desk();
    expect(await held(f.engine.submitPayout(big('p1'), { preparedBy: 'paula' }))).toMatch(/held.*needs 1 approval/);
    sql(`UPDATE payments SET state = 'UNKNOWN', status = 'UNKNOWN', unknown_since = ?, account_number = 'DE00ATTACKER' WHERE id = 'p1'`, Date.now());
    await restart();
    // Read with GET from then on (it may be at the gateway), and the reason it is not sent again stays shown.
    await until(() => f.gateway.getCalls > 0);
    await until(() => /not sent again/.test(f.t.journal.getPayment('payout', 'p1')?.lastError ?? ''));
    expect(creates()).toBe(0);
    expect(f.t.journal.getPayment('payout', 'p1')).toMatchObject({ state: 'UNKNOWN', lastError: expect.stringMatching(/^not sent again: Nothing was sent: payout p1 is not what Paula prepared/) });
  });

  it('an approved payout flipped to UNKNOWN is re-sent only with its approved body, never one edited in the journal', async () => {
    const { sql, restart, approveAs } = await desk();
    await held(f.engine.submitPayout(big('p2', { callbackUrl: 'https://desk.example.com/cb' }), { preparedBy: 'paula' }));
    await approveAs(alice, { kind: 'payout', id: 'p2' });
    // Flipped as it was: a re-send of an approved payout (the threat model's residual: a hold does not stop it).
    sql(`UPDATE payments SET state = 'UNKNOWN', status = 'UNKNOWN', unknown_since = ? WHERE id = 'p2'`, Date.now());
    await restart();
    await until(() => f.gateway.stored.has('p2'));
    expect(f.gateway.stored.get('p2')!.request).toMatchObject({ accountNumber: 'NL91ABNA0417164300', amountMinor: 250_000, callbackUrl: 'https://desk.example.com/cb' });
  });
});

describe('finding 2: the database does not decide who may approve', () => {
  it('with the control records deleted, nothing is sent and the desk says why (dual control did not switch off)', async () => {
    const { sql } = await desk();
    sql('DELETE FROM control_chain');
    expect(await held(f.engine.submitPayout(big('p3'), { preparedBy: 'paula' }))).toMatch(/Nothing was stored or sent|CHAIN_MISSING|holds no control records/);
    expect(creates()).toBe(0);
  });

  it('a person written into the tables from before the chain, and their approval, count for nothing', async () => {
    const { sql, repo } = await desk();
    await held(f.engine.submitPayout(big('p4'), { preparedBy: 'paula' }));
    const mallory = generatePersonKey();
    sql('INSERT INTO people (id, name, public_key, created_at) VALUES (?, ?, ?, ?)', 'mallory', 'Mallory', mallory.publicKey, T);
    sql("INSERT INTO role_grants (person_id, role, granted_at) VALUES ('mallory', 'approver', ?)", T);
    const manifest = (await manifestFromJournal(f.t.journal, PROFILE, { kind: 'payout', id: 'p4' }, 0))!;
    await repo.addApproval(signApproval(new UnlockedSession('mallory', mallory.publicKey, mallory.privateKey, T), { id: 'm1', manifest, decision: 'approve', signedAt: Date.now() }));
    await expect(f.engine.releasePayout('p4')).rejects.toMatchObject({ code: 'PAYOUT_HELD' });
    expect(creates()).toBe(0);
  });
});

describe('finding 11: a signer must hold the approver role when the approval is recorded too', () => {
  it('an approval back-dated to before the role was taken away is void', async () => {
    const { repo } = await desk();
    await held(f.engine.submitPayout(big('p5'), { preparedBy: 'paula' }));
    await appendRecord(repo, { kind: 'roles', personId: 'alice', roles: ['viewer'] }, [ada], Date.now() - 1000);
    const manifest = (await manifestFromJournal(f.t.journal, PROFILE, { kind: 'payout', id: 'p5' }, 0))!;
    // Signed "two seconds ago", when Alice still held approver; recorded now.
    const backdated = signApproval(alice.session, { id: 'late', manifest, decision: 'approve', signedAt: Date.now() - 2_000 });
    const state = await readerOf(repo, { profileId: PROFILE, environment: 'LIVE' }).read();
    const verdict = verifyApprovals(manifest, [{ ...backdated, recordedAt: Date.now() }], state.people, state.policy);
    expect(verdict).toMatchObject({ ok: false, code: 'SIGNER_NOT_APPROVER' });
    expect(verdict.message).toMatch(/when their decision was recorded/);
  });
});

describe('finding 12: the preparer and the callback address are signed', () => {
  it('a callback address written into the journal after approval is not sent', async () => {
    const { sql, approveAs } = await desk();
    await held(f.engine.submitPayout(big('p6'), { preparedBy: 'paula' }));
    await approveAs(alice, { kind: 'payout', id: 'p6' });
    sql(`UPDATE payments SET callback_url = 'https://attacker.example/cb' WHERE id = 'p6'`);
    await expect(f.engine.releasePayout('p6')).rejects.toMatchObject({ code: 'PAYOUT_HELD' });
    expect(f.t.journal.getPayment('payout', 'p6')?.lastError).toMatch(/what .*signed is not what would be sent|not what Paula prepared/);
    expect(creates()).toBe(0);
  });

  it('a preparer swapped in the journal so that the preparer approves their own work is refused', async () => {
    const { sql, approveAs } = await desk();
    await held(f.engine.submitPayout(big('p7'), { preparedBy: 'paula' }));
    sql(`UPDATE payments SET prepared_by = 'bob' WHERE id = 'p7'`);
    await approveAs(paula, { kind: 'payout', id: 'p7' });
    await expect(f.engine.releasePayout('p7')).rejects.toMatchObject({ code: 'PAYOUT_HELD' });
    expect(f.t.journal.getPayment('payout', 'p7')?.lastError).toMatch(/Bob has not signed payout p7 as its preparer/);
    expect(creates()).toBe(0);
  });
});

describe('finding 13: an approval nobody could have given is ignored and raised, never a refusal for good', () => {
  it('a forged row does not stop a payout a real approver approves, and it is reported', async () => {
    const { repo, approveAs, ignored } = await desk();
    await held(f.engine.submitPayout(big('p8'), { preparedBy: 'paula' }));
    const manifest = (await manifestFromJournal(f.t.journal, PROFILE, { kind: 'payout', id: 'p8' }, 0))!;
    const stranger = generatePersonKey();
    await repo.addApproval(signApproval(new UnlockedSession('bob', stranger.publicKey, stranger.privateKey, T), { id: 'forged', manifest, decision: 'reject', reason: 'no', signedAt: Date.now() }));
    await approveAs(alice, { kind: 'payout', id: 'p8' });
    await f.engine.releasePayout('p8');
    await until(() => f.gateway.stored.has('p8'));
    expect(ignored).toEqual([expect.objectContaining({ approvalId: 'forged', status: 'FORGED' })]);
  });
});

describe('a rejection deleted from the journal still holds (the simulation, seed 228)', () => {
  it('the next approver cannot send what was rejected: the desk kept its own copy of the "no"', async () => {
    const { sql, approveAs, rejectAs } = await desk();
    await held(f.engine.submitPayout(big('p9'), { preparedBy: 'paula' }));
    await rejectAs(bob, { kind: 'payout', id: 'p9' });
    sql('DELETE FROM approvals');
    await approveAs(alice, { kind: 'payout', id: 'p9' });
    await expect(f.engine.releasePayout('p9')).rejects.toMatchObject({ code: 'PAYOUT_HELD' });
    expect(f.t.journal.getPayment('payout', 'p9')?.lastError).toMatch(/Bob rejected it: amount looks wrong \(this desk's own copy of that rejection: it was deleted from the journal/);
    expect(creates()).toBe(0);
  });

  it('a kept copy counts only while it verifies: one altered in the keychain is ignored and raised', async () => {
    const { rejectAs, keyStore, ignored } = await desk();
    await held(f.engine.submitPayout(big('p10'), { preparedBy: 'paula' }));
    const no = await rejectAs(bob, { kind: 'payout', id: 'p10' });
    await keyStore.set(keptRejectionsAccount(PROFILE, no.subject), JSON.stringify([{ ...no, id: 'altered', reason: 'changed' }]));
    // The journal's copy still refuses; the altered one is reported, not counted.
    await expect(f.engine.releasePayout('p10')).rejects.toMatchObject({ code: 'PAYOUT_HELD' });
    expect(ignored).toEqual([expect.objectContaining({ approvalId: 'altered', status: 'FORGED' })]);
  });
});
