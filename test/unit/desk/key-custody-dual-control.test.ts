// Key custody and where a profile's records are, over the real IPC handlers (MemoryKeyStore, a real journal):
// with dual control off nothing changes; once it is on, key generation (beyond the first), import, rotation,
// retirement, the deprecated secret, the team database and removing the profile need an unlocked admin (LOCKED
// with nobody, NOT_ALLOWED for a preparer), each audited with the admin; a key export needs a second person of
// dual control too. The environment never changes after creation.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntryView, Channel, IpcHandlerMap, KeyView, Page, Result } from '../../../contract/api';
import { createAppContext, type AppContext } from '../../../main/context';
import { bindActiveProfile, createDeskServices } from '../../../main/desk';
import type { DialogPort } from '../../../main/desk/dialogs';
import { dualControlService, type DualControlService } from '../../../main/desk/dual-control';
import { createDeskEvents } from '../../../main/desk/events';
import { composeDesk } from '../../../main/compose/desk';
import type { DeskRuntime } from '../../../main/desk/runtime';
import { createIpcHandlers } from '../../../main/ipc/handlers';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { silentLogger } from '../../../main/log';
import type { UnlockedSession } from '../../../main/people/key-vault';
import { MIN_KDF } from '../../../main/people/person-key';
import { sqliteJournalOf } from '../journal/helpers';

const PROFILE = 'shop';
const PASS = { ada: 'ada-long-passphrase', bob: 'bob-long-passphrase', carol: 'carol-long-passphrase' };
const BACKUP_PASS = 'backup passphrase 123';

let home: string;
let ctx: AppContext;
let rt: DeskRuntime;
let svc: DualControlService;
let handlers: IpcHandlerMap;
const saveAnswers: string[] = [];
const dialogs: DialogPort = {
  async chooseOpenFile() {
    return null;
  },
  async chooseSavePath() {
    return saveAnswers.shift() ?? null;
  },
};

const call = async (channel: Channel, args?: unknown): Promise<Result<unknown>> => handlers[channel](args) as Promise<Result<unknown>>;
async function ok<T>(channel: Channel, args?: unknown): Promise<T> {
  const r = await call(channel, args);
  if (!r.ok) throw new Error(`${channel}: ${r.error.code} ${r.error.message}`);
  return r.data as T;
}
async function refusal(channel: Channel, args?: unknown): Promise<{ code: string; message: string }> {
  const r = await call(channel, args);
  if (r.ok) throw new Error(`${channel} was accepted`);
  return r.error;
}
const audit = async (): Promise<AuditEntryView[]> => (await ok<Page<AuditEntryView>>('audit:list', { limit: 1000 })).items;
const newest = async (action: string): Promise<AuditEntryView | undefined> => (await audit()).find((e) => e.action === action);
const keys = () => ok<KeyView[]>('keys:list', {});

function keyFile(name: string): string {
  const path = join(home, name);
  writeFileSync(path, generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
  return path;
}
const keyToken = async (name: string) => (await ok<{ token: string }>('app:fileDropped', { purpose: 'key', path: keyFile(name) })).token;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'desk-key-dc-'));
  ctx = createAppContext({ home, keyStore: new MemoryKeyStore() });
  ctx.profiles.add({ id: PROFILE, name: 'Shop', baseUrl: 'http://127.0.0.1:9', merchantCode: 'M1' });
  ctx.profiles.setCurrent(PROFILE);
  rt = composeDesk({ ctx, events: createDeskEvents(), log: silentLogger });
  svc = dualControlService(rt, { kdf: MIN_KDF });
  handlers = createIpcHandlers(bindActiveProfile(createDeskServices(rt, { name: 'Payout Desk', version: '0', platform: 'linux', demoAvailable: false, dialogs }, null), ctx));
});
afterAll(async () => {
  await rt.close();
  ctx.close();
  rmSync(home, { recursive: true, force: true });
});

describe('key custody without dual control', { timeout: 60_000 }, () => {
  it('is as before: nobody needs to be unlocked to make, rotate, retire, import or back up a key', async () => {
    const first = await ok<KeyView>('keys:generate', { modulusBits: 2048 });
    const rotated = await ok<{ active: KeyView; previous: KeyView | null }>('keys:rotate', {});
    expect(rotated.previous?.id).toBe(first.id);
    await ok('keys:retire', { keyId: first.id });
    await ok('keys:import', { file: await keyToken('before.pem') });
    saveAnswers.push(join(home, 'before.backup.pem'));
    expect(await ok('keys:backup', { keyId: rotated.active.id, passphrase: BACKUP_PASS, confirmed: true })).toMatchObject({ saved: true });
    await ok('keys:setSecret', { secret: 'merchant secret 1' });
    await ok('keys:clearSecret', {});
    // Nobody acted as a person: no person is named in the entries.
    expect((await newest('key.backed-up'))?.details).not.toHaveProperty('person');
  });
});

describe('key custody and the team database once dual control is on', { timeout: 60_000 }, () => {
  let ada: UnlockedSession;
  let bob: UnlockedSession;
  let adaId = '';
  let carolId = '';
  let bobId = '';
  let standby = '';

  it('sets up dual control: Ada (every role), Bob a preparer, Carol an approver', async () => {
    const added = await svc.addPerson(PROFILE, { name: 'Ada', passphrase: PASS.ada });
    ada = added.session;
    adaId = added.person.id;
    const b = await svc.enroll(PROFILE, { name: 'Bob', passphrase: PASS.bob });
    bob = b.session;
    bobId = b.person.id;
    await svc.setRoles(PROFILE, bobId, ['preparer'], ada);
    const c = await svc.enroll(PROFILE, { name: 'Carol', passphrase: PASS.carol });
    c.session.lock();
    carolId = c.person.id;
    await svc.setRoles(PROFILE, carolId, ['approver'], ada);
    expect((await rt.controlFor(PROFILE)).enforced).toBe(true);
    standby = (await keys()).find((k) => k.status === 'standby')!.id;
  });

  const attempts = async (): Promise<[Channel, unknown][]> => [
    ['keys:generate', { modulusBits: 2048 }],
    ['keys:import', { file: await keyToken('later.pem') }],
    ['keys:rotate', {}],
    ['keys:retire', { keyId: standby }],
    ['keys:backup', { keyId: standby, passphrase: BACKUP_PASS, confirmed: true, second: { personId: carolId, passphrase: PASS.carol } }],
    ['keys:setSecret', { secret: 'merchant secret 2' }],
    ['keys:clearSecret', {}],
    ['settings:setTeamDatabase', { url: 'postgres://mallory@db.attacker.invalid/payouts', tls: 'verify-full' }],
    ['settings:clearTeamDatabase', {}],
    ['profiles:remove', { profileId: PROFILE }],
    // Where the signed token requests go, for which merchant, how they are signed, the largest payout.
    ['profiles:update', { profileId: PROFILE, baseUrl: 'https://gateway.attacker.invalid' }],
    ['profiles:update', { profileId: PROFILE, merchantCode: 'ANOTHER' }],
    ['settings:update', { useDeprecatedSecret: true }],
    ['settings:update', { maxAmountMinor: 99_999_999 }],
  ];

  it('refuses each with nobody unlocked (LOCKED), changing nothing', async () => {
    rt.setSession(PROFILE, null);
    const before = await keys();
    for (const [channel, args] of await attempts()) {
      const error = await refusal(channel, args);
      expect(error.code, channel).toBe('LOCKED');
      expect(error.message, channel).toMatch(/needs an unlocked admin/);
    }
    expect(await keys()).toEqual(before);
    expect(ctx.profiles.get(PROFILE).teamDatabase).toBeNull();
    expect(ctx.profiles.find(PROFILE)).toBeDefined();
  });

  it('refuses each for a preparer (NOT_ALLOWED), changing nothing', async () => {
    rt.setSession(PROFILE, bob);
    const before = await keys();
    for (const [channel, args] of await attempts()) {
      const error = await refusal(channel, args);
      expect(error.code, channel).toBe('NOT_ALLOWED');
      expect(error.message, channel).toMatch(/Bob is not an admin/);
    }
    expect(await keys()).toEqual(before);
    expect(ctx.profiles.find(PROFILE)?.teamDatabase).toBeNull();
  });

  it('lets an unlocked admin rotate, retire, generate, import and set the secret, each audited with the admin', async () => {
    const unlocked = await svc.unlock(PROFILE, adaId, PASS.ada);
    rt.setSession(PROFILE, unlocked);
    const rotated = await ok<{ active: KeyView; previous: KeyView | null }>('keys:rotate', {});
    await ok('keys:retire', { keyId: rotated.previous!.id });
    const made = await ok<KeyView>('keys:generate', { modulusBits: 2048 });
    const imported = await ok<KeyView>('keys:import', { file: await keyToken('admin.pem') });
    await ok('keys:setSecret', { secret: 'merchant secret 3' });
    await ok('keys:clearSecret', {});
    const log = await audit();
    const byAda = { person: adaId, personName: 'Ada' };
    expect(log.find((e) => e.action === 'key.rotated' && e.subject === rotated.active.id)?.details).toMatchObject(byAda);
    expect(log.find((e) => e.action === 'key.retired' && e.subject === rotated.previous!.id)?.details).toMatchObject(byAda);
    expect(log.find((e) => e.action === 'key.generated' && e.subject === made.id)?.details).toMatchObject(byAda);
    expect(log.find((e) => e.action === 'key.imported' && e.subject === imported.id)?.details).toMatchObject(byAda);
    expect(log.find((e) => e.action === 'merchant-secret.set')?.details).toMatchObject(byAda);
    expect(log.find((e) => e.action === 'merchant-secret.cleared')?.details).toMatchObject(byAda);
  });

  it('exports the merchant key only with a second person: an admin or approver other than the admin, with their own passphrase', async () => {
    const active = (await keys()).find((k) => k.status === 'active')!.id;
    const backup = (second?: { personId: string; passphrase: string }) =>
      call('keys:backup', { keyId: active, passphrase: BACKUP_PASS, confirmed: true, ...(second ? { second } : {}) });
    const refusedWith = async (second: { personId: string; passphrase: string } | undefined, code: string, message: RegExp) => {
      const r = await backup(second);
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error.code).toBe(code);
        expect(r.error.message).toMatch(message);
      }
    };
    saveAnswers.length = 0;
    await refusedWith(undefined, 'SECOND_PERSON_NEEDED', /needs a second person/);
    await refusedWith({ personId: adaId, passphrase: PASS.ada }, 'SECOND_PERSON_NEEDED', /Ada cannot be their own second person/);
    await refusedWith({ personId: bobId, passphrase: PASS.bob }, 'NOT_ALLOWED', /Bob is not an admin or approver/);
    await refusedWith({ personId: carolId, passphrase: 'not carol at all' }, 'WRONG_PASSPHRASE', /./);
    expect((await audit()).find((e) => e.action === 'person.unlock-failed')?.subject).toBe(carolId);
    expect((await audit()).some((e) => e.action === 'key.backed-up' && e.subject === active)).toBe(false);

    const target = join(home, 'two-people.backup.pem');
    saveAnswers.push(target);
    expect(await ok('keys:backup', { keyId: active, passphrase: BACKUP_PASS, confirmed: true, second: { personId: carolId, passphrase: PASS.carol } })).toMatchObject({ saved: true, path: target });
    expect(readFileSync(target, 'utf8')).toContain('BEGIN ENCRYPTED PRIVATE KEY');
    const entry = (await audit()).find((e) => e.action === 'key.backed-up' && e.subject === active);
    expect(entry?.details).toMatchObject({ person: adaId, personName: 'Ada', secondPerson: carolId, secondPersonName: 'Carol' });
    // Carol's presence was proved by an unlock, audited as hers; her passphrase is nowhere in the log.
    expect((await audit()).find((e) => e.action === 'person.unlocked')?.subject).toBe(carolId);
    expect(JSON.stringify(await audit())).not.toContain(PASS.carol);
  });

  it('lets the admin point the profile at a team database and back, audited with the admin, even once that database cannot be reached', async () => {
    // Unlocked while the records can be read (setSession locks whoever it replaces).
    const bobAgain = await svc.unlock(PROFILE, bobId, PASS.bob);
    const adaAgain = await svc.unlock(PROFILE, adaId, PASS.ada);
    // Nothing listens there: the admin is then checked against this desk's own copy of the control records.
    const set = await ok<{ config: unknown }>('settings:setTeamDatabase', { url: 'postgres://desk@127.0.0.1:9/payouts', tls: 'disable' });
    expect(set.config).toMatchObject({ url: 'postgres://desk@127.0.0.1:9/payouts' });
    rt.setSession(PROFILE, bobAgain);
    expect((await refusal('settings:clearTeamDatabase', {})).code).toBe('NOT_ALLOWED');
    rt.setSession(PROFILE, null);
    expect((await refusal('settings:clearTeamDatabase', {})).code).toBe('LOCKED');
    expect(ctx.profiles.get(PROFILE).teamDatabase).not.toBeNull();
    rt.setSession(PROFILE, adaAgain);
    await ok('settings:clearTeamDatabase', {});
    expect(ctx.profiles.get(PROFILE).teamDatabase).toBeNull();
    const changes = (await audit()).filter((e) => e.action === 'profile.updated');
    expect(changes.slice(0, 2).map((e) => e.details)).toEqual([
      expect.objectContaining({ person: adaId, changes: [expect.objectContaining({ field: 'teamDatabase', to: null })] }),
      expect.objectContaining({ person: adaId, changes: [expect.objectContaining({ field: 'teamDatabase', from: null })] }),
    ]);
  });

  it('refuses any change of environment, whoever is unlocked, and keeps the profile as it was', async () => {
    const error = await refusal('profiles:update', { profileId: PROFILE, environment: 'LIVE' });
    expect(error.code).toBe('ENVIRONMENT_FIXED');
    expect(error.message).toBe('Profile "Shop" is TEST: the environment is fixed when a profile is created; create a new profile for LIVE');
    expect(ctx.profiles.get(PROFILE).environment).toBe('TEST');
    // Naming the environment it has is no change.
    expect(await ok('profiles:update', { profileId: PROFILE, environment: 'TEST', name: 'Shop EU' })).toMatchObject({ environment: 'TEST', name: 'Shop EU' });
  });

  it('lets the admin remove the profile, audited with the admin in its own journal', async () => {
    await ok('profiles:remove', { profileId: PROFILE });
    expect(ctx.profiles.find(PROFILE)).toBeUndefined();
    const journal = await sqliteJournalOf(rt, PROFILE);
    const removed = journal.listAudit(20).find((e) => e.action === 'profile.removed');
    expect(removed?.details).toMatchObject({ person: adaId, personName: 'Ada', name: 'Shop EU' });
  });
});
