// The payee book service over a real desk runtime: saving payees by hand, from a payout and from CSV;
// a change of bank details waits for approval once dual control is on (never by whoever made it), and
// takes effect only when the policy's count of approvers signed; everything is audited with the person.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAppContext, type AppContext } from '../../../main/context';
import { createDeskEvents } from '../../../main/desk/events';
import { importPayoutCsv } from '../../../main/csv/import';
import { payeeAwareCsvLookup, payeeService, type PayeeService } from '../../../main/desk/payees';
import { createDeskRuntime, type DeskRuntime } from '../../../main/desk/runtime';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { silentLogger } from '../../../main/log';
import { chainOf, member } from '../approvals/helpers';
import type { Journal } from '../../../main/store/sqlite';
import { payout, sqliteJournalOf } from '../journal/helpers';

const PROFILE = 'p1';
let home: string;
let ctx: AppContext;
let rt: DeskRuntime;
let svc: PayeeService;
/** The profile's own SQLite journal, read synchronously here. */
let journal: Journal;

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), 'desk-payees-'));
  ctx = createAppContext({ home, keyStore: new MemoryKeyStore() });
  ctx.profiles.add({ id: PROFILE, name: 'Payees', baseUrl: 'https://gateway.example.invalid', merchantCode: 'M1', useDeprecatedSecret: true });
  ctx.profiles.add({ id: 'p2', name: 'Other', baseUrl: 'https://gateway.example.invalid', merchantCode: 'M2', useDeprecatedSecret: true });
  rt = createDeskRuntime({ ctx, events: createDeskEvents(), log: silentLogger });
  svc = payeeService(rt);
  // Journal writes in these tests (payouts inserted by hand) need the audit key loaded, as the services do.
  await rt.auditSeal(PROFILE);
  journal = await sqliteJournalOf(rt, PROFILE);
});
afterEach(async () => {
  await rt.close();
  ctx.close();
  rmSync(home, { recursive: true, force: true });
});

const grace = { name: 'Grace Hopper', accountNumber: 'NL91 ABNA 0417 1643 00', operatorCode: 'EU_SEPA', emailAddress: 'grace@example.com', referenceDefault: 'Invoice' };
const audit = () => journal.listAudit(200).filter((e) => e.action.startsWith('payee'));

const ada = member('ada', ['admin', 'preparer', 'approver']);
const paula = member('paula', ['preparer']);
const alice = member('alice', ['approver']);
const bob = member('bob', ['approver']);

/** Dual control on: the people and policy version 1 as the profile's control chain, its first record signed by Ada. */
async function dualControl(newOrChangedPayee: number): Promise<void> {
  const repo = await rt.dualControlFor(PROFILE);
  for (const r of chainOf(PROFILE, [ada, paula, alice, bob], { policy: { version: 1, rules: { bands: {}, newOrChangedPayee } } })) await repo.appendChain(r);
}

describe('the payee book without dual control', () => {
  it('saves a payee by hand and puts a change of bank details in force at once, audited', async () => {
    const added = await svc.add(PROFILE, grace, null);
    expect(added).toMatchObject({ inForce: true, payee: { name: 'Grace Hopper', accountNumber: 'NL91ABNA0417164300', referenceDefault: 'Invoice', state: 'in force', version: 1 } });
    const changed = await svc.edit(PROFILE, added.payee.id, { accountNumber: 'DE89370400440532013000' }, null);
    expect(changed).toMatchObject({ inForce: true, payee: { version: 2, accountNumber: 'DE89370400440532013000', waiting: null } });
    expect((await svc.versions(PROFILE, added.payee.id)).map((v) => [v.version, v.closeReason])).toEqual([[1, 'superseded'], [2, null]]);
    expect(audit().map((e) => e.action).reverse()).toEqual(['payee.added', 'payee.changed']);
    await expect(svc.add(PROFILE, { ...grace, name: ' GRACE   hopper ' }, null)).rejects.toMatchObject({ code: 'DUPLICATE' });
    await expect(svc.add(PROFILE, { ...grace, name: 'Other', accountNumber: 'NL91ABNA0417164301' }, null)).rejects.toMatchObject({ code: 'INVALID', message: expect.stringContaining('check digits') });
  });

  it('takes a payee from a payout of the journal (a batch row is a payout too)', async () => {
    journal.insertPayment('payout', payout('po-1', { reference: 'June rent' }));
    const r = await svc.addFromPayout(PROFILE, 'po-1', null);
    expect(r.payee).toMatchObject({ name: 'Ada Lovelace', accountNumber: 'DE89370400440532013000', operatorCode: 'EU_SEPA', emailAddress: 'ada@example.com', referenceDefault: 'June rent', source: 'payout', sourceRef: 'po-1' });
    await expect(svc.addFromPayout(PROFILE, 'nope', null)).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('a change of bank details under dual control', () => {
  it('needs an unlocked preparer to add or edit a payee', async () => {
    await dualControl(1);
    await expect(svc.add(PROFILE, grace, null)).rejects.toMatchObject({ code: 'LOCKED' });
    await expect(svc.add(PROFILE, grace, alice.session)).rejects.toMatchObject({ code: 'NOT_ALLOWED', message: 'Alice does not hold the preparer role' });
    expect((await svc.add(PROFILE, grace, paula.session)).inForce).toBe(true);
  });

  it('stores the change without putting it in force, refuses self-approval, and puts it in force once the policy count of approvers signed', async () => {
    await dualControl(2);
    const { payee } = await svc.add(PROFILE, grace, ada.session);
    const edit = await svc.edit(PROFILE, payee.id, { accountNumber: 'DE89370400440532013000' }, ada.session);
    expect(edit.inForce).toBe(false);
    expect(edit.payee).toMatchObject({ version: 1, accountNumber: 'NL91ABNA0417164300', state: 'in force', waiting: { version: 2, bankChange: true, after: { accountNumber: 'DE89370400440532013000' }, verdict: { ok: false, required: 2 } } });
    // Not in force: a payout to the new account is still a change of bank details.
    await expect(svc.edit(PROFILE, payee.id, { emailAddress: 'g@example.com' }, ada.session)).rejects.toMatchObject({ code: 'CHANGE_WAITING' });
    await expect(svc.decide(PROFILE, payee.id, 'approve', null, ada.session)).rejects.toMatchObject({ code: 'SELF_APPROVAL' });
    await expect(svc.decide(PROFILE, payee.id, 'approve', null, paula.session)).rejects.toMatchObject({ code: 'NOT_ALLOWED' });
    const first = await svc.decide(PROFILE, payee.id, 'approve', null, alice.session);
    expect(first).toMatchObject({ inForce: false, payee: { version: 1, waiting: { verdict: { approvedBy: ['alice'], required: 2 } } } });
    // The same approver again would count once: refused, naming who can still approve (Ada made the change).
    await expect(svc.decide(PROFILE, payee.id, 'approve', null, alice.session)).rejects.toMatchObject({ code: 'ALREADY_DECIDED', message: expect.stringMatching(/Alice approved this change of Grace Hopper already.*needs 1 more approval from: Bob$/) });
    const second = await svc.decide(PROFILE, payee.id, 'approve', 'checked by phone', bob.session);
    expect(second).toMatchObject({ inForce: true, payee: { version: 2, accountNumber: 'DE89370400440532013000', state: 'in force', waiting: null } });
    const entries = audit().reverse();
    expect(entries.map((e) => [e.action, e.actor])).toEqual([
      ['payee.added', 'person:ada'], ['payee.change-requested', 'person:ada'], ['payee.approval.given', 'person:alice'],
      ['payee.approval.given', 'person:bob'], ['payee.change-approved', 'person:bob'],
    ]);
    // Other details are in force at once, still audited.
    expect((await svc.edit(PROFILE, payee.id, { emailAddress: 'g@example.com' }, paula.session)).inForce).toBe(true);
  });

  it('closes a rejected change (a reason is needed) and keeps the details in force', async () => {
    await dualControl(1);
    const { payee } = await svc.add(PROFILE, grace, paula.session);
    await svc.edit(PROFILE, payee.id, { operatorCode: 'EU_INSTANT' }, paula.session);
    await expect(svc.decide(PROFILE, payee.id, 'reject', ' ', alice.session)).rejects.toMatchObject({ code: 'REASON_REQUIRED' });
    const r = await svc.decide(PROFILE, payee.id, 'reject', 'not what the supplier told us', alice.session);
    expect(r).toMatchObject({ inForce: false, payee: { version: 1, operatorCode: 'EU_SEPA', waiting: null } });
    expect((await svc.versions(PROFILE, payee.id)).map((v) => v.closeReason)).toEqual([null, 'rejected']);
    expect(audit()[0]).toMatchObject({ action: 'payee.change-rejected', actor: 'person:alice', details: expect.objectContaining({ reason: 'not what the supplier told us' }) });
  });

  it('lets a preparer withdraw a change awaiting approval; the details in force stay', async () => {
    await dualControl(1);
    const { payee } = await svc.add(PROFILE, grace, paula.session);
    await svc.edit(PROFILE, payee.id, { accountNumber: 'DE89370400440532013000' }, paula.session);
    await expect(svc.withdraw(PROFILE, payee.id, alice.session)).rejects.toMatchObject({ code: 'NOT_ALLOWED' });
    const r = await svc.withdraw(PROFILE, payee.id, paula.session);
    expect(r.payee).toMatchObject({ accountNumber: 'NL91ABNA0417164300', waiting: null });
    expect((await svc.versions(PROFILE, payee.id)).map((v) => v.closeReason)).toEqual([null, 'withdrawn']);
    await expect(svc.decide(PROFILE, payee.id, 'approve', null, alice.session)).rejects.toMatchObject({ code: 'NOT_WAITING' });
    expect(audit()[0]).toMatchObject({ action: 'payee.change-withdrawn', actor: 'person:paula' });
  });

  it('refuses to approve a change whose stored row was altered after it was made', async () => {
    await dualControl(1);
    const { payee } = await svc.add(PROFILE, grace, paula.session);
    await svc.edit(PROFILE, payee.id, { accountNumber: 'DE89370400440532013000' }, paula.session);
    const db = journal.db;
    db.exec('DROP TRIGGER payees_fixed');
    db.prepare(`UPDATE payees SET account_number = 'DE02120300000000202051' WHERE version = 2`).run();
    await expect(svc.decide(PROFILE, payee.id, 'approve', null, alice.session)).rejects.toMatchObject({ code: 'CHANGE_ALTERED' });
  });

  it('makes a new payee wait when the name was paid to another account before (a change of bank details in disguise)', async () => {
    await dualControl(1);
    journal.insertPayment('payout', payout('old', { accountName: 'Grace Hopper', emailAddress: 'grace@example.com', accountNumber: 'DE02120300000000202051' }));
    journal.markSending('payout', 'old');
    const r = await svc.add(PROFILE, grace, paula.session);
    expect(r).toMatchObject({ inForce: false, payee: { state: 'awaiting approval', waiting: { before: null, bankChange: true } } });
    expect((await svc.decide(PROFILE, r.payee.id, 'approve', null, alice.session)).payee.state).toBe('in force');
  });
});

describe('the payee book as CSV', () => {
  const bytes = (text: string) => Buffer.from(text, 'utf8');

  it('exports with formulas neutralised and imports back to the same payees', async () => {
    await svc.add(PROFILE, { ...grace, name: '=HYPERLINK("http://x.example","Grace")' }, null);
    await svc.add(PROFILE, { ...grace, name: 'Hedy Lamarr', emailAddress: 'hedy@example.com', accountNumber: '+254700000001', operatorCode: 'KE_MPESA', referenceDefault: null }, null);
    const file = await svc.exportCsv(PROFILE);
    expect(file.rows).toBe(2);
    expect(file.content.startsWith('\ufeffaccountName,accountNumber,paymentOperatorCode,emailAddress,reference,payeeId,version,since\r\n')).toBe(true);
    expect(file.content).toContain(`"'=HYPERLINK(""http://x.example"",""Grace"")"`);
    expect(file.content).toContain(`'+254700000001`);
    const result = await svc.importCsv('p2', bytes(file.content), 'payees.csv', null);
    expect(result).toMatchObject({ imported: true, errors: [], added: 2 });
    const strip = (list: Awaited<ReturnType<PayeeService['list']>>) => list.map((p) => [p.name, p.accountNumber, p.operatorCode, p.emailAddress, p.referenceDefault]);
    expect(strip(await svc.list('p2'))).toEqual(strip(await svc.list(PROFILE)));
    expect(await svc.importCsv('p2', bytes(file.content), 'payees.csv', null)).toMatchObject({ imported: true, added: 0, unchanged: 2 });
  });

  it('reports every bad row by number and imports nothing', async () => {
    const text = [
      'accountName;accountNumber;paymentOperatorCode;emailAddress',
      'Grace Hopper;NL91ABNA0417164300;EU_SEPA;grace@example.com',
      'Bad Iban;NL91ABNA0417164301;EU_SEPA;bad@example.com',
      'Lost Digits;1.23457E+11;EU_SEPA;lost@example.com',
      'Grace Hopper;DE89370400440532013000;EU_SEPA;grace@example.com',
      'No Mail;DE89370400440532013000;EU_SEPA;',
    ].join('\r\n');
    const r = await svc.importCsv(PROFILE, bytes(text), 'bad.csv', null);
    expect(r.imported).toBe(false);
    expect(r.errors.map((e) => [e.rowNumber, e.column])).toEqual([[3, 'accountNumber'], [4, 'accountNumber'], [5, null], [6, 'emailAddress']]);
    expect(r.errors[2]!.message).toBe('Grace Hopper is on row 2 with other details; one payee, one set of details');
    expect(await svc.list(PROFILE)).toEqual([]);
    await expect(svc.importCsv(PROFILE, bytes('name,accountNumber\r\nx,y\r\n'), 'short.csv', null)).rejects.toMatchObject({ code: 'MISSING_COLUMNS' });
    // A quoted value spanning two lines is one row, and a blank line counts, as a spreadsheet shows them.
    const spanning = ['accountName,accountNumber,paymentOperatorCode,emailAddress', '"Two\r\nLines",NL91ABNA0417164300,EU_SEPA,two@example.com', '', 'Bad,NL91ABNA0417164301,EU_SEPA,bad@example.com'].join('\r\n');
    expect((await svc.importCsv(PROFILE, bytes(spanning), 'spanning.csv', null)).errors.map((e) => e.rowNumber)).toEqual([4]);
  });

  it('imports a payout batch file as payees; a row changing bank details of a saved payee waits for approval under dual control', async () => {
    await dualControl(1);
    await svc.add(PROFILE, grace, paula.session);
    const text = [
      'idPayout,amount,currencyCode,accountName,accountNumber,paymentOperatorCode,paymentMethodCode,emailAddress,callbackUrl,reference',
      'x1,10.00,EUR,Grace Hopper,DE89370400440532013000,EU_SEPA,BANK_TRANSFER,grace@example.com,,Invoice',
      'x2,12.00,EUR,Hedy Lamarr,DE02120300000000202051,EU_SEPA,BANK_TRANSFER,hedy@example.com,,',
      'x3,13.00,EUR,Hedy Lamarr,DE02120300000000202051,EU_SEPA,BANK_TRANSFER,hedy@example.com,,',
    ].join('\n');
    const r = await svc.importCsv(PROFILE, bytes(text), 'june.csv', paula.session);
    expect(r).toMatchObject({ imported: true, added: 1, changed: 0, awaitingApproval: 1, repeated: 1 });
    const graceNow = (await svc.list(PROFILE)).find((p) => p.name === 'Grace Hopper')!;
    expect(graceNow).toMatchObject({ accountNumber: 'NL91ABNA0417164300', waiting: { after: { accountNumber: 'DE89370400440532013000' } } });
    expect(audit()[0]).toMatchObject({ action: 'payees.imported', subject: 'june.csv', actor: 'person:paula', details: expect.objectContaining({ added: 1, awaitingApproval: 1 }) });
  });
});

describe("the CSV import's bank details warning with the payee book", () => {
  it('takes the details in force in the book over what was paid before: an approved change is no warning, other details are', async () => {
    journal.insertPayment('payout', payout('old', { accountName: 'Grace Hopper', emailAddress: 'grace@example.com', accountNumber: 'NL91ABNA0417164300' }));
    journal.markSending('payout', 'old');
    const { payee } = await svc.add(PROFILE, grace, null);
    await svc.edit(PROFILE, payee.id, { accountNumber: 'DE89370400440532013000' }, null);
    await svc.add(PROFILE, { ...grace, name: 'Hedy Lamarr', emailAddress: 'hedy@example.com', accountNumber: 'DE02120300000000202051' }, null);
    const text = [
      'idPayout,amount,currencyCode,accountName,accountNumber,paymentOperatorCode,paymentMethodCode,emailAddress,callbackUrl,reference',
      'w1,10.00,EUR,Grace Hopper,DE89370400440532013000,EU_SEPA,BANK_TRANSFER,grace@example.com,,',
      'w2,10.00,EUR,Grace Hopper,NL91ABNA0417164300,EU_SEPA,BANK_TRANSFER,grace@example.com,,',
      'w3,10.00,EUR,Hedy Lamarr,DE02100500000054540402,EU_SEPA,BANK_TRANSFER,hedy@example.com,,',
    ].join('\n');
    const withBook = await importPayoutCsv(Buffer.from(text), { journal: await payeeAwareCsvLookup(rt, PROFILE, journal) });
    expect(withBook.warnings.map((w) => [w.rowNumber, w.code])).toEqual([[3, 'BANK_DETAILS_CHANGED'], [4, 'BANK_DETAILS_CHANGED']]);
    // The journal alone (before the payee book) warned about the approved account and missed the book's payee.
    const journalOnly = await importPayoutCsv(Buffer.from(text), { journal });
    expect(journalOnly.warnings.map((w) => [w.rowNumber, w.code])).toEqual([[2, 'BANK_DETAILS_CHANGED']]);
  });
});
