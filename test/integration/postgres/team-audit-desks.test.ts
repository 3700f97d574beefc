// Which desks sign for the team (issue 23, finding 10): any database writer can add a row to audit_signers, so
// with dual control on a desk's key is the team's only once an admin registered it in the control chain, and an
// entry whose actor names a registered desk must be signed by that desk's key (main/store/postgres/audit-seal.ts). On a
// real PostgreSQL, with two desks as the app runs them and the CLI over one desk's data folder.
import { generateKeyPairSync, sign } from 'node:crypto';
import pg from 'pg';
import { afterEach, describe, expect, inject, it } from 'vitest';
import type { AuditVerification } from '../../../contract/api';
import { runCli } from '../../../main/cli/index';
import { dualControlService, type DualControlService } from '../../../main/desk/dual-control';
import { auditSignerId, auditSigningText, signedEntryHash, type AuditVerifyResult } from '../../../main/audit/chain';
import { canonicalJson } from '../../../main/audit/chain';
import type { UnlockedSession } from '../../../main/people/key-vault';
import { MIN_KDF } from '../../../main/people/person-key';
import { TeamAuditSeal, type TeamSignerView } from '../../../main/store/postgres/audit-seal';
import { freshDatabase } from './cluster';
import { openTeamAppDesk, TEAM_PROFILE, type TeamAppDesk } from './team-app-desk';

const ADA_PASS = 'ada: a long passphrase for the test';

const desks: TeamAppDesk[] = [];
afterEach(async () => {
  for (const d of desks.splice(0)) await d.close();
});

interface Team {
  url: string;
  prep: TeamAppDesk;
  sender: TeamAppDesk;
  svc: DualControlService;
  ada: UnlockedSession;
}

/** Two desks of a team; Ada sets up dual control at prep (the chain's root), and each desk has signed entries. */
async function team(): Promise<Team> {
  const url = await freshDatabase(inject('postgresUrl'));
  const prep = await openTeamAppDesk({ name: 'prep', teamUrl: url, gatewayUrl: 'http://127.0.0.1:9' });
  desks.push(prep);
  const sender = await openTeamAppDesk({ name: 'sender', teamUrl: url, gatewayUrl: 'http://127.0.0.1:9' });
  desks.push(sender);
  const svc = dualControlService(prep.runtime, { kdf: MIN_KDF });
  const { session: ada } = await svc.addPerson(TEAM_PROFILE, { name: 'Ada', passphrase: ADA_PASS });
  await sender.runtime.audit(TEAM_PROFILE, { action: 'test.step', details: { i: 1 } });
  await prep.runtime.audit(TEAM_PROFILE, { action: 'test.step', details: { i: 2 } });
  return { url, prep, sender, svc, ada };
}

async function sealOf(desk: TeamAppDesk): Promise<TeamAuditSeal> {
  const seal = await desk.runtime.auditSeal(TEAM_PROFILE);
  if (!(seal instanceof TeamAuditSeal)) throw new Error('not a team seal');
  return seal;
}

const verify = async (desk: TeamAppDesk): Promise<AuditVerifyResult> => (await sealOf(desk)).verify();
const codes = (r: AuditVerifyResult) => r.problems.map((p) => p.code);

async function signerOf(desk: TeamAppDesk, name: string): Promise<TeamSignerView> {
  const found = (await (await sealOf(desk)).desks()).find((d) => d.deskName === name);
  if (!found) throw new Error(`no signer ${name}`);
  return found;
}

async function registerAll(t: Team): Promise<void> {
  for (const name of ['prep', 'sender']) {
    const d = await signerOf(t.prep, name);
    await t.svc.registerDesk(TEAM_PROFILE, { keyId: d.keyId, publicKey: d.publicKey!, deskName: d.deskName! }, t.ada);
  }
}

/**
 * What a database writer can do without any desk's key: add a key of their own to audit_signers, under a
 * desk's name, and append entries to the chain signed with it (linked and hashed as a desk would).
 */
async function forgeEntries(url: string, deskName: string, count: number): Promise<{ keyId: string; first: number; last: number }> {
  const forger = generateKeyPairSync('ed25519');
  const spki = forger.publicKey.export({ format: 'der', type: 'spki' });
  const keyId = auditSignerId(spki);
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    await db.query('INSERT INTO audit_signers (key_id, public_key, desk_name, registered_at) VALUES ($1, $2, $3, $4)', [keyId, spki.toString('base64'), deskName, Date.now()]);
    const head = (await db.query('SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1')).rows[0] as { seq: string; hash: string };
    let prev = head.hash;
    const first = Number(head.seq) + 1;
    for (let seq = first; seq < first + count; seq++) {
      const fields = { seq, at: Date.now(), actor: `mallory@${deskName}`, action: 'payout.released', subject: `p-${seq}`, detailsJson: canonicalJson({ note: 'forged' }) };
      const hash = signedEntryHash(prev, fields, keyId);
      const signature = sign(null, Buffer.from(auditSigningText(hash)), forger.privateKey).toString('base64');
      await db.query(
        'INSERT INTO audit_log (seq, at, actor, action, subject, details_json, prev_hash, hash, key_id, signature) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)',
        [seq, fields.at, fields.actor, fields.action, fields.subject, fields.detailsJson, prev, hash, keyId, signature],
      );
      prev = hash;
    }
    return { keyId, first, last: first + count - 1 };
  } finally {
    await db.end();
  }
}

describe("the team's audit signers with dual control on", () => {
  it("reads every desk's entries as not the team's until an admin registers its key; then the log verifies at both desks", async () => {
    const t = await team();
    const before = await verify(t.prep);
    expect(before.ok).toBe(false);
    expect(codes(before)).toEqual(['UNREGISTERED_SIGNER', 'UNREGISTERED_SIGNER']);
    const prepKey = (await signerOf(t.prep, 'prep')).keyId;
    expect(before.problems.find((p) => p.message.includes(prepKey))?.message).toMatch(new RegExp(`^entries [\\d–, ]+ are signed by desk prep's key ${prepKey}, which no admin registered: they are not the team's until an admin who has compared its fingerprint with that desk registers it \\(team register-desk ${prepKey}\\)$`));
    // Said apart from tampering, and never "intact".
    const view = await t.sender.call<AuditVerification>('audit:verify');
    expect(view).toMatchObject({ ok: false, firstBrokenSeq: null });
    expect(view.message).toMatch(/^Team log: Not the team's: entr/);
    expect(view.message).not.toMatch(/Tampered|intact/);

    await registerAll(t);
    expect(await verify(t.prep)).toMatchObject({ ok: true, problems: [] });
    expect(await verify(t.sender)).toMatchObject({ ok: true, problems: [] });
    const prepView = await signerOf(t.sender, 'prep');
    expect(prepView).toMatchObject({ registered: true, keyValid: true, registration: { deskName: 'prep' }, thisDesk: false });
  });

  it('reads a signer key a database writer inserted, and the entries signed with it, as not the team\'s', async () => {
    const t = await team();
    await registerAll(t);
    expect((await verify(t.sender)).ok).toBe(true);

    const forged = await forgeEntries(t.url, 'sender', 3);
    for (const desk of [t.prep, t.sender]) {
      const result = await verify(desk);
      expect(result).toEqual({
        ok: false, entries: forged.last,
        problems: [{
          seq: forged.first, code: 'UNREGISTERED_SIGNER',
          message: `entries ${forged.first}–${forged.last} are signed by desk sender's key ${forged.keyId} (a desk sender is registered, with another key), which no admin registered: they are not the team's until an admin who has compared its fingerprint with that desk registers it (team register-desk ${forged.keyId})`,
        }],
      });
    }
    expect((await t.prep.call<AuditVerification>('audit:verify')).ok).toBe(false);
    // The desks' own entries after it still verify; the forged ones stay named.
    await t.sender.runtime.audit(TEAM_PROFILE, { action: 'test.step', details: { i: 3 } });
    expect(codes(await verify(t.prep))).toEqual(['UNREGISTERED_SIGNER']);
  });

  it('names an entry whose actor names another registered desk than the one whose key signed it', async () => {
    const t = await team();
    await registerAll(t);
    const prepKey = (await signerOf(t.prep, 'prep')).keyId;
    await t.sender.runtime.audit(TEAM_PROFILE, { actor: 'bob@sender', action: 'test.step' });
    await t.prep.runtime.audit(TEAM_PROFILE, { actor: 'ada@prep', action: 'test.step' });
    // A person, the engine and a host name no desk was registered under claim no desk.
    await t.prep.runtime.audit(TEAM_PROFILE, { actor: 'person:ada', action: 'test.step' });
    await t.prep.runtime.audit(TEAM_PROFILE, { actor: 'carol@some-laptop', action: 'test.step' });
    expect((await verify(t.sender)).ok).toBe(true);

    await t.prep.runtime.audit(TEAM_PROFILE, { actor: 'bob@sender', action: 'payout.released', subject: 'p-9' });
    const seq = (await (await t.prep.runtime.journalFor(TEAM_PROFILE)).listAudit(1))[0]!.seq;
    const result = await verify(t.sender);
    expect(result.problems).toEqual([{
      seq, code: 'ACTOR_NOT_SIGNER',
      message: `entry ${seq} says bob@sender acted, but it is signed by desk prep's key ${prepKey}, not by a key of desk sender: one desk wrote in another desk's name`,
    }]);
    expect((await t.sender.call<AuditVerification>('audit:verify')).message).toMatch(new RegExp(`^Team log: Tampered: entry ${seq} says bob@sender acted`));
  });
});

describe('team desks and team register-desk (CLI)', () => {
  it('lists the keys with their fingerprints, refuses a fingerprint that differs, and registers with an admin', async () => {
    const t = await team();
    const cli = async (...args: string[]) => {
      let out = '';
      let err = '';
      const code = await runCli(['--home', t.prep.home, ...args], {
        keyStore: t.prep.ctx.keyStore, env: { ...process.env, ADA_PASS },
        io: { stdout: (s) => void (out += s), stderr: (s) => void (err += s) },
      });
      return { code, out, err };
    };
    const listed = await cli('team', 'desks');
    expect(listed.code).toBe(0);
    const sender = await signerOf(t.prep, 'sender');
    const prep = await signerOf(t.prep, 'prep');
    expect(sender.fingerprint).toBe(sender.keyId.match(/.{4}/g)!.join(':'));
    expect(listed.out).toMatch(new RegExp(`${sender.keyId} +${sender.fingerprint} +sender +UNREGISTERED`));
    expect(listed.out).toMatch(new RegExp(`${prep.keyId} +${prep.fingerprint} +prep +UNREGISTERED .* this desk`));

    const wrong = await cli('team', 'register-desk', sender.keyId, '--as', 'Ada', '--passphrase-env', 'ADA_PASS', '--fingerprint', prep.fingerprint);
    expect(wrong.code).toBe(2);
    expect(wrong.err).toContain(`Desk sender's key listed here has fingerprint ${sender.fingerprint}, not ${prep.fingerprint}: nothing was registered`);
    expect((await signerOf(t.prep, 'sender')).registered).toBe(false);

    const done = await cli('team', 'register-desk', sender.keyId, '--as', 'Ada', '--passphrase-env', 'ADA_PASS', '--fingerprint', sender.fingerprint);
    expect(done.err).toBe('');
    expect(done.code).toBe(0);
    expect(done.out).toContain(`Registered desk sender's audit key ${sender.keyId} as the team's`);
    const json = JSON.parse((await cli('--json', 'team', 'desks')).out) as { dualControl: boolean; desks: TeamSignerView[] };
    expect(json.dualControl).toBe(true);
    expect(json.desks.map((d) => [d.deskName, d.registered])).toEqual(expect.arrayContaining([['sender', true], ['prep', false]]));

    // Only prep's entries are left unregistered.
    const result = await verify(t.sender);
    expect(codes(result)).toEqual(['UNREGISTERED_SIGNER']);
    expect(result.problems[0]!.message).toContain(`desk prep's key ${prep.keyId}`);
  });
});
