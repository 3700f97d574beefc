// `profiles team set|clear` on a profile with dual control, against the project's throwaway PostgreSQL: only an
// admin (--as) may point it at a team database or take it back, each audited with them in this desk's own log;
// on the team database, nobody named is LOCKED (its control records came along, so dual control stays on there).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { runCli } from '../../../main/cli/index';
import { createAppContext } from '../../../main/context';
import { dualControlService } from '../../../main/desk/dual-control';
import { createDeskEvents } from '../../../main/desk/events';
import { composeDesk } from '../../../main/compose/desk';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { silentLogger } from '../../../main/log';
import { MIN_KDF } from '../../../main/people/person-key';
import { freshDatabase } from './cluster';

let dbUrl: string;
beforeAll(async () => {
  dbUrl = await freshDatabase(inject('postgresUrl'));
});

const home = mkdtempSync(join(tmpdir(), 'desk-team-cli-dc-'));
const keyStore = new MemoryKeyStore();
const env = { ...process.env, ADA_PASS: 'ada passphrase 1', BOB_PASS: 'bob passphrase 2' };

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['--home', home, ...args], { keyStore, env, io: { stdout: (t) => void (out += t), stderr: (t) => void (err += t), readStdin: async () => 'team-pw\n' } });
  return { code, out, err };
}
const errorOf = (r: { err: string }) => (JSON.parse(r.err) as { error: { code: string; message: string } }).error;

describe('profiles team with dual control', { timeout: 60_000 }, () => {
  let ada = '';

  it('sets up a profile with Ada (every role) and Bob (preparer)', async () => {
    expect((await cli('profiles', 'add', '--id', 'shop', '--name', 'Shop', '--base-url', 'http://127.0.0.1:9', '--merchant-code', 'M')).code).toBe(0);
    const ctx = createAppContext({ home, keyStore });
    const rt = composeDesk({ ctx, events: createDeskEvents(), log: silentLogger });
    const svc = dualControlService(rt, { kdf: MIN_KDF });
    const added = await svc.addPerson('shop', { name: 'Ada', passphrase: env.ADA_PASS });
    const bob = await svc.enroll('shop', { name: 'Bob', passphrase: env.BOB_PASS });
    await svc.setRoles('shop', bob.person.id, ['preparer'], added.session);
    ada = added.person.id;
    await rt.close();
    ctx.close();
  });

  it('points the profile at the team database only for an admin', async () => {
    const set = ['profiles', 'team', 'set', 'shop', '--url', dbUrl, '--tls', 'disable', '--password-stdin'];
    expect(errorOf(await cli('--json', ...set)).code).toBe('LOCKED');
    expect(errorOf(await cli('--json', ...set, '--as', 'Bob', '--passphrase-env', 'BOB_PASS')).code).toBe('NOT_ALLOWED');
    const r = await cli(...set, '--as', 'Ada', '--passphrase-env', 'ADA_PASS');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
  });

  it('on the team database: dual control holds there, and only an admin takes the profile back', async () => {
    expect(errorOf(await cli('--json', 'profiles', 'team', 'clear', 'shop')).code).toBe('LOCKED');
    expect(errorOf(await cli('--json', 'profiles', 'team', 'clear', 'shop', '--as', 'Bob', '--passphrase-env', 'BOB_PASS')).code).toBe('NOT_ALLOWED');
    expect((await cli('profiles', 'team', 'show', 'shop')).out).toContain('uses the team database');
    const r = await cli('profiles', 'team', 'clear', 'shop', '--as', 'Ada', '--passphrase-env', 'ADA_PASS');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const audit = JSON.parse((await cli('--json', '--profile', 'shop', 'audit', 'list', '--limit', '200')).out) as { items: { action: string; details: Record<string, unknown> }[] };
    const changes = audit.items.filter((e) => e.action === 'profile.updated').map((e) => e.details);
    expect(changes.slice(0, 2)).toEqual([
      expect.objectContaining({ person: ada, personName: 'Ada', changes: [expect.objectContaining({ field: 'teamDatabase', to: null })] }),
      expect.objectContaining({ person: ada, personName: 'Ada', changes: [expect.objectContaining({ field: 'teamDatabase', from: null })] }),
    ]);
  });
});
