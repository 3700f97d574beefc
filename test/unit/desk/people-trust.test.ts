// People and the control records through the desk services (a real journal and runtime, an in-memory keychain):
// an admin can no longer make a second pair of eyes of their own (finding 5), wrong passphrases back off and are
// audited (finding 13), grants of approver wait for a second admin when the policy says so, people from before
// the control records are sealed into them by an admin, and a desk's pin keeps dual control on.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAppContext, type AppContext } from '../../../main/context';
import { dualControlService, type DualControlService } from '../../../main/desk/dual-control';
import { createDeskEvents } from '../../../main/desk/events';
import { createDeskRuntime, type DeskRuntime } from '../../../main/desk/runtime';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { silentLogger } from '../../../main/log';
import { PersonKeyVault } from '../../../main/people/key-vault';
import { MIN_KDF } from '../../../main/people/person-key';
import { FREE_TRIES, unlockWaitMs } from '../../../main/people/unlock-throttle';

const PROFILE = 'shop';
let home: string;
let ctx: AppContext;
let rt: DeskRuntime;
let now: number;
let svc: DualControlService;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'people-trust-'));
  ctx = createAppContext({ home, keyStore: new MemoryKeyStore() });
  ctx.profiles.add({ id: PROFILE, name: 'Shop', baseUrl: 'https://gateway.example.com', merchantCode: 'M1', environment: 'LIVE' });
  rt = createDeskRuntime({ ctx, events: createDeskEvents(), log: silentLogger });
  now = Date.now();
  svc = dualControlService(rt, { kdf: MIN_KDF, now: () => now });
});

afterEach(async () => {
  await rt.close();
  ctx.close();
  rmSync(home, { recursive: true, force: true });
});

const actions = async () => (await (await rt.journalFor(PROFILE)).listAudit(200)).map((e) => e.action);


describe('people enrol at their own desk', () => {
  it('only the first person is added by someone else; an admin cannot make a second person with a passphrase they typed', async () => {
    const { session: ada } = await svc.addPerson(PROFILE, { name: 'Ada', passphrase: 'ada passphrase 1' });
    await expect(svc.addPerson(PROFILE, { name: 'Bob', passphrase: 'typed by Ada 1' })).rejects.toMatchObject({ code: 'NOT_ALLOWED', message: expect.stringMatching(/enrol at their own desk/) });
    // Bob enrols himself (his key made here, signed by him), and Ada grants him approver.
    const { person: bob } = await svc.enroll(PROFILE, { name: 'Bob', passphrase: 'bob passphrase 1' });
    expect(bob.roles).toEqual(['viewer']);
    const { person, proposal } = await svc.setRoles(PROFILE, bob.id, ['approver'], ada);
    expect(proposal).toBeNull();
    expect(person.roles).toEqual(['approver']);
    expect((await svc.control(PROFILE)).records).toBe(3);
  });

  it('with the policy\'s secondAdmin on and two admins, a grant of approver waits for the second admin\'s signature', async () => {
    const { session: ada } = await svc.addPerson(PROFILE, { name: 'Ada', passphrase: 'ada passphrase 1' });
    const { person: cleo, session: cleoSession } = await svc.enroll(PROFILE, { name: 'Cleo', passphrase: 'cleo passphrase 1' });
    await svc.setRoles(PROFILE, cleo.id, ['admin'], ada);
    await svc.setPolicy(PROFILE, { bands: {}, newOrChangedPayee: 0, secondAdmin: true }, ada);
    const { person: bob } = await svc.enroll(PROFILE, { name: 'Bob', passphrase: 'bob passphrase 1' });
    const first = await svc.setRoles(PROFILE, bob.id, ['approver'], ada);
    expect(first.proposal).toMatchObject({ needs: 2, signedBy: ['Ada'] });
    expect(first.person.roles).toEqual(['viewer']);
    // Ada cannot sign it twice; Cleo's signature puts it in force.
    await expect(svc.cosign(PROFILE, first.proposal!.hash, ada)).rejects.toMatchObject({ code: 'ALREADY_DECIDED' });
    const done = await svc.cosign(PROFILE, first.proposal!.hash, cleoSession);
    expect(done.added).toBe(true);
    expect((await svc.listPeople(PROFILE)).find((p) => p.id === bob.id)?.roles).toEqual(['approver']);
  });
});

describe('wrong passphrases back off', () => {
  it(`after ${FREE_TRIES} wrong tries the next must wait, doubling each time, and each failure is audited`, async () => {
    const { person } = await svc.addPerson(PROFILE, { name: 'Ada', passphrase: 'ada passphrase 1' });
    for (let i = 0; i < FREE_TRIES; i++) await expect(svc.unlock(PROFILE, person.id, 'wrong guess 12345')).rejects.toMatchObject({ code: 'WRONG_PASSPHRASE' });
    await expect(svc.unlock(PROFILE, person.id, 'ada passphrase 1')).rejects.toMatchObject({ code: 'THROTTLED', message: expect.stringMatching(/try again in 1 s/) });
    now += unlockWaitMs(FREE_TRIES);
    await expect(svc.unlock(PROFILE, person.id, 'wrong guess 12345')).rejects.toMatchObject({ code: 'WRONG_PASSPHRASE' });
    await expect(svc.unlock(PROFILE, person.id, 'ada passphrase 1')).rejects.toMatchObject({ code: 'THROTTLED', message: expect.stringMatching(/try again in 2 s/) });
    now += unlockWaitMs(FREE_TRIES + 1);
    const session = await svc.unlock(PROFILE, person.id, 'ada passphrase 1');
    expect(session.locked).toBe(false);
    // The count starts again after a success.
    await expect(svc.unlock(PROFILE, person.id, 'wrong guess 12345')).rejects.toMatchObject({ code: 'WRONG_PASSPHRASE' });
    // Every try that failed is audited, the ones refused for waiting too (with their code).
    const failed = (await (await rt.journalFor(PROFILE)).listAudit(200)).filter((e) => e.action === 'person.unlock-failed');
    expect(failed.map((e) => (e.details as { code: string }).code).sort()).toEqual([...Array(FREE_TRIES + 2).fill('WRONG_PASSPHRASE'), 'THROTTLED', 'THROTTLED'].sort());
  });
});

describe('people from before the control records', () => {
  it('are signed into them once by an admin among them; until then nothing may be prepared or approved', async () => {
    // Rows as the previous version wrote them, with keys made at this desk.
    const vault = new PersonKeyVault(ctx.keyStore, { kdf: MIN_KDF });
    const ada = await vault.create('ada', 'ada passphrase 1');
    const bob = await vault.create('bob', 'bob passphrase 1');
    const db = (await rt.journalFor(PROFILE) as unknown as { db: import('better-sqlite3').Database }).db;
    db.prepare('INSERT INTO people (id, name, public_key, created_at) VALUES (?, ?, ?, ?)').run('ada', 'Ada', ada.publicKey, now - 1000);
    db.prepare('INSERT INTO people (id, name, public_key, created_at) VALUES (?, ?, ?, ?)').run('bob', 'Bob', bob.publicKey, now - 1000);
    for (const role of ['preparer', 'approver', 'sender', 'viewer', 'admin']) db.prepare('INSERT INTO role_grants (person_id, role, granted_at) VALUES (?, ?, ?)').run('ada', role, now - 1000);
    db.prepare("INSERT INTO role_grants (person_id, role, granted_at) VALUES ('bob', 'approver', ?)").run(now - 1000);

    expect(await svc.control(PROFILE)).toMatchObject({ enforced: true, needsSeal: true, problem: { code: 'NOT_SEALED' } });
    const adaSession = await svc.unlock(PROFILE, 'ada', 'ada passphrase 1');
    rt.setSession(PROFILE, adaSession);
    await expect(svc.setPolicy(PROFILE, { bands: {}, newOrChangedPayee: 0 }, adaSession)).rejects.toMatchObject({ code: 'CONTROL_BROKEN' });
    const bobSession = await svc.unlock(PROFILE, 'bob', 'bob passphrase 1');
    await expect(svc.seal(PROFILE, bobSession)).rejects.toMatchObject({ code: 'NOT_ALLOWED' });

    const sealed = await svc.seal(PROFILE, adaSession);
    expect(sealed).toMatchObject({ enforced: true, problem: null, needsSeal: false, confirmed: true, records: 1 });
    expect((await svc.listPeople(PROFILE)).map((p) => [p.name, p.roles])).toEqual([['Ada', ['preparer', 'approver', 'sender', 'viewer', 'admin']], ['Bob', ['approver']]]);
    expect(await actions()).toContain('control.sealed');
  });
});
