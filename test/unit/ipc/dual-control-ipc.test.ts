// people:* and approvals:* through the real handlers and services (MemoryKeyStore, a real journal): the
// first person is added without anyone unlocked and is unlocked at once; everyone after enrols at their own
// desk (here, this one) and an unlocked admin grants their roles by a signed control record; the passphrase
// never comes back; hostile or wrong arguments answer typed errors, never throws.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Channel, EventContract, IpcHandlerMap } from '../../../contract/api';
import { createAppContext, type AppContext } from '../../../main/context';
import { bindActiveProfile, createDeskServices } from '../../../main/desk';
import { createDeskEvents } from '../../../main/desk/events';
import { createDeskRuntime, type DeskRuntime } from '../../../main/desk/runtime';
import { createIpcHandlers } from '../../../main/ipc/handlers';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { handlerCalls } from './handler-calls';
import { silentLogger } from '../../../main/log';

const PASS_ADA = 'ada-long-passphrase';
const PASS_BOB = 'bob-long-passphrase';

let home: string;
let ctx: AppContext;
let rt: DeskRuntime;
let handlers: IpcHandlerMap;
const sessionEvents: EventContract['sessionChanged'][] = [];
const approvalEvents: EventContract['approvalsChanged'][] = [];

const { ok, fails } = handlerCalls(() => handlers);

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'desk-dc-ipc-'));
  ctx = createAppContext({ home, keyStore: new MemoryKeyStore() });
  ctx.profiles.add({ id: 'live-1', name: 'Live', baseUrl: 'https://gateway.example.invalid', merchantCode: 'M1', environment: 'LIVE', useDeprecatedSecret: true });
  ctx.profiles.setCurrent('live-1');
  const events = createDeskEvents();
  events.on('sessionChanged', (e) => sessionEvents.push(e));
  events.on('approvalsChanged', (e) => approvalEvents.push(e));
  rt = createDeskRuntime({ ctx, events, log: silentLogger });
  handlers = createIpcHandlers(bindActiveProfile(createDeskServices(rt, { name: 'Payout Desk', version: '0', platform: 'linux', demoAvailable: false }, null), ctx));
});
afterAll(async () => {
  await rt.close();
  ctx.close();
  rmSync(home, { recursive: true, force: true });
});

// Each key made or unlocked costs a deliberate scrypt (128 MiB, about a second; more on a busy machine).
describe('dual control over IPC', { timeout: 30_000 }, () => {
  let ada = '';
  let bob = '';

  it('before anyone is added: not enforced, nobody unlocked, the LIVE default policy, an empty queue', async () => {
    expect(await ok('people:session')).toEqual({ enforced: false, hasPeople: false, unlocked: null, controlProblem: null });
    const policy = await ok<{ version: number; isDefault: boolean; rules: unknown }>('approvals:policy');
    expect(policy).toMatchObject({ version: 0, isDefault: true, rules: { bands: { '*': [{ atLeast: '1000', approvals: 1 }] }, newOrChangedPayee: 0 } });
    expect(await ok('approvals:queue')).toEqual([]);
  });

  it('nobody can enrol themselves before the first person is set up (the first one is added, with every role)', async () => {
    expect(await fails('people:enroll', { name: 'Vera', passphrase: 'vera-long-passphrase' })).toMatchObject({ code: 'NO_PEOPLE' });
    expect(await ok('people:list')).toEqual([]);
  });

  it('a weak passphrase is refused with the service\'s typed error, and nobody is added', async () => {
    expect(await fails('people:add', { name: 'Ada', roles: ['admin'], passphrase: 'short' })).toMatchObject({ code: 'WEAK_PASSPHRASE' });
    expect(await ok('people:list')).toEqual([]);
  });

  it('the first person gets every role with the one-person warning and is unlocked at once; the passphrase never comes back', async () => {
    const added = await ok<{ person: { id: string; roles: string[] }; warning: string }>('people:add', { name: 'Ada', roles: ['viewer'], passphrase: PASS_ADA });
    ada = added.person.id;
    expect(added.person.roles.sort()).toEqual(['admin', 'approver', 'preparer', 'sender', 'viewer']);
    expect(added.warning).toMatch(/nobody checks their payouts/);
    expect(JSON.stringify(added)).not.toContain(PASS_ADA);
    const session = await ok<{ enforced: boolean; unlocked: { personId: string; name: string; locksAt: string | null } }>('people:session');
    expect(session.enforced).toBe(true);
    expect(session.unlocked).toMatchObject({ personId: ada, name: 'Ada' });
    // 10 idle minutes by default.
    expect(Date.parse(session.unlocked.locksAt!) - Date.now()).toBeGreaterThan(9 * 60_000);
    expect(sessionEvents.at(-1)).toEqual({ profileId: 'live-1', unlocked: true, reason: 'unlock' });
  });

  it('the control records start at Ada: their root fingerprint to compare, confirmed here (this desk made them)', async () => {
    const control = await ok<{ enforced: boolean; fingerprint: string; confirmed: boolean; records: number; problem: unknown; proposals: unknown[] }>('people:control');
    expect(control).toMatchObject({ enforced: true, confirmed: true, records: 1, problem: null, needsSeal: false, proposals: [] });
    expect(control.fingerprint).toMatch(/^[0-9a-f]{4}(:[0-9a-f]{4}){7}$/);
    expect(await ok('people:confirmRoot', { fingerprint: control.fingerprint.toUpperCase() })).toMatchObject({ confirmed: true });
    expect(await fails('people:confirmRoot', { fingerprint: '0000:0000:0000:0000:0000:0000:0000:0000' })).toMatchObject({ code: 'ROOT_MISMATCH' });
  });

  it('a second person is not added by an admin: they enrol (a viewer), and the unlocked admin grants roles and sets a policy', async () => {
    expect(await fails('people:add', { name: 'Bob', roles: ['approver', 'sender'], passphrase: PASS_BOB })).toMatchObject({ code: 'NOT_ALLOWED', message: expect.stringMatching(/enrol at their own desk/) });
    const enrolled = await ok<{ unlocked: { personId: string; name: string; roles: string[] } }>('people:enroll', { name: 'Bob', passphrase: PASS_BOB });
    expect(enrolled.unlocked).toMatchObject({ name: 'Bob', roles: ['viewer'] });
    bob = enrolled.unlocked.personId;
    await ok('people:unlock', { personId: ada, passphrase: PASS_ADA });
    const granted = await ok<{ person: { id: string; roles: string[] }; proposal: unknown }>('people:setRoles', { personId: bob, roles: ['approver', 'sender'] });
    expect(granted).toMatchObject({ person: { id: bob, roles: ['approver', 'sender'] }, proposal: null });
    expect(await ok('people:control')).toMatchObject({ records: 3, problem: null });
    const before = approvalEvents.length;
    const policy = await ok<{ version: number; setBy: { name: string } }>('approvals:setPolicy', { rules: { bands: { EUR: [{ atLeast: '0', approvals: 1 }], '*': [{ atLeast: '500', approvals: 2 }] }, newOrChangedPayee: 1 } });
    expect(policy).toMatchObject({ version: 1, setBy: { id: ada, name: 'Ada' }, rules: { newOrChangedPayee: 1 }, proposal: null });
    expect(approvalEvents.length).toBe(before + 1);
    expect(await ok('people:control')).toMatchObject({ records: 4 });
  });

  it('a person enrols at their own desk: a viewer with the key in this keychain, unlocked, audited; only an admin grants more', async () => {
    const session = await ok<{ unlocked: { personId: string; name: string; roles: string[] } }>('people:enroll', { name: 'Vera', passphrase: 'vera-long-passphrase' });
    expect(session.unlocked).toMatchObject({ name: 'Vera', roles: ['viewer'] });
    const vera = session.unlocked.personId;
    const listed = (await ok<{ id: string; roles: string[]; keyOnThisMachine: boolean; fingerprint: string }[]>('people:list')).find((p) => p.id === vera)!;
    expect(listed).toMatchObject({ roles: ['viewer'], keyOnThisMachine: true });
    const entry = (await (await rt.journalFor('live-1')).listAudit(20)).find((e) => e.action === 'person.enrolled');
    expect(entry).toMatchObject({ actor: `person:${vera}`, subject: vera, details: { name: 'Vera', roles: ['viewer'], fingerprint: listed.fingerprint } });
    // A viewer grants nothing to anyone, themselves included.
    expect((await fails('people:setRoles', { personId: vera, roles: ['approver'] })).code).toBe('NOT_ALLOWED');
    await ok('people:unlock', { personId: ada, passphrase: PASS_ADA });
    expect(await ok('people:setRoles', { personId: vera, roles: ['approver'] })).toMatchObject({ person: { roles: ['approver'] }, proposal: null });
    expect(JSON.stringify(await ok('people:list'))).not.toContain('vera-long-passphrase');
  });

  it('a policy the desk cannot apply is a typed INVALID_POLICY, not a crash', async () => {
    const e = await fails('approvals:setPolicy', { rules: { bands: { EUR: [{ atLeast: '10', approvals: 1 }, { atLeast: '10.0', approvals: 2 }] }, newOrChangedPayee: 0 } });
    expect(e.code).toBe('INVALID_POLICY');
  });

  it('hostile dual-control arguments are typed INVALID_ARGUMENT and reach no service', async () => {
    const cases: [Channel, unknown][] = [
      ['people:unlock', { personId: bob, passphrase: 'p'.repeat(1025) }],
      ['people:unlock', { personId: '../../etc/passwd', passphrase: PASS_BOB }],
      ['people:add', { name: 'Eve', roles: ['root'], passphrase: 'a-long-enough-passphrase' }],
      ['people:add', { name: 'Eve', roles: [], passphrase: 'a-long-enough-passphrase' }],
      ['people:add', { name: '   ', roles: ['viewer'], passphrase: 'a-long-enough-passphrase' }],
      ['people:enroll', { name: 'Eve', roles: ['admin'], passphrase: 'a-long-enough-passphrase' }],
      ['people:enroll', { name: 'Eve' }],
      ['people:revoke', { personId: bob, reason: '' }],
      ['approvals:reject', { kind: 'batch', id: 'b-1', reason: '  ' }],
      ['approvals:approve', { kind: 'invoice', id: 'b-1', passphrase: PASS_ADA }],
      ['approvals:setPolicy', { rules: { bands: { eur: [{ atLeast: '1', approvals: 1 }] }, newOrChangedPayee: 0 } }],
      ['approvals:setPolicy', { rules: { bands: { EUR: [{ atLeast: '-1', approvals: 1 }] }, newOrChangedPayee: 0 } }],
      ['approvals:setPolicy', { rules: { bands: { EUR: [{ atLeast: '1', approvals: 4 }] }, newOrChangedPayee: 0 } }],
      ['approvals:setPolicy', { rules: { bands: {}, newOrChangedPayee: 0, setBy: 'someone' } }],
      ['approvals:status', { subjects: Array.from({ length: 201 }, (_, i) => ({ kind: 'batch', id: `b-${i}` })) }],
    ];
    const people = JSON.stringify(await ok('people:list'));
    for (const [channel, args] of cases) expect((await fails(channel, args)).code, `${channel} ${JSON.stringify(args).slice(0, 80)}`).toBe('INVALID_ARGUMENT');
    expect(JSON.stringify(await ok('people:list')), 'nothing changed').toBe(people);
  });

  it('a wrong passphrase does not unlock, and the person unlocked before is still the one', async () => {
    expect((await fails('people:unlock', { personId: bob, passphrase: 'not-bobs-passphrase' })).code).toMatch(/PASSPHRASE|WRONG/);
    expect(await ok('people:session')).toMatchObject({ unlocked: { personId: ada } });
  });

  it('approving or showing something the journal does not have is NOT_FOUND; a wrong passphrase on approve is refused', async () => {
    expect((await fails('approvals:show', { kind: 'batch', id: 'no-such-batch' })).code).toBe('NOT_FOUND');
    expect((await fails('approvals:approve', { kind: 'batch', id: 'no-such-batch', passphrase: 'wrong-passphrase!' })).code).not.toBe('INTERNAL');
    expect(await ok('approvals:status', { subjects: [{ kind: 'payout', id: 'nope' }] })).toMatchObject([{ state: 'not-needed', required: 0 }]);
  });

  it('Lock forgets the person and tells the screens; then admin work is LOCKED, with what to do', async () => {
    expect(await ok('people:lock')).toMatchObject({ unlocked: null, hasPeople: true });
    expect(sessionEvents.at(-1)).toEqual({ profileId: 'live-1', unlocked: false, reason: 'lock' });
    const e = await fails('people:setRoles', { personId: bob, roles: ['viewer'] });
    expect(e).toMatchObject({ code: 'LOCKED' });
    expect(e.message).toMatch(/unlock first/);
    expect((await fails('approvals:reject', { kind: 'batch', id: 'b-1', reason: 'wrong file' })).code).toBe('LOCKED');
    expect((await fails('approvals:setPolicy', { rules: { bands: {}, newOrChangedPayee: 0 } })).code).toBe('LOCKED');
    expect((await fails('people:revoke', { personId: bob, reason: 'left' })).code).toBe('LOCKED');
    // Adding is for the first person only, unlocked or not: everyone else enrols.
    expect((await fails('people:add', { name: 'Eve', roles: ['viewer'], passphrase: 'eve-long-passphrase' })).code).toBe('NOT_ALLOWED');
  });

  it('a person who is not admin cannot change roles; the admin revokes them and is told how many approvals were voided', async () => {
    await ok('people:unlock', { personId: bob, passphrase: PASS_BOB });
    expect((await fails('people:setRoles', { personId: ada, roles: ['viewer'] })).code).toBe('NOT_ALLOWED');
    await ok('people:unlock', { personId: ada, passphrase: PASS_ADA });
    expect((await fails('people:setRoles', { personId: ada, roles: ['viewer'] })).code).toBe('LAST_ADMIN');
    const revoked = await ok<{ person: { revokedAt: string | null; revokeReason: string }; approvalsVoided: number }>('people:revoke', { personId: bob, reason: 'left the company' });
    expect(revoked).toMatchObject({ approvalsVoided: 0, person: { revokeReason: 'left the company' } });
    expect(revoked.person.revokedAt).not.toBeNull();
  });
});
