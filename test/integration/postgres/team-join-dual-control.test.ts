// Finding 14 of issue 23, tried as a new user would: a profile with people and a policy is pointed at a fresh team
// database with `profiles team set`. Before, `people list` then said "Nobody yet" and `team send` paid a file with
// no approval. Now `team set` says dual control goes with the profile, `team check` carries its control records
// there and prints the root fingerprint, and a file sent there waits for its approval. A team database whose records
// start at another root is refused, and nothing is sent.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runCli } from '../../../main/cli/index';
import { createAppContext } from '../../../main/context';
import { dualControlService } from '../../../main/desk/dual-control';
import { createDeskEvents } from '../../../main/desk/events';
import { composeDesk } from '../../../main/compose/desk';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { silentLogger } from '../../../main/log';
import { MIN_KDF } from '../../../main/people/person-key';
import type { SandboxHandle } from '../../../sandbox/index';
import { sandboxConfig, startSandbox } from '../engine/setup';
import { freshDatabase } from './cluster';

let dbUrl: string;
let otherUrl: string;
let sandbox: SandboxHandle;
beforeAll(async () => {
  dbUrl = await freshDatabase(inject('postgresUrl'));
  otherUrl = await freshDatabase(inject('postgresUrl'));
  sandbox = await startSandbox(sandboxConfig());
});
afterAll(async () => {
  await sandbox?.close();
});

const home = mkdtempSync(join(tmpdir(), 'desk-team-join-'));
const keyStore = new MemoryKeyStore();
const env = { ...process.env, ADA_PASS: 'ada passphrase 1', BOB_PASS: 'bob passphrase 2' };

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(['--home', home, ...args], { keyStore, env, io: { stdout: (t) => void (out += t), stderr: (t) => void (err += t), readStdin: async () => 'team-pw\n' } });
  return { code, out, err };
}

describe('joining a team database keeps dual control on', { timeout: 120_000 }, () => {
  let fingerprint = '';

  it('sets up a single desk with Ada (every role), Bob (approver) and a policy needing one approval from 1 EUR', async () => {
    expect((await cli('sandbox-setup', '--url', sandbox.url)).code).toBe(0);
    const ctx = createAppContext({ home, keyStore });
    const rt = composeDesk({ ctx, events: createDeskEvents(), log: silentLogger });
    const svc = dualControlService(rt, { kdf: MIN_KDF });
    const profileId = ctx.profiles.currentId()!;
    const ada = await svc.addPerson(profileId, { name: 'Ada', passphrase: env.ADA_PASS });
    const bob = await svc.enroll(profileId, { name: 'Bob', passphrase: env.BOB_PASS });
    await svc.setRoles(profileId, bob.person.id, ['approver'], ada.session);
    await svc.setPolicy(profileId, { bands: { '*': [{ atLeast: '1', approvals: 1 }] }, newOrChangedPayee: 0 }, ada.session);
    fingerprint = (await svc.control(profileId)).fingerprint!;
    await rt.close();
    ctx.close();
  });

  it('team set says the control records go with the profile; team check carries them and prints the root', async () => {
    const set = await cli('profiles', 'team', 'set', 'sandbox', '--url', dbUrl, '--tls', 'disable', '--password-stdin', '--as', 'Ada', '--passphrase-env', 'ADA_PASS');
    expect(set.err).toBe('');
    expect(set.out).toContain(`Dual control is on for sandbox at this desk (root ${fingerprint})`);
    const check = await cli('profiles', 'team', 'check', 'sandbox');
    expect(check.err).toBe('');
    expect(check.code).toBe(0);
    expect(check.out).toContain(`Root fingerprint ${fingerprint} (confirmed at this desk)`);
    expect(check.out).toContain("The control records verify against this desk's pin");
    const people = await cli('people', 'list');
    expect(people.out).toMatch(/Ada .*admin/);
    expect(people.out).toMatch(/Bob .*approver/);
    const client = new pg.Client({ connectionString: dbUrl });
    await client.connect();
    try {
      expect(Number((await client.query('SELECT count(*) AS n FROM control_chain')).rows[0].n)).toBe(4);
    } finally {
      await client.end();
    }
  });

  it('team send pays nothing without the approval, and pays once Bob approved', async () => {
    const file = join(home, 'june.csv');
    writeFileSync(file, 'idPayout,amount,currencyCode,accountName,accountNumber,paymentOperatorCode,emailAddress\njoin-1,12.50,EUR,Jane Doe,DE89370400440532013000,EU_SEPA,jane@example.com\n');
    const sent = await cli('team', 'send', '--file', file, '--batch', 'june', '--timeout', '3', '--as', 'Ada', '--passphrase-env', 'ADA_PASS');
    expect(sent.out).toMatch(/june: PAUSED, 0\/1 sent/);
    expect((await cli('batch', 'status', 'june')).out).toMatch(/needs 1 approval/);
    expect(sandbox.state().payouts.map((p) => p.idPayout)).not.toContain('join-1');
    expect((await cli('approvals', 'approve', 'batch', 'june', '--as', 'Bob', '--passphrase-env', 'BOB_PASS')).code).toBe(0);
    const resumed = await cli('batch', 'resume', 'june', '--timeout', '60', '--as', 'Ada', '--passphrase-env', 'ADA_PASS');
    expect(resumed.err).toBe('');
    expect(sandbox.state().payouts.map((p) => p.idPayout)).toContain('join-1');
  });

  it('a team database whose control records start at another root is refused: nothing is sent there', async () => {
    // Someone else set dual control up on the other database first.
    const otherHome = mkdtempSync(join(tmpdir(), 'desk-team-other-'));
    const otherCtx = createAppContext({ home: otherHome, keyStore: new MemoryKeyStore() });
    otherCtx.profiles.add({ id: 'sandbox', name: 'Other', baseUrl: sandbox.url, merchantCode: 'DEMO-MERCHANT' });
    expect(otherCtx.profiles.get('sandbox').environment).toBe('TEST');
    otherCtx.profiles.update('sandbox', { teamDatabase: { url: otherUrl, tls: 'disable', caFile: null } });
    const otherRt = composeDesk({ ctx: otherCtx, events: createDeskEvents(), log: silentLogger });
    await dualControlService(otherRt, { kdf: MIN_KDF }).addPerson('sandbox', { name: 'Mallory', passphrase: 'mallory passphrase' });
    await otherRt.close();
    otherCtx.close();

    expect((await cli('profiles', 'team', 'set', 'sandbox', '--url', otherUrl, '--as', 'Ada', '--passphrase-env', 'ADA_PASS')).code).toBe(0);
    const check = await cli('profiles', 'team', 'check', 'sandbox');
    expect(check.code).toBe(1);
    expect(check.out).toMatch(/NOTHING IS SENT: The control records in the team database at .* start at root .*, not at root/);
  });
});
