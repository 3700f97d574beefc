// The payee book in force only as it holds when read (finding 7 of issue 23): with dual control on, a version
// marked in force counts for the gate's flags only when a trusted earlier version had its bank details, its
// change's approvals verify against the rows as stored, or it is a first version to an account the name was
// paid to before. A version that does not hold is as if the payee were not in the book, and is audited once.
// Each case is something a holder of the journal file could write without the payee service.
import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalPolicy } from '../../../main/approvals/policy';
import { signPayeeApproval } from '../../../main/payees/approval';
import { readBook, versionKey, type BookAuditEntry, type BookControl, type BookReading } from '../../../main/payees/book';
import { flagPayeeRows, newOrChangedPayeeCount, type PayeeRow } from '../../../main/payees/match';
import type { PayeeVersion } from '../../../main/payees/payee';
import { MemoryPayeeRepository, type PaidAccount, type PayeeRepository } from '../../../main/payees/repository';
import { SqlitePayeeRepository } from '../../../main/store/sqlite/payees';
import { payeeKey } from '../../../main/domain/payee-key';
import { member } from '../approvals/helpers';
import { payout, tempJournal, type TempJournal } from '../journal/helpers';
import { details, T0, version } from './helpers';

const A = 'NL91ABNA0417164300';
const B = 'DE89370400440532013000';
const C = 'GB82WEST12345698765432';

const paula = member('paula', ['preparer']);
const alice = member('alice', ['approver']);
const policy = (v: number, newOrChangedPayee = 1): ApprovalPolicy => ({ profileId: 'prof-1', version: v, rules: { bands: {}, newOrChangedPayee }, setBy: 'ada', setAt: T0, signature: 'chain' });
const P1 = policy(1);

function control(overrides: Partial<BookControl> = {}): BookControl {
  return { enforced: true, problem: null, people: [paula.person, alice.person], policy: P1, policies: [P1], ...overrides };
}

/** A reading of the book that keeps what it audits. */
function reading(c: BookControl = control()): BookReading & { audited: BookAuditEntry[] } {
  const audited: BookAuditEntry[] = [];
  return { profileId: 'prof-1', control: async () => c, audit: async (e) => void audited.push(e), audited };
}

const paid = (paymentId: string, name: string, accountNumber: string, email = 'grace@example.com'): PaidAccount & { paymentId: string } => ({
  paymentId, nameKey: payeeKey(name), emailKey: payeeKey(email), accountNumber, operatorCode: 'EU_SEPA',
});
const row = (id: string, account: string, overrides: Partial<PayeeRow> = {}): PayeeRow => ({ id, payeeName: 'Grace Hopper', account, operator: 'EU_SEPA', email: 'grace@example.com', ...overrides });
const flagsOf = async (repo: PayeeRepository, rows: PayeeRow[], book?: BookReading) => (await flagPayeeRows(repo, rows, book)).map((f) => [f.rowId, f.flag, f.payeeId]);

/** Grace in the book at A (her first version, paid to A before), then a change to `to` approved by Alice. */
async function approvedChange(repo: PayeeRepository, to: string, signedAt = T0 + 10): Promise<PayeeVersion> {
  await repo.addVersions([version('g', 1, { accountNumber: A })]);
  const change = version('g', 2, { accountNumber: to }, { waiting: true, base: details({ accountNumber: A }), bankChange: true });
  await repo.addVersions([change]);
  await repo.addApproval(signPayeeApproval(alice.session, { id: 'ap-1', profileId: 'prof-1', payeeId: 'g', payeeVersion: 2, changeDigest: change.changeDigest, policyVersion: 1, decision: 'approve', reason: null, signedAt }));
  await repo.activate('g', 2, T0 + 20, 'alice');
  return change;
}

describe('a version marked in force that nobody approved', () => {
  it('another account written in force over Grace\'s (bank_change 0) does not hide "changed bank details", and is audited once', async () => {
    const repo = new MemoryPayeeRepository([paid('old-1', 'Grace Hopper', A)]);
    await repo.addVersions([version('g', 1, { accountNumber: A })]);
    // Written as the service would write an edit of her e-mail: in force at once, no approval.
    await repo.addVersions([version('g', 2, { accountNumber: B }, { base: details({ accountNumber: A }), bankChange: false })]);
    const rows = [row('r1', B), row('r2', A)];
    // Believing the column, the row to B is not flagged: the finding.
    expect(await flagsOf(repo, rows)).toEqual([['r2', 'changed', 'g']]);
    const book = reading();
    expect(await flagsOf(repo, rows, book)).toEqual([['r1', 'changed', null]]);
    expect((await flagPayeeRows(repo, rows, book))[0]!.reason).toContain('was paid to …4300 before; this row pays …3000');
    expect(book.audited).toEqual([{
      actor: 'payees', action: 'payee.ignored', subject: 'g',
      details: expect.objectContaining({ version: 2, account: '…3000', reason: expect.stringContaining('version 2 of Grace Hopper pays …3000 (EU_SEPA), which no trusted earlier version had') }),
    }]);
    expect(await newOrChangedPayeeCount(repo, book)({ rows })).toBe(1);
    expect(book.audited).toHaveLength(1);
  });

  it('a first version written for a name paid before to another account is ignored; one to the account paid before holds', async () => {
    const repo = new MemoryPayeeRepository([paid('old-1', 'Grace Hopper', A)]);
    await repo.addVersions([version('x', 1, { accountNumber: B })]);
    expect(await flagsOf(repo, [row('r1', B)])).toEqual([]);
    const book = reading();
    expect(await flagsOf(repo, [row('r1', B), row('r2', A)], book)).toEqual([['r1', 'changed', null]]);
    expect(book.audited.map((e) => [e.subject, e.details['reason']])).toEqual([['x', expect.stringContaining("Grace Hopper's first version pays …3000 (EU_SEPA), not an account Grace Hopper was paid to before")]]);

    const other = new MemoryPayeeRepository([paid('old-1', 'Grace Hopper', A)]);
    await other.addVersions([version('y', 1, { accountNumber: A })]);
    const fine = reading();
    expect(await flagsOf(other, [row('r1', B), row('r2', A)], fine)).toEqual([['r1', 'changed', 'y']]);
    expect(fine.audited).toEqual([]);
  });

  it('a first version to someone never paid holds (a new payee is flagged new, as before)', async () => {
    const repo = new MemoryPayeeRepository();
    await repo.addVersions([version('g', 1, { accountNumber: A })]);
    const book = reading();
    expect(await flagsOf(repo, [row('r1', A)], book)).toEqual([['r1', 'new', 'g']]);
    expect(book.audited).toEqual([]);
  });

  it('the rows being checked are not "paid before": a batch resumed after some rows went does not vouch for its own account', async () => {
    const repo = new MemoryPayeeRepository([paid('old-1', 'Grace Hopper', A), paid('r1', 'Grace Hopper', B)]);
    await repo.addVersions([version('x', 1, { accountNumber: B })]);
    const book = reading();
    expect(await flagsOf(repo, [row('r1', B)], book)).toEqual([['r1', 'changed', null]]);
  });
});

describe('an approved change of bank details', () => {
  it('stays in force: the row to the new account is not flagged, the row to the old one is', async () => {
    const repo = new MemoryPayeeRepository([paid('old-1', 'Grace Hopper', A)]);
    await approvedChange(repo, B);
    const book = reading();
    expect(await flagsOf(repo, [row('r1', B), row('r2', A)], book)).toEqual([['r2', 'changed', 'g']]);
    expect(book.audited).toEqual([]);
    // A later edit of her e-mail keeps the approved account: it holds through the version before.
    await repo.addVersions([version('g', 3, { accountNumber: B, emailAddress: 'grace@example.com', referenceDefault: 'Invoice' }, { base: details({ accountNumber: B }) })]);
    expect(await flagsOf(repo, [row('r1', B)], book)).toEqual([]);
  });

  it('stays in force after the policy changes (its approvals were given under a version of the verified chain)', async () => {
    const repo = new MemoryPayeeRepository([paid('old-1', 'Grace Hopper', A)]);
    await approvedChange(repo, B);
    const raised = policy(2, 2);
    expect(await flagsOf(repo, [row('r1', B)], reading(control({ policy: raised, policies: [P1, raised] })))).toEqual([]);
    // A policy version the verified chain does not have vouches for nothing.
    expect(await flagsOf(repo, [row('r1', B)], reading(control({ policy: raised, policies: [raised] })))).toEqual([['r1', 'changed', null]]);
  });

  it('no longer counts once its approver is revoked (a revoked key may sign with any date)', async () => {
    const repo = new MemoryPayeeRepository([paid('old-1', 'Grace Hopper', A)]);
    await approvedChange(repo, B);
    const revoked = { ...alice.person, revokedAt: T0 + 100, revokedBy: 'ada', revokeReason: 'left' };
    const book = reading(control({ people: [paula.person, revoked] }));
    expect(await flagsOf(repo, [row('r1', B)], book)).toEqual([['r1', 'changed', null]]);
    expect(book.audited[0]!.details['reason']).toContain('Alice was revoked');
  });

  it('an approval signed by someone outside the verified people, or for another change, vouches for nothing', async () => {
    const repo = new MemoryPayeeRepository([paid('old-1', 'Grace Hopper', A)]);
    await repo.addVersions([version('g', 1, { accountNumber: A })]);
    const change = version('g', 2, { accountNumber: B }, { base: details({ accountNumber: A }), bankChange: true });
    await repo.addVersions([change]);
    const mallory = member('mallory', ['approver']);
    await repo.addApproval(signPayeeApproval(mallory.session, { id: 'ap-m', profileId: 'prof-1', payeeId: 'g', payeeVersion: 2, changeDigest: change.changeDigest, policyVersion: 1, decision: 'approve', reason: null, signedAt: T0 + 10 }));
    await repo.addApproval(signPayeeApproval(alice.session, { id: 'ap-o', profileId: 'prof-1', payeeId: 'other', payeeVersion: 2, changeDigest: change.changeDigest, policyVersion: 1, decision: 'approve', reason: null, signedAt: T0 + 10 }));
    expect(await flagsOf(repo, [row('r1', B)], reading())).toEqual([['r1', 'changed', null]]);
  });
});

describe('a row of an approved version edited afterwards (SQLite, its trigger dropped as a database writer can)', () => {
  let t: TempJournal;
  afterEach(() => t?.dispose());

  it('no longer counts: what Alice signed is not the change stored now', async () => {
    t = tempJournal();
    t.journal.insertPayment('payout', payout('old-1', { accountName: 'Grace Hopper', emailAddress: 'grace@example.com', accountNumber: A }));
    t.journal.markSending('payout', 'old-1');
    const repo = new SqlitePayeeRepository(t.journal);
    await approvedChange(repo, B);
    const book = reading();
    expect(await flagsOf(repo, [row('r1', B), row('r2', C)], book)).toEqual([['r2', 'changed', 'g']]);

    t.journal.db.exec('DROP TRIGGER payees_fixed');
    t.journal.db.prepare("UPDATE payees SET account_number = ? WHERE payee_id = 'g' AND version = 2").run(C);
    expect(await flagsOf(repo, [row('r2', C)])).toEqual([]);
    expect(await flagsOf(repo, [row('r2', C)], book)).toEqual([['r2', 'changed', null]]);
    expect(book.audited).toEqual([expect.objectContaining({ action: 'payee.ignored', subject: 'g', details: expect.objectContaining({ version: 2, account: '…5432' }) })]);
    expect(book.audited[0]!.details['reason']).toContain('what Alice signed is not the change stored now');

    // Putting the account back as approved makes it hold again: nothing but the stored rows decides.
    t.journal.db.prepare("UPDATE payees SET account_number = ? WHERE payee_id = 'g' AND version = 2").run(B);
    expect(await flagsOf(repo, [row('r1', B)], book)).toEqual([]);
  });

  it('reads every version of many payees in chunks (more than one statement\'s worth)', async () => {
    t = tempJournal();
    const repo = new SqlitePayeeRepository(t.journal);
    const many = Array.from({ length: 1_200 }, (_, i) => version(`p-${i}`, 1, { name: `Payee ${i}`, emailAddress: `p${i}@example.com` }));
    await repo.addVersions(many);
    await repo.addVersions([version('p-7', 2, { name: 'Payee 7', emailAddress: 'p7@example.com', accountNumber: B }, { base: details({ name: 'Payee 7', emailAddress: 'p7@example.com' }) })]);
    expect((await repo.versionsOf(many.map((v) => v.payeeId))).length).toBe(1_201);
    const book = reading();
    const standings = await readBook(repo, book, await repo.list());
    expect([...standings.values()].filter((s) => !s.holds)).toHaveLength(1);
    expect(standings.get(versionKey({ payeeId: 'p-7', version: 2 }))).toMatchObject({ holds: false });
  });
});

describe('without dual control', () => {
  it('the book is its columns, as before: nothing is ignored or audited', async () => {
    const repo = new MemoryPayeeRepository([paid('old-1', 'Grace Hopper', A)]);
    await repo.addVersions([version('g', 1, { accountNumber: A })]);
    await repo.addVersions([version('g', 2, { accountNumber: B }, { base: details({ accountNumber: A }) })]);
    await repo.addVersions([version('x', 1, { name: 'Hedy Lamarr', emailAddress: 'hedy@example.com', accountNumber: C })]);
    const off = reading(control({ enforced: false, people: [], policies: [] }));
    const rows = [row('r1', B), row('r2', A), row('r3', C, { payeeName: 'Hedy Lamarr', email: 'hedy@example.com' })];
    expect(await flagsOf(repo, rows, off)).toEqual(await flagsOf(repo, rows));
    expect(await flagsOf(repo, rows, off)).toEqual([['r2', 'changed', 'g'], ['r3', 'new', 'x']]);
    expect(off.audited).toEqual([]);
  });

  it('with the control chain broken, a version that does not hold is still ignored but not audited (the chain\'s problem is raised on its own)', async () => {
    const repo = new MemoryPayeeRepository([paid('old-1', 'Grace Hopper', A)]);
    await repo.addVersions([version('g', 1, { accountNumber: A })]);
    await repo.addVersions([version('g', 2, { accountNumber: B }, { base: details({ accountNumber: A }) })]);
    const broken = reading(control({ problem: { message: 'the chain is broken' } }));
    expect(await flagsOf(repo, [row('r1', B)], broken)).toEqual([['r1', 'changed', null]]);
    expect(broken.audited).toEqual([]);
  });
});
