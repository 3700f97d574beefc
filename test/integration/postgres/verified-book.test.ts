// The payee book on the team database as it holds when read (finding 7 of issue 23): the PostgreSQL adapter
// gives the whole history and the approvals of the payees asked for, so a version another desk's database
// writer marked in force with another account counts for nothing, and an approved change holds.
import pg from 'pg';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { PgJournal } from '../../../main/store/postgres/journal';
import { migratePg } from '../../../main/store/postgres/migrations';
import { signPayeeApproval } from '../../../main/payees/approval';
import { readBook, versionKey, type BookControl } from '../../../main/payees/book';
import { PgPayeeRepository } from '../../../main/store/postgres/payees';
import { member } from '../../unit/approvals/helpers';
import { payout } from '../../unit/journal/helpers';
import { details, T0, version } from '../../unit/payees/helpers';
import { freshDatabase } from './cluster';

const A = 'NL91ABNA0417164300';
const B = 'DE89370400440532013000';
const C = 'GB82WEST12345698765432';
const alice = member('alice', ['approver']);
const P1 = { profileId: 'prof-1', version: 1, rules: { bands: {}, newOrChangedPayee: 1 }, setBy: 'ada', setAt: T0, signature: 'chain' };
const control: BookControl = { enforced: true, problem: null, people: [alice.person], policy: P1, policies: [P1] };

const pools: pg.Pool[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  for (const p of pools.splice(0)) await p.end();
});

describe('the team payee book read under dual control', () => {
  it('reads every version and approval of the payees asked for, and holds only what they vouch for', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const pool = new pg.Pool({ connectionString: url, max: 4 });
    pools.push(pool);
    await migratePg(pool);
    const journal = await PgJournal.open(pool, { deskId: 'desk:one', now: () => T0 });
    closers.push(() => journal.close());
    const repo = await PgPayeeRepository.open(pool, () => T0);
    closers.unshift(() => repo.end());
    // Grace was paid to A before.
    await journal.insertPayment('payout', payout('old-1', { accountName: 'Grace Hopper', emailAddress: 'grace@example.com', accountNumber: A }));
    await pool.query(`UPDATE payments SET state = 'ACCEPTED' WHERE id = 'old-1'`);

    // Grace: A, then B by an approved change. Hedy: written in force at C over her A with nobody's approval.
    await repo.addVersions([version('g', 1, { accountNumber: A }), version('h', 1, { name: 'Hedy Lamarr', emailAddress: 'hedy@example.com', accountNumber: A })]);
    const change = version('g', 2, { accountNumber: B }, { waiting: true, base: details({ accountNumber: A }), bankChange: true });
    await repo.addVersions([change]);
    await repo.addApproval(signPayeeApproval(alice.session, { id: 'ap-1', profileId: 'prof-1', payeeId: 'g', payeeVersion: 2, changeDigest: change.changeDigest, policyVersion: 1, decision: 'approve', reason: null, signedAt: T0 + 10 }));
    await repo.activate('g', 2, T0 + 20, 'alice');
    await repo.addVersions([version('h', 2, { name: 'Hedy Lamarr', emailAddress: 'hedy@example.com', accountNumber: C }, { base: details({ name: 'Hedy Lamarr', emailAddress: 'hedy@example.com', accountNumber: A }) })]);

    expect((await repo.versionsOf(['g', 'h', 'nobody'])).map((v) => `${v.payeeId}${v.version}`)).toEqual(['g1', 'g2', 'h1', 'h2']);
    expect((await repo.approvalsOf(['g', 'h'])).map((a) => a.id)).toEqual(['ap-1']);

    const audited: string[] = [];
    const standings = await readBook(repo, { profileId: 'prof-1', control: async () => control, audit: async (e) => void audited.push(e.subject) }, await repo.list());
    expect(standings.get(versionKey({ payeeId: 'g', version: 2 }))).toEqual({ holds: true, by: 'approvals' });
    expect(standings.get(versionKey({ payeeId: 'h', version: 2 }))).toMatchObject({ holds: false, reason: expect.stringContaining('which no trusted earlier version had') });
    expect(audited).toEqual(['h']);
  });
});
