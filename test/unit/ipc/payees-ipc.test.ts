// payees:* through the real handlers and services (MemoryKeyStore, a real journal and payee book): under
// dual control a bank-detail edit waits for approval and is not in force; its maker cannot approve it; an
// approver approves with the passphrase again; import takes a granted file token only, export gives a file;
// account numbers leave main masked; hostile or wrong arguments answer typed errors.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Channel, IpcHandlerMap, PayeeChangeOutcome, PayeeImportOutcome, PayeeItem } from '../../../contract/api';
import { createAppContext, type AppContext } from '../../../main/context';
import { bindActiveProfile, createDeskServices, createFileGrants, type FileGrants } from '../../../main/desk';
import { createDeskEvents } from '../../../main/desk/events';
import { createDeskRuntime, type DeskRuntime } from '../../../main/desk/runtime';
import { createIpcHandlers } from '../../../main/ipc/handlers';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { handlerCalls } from './handler-calls';
import { silentLogger } from '../../../main/log';

const PASS_ADA = 'ada-long-passphrase';
const PASS_BOB = 'bob-long-passphrase';
const IBAN_1 = 'DE89370400440532013000';
const IBAN_2 = 'GB82WEST12345698765432';

let home: string;
let ctx: AppContext;
let rt: DeskRuntime;
let grants: FileGrants;
let handlers: IpcHandlerMap;

const { ok, fails } = handlerCalls(() => handlers);
const csvFile = (name: string, text: string) => {
  const path = join(home, name);
  writeFileSync(path, text);
  return path;
};

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'desk-payees-ipc-'));
  ctx = createAppContext({ home, keyStore: new MemoryKeyStore() });
  ctx.profiles.add({ id: 'live-1', name: 'Live', baseUrl: 'https://gateway.example.invalid', merchantCode: 'M1', environment: 'LIVE', useDeprecatedSecret: true });
  ctx.profiles.setCurrent('live-1');
  rt = createDeskRuntime({ ctx, events: createDeskEvents(), log: silentLogger });
  grants = createFileGrants();
  handlers = createIpcHandlers(bindActiveProfile(createDeskServices(rt, { name: 'Payout Desk', version: '0', platform: 'linux', demoAvailable: false, files: grants }, null), ctx));
});
afterAll(async () => {
  await rt.close();
  ctx.close();
  rmSync(home, { recursive: true, force: true });
});

// Each key made or unlocked costs a deliberate scrypt (128 MiB, about a second; more on a busy machine).
describe('the payee book over IPC', { timeout: 30_000 }, () => {
  let ada = '';
  let bob = '';
  let jane = '';

  it('sets up dual control: Ada (every role) and Bob (approver), a policy asking one approval for changed payees', async () => {
    ada = (await ok<{ person: { id: string } }>('people:add', { name: 'Ada', roles: ['admin'], passphrase: PASS_ADA })).person.id;
    // Bob enrols (at this desk, his own); Ada, unlocked again, grants him approver.
    bob = (await ok<{ unlocked: { personId: string } }>('people:enroll', { name: 'Bob', passphrase: PASS_BOB })).unlocked.personId;
    await ok('people:unlock', { personId: ada, passphrase: PASS_ADA });
    await ok('people:setRoles', { personId: bob, roles: ['approver'] });
    await ok('approvals:setPolicy', { rules: { bands: { '*': [{ atLeast: '0', approvals: 1 }] }, newOrChangedPayee: 1 } });
    expect(await ok('payees:list', {})).toEqual([]);
  });

  it('a wrong IBAN is the book\'s typed error, with the field it is about; nothing is added', async () => {
    const e = await fails('payees:add', { name: 'Jane Doe', accountNumber: 'DE89370400440532013001', operatorCode: 'EU_SEPA', emailAddress: 'jane@example.com' });
    expect(e.code).toBe('INVALID');
    expect(e.message).toMatch(/check digits/);
    expect(e.issues?.[0]).toMatchObject({ field: 'accountNumber', code: 'ACCOUNT_NUMBER_IBAN' });
    expect(await ok('payees:list', {})).toEqual([]);
  });

  it('a new payee never paid before is in force at once; the account leaves main masked', async () => {
    const added = await ok<PayeeChangeOutcome>('payees:add', { name: 'Jane Doe', accountNumber: IBAN_1, operatorCode: 'EU_SEPA', emailAddress: 'jane@example.com', referenceDefault: 'Invoice' });
    jane = added.payee.id;
    expect(added).toMatchObject({ inForce: true, payee: { name: 'Jane Doe', accountMasked: '…3000', state: 'in force', waiting: null, referenceDefault: 'Invoice' } });
    const list = await ok<PayeeItem[]>('payees:list', {});
    expect(list.map((p) => p.name)).toEqual(['Jane Doe']);
    expect(JSON.stringify(list)).not.toContain(IBAN_1);
    expect((await fails('payees:add', { name: 'jane  doe', accountNumber: IBAN_2, operatorCode: 'EU_SEPA', emailAddress: 'j2@example.com' })).code).toBe('DUPLICATE');
  });

  it('a bank-detail edit waits for approval and is not in force; the details in force stay', async () => {
    const edited = await ok<PayeeChangeOutcome>('payees:edit', { payeeId: jane, accountNumber: IBAN_2 });
    expect(edited.inForce).toBe(false);
    expect(edited.message).toMatch(/awaits 1 approval/);
    expect(edited.payee).toMatchObject({ state: 'in force', accountMasked: '…3000', waiting: { bankChange: true, required: 1, byMe: true, forMe: false, createdBy: { id: ada, name: 'Ada' }, after: { accountMasked: '…5432' } } });
    expect((await fails('payees:edit', { payeeId: jane, emailAddress: 'other@example.com' })).code).toBe('CHANGE_WAITING');
  });

  it('whoever made the change cannot approve it, even with the right passphrase', async () => {
    const e = await fails('payees:approve', { payeeId: jane, passphrase: PASS_ADA });
    expect(e.code).toBe('SELF_APPROVAL');
    expect((await ok<PayeeItem[]>('payees:list', {}))[0]).toMatchObject({ accountMasked: '…3000', waiting: { approvedBy: [] } });
  });

  it('an approver needs the passphrase again; a rejection needs a reason; then the approval puts it in force', async () => {
    await ok('people:unlock', { personId: bob, passphrase: PASS_BOB });
    expect((await ok<PayeeItem[]>('payees:list', {}))[0]!.waiting).toMatchObject({ forMe: true, byMe: false });
    expect((await fails('payees:approve', { payeeId: jane, passphrase: 'not-bobs-passphrase' })).code).not.toMatch(/^(INTERNAL|SELF_APPROVAL)$/);
    expect((await fails('payees:reject', { payeeId: jane, reason: '   ' })).code).toBe('INVALID_ARGUMENT');
    expect((await ok<PayeeItem[]>('payees:list', {}))[0]!.accountMasked).toBe('…3000');
    const approved = await ok<PayeeChangeOutcome>('payees:approve', { payeeId: jane, passphrase: PASS_BOB });
    expect(approved).toMatchObject({ inForce: true, payee: { state: 'in force', accountMasked: '…5432', waiting: null } });
    const versions = await ok<{ version: number; state: string }[]>('payees:versions', { payeeId: jane });
    expect(versions.map((v) => [v.version, v.state])).toEqual([[1, 'superseded'], [2, 'in force']]);
    expect((await fails('payees:approve', { payeeId: jane, passphrase: PASS_BOB })).code).toBe('NOT_WAITING');
  });

  it('a change rejected with a reason, and one withdrawn by its maker, leave the details in force', async () => {
    await ok('people:unlock', { personId: ada, passphrase: PASS_ADA });
    await ok('payees:edit', { payeeId: jane, accountNumber: IBAN_1 });
    await ok('people:unlock', { personId: bob, passphrase: PASS_BOB });
    expect((await fails('payees:withdraw', { payeeId: jane })).code).not.toBe('INTERNAL');
    const rejected = await ok<PayeeChangeOutcome>('payees:reject', { payeeId: jane, reason: 'not the account on the invoice' });
    expect(rejected.payee).toMatchObject({ state: 'in force', accountMasked: '…5432', waiting: null });
    await ok('people:unlock', { personId: ada, passphrase: PASS_ADA });
    await ok('payees:edit', { payeeId: jane, accountNumber: IBAN_1 });
    const withdrawn = await ok<PayeeChangeOutcome>('payees:withdraw', { payeeId: jane });
    expect(withdrawn.payee).toMatchObject({ accountMasked: '…5432', waiting: null });
  });

  it('import reads a granted file only; a bad row is named by its row number and nothing is imported', async () => {
    const bad = await grants.grant(csvFile('bad.csv', `accountName,accountNumber,paymentOperatorCode,emailAddress,reference\nLee Chen,${IBAN_1},EU_SEPA,lee@example.com,\nMo Bad,DE89370400440532013001,EU_SEPA,mo@example.com,\n`), 'csv');
    const r = await ok<PayeeImportOutcome>('payees:import', { source: { kind: 'granted', token: bad.token } });
    expect(r).toMatchObject({ fileName: 'bad.csv', imported: false, added: 0 });
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]).toMatchObject({ rowNumber: 3, column: 'accountNumber' });
    const good = await grants.grant(csvFile('good.csv', `accountName,accountNumber,paymentOperatorCode,emailAddress,reference\nLee Chen,${IBAN_1},EU_SEPA,lee@example.com,Rent\n`), 'csv');
    expect(await ok<PayeeImportOutcome>('payees:import', { source: { kind: 'granted', token: good.token } })).toMatchObject({ imported: true, added: 1, errors: [] });
    expect((await fails('payees:import', { source: { kind: 'granted', token: '7d1c2a4e-1111-4222-8333-944445555666' } })).code).toBe('FILE_NOT_GRANTED');
    const big = await grants.grant(csvFile('big.csv', 'accountName\n'.padEnd(20 * 1024 * 1024 + 1, 'x')), 'csv');
    expect((await fails('payees:import', { source: { kind: 'granted', token: big.token } })).code).toBe('INVALID_FILE');
    const gone = await grants.grant(csvFile('gone.csv', 'x'), 'csv');
    rmSync(join(home, 'gone.csv'));
    expect((await fails('payees:import', { source: { kind: 'granted', token: gone.token } })).code).toBe('FILE_NOT_FOUND');
    const keyToken = await grants.grant(csvFile('key.pem', 'x'), 'key');
    expect((await fails('payees:import', { source: { kind: 'granted', token: keyToken.token } })).code).toBe('FILE_NOT_GRANTED');
  });

  it('export delivers the book as a CSV file (full accounts: it is the file the person asked for)', async () => {
    const file = await ok<{ fileName: string; mimeType: string; content: string; rows: number }>('payees:export');
    expect(file.rows).toBe(2);
    expect(file.fileName).toMatch(/\.csv$/);
    expect(file.content).toContain('Lee Chen');
    expect(file.content).toContain(IBAN_2);
  });

  it('hostile payee arguments are typed INVALID_ARGUMENT and change nothing', async () => {
    const cases: [Channel, unknown][] = [
      ['payees:import', { source: { kind: 'path', path: '/home/finance/payees.csv' } }],
      ['payees:import', { source: { kind: 'granted', token: '../../etc/passwd' } }],
      ['payees:import', { source: { kind: 'granted', token: 'abc', path: '/etc/passwd' } }],
      ['payees:import', { source: { kind: 'base64', fileName: 'p.csv', base64: 'YQ==' } }],
      ['payees:edit', { payeeId: '../../etc', accountNumber: IBAN_1 }],
      ['payees:edit', { payeeId: jane, accountNumber: 'x'.repeat(65) }],
      ['payees:edit', { payeeId: jane, createdBy: bob }],
      ['payees:add', { name: 'Eve', accountNumber: IBAN_1, operatorCode: 'EU_SEPA' }],
      ['payees:approve', { payeeId: jane, passphrase: '' }],
      ['payees:approve', { payeeId: jane, passphrase: PASS_BOB, signerId: bob }],
      ['payees:reject', { payeeId: jane }],
      ['payees:addFromPayout', { idPayout: 'p 1; drop table' }],
      ['payees:list', { all: 'yes' }],
    ];
    const before = JSON.stringify(await ok('payees:list', { all: true }));
    for (const [channel, args] of cases) expect((await fails(channel, args)).code, `${channel} ${JSON.stringify(args).slice(0, 80)}`).toBe('INVALID_ARGUMENT');
    expect(JSON.stringify(await ok('payees:list', { all: true })), 'nothing changed').toBe(before);
    expect((await fails('payees:addFromPayout', { idPayout: 'p-nope' })).code).toBe('NOT_FOUND');
    expect((await fails('payees:versions', { payeeId: 'no-such-payee' })).code).toBe('NOT_FOUND');
  });

  it('locked, payee work is LOCKED with what to do', async () => {
    await ok('people:lock');
    expect((await fails('payees:add', { name: 'Kim', accountNumber: IBAN_1, operatorCode: 'EU_SEPA', emailAddress: 'kim@example.com' })).code).toBe('LOCKED');
    expect((await fails('payees:approve', { payeeId: jane, passphrase: PASS_BOB })).code).toBe('LOCKED');
  });
});
