// New payee, changed bank details or known: matched by the journal's payee key (name first, else e-mail)
// against the payee book in force and what was paid before (leaving out the rows being checked).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { flagPayeeRows, type PayeeRow } from '../../../main/payees/match';
import { MemoryPayeeRepository, type PaidAccount } from '../../../main/payees/repository';
import { version } from './helpers';

const paid = (paymentId: string, nameKey: string, accountNumber: string, emailKey = ''): PaidAccount & { paymentId: string } => ({ paymentId, nameKey, emailKey, accountNumber, operatorCode: 'EU_SEPA' });
const row = (id: string, overrides: Partial<PayeeRow> = {}): PayeeRow => ({ id, payeeName: 'Grace Hopper', account: 'NL91ABNA0417164300', operator: 'EU_SEPA', email: 'grace@example.com', ...overrides });

describe('flagging rows of a payout or batch', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('answers a check that fits in one slice without waiting for a turn of the event loop (a fake clock never stalls the gate)', async () => {
    // The simulation runs the gate under fake timers: an await of setImmediate there waits for a clock nobody moves.
    vi.useFakeTimers({ toFake: ['setImmediate', 'setTimeout'] });
    const repo = new MemoryPayeeRepository([paid('old-1', 'grace hopper', 'NL91ABNA0417164300')]);
    const flags = await flagPayeeRows(repo, [row('r1', { account: 'DE89370400440532013000' })]);
    expect(flags.map((f) => f.flag)).toEqual(['changed']);
  });

  it('flags a name never in the book nor paid as a new payee', async () => {
    const flags = await flagPayeeRows(new MemoryPayeeRepository(), [row('r1')]);
    expect(flags).toEqual([{ rowId: 'r1', flag: 'new', payeeId: null, reason: 'new payee: Grace Hopper is not in the payee book and was never paid' }]);
  });

  it('flags the first payout to a payee saved in the book but never paid: saving details is not paying them', async () => {
    const repo = new MemoryPayeeRepository();
    await repo.addVersions([version('g', 1)]);
    expect(await flagPayeeRows(repo, [row('r1')])).toEqual([expect.objectContaining({ rowId: 'r1', flag: 'new', payeeId: 'g' })]);
  });

  it('passes a payee paid before to the same account, whatever the case, spacing or Unicode form of the name', async () => {
    const repo = new MemoryPayeeRepository([paid('old-1', 'élodie durand', 'DE89370400440532013000')]);
    expect(await flagPayeeRows(repo, [row('r1', { payeeName: 'E\u0301LODIE   Durand', account: 'de89 3704 0044 0532 0130 00', email: 'x@example.com' })])).toEqual([]);
  });

  it('flags a payee of the book paid to another account or through another operator as changed bank details', async () => {
    const repo = new MemoryPayeeRepository([paid('old-1', 'grace hopper', 'NL91ABNA0417164300')]);
    await repo.addVersions([version('g', 1)]);
    const flags = await flagPayeeRows(repo, [row('r1', { account: 'DE89370400440532013000' }), row('r2', { operator: 'EU_INSTANT' }), row('r3')]);
    expect(flags.map((f) => [f.rowId, f.flag, f.payeeId])).toEqual([['r1', 'changed', 'g'], ['r2', 'changed', 'g']]);
    expect(flags[0]!.reason).toBe('bank details changed: the payee book holds Grace Hopper with account …4300 (EU_SEPA); this row pays …3000 (EU_SEPA)');
  });

  it('flags a payee not in the book but paid before to other accounts (the CSV warning, now counted), matched by e-mail too', async () => {
    const repo = new MemoryPayeeRepository([paid('old-1', 'grace hopper', 'NL91ABNA0417164300', 'grace@example.com')]);
    const flags = await flagPayeeRows(repo, [row('r1', { account: 'DE89370400440532013000' }), row('r2', { payeeName: 'G. Hopper', account: 'DE89370400440532013000' })]);
    expect(flags.map((f) => [f.rowId, f.flag])).toEqual([['r1', 'changed'], ['r2', 'changed']]);
    expect(flags[0]!.reason).toBe('bank details changed: Grace Hopper <grace@example.com> was paid to …4300 before; this row pays …3000');
  });

  it('trusts the book once a change was approved: the new account is known, the old one is now a change', async () => {
    const repo = new MemoryPayeeRepository([paid('old-1', 'grace hopper', 'NL91ABNA0417164300')]);
    await repo.addVersions([version('g', 1), version('g', 2, { accountNumber: 'DE89370400440532013000' })]);
    const flags = await flagPayeeRows(repo, [row('r1', { account: 'DE89370400440532013000' }), row('r2')]);
    expect(flags.map((f) => [f.rowId, f.flag])).toEqual([['r2', 'changed']]);
  });

  it('ignores a change still awaiting approval: the book in force decides', async () => {
    const repo = new MemoryPayeeRepository([paid('old-1', 'grace hopper', 'NL91ABNA0417164300')]);
    await repo.addVersions([version('g', 1), version('g', 2, { accountNumber: 'DE89370400440532013000' }, { waiting: true })]);
    expect((await flagPayeeRows(repo, [row('r1', { account: 'DE89370400440532013000' })])).map((f) => f.flag)).toEqual(['changed']);
  });

  it('leaves the rows being checked out of "paid before" (a batch resumed after some rows went)', async () => {
    const repo = new MemoryPayeeRepository([paid('r1', 'grace hopper', 'NL91ABNA0417164300')]);
    expect((await flagPayeeRows(repo, [row('r1'), row('r2')])).map((f) => [f.rowId, f.flag])).toEqual([['r1', 'new'], ['r2', 'new']]);
  });
});
