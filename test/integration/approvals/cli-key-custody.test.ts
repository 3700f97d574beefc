// Key custody, the team database and removing a profile from the CLI once dual control is on: the same rule as
// the app (main/desk/keys.ts): nobody named → LOCKED, a preparer → NOT_ALLOWED, an admin (--as, passphrase from
// an environment variable) → done and audited with them; `keys backup` also needs --second, another admin or
// approver. The environment never changes after creation, and a LIVE profile's remote team database needs
// verify-full. People are set up through the services (fast KDF); the CLI shares the data folder and keychain.
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AuditEntryView, Page } from '../../../contract/api';
import { runCli } from '../../../main/cli/index';
import { createAppContext } from '../../../main/context';
import { dualControlService, type DualControlService } from '../../../main/desk/dual-control';
import { createDeskEvents } from '../../../main/desk/events';
import { composeDesk } from '../../../main/compose/desk';
import type { DeskRuntime } from '../../../main/desk/runtime';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { silentLogger } from '../../../main/log';
import type { KeyRecord } from '../../../main/profiles/profile-schema';
import { MIN_KDF } from '../../../main/people/person-key';
import { sqliteJournalOf } from '../../unit/journal/helpers';

const home = mkdtempSync(join(tmpdir(), 'desk-cli-keys-dc-'));
const keyStore = new MemoryKeyStore();
const env = {
  ...process.env,
  ADA_PASS: 'ada passphrase 1', BOB_PASS: 'bob passphrase 2', CAROL_PASS: 'carol passphrase 3', DAN_PASS: 'dan passphrase 4',
  BACKUP_PASS: 'backup passphrase 5', MERCHANT_SECRET: 'merchant secret 6',
};

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['--home', home, ...args], { keyStore, env, io: { stdout: (t) => void (out += t), stderr: (t) => void (err += t) } });
  return { code, out, err };
}
async function json<T>(...args: string[]): Promise<T> {
  const r = await cli('--json', ...args);
  if (r.code !== 0) throw new Error(`exit ${r.code}: ${r.err}${r.out}`);
  return JSON.parse(r.out) as T;
}
/** The error code a refused command answers with (--json). */
async function refusedWith(...args: string[]): Promise<{ code: string; message: string }> {
  const r = await cli('--json', ...args);
  expect(r.code, args.join(' ')).toBe(1);
  return (JSON.parse(r.err) as { error: { code: string; message: string } }).error;
}
const audit = async (profile = 'shop') => (await json<Page<AuditEntryView>>('--profile', profile, 'audit', 'list', '--limit', '500')).items;
const keys = (profile = 'shop') => json<KeyRecord[]>('--profile', profile, 'keys', 'list');

/** The services over the same data folder and keychain, closed afterwards (as another window of the desk would). */
async function withDesk<T>(work: (rt: DeskRuntime, svc: DualControlService) => Promise<T>): Promise<T> {
  const ctx = createAppContext({ home, keyStore });
  const rt = composeDesk({ ctx, events: createDeskEvents(), log: silentLogger });
  try {
    return await work(rt, dualControlService(rt, { kdf: MIN_KDF }));
  } finally {
    await rt.close();
    ctx.close();
  }
}

const asAda = ['--as', 'Ada', '--passphrase-env', 'ADA_PASS'];
const asBob = ['--as', 'Bob', '--passphrase-env', 'BOB_PASS'];

describe('key custody from the CLI with dual control', { timeout: 120_000 }, () => {
  const people: Record<string, string> = {};

  it('works as before while the profile has no dual control', async () => {
    expect((await cli('profiles', 'add', '--id', 'shop', '--name', 'Shop', '--base-url', 'http://127.0.0.1:9', '--merchant-code', 'M')).code).toBe(0);
    expect((await cli('keys', 'generate', '--bits', '2048')).code).toBe(0);
    expect((await cli('keys', 'rotate', '--bits', '2048')).code).toBe(0);
    expect(await keys()).toHaveLength(2);
  });

  it('sets up Ada (every role), Bob (preparer) and Carol (approver) at this desk', async () => {
    await withDesk(async (_rt, svc) => {
      const ada = await svc.addPerson('shop', { name: 'Ada', passphrase: env.ADA_PASS });
      const bob = await svc.enroll('shop', { name: 'Bob', passphrase: env.BOB_PASS });
      const carol = await svc.enroll('shop', { name: 'Carol', passphrase: env.CAROL_PASS });
      await svc.setRoles('shop', bob.person.id, ['preparer'], ada.session);
      await svc.setRoles('shop', carol.person.id, ['approver'], ada.session);
      for (const s of [ada.session, bob.session, carol.session]) s.lock();
      Object.assign(people, { ada: ada.person.id, bob: bob.person.id, carol: carol.person.id });
    });
  });

  it('refuses every key and configuration change with nobody named (LOCKED) and for a preparer (NOT_ALLOWED)', async () => {
    const standby = (await keys()).find((k) => k.status === 'standby')!.keyId;
    const pem = join(home, 'refused.pem');
    writeFileSync(pem, generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
    const commands: { args: string[]; as: string[] }[] = [
      { args: ['keys', 'generate', '--bits', '2048'], as: asBob },
      { args: ['keys', 'rotate', '--bits', '2048'], as: asBob },
      { args: ['keys', 'rotate', '--to', standby], as: asBob },
      { args: ['keys', 'retire', standby], as: asBob },
      { args: ['keys', 'import', pem], as: ['--as', 'Bob', '--as-passphrase-env', 'BOB_PASS'] },
      { args: ['keys', 'backup', '--key', standby, '--out', join(home, 'refused.backup.pem'), '--passphrase-env', 'BACKUP_PASS', '--confirm-private-key-export', '--second', 'Carol', '--second-passphrase-env', 'CAROL_PASS'], as: ['--as', 'Bob', '--as-passphrase-env', 'BOB_PASS'] },
      { args: ['keys', 'secret', 'set', '--secret-env', 'MERCHANT_SECRET'], as: asBob },
      { args: ['keys', 'secret', 'delete'], as: asBob },
      { args: ['profiles', 'team', 'set', 'shop', '--url', 'postgres://mallory@db.attacker.invalid/payouts'], as: asBob },
      { args: ['profiles', 'team', 'clear', 'shop'], as: asBob },
      { args: ['profiles', 'remove', 'shop'], as: asBob },
    ];
    for (const { args, as } of commands) {
      const nobody = await refusedWith(...args);
      expect(nobody.code, args.join(' ')).toBe('LOCKED');
      expect(nobody.message).toMatch(/needs an admin: name one with --as <person>/);
      const preparer = await refusedWith(...args, ...as);
      expect(preparer.code, args.join(' ')).toBe('NOT_ALLOWED');
      expect(preparer.message).toMatch(/Bob is not an admin/);
    }
    expect(await keys()).toHaveLength(2);
    expect(existsSync(join(home, 'refused.backup.pem'))).toBe(false);
    expect((await json<{ teamDatabase: unknown }>('profiles', 'team', 'show', 'shop')).teamDatabase).toBeNull();
  });

  it('lets Ada rotate, go back to the standby key, retire, import and set the secret, each audited with her', async () => {
    const before = (await keys()).find((k) => k.status === 'active')!.keyId;
    const rotated = await json<{ active: KeyRecord; previousKeyId: string }>('keys', 'rotate', '--bits', '2048', ...asAda);
    expect(rotated.previousKeyId).toBe(before);
    expect((await json<{ active: KeyRecord }>('keys', 'rotate', '--to', before, ...asAda)).active.keyId).toBe(before);
    const retired = await json<KeyRecord>('keys', 'retire', rotated.active.keyId, ...asAda);
    expect(retired.status).toBe('retired');
    const pem = join(home, 'ada.pem');
    writeFileSync(pem, generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());
    const imported = await json<KeyRecord>('keys', 'import', pem, '--as', 'Ada', '--as-passphrase-env', 'ADA_PASS');
    expect((await cli('keys', 'secret', 'set', '--secret-env', 'MERCHANT_SECRET', '--use', ...asAda)).code).toBe(0);
    expect((await cli('keys', 'secret', 'delete', ...asAda)).code).toBe(0);
    const log = await audit();
    const byAda = { person: people.ada, personName: 'Ada' };
    expect(log.find((e) => e.action === 'key.rotated' && e.subject === rotated.active.keyId)?.details).toMatchObject(byAda);
    expect(log.find((e) => e.action === 'key.activated' && e.subject === before)?.details).toMatchObject(byAda);
    expect(log.find((e) => e.action === 'key.retired' && e.subject === rotated.active.keyId)?.details).toMatchObject(byAda);
    expect(log.find((e) => e.action === 'key.imported' && e.subject === imported.keyId)?.details).toMatchObject(byAda);
    expect(log.find((e) => e.action === 'merchant-secret.set')?.details).toMatchObject(byAda);
    // Opting in and out of the secret is a profile change made by Ada too.
    expect(log.filter((e) => e.action === 'profile.updated').slice(0, 2).map((e) => e.details)).toEqual([expect.objectContaining(byAda), expect.objectContaining(byAda)]);
    expect(JSON.stringify(log)).not.toContain(env.ADA_PASS);
  });

  it('exports the merchant key only with a second person, another admin or approver with their own passphrase', async () => {
    const active = (await keys()).find((k) => k.status === 'active')!.keyId;
    const out = join(home, 'backup.pem');
    const backup = ['keys', 'backup', '--key', active, '--out', out, '--passphrase-env', 'BACKUP_PASS', '--confirm-private-key-export', '--as', 'Ada', '--as-passphrase-env', 'ADA_PASS'];
    expect((await refusedWith(...backup)).code).toBe('SECOND_PERSON_NEEDED');
    expect((await refusedWith(...backup, '--second', 'Ada', '--second-passphrase-env', 'ADA_PASS')).message).toMatch(/Ada cannot be their own second person/);
    expect((await refusedWith(...backup, '--second', 'Bob', '--second-passphrase-env', 'BOB_PASS')).code).toBe('NOT_ALLOWED');
    expect((await refusedWith(...backup, '--second', 'Carol', '--second-passphrase-env', 'ADA_PASS')).code).toBe('WRONG_PASSPHRASE');
    // Without their passphrase, a second person is a usage error (never read from argv).
    expect((await cli(...backup, '--second', 'Carol')).code).toBe(2);
    expect(existsSync(out)).toBe(false);
    expect((await cli(...backup, '--second', 'Carol', '--second-passphrase-env', 'CAROL_PASS')).code).toBe(0);
    expect(readFileSync(out, 'utf8')).toContain('BEGIN ENCRYPTED PRIVATE KEY');
    const entry = (await audit()).find((e) => e.action === 'key.backed-up' && e.subject === active);
    expect(entry?.details).toMatchObject({ person: people.ada, personName: 'Ada', secondPerson: people.carol, secondPersonName: 'Carol' });
  });

  it('refuses a change of environment on every door of the CLI, and keeps the profile', async () => {
    const edit = await refusedWith('profiles', 'edit', 'shop', '--environment', 'LIVE');
    expect(edit).toEqual({ code: 'ENVIRONMENT_FIXED', message: 'Profile "Shop" is TEST: the environment is fixed when a profile is created; create a new profile for LIVE' });
    // Even by an admin, even with an https address.
    expect((await refusedWith('profiles', 'edit', 'shop', '--environment', 'LIVE', '--base-url', 'https://gw.example.com')).code).toBe('ENVIRONMENT_FIXED');
    expect((await json<{ environment: string; baseUrl: string }>('profiles', 'show')).environment).toBe('TEST');
    // The same environment is no change.
    expect((await cli('profiles', 'edit', 'shop', '--environment', 'TEST', '--rate-limit', '12')).code).toBe(0);
  });

  it('lets Ada point the profile at a team database, audited with her', async () => {
    expect((await cli('profiles', 'team', 'set', 'shop', '--url', 'postgres://desk@127.0.0.1:9/payouts', '--tls', 'disable', ...asAda)).code).toBe(0);
    const changed = await withDesk(async (rt) => {
      const own = await rt.ownLogFor('shop');
      return own!.journal.listAudit(50);
    });
    expect(changed.find((e) => e.action === 'profile.updated')?.details).toMatchObject({ person: people.ada, personName: 'Ada', changes: [expect.objectContaining({ field: 'teamDatabase' })] });
  });

  it('removes a profile with dual control only for its admin, audited with them', async () => {
    expect((await cli('profiles', 'add', '--id', 'other', '--name', 'Other', '--base-url', 'http://127.0.0.1:9', '--merchant-code', 'O')).code).toBe(0);
    const dan = await withDesk(async (_rt, svc) => {
      const added = await svc.addPerson('other', { name: 'Dan', passphrase: env.DAN_PASS });
      added.session.lock();
      return added.person.id;
    });
    expect((await refusedWith('profiles', 'remove', 'other')).code).toBe('LOCKED');
    expect((await refusedWith('profiles', 'remove', 'other', '--as', 'Dan', '--passphrase-env', 'ADA_PASS')).code).toBe('WRONG_PASSPHRASE');
    expect((await cli('profiles', 'remove', 'other', '--as', 'Dan', '--passphrase-env', 'DAN_PASS')).code).toBe(0);
    const removed = await withDesk(async (rt) => (await sqliteJournalOf(rt, 'other')).listAudit(50).find((e) => e.action === 'profile.removed'));
    expect(removed?.details).toMatchObject({ person: dan, personName: 'Dan', name: 'Other' });
  });
});

describe('a LIVE profile\'s team database from the CLI', () => {
  it('needs verify-full unless the database is on this machine', async () => {
    expect((await cli('profiles', 'add', '--id', 'live', '--name', 'Live', '--base-url', 'https://gw.example.com', '--merchant-code', 'L', '--environment', 'LIVE')).code).toBe(0);
    const require = await refusedWith('profiles', 'team', 'set', 'live', '--url', 'postgres://desk@db.example.com/payouts', '--tls', 'require');
    expect(require.code).toBe('PROFILE_INVALID');
    expect(require.message).toMatch(/cannot reach its team database db\.example\.com with tls "require".*man in the middle.*use verify-full/);
    expect((await refusedWith('profiles', 'team', 'set', 'live', '--url', 'postgres://desk@db.example.com/payouts', '--tls', 'disable')).message).toContain('clear text');
    expect((await json<{ teamDatabase: unknown }>('profiles', 'team', 'show', 'live')).teamDatabase).toBeNull();
    expect((await cli('profiles', 'team', 'set', 'live', '--url', 'postgres://desk@localhost/payouts', '--tls', 'require')).code).toBe(0);
    expect((await cli('profiles', 'team', 'set', 'live', '--url', 'postgres://desk@db.example.com/payouts', '--tls', 'verify-full')).code).toBe(0);
  });
});
