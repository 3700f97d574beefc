// The team's audit log signed per desk, on a real PostgreSQL with real Ed25519 keys: each desk signs what it
// writes with a key of its own keychain and pins what it has seen there (main/store/postgres/audit-seal.ts). What
// someone who can write the database does to the log (an entry edited, the chain recomputed, a key of their
// own registered to re-sign history, the tail cut) is named by the desks whose anchors cover it.
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, inject, it } from 'vitest';
import type { AuditVerification } from '../../../contract/api';
import { createAppContext } from '../../../main/context';
import { auditSignerId, auditSigningText, entryHash, signedEntryHash, type AuditRow, type AuditVerifyResult, type EntryFields } from '../../../main/audit/chain';
import { PgJournal } from '../../../main/store/postgres/journal';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { silentLogger } from '../../../main/log';
import { readTeamAuditAnchor, readTeamId, TeamAuditSeal, teamAuditAnchorAccount, teamAuditSignerAccount } from '../../../main/store/postgres/audit-seal';
import { openTeamStores } from '../../../main/store/postgres/profile-stores';
import type { ProfileStores } from '../../../main/store/profile-stores';
import { payout } from '../../unit/journal/helpers';
import { freshDatabase } from './cluster';
import { openTeamAppDesk, TEAM_PROFILE, type TeamAppDesk } from './team-app-desk';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function poolFor(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  cleanups.push(() => pool.end());
  return pool;
}

interface Desk {
  name: string;
  pool: pg.Pool;
  journal: PgJournal;
  seal: TeamAuditSeal;
  keyStore: MemoryKeyStore;
}

/** A desk of the team as team-stores.ts opens it: audit entries refused until its key is loaded, then signed. */
async function desk(url: string, name: string, keyStore = new MemoryKeyStore()): Promise<Desk> {
  const pool = poolFor(url);
  const journal = await PgJournal.open(pool, { deskId: `${name}:${randomUUID()}` });
  cleanups.push(() => journal.close());
  journal.requireAuditSigner();
  const seal = await TeamAuditSeal.open({ pool, journal, keyStore, log: silentLogger, deskName: name });
  cleanups.push(async () => {
    await seal.flush();
    seal.close();
  });
  return { name, pool, journal, seal, keyStore };
}

/** A desk from before the log was signed (or a tool without a keychain): writes the unkeyed chain. */
async function unsignedDesk(url: string): Promise<PgJournal> {
  const journal = await PgJournal.open(poolFor(url), { deskId: `old:${randomUUID()}` });
  cleanups.push(() => journal.close());
  return journal;
}

async function write(d: Desk, count: number, prefix = d.name): Promise<void> {
  for (let i = 1; i <= count; i++) await d.journal.audit({ actor: `ada@${d.name}`, action: 'test.step', subject: `${prefix}-${i}`, details: { i } });
}

/** Someone with database access, past the append-only triggers (a superuser may switch them off). */
async function asDba<T>(url: string, fn: (db: pg.Client) => Promise<T>): Promise<T> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    await db.query('SET session_replication_role = replica');
    return await fn(db);
  } finally {
    await db.end();
  }
}

/** An audit_log row of the team database (its signature column always read). */
type Row = AuditRow & { signature: string | null };

async function rows(db: pg.Pool | pg.Client): Promise<Row[]> {
  return (await db.query('SELECT * FROM audit_log ORDER BY seq')).rows.map((r) => ({ ...r, seq: Number(r.seq), at: Number(r.at) }) as Row);
}

const fields = (r: Row): EntryFields => ({ seq: r.seq, at: r.at, actor: r.actor, action: r.action, subject: r.subject, detailsJson: r.details_json });

/**
 * Rewrites entries from `from` on: `change` edits a row (contents, key id, signature), then each hash is
 * recomputed (signed rows with their key id committed, as audit-log.ts does; the formula is public) and the
 * chain relinked. `signWith` re-signs every rewritten signed row with that key (someone's own key).
 */
async function rewrite(db: pg.Client, from: number, change: (r: Row) => Row, signWith?: { id: string; key: KeyObject }): Promise<void> {
  const all = await rows(db);
  let prev = all.find((r) => r.seq === from - 1)?.hash ?? '0'.repeat(64);
  for (const old of all.filter((r) => r.seq >= from)) {
    const r = { ...change(old), prev_hash: prev };
    if (signWith && r.key_id !== null) r.key_id = signWith.id;
    r.hash = r.key_id ? signedEntryHash(r.prev_hash, fields(r), r.key_id) : entryHash(r.prev_hash, fields(r), null);
    if (signWith && r.key_id !== null) r.signature = sign(null, Buffer.from(auditSigningText(r.hash)), signWith.key).toString('base64');
    await db.query('UPDATE audit_log SET details_json = $1, prev_hash = $2, hash = $3, key_id = $4, signature = $5 WHERE seq = $6', [r.details_json, r.prev_hash, r.hash, r.key_id, r.signature, r.seq]);
    prev = r.hash;
  }
}

const codes = (result: AuditVerifyResult) => result.problems.map((p) => [p.seq, p.code]);

describe("the team's audit log, signed per desk", () => {
  it('two desks write and each verifies the whole log intact; each key and anchor stays in its own keychain, never in the database', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const prep = await desk(url, 'prep');
    const sender = await desk(url, 'sender');
    await write(prep, 2);
    await write(sender, 2);
    await prep.journal.insertPayment('payout', payout('tp-1'));
    await write(sender, 1, 'late');

    const log = await rows(prep.pool);
    expect(log.map((r) => r.action)).toEqual(['audit.signer-added', 'audit.signer-added', 'test.step', 'test.step', 'test.step', 'test.step', 'payout.queued', 'test.step']);
    expect(log.every((r) => r.key_id !== null && r.signature !== null)).toBe(true);
    expect(await prep.seal.verify()).toEqual({ ok: true, entries: 8, problems: [] });
    expect(await sender.seal.verify()).toEqual({ ok: true, entries: 8, problems: [] });

    const teamId = await readTeamId(prep.pool);
    const signers = (await prep.pool.query('SELECT key_id, desk_name FROM audit_signers ORDER BY registered_at, key_id')).rows as { key_id: string; desk_name: string }[];
    expect(signers.map((s) => s.desk_name).sort()).toEqual(['prep', 'sender']);
    for (const d of [prep, sender]) {
      const stored = (await d.keyStore.get(teamAuditSignerAccount(teamId)))!;
      const key = createPrivateKey({ key: Buffer.from(stored, 'base64'), format: 'der', type: 'pkcs8' });
      expect(key.asymmetricKeyType).toBe('ed25519');
      const keyId = auditSignerId(createPublicKey(key).export({ format: 'der', type: 'spki' }));
      expect(signers.find((s) => s.key_id === keyId)?.desk_name).toBe(d.name);
      expect(log.find((r) => r.action === 'audit.signer-added' && r.key_id === keyId)?.details_json).toContain(`"deskName":"${d.name}"`);
      // The anchor names the newest entry this desk wrote or verified, and pins both desks' keys.
      const anchor = (await readTeamAuditAnchor(d.keyStore, teamId))!;
      expect(anchor).toMatchObject({ seq: 8, hash: log[7]!.hash, sealedFrom: 1 });
      // Keys it knew when it first anchored may have signed anything; sender's key, first seen by prep once prep
      // had anchored entry 1, cannot have signed entry 1.
      const id = (name: string) => signers.find((s) => s.desk_name === name)!.key_id;
      expect(anchor.signers).toEqual(d === prep ? { [id('prep')]: 0, [id('sender')]: 1 } : { [id('prep')]: 0, [id('sender')]: 0 });
      // Nothing of the private key is anywhere in the team database.
      const jwk = key.export({ format: 'jwk' });
      const secrets = [stored, jwk.d!, Buffer.from(jwk.d!, 'base64url').toString('hex'), Buffer.from(jwk.d!, 'base64url').toString('base64')];
      expect(await databaseHolding(url, secrets)).toEqual([]);
    }
  });

  it('names an entry edited in the database: contents only, the chain recomputed by hand, or recomputed unsigned', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const prep = await desk(url, 'prep');
    const sender = await desk(url, 'sender');
    await write(prep, 3);
    await write(sender, 3);
    expect((await sender.seal.verify()).ok).toBe(true);
    const edited = (r: Row) => (r.seq === 4 ? { ...r, details_json: '{"i":999}' } : r);

    await asDba(url, (db) => db.query(`UPDATE audit_log SET details_json = '{"i":999}' WHERE seq = 4`));
    let result = await prep.seal.verify();
    expect(result.problems[0]).toEqual({ seq: 4, code: 'HASH_MISMATCH', message: 'entry 4 was changed after it was written: its hash does not match its contents' });

    // The chain recomputed from entry 4 on (each entry keeps its key id and signature): the signatures fail.
    await asDba(url, (db) => rewrite(db, 4, edited));
    result = await prep.seal.verify();
    const prepKey = (await prep.pool.query(`SELECT key_id FROM audit_signers WHERE desk_name = 'prep'`)).rows[0].key_id as string;
    expect(result.problems[0]).toEqual({ seq: 4, code: 'BAD_SIGNATURE', message: `entry 4's signature does not verify under desk prep's key ${prepKey}: the entry was changed (and its hash recomputed) after it was signed` });
    // prep anchored its own newest entry, 5.
    expect(codes(result)).toEqual([[4, 'BAD_SIGNATURE'], [5, 'BAD_SIGNATURE'], [5, 'ANCHOR_MISMATCH'], [6, 'BAD_SIGNATURE'], [7, 'BAD_SIGNATURE'], [8, 'BAD_SIGNATURE']]);

    // Signatures stripped and the chain recomputed as the old unkeyed one: unsigned after signed entries.
    await asDba(url, (db) => rewrite(db, 4, (r) => ({ ...edited(r), key_id: null, signature: null })));
    result = await sender.seal.verify();
    expect(result.problems[0]).toMatchObject({ seq: 4, code: 'UNSEALED', message: expect.stringMatching(/^entry 4 carries no signature although every entry from the first signed one on is signed/) });
    expect(result.ok).toBe(false);
  });

  it('catches a key registered by someone with database access who re-signs rewritten entries, at each desk whose anchor covers them', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const prep = await desk(url, 'prep');
    const sender = await desk(url, 'sender');
    await write(prep, 3); // entries 3–5
    await write(sender, 2); // entries 6–7
    await prep.seal.flush();
    await sender.seal.flush();
    const prepAnchor = (await readTeamAuditAnchor(prep.keyStore, await readTeamId(prep.pool)))!;
    expect(prepAnchor.seq).toBe(5);

    // A key of their own, registered as if it were the sender desk's, long ago; entries 4 on rewritten and signed with it.
    const forger = generateKeyPairSync('ed25519');
    const forgerSpki = forger.publicKey.export({ format: 'der', type: 'spki' });
    const forgerId = auditSignerId(forgerSpki);
    await asDba(url, async (db) => {
      await db.query(`INSERT INTO audit_signers (key_id, public_key, desk_name, registered_at) VALUES ($1, $2, 'sender', 0)`, [forgerId, forgerSpki.toString('base64')]);
      await rewrite(db, 4, (r) => (r.seq === 4 ? { ...r, details_json: '{"i":"paid to me"}' } : r), { id: forgerId, key: forger.privateKey });
    });

    const atPrep = await prep.seal.verify();
    expect(atPrep.problems[0]).toEqual({
      seq: 4, code: 'SIGNER_AFTER_ANCHOR',
      message: `entry 4 is signed with desk sender's key ${forgerId}, which was registered after the ${prep.keyStore.description} anchored entry 5: entries up to 5 were rewritten and signed with a key added later`,
    });
    // Entries 6 and 7 lie after prep's anchor: signed by a registered key, they pass there; the anchored entry does not.
    expect(codes(atPrep)).toEqual([[4, 'SIGNER_AFTER_ANCHOR'], [5, 'SIGNER_AFTER_ANCHOR'], [5, 'ANCHOR_MISMATCH']]);
    const atSender = await sender.seal.verify();
    expect(codes(atSender)).toEqual([[4, 'SIGNER_AFTER_ANCHOR'], [5, 'SIGNER_AFTER_ANCHOR'], [6, 'SIGNER_AFTER_ANCHOR'], [7, 'SIGNER_AFTER_ANCHOR'], [7, 'ANCHOR_MISMATCH']]);
    // A failed verification does not move the anchor onto the rewritten log.
    expect((await readTeamAuditAnchor(prep.keyStore, await readTeamId(prep.pool)))!.seq).toBe(5);

    // What a desk cannot tell: one that first meets the log after the rewrite trusts what it finds.
    const newcomer = await desk(url, 'newcomer');
    expect((await newcomer.seal.verify()).ok).toBe(true);
  });

  it("finds the tail cut below a desk's anchor TRUNCATED, and a later desk's own entries no cover for it", async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const prep = await desk(url, 'prep');
    await write(prep, 5); // entries 2–6
    await asDba(url, (db) => db.query('DELETE FROM audit_log WHERE seq > 3'));
    expect(await prep.seal.verify()).toEqual({
      ok: false, entries: 3,
      problems: [{ seq: 4, code: 'TRUNCATED', message: `the log ends at entry 3 but the ${prep.keyStore.description} anchored entry 6: entries 4–6 were removed (or the team's audit log was restored from an older copy)` }],
    });
    // Writing on does not hide the cut: entries 4–6 are now signed by a key that came after prep anchored 6.
    const sender = await desk(url, 'sender');
    await write(sender, 3);
    expect(codes(await prep.seal.verify())).toEqual([[4, 'SIGNER_AFTER_ANCHOR'], [5, 'SIGNER_AFTER_ANCHOR'], [6, 'SIGNER_AFTER_ANCHOR'], [6, 'ANCHOR_MISMATCH']]);
  });

  it('verifies a log from before signing as the unkeyed chain it is; the first signed entry commits to its head', async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const old = await unsignedDesk(url);
    await old.audit({ action: 'old.entry', details: { i: 1 } });
    await old.insertPayment('payout', payout('before-1'));
    await old.audit({ action: 'old.entry', details: { i: 3 } });
    const before = await rows(poolFor(url));
    expect(before.every((r) => r.key_id === null && r.signature === null)).toBe(true);

    const prep = await desk(url, 'prep');
    await write(prep, 2);
    const log = await rows(prep.pool);
    const added = log[3]!;
    expect(added).toMatchObject({ seq: 4, action: 'audit.signer-added', prev_hash: before[2]!.hash });
    expect(JSON.parse(added.details_json)).toEqual({ deskName: 'prep', keyId: added.key_id, previousHead: { seq: 3, hash: before[2]!.hash, signed: false } });
    expect(await prep.seal.verify()).toEqual({ ok: true, entries: 6, problems: [] });
    expect((await readTeamAuditAnchor(prep.keyStore, await readTeamId(prep.pool)))).toMatchObject({ seq: 6, sealedFrom: 4 });

    // A journal without a desk's key now writes no audit entry (it would read as forged); other writes go on.
    await expect(old.audit({ action: 'old.entry' })).rejects.toThrow(/^Nothing was written: the team's audit log is signed by its desks' keys/);
    await expect(old.insertPayment('payout', payout('after-1'))).rejects.toThrow(/Nothing was written/);
    expect(await old.getPayment('payout', 'after-1')).toBeUndefined();
    await old.insertBalanceSnapshots([{ currencyCode: 'EUR', availableMinor: 100, reservedMinor: 0 }]);

    // The unsigned part is still checked: an old entry edited, then the old chain recomputed to hide it.
    await asDba(url, (db) => db.query(`UPDATE audit_log SET details_json = '{"i":9}' WHERE seq = 3`));
    expect(codes(await prep.seal.verify())).toEqual([[3, 'HASH_MISMATCH']]);
    await asDba(url, async (db) => {
      const r = (await rows(db))[2]!;
      await db.query('UPDATE audit_log SET hash = $1 WHERE seq = 3', [entryHash(r.prev_hash, fields(r), null)]);
    });
    expect(codes(await prep.seal.verify())).toEqual([[4, 'CHAIN_BROKEN']]);
  });

  it("refuses a desk's audit entries until its key is read from the keychain, and says why; other writes are not held", async () => {
    const url = await freshDatabase(inject('postgresUrl'));
    const home = mkdtempSync(join(tmpdir(), 'team-audit-'));
    const keyStore = new MemoryKeyStore();
    const ctx = createAppContext({ home, keyStore, logger: silentLogger });
    cleanups.push(async () => {
      ctx.close();
      rmSync(home, { recursive: true, force: true });
    });
    ctx.profiles.add({ id: 'team', name: 'Team', baseUrl: 'http://127.0.0.1:9', merchantCode: 'M' });
    ctx.profiles.update('team', { teamDatabase: { url, tls: 'disable', caFile: null } });
    const stores: ProfileStores = await openTeamStores({ ctx, profile: ctx.profiles.get('team'), log: silentLogger, deskName: 'prep' });
    cleanups.push(() => stores.close());

    await expect(stores.journal.audit({ action: 'test.step' })).rejects.toThrow("Nothing was written: this desk's key for the team's audit log is still being read from the keychain");
    await expect(stores.journal.insertPayment('payout', payout('early-1'))).rejects.toThrow(/Nothing was written/);
    expect(await stores.journal.getPayment('payout', 'early-1')).toBeUndefined();
    await stores.journal.insertBalanceSnapshots([{ currencyCode: 'EUR', availableMinor: 5, reservedMinor: 0 }]);
    expect(await stores.journal.latestBalances()).toHaveLength(1);

    stores.sealFailed('the audit key could not be read from the OS keychain: it is locked');
    await expect(stores.journal.audit({ action: 'test.step' })).rejects.toThrow('Nothing was written: the audit key could not be read from the OS keychain: it is locked');

    const seal = await stores.openSeal(keyStore, silentLogger, { profileId: 'team' });
    cleanups.push(async () => seal.close());
    await stores.journal.audit({ action: 'test.step' });
    expect(await seal.verify()).toEqual({ ok: true, entries: 2, problems: [] });
    const teamId = await readTeamId(poolFor(url));
    expect(await keyStore.get(teamAuditSignerAccount(teamId))).toMatch(/^[A-Za-z0-9+/]+=*$/);
  });

  it('keeps one key per team in a keychain, and sets a lost anchor again on record', async () => {
    const keyStore = new MemoryKeyStore();
    const first = await desk(await freshDatabase(inject('postgresUrl')), 'prep', keyStore);
    const second = await desk(await freshDatabase(inject('postgresUrl')), 'prep', keyStore);
    const [idA, idB] = [await readTeamId(first.pool), await readTeamId(second.pool)];
    expect(idA).not.toBe(idB);
    expect(await keyStore.get(teamAuditSignerAccount(idA))).not.toBe(await keyStore.get(teamAuditSignerAccount(idB)));
    const keyOf = async (d: Desk) => (await d.pool.query('SELECT key_id FROM audit_signers')).rows.map((r) => r.key_id as string);
    expect(await keyOf(first)).not.toEqual(await keyOf(second));

    // The anchor lost (the key kept): opened again, the desk anchors anew and says so in the log.
    await write(first, 2);
    await first.seal.flush();
    await keyStore.delete(teamAuditAnchorAccount(idA));
    expect(codes(await first.seal.verify())).toEqual([[null, 'ANCHOR_MISSING']]);
    const again = await desk(first.pool.options.connectionString!, 'prep', keyStore);
    expect((await again.journal.listAudit(1))[0]).toMatchObject({ seq: 4, action: 'audit.reanchored', details: { anchoredSeq: 3 } });
    expect(await again.seal.verify()).toEqual({ ok: true, entries: 4, problems: [] });
    // Same key: registered once.
    expect(await keyOf(again)).toEqual(await keyOf(first));
  });
});

describe('audit:verify at a team desk', () => {
  const appDesks: TeamAppDesk[] = [];
  afterEach(async () => {
    for (const d of appDesks.splice(0)) await d.close();
  });

  it('answers in plain words: all entries intact, then the first entry changed and whose key it fails under', async () => {
    const teamUrl = await freshDatabase(inject('postgresUrl'));
    const prep = await openTeamAppDesk({ name: 'prep', teamUrl, gatewayUrl: 'http://127.0.0.1:9' });
    appDesks.push(prep);
    const sender = await openTeamAppDesk({ name: 'sender', teamUrl, gatewayUrl: 'http://127.0.0.1:9' });
    appDesks.push(sender);
    for (let i = 1; i <= 3; i++) await prep.runtime.audit(TEAM_PROFILE, { action: 'test.step', details: { i } });
    await sender.runtime.audit(TEAM_PROFILE, { action: 'test.step', details: { i: 4 } });

    const intact = await sender.call<AuditVerification>('audit:verify');
    expect(intact).toMatchObject({ ok: true, checked: 6, firstBrokenSeq: null, message: "Team log: All 6 audit entries are intact. This desk's own log: No audit entries yet" });
    expect(await prep.call<AuditVerification>('audit:verify')).toMatchObject({ ok: true, checked: 6 });

    const prepKey = (await teamKeyOf(teamUrl, 'prep'))!;
    await asDba(teamUrl, (db) => rewrite(db, 3, (r) => (r.seq === 3 ? { ...r, details_json: '{"i":100}' } : r)));
    const tampered = await sender.call<AuditVerification>('audit:verify');
    expect(tampered).toMatchObject({ ok: false, checked: 6, firstBrokenSeq: 3 });
    expect(tampered.message).toMatch(new RegExp(`^Team log: Tampered: entry 3's signature does not verify under desk prep's key ${prepKey}: the entry was changed \\(and its hash recomputed\\) after it was signed \\(and \\d+ more problems\\)\\. This desk's own log: No audit entries yet$`));
  });
});

async function teamKeyOf(url: string, deskName: string): Promise<string | undefined> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    return (await db.query('SELECT key_id FROM audit_signers WHERE desk_name = $1', [deskName])).rows[0]?.key_id as string | undefined;
  } finally {
    await db.end();
  }
}

/** Tables of the team database whose rows hold any of `secrets` as text. */
async function databaseHolding(url: string, secrets: string[]): Promise<string[]> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const tables = (await db.query<{ name: string }>(`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`)).rows;
    const found: string[] = [];
    for (const { name } of tables) {
      const hit = await db.query(`SELECT 1 FROM "${name}" t WHERE t::text LIKE ANY($1::text[]) LIMIT 1`, [secrets.map((s) => `%${s}%`)]);
      if (hit.rowCount) found.push(name);
    }
    return found;
  } finally {
    await db.end();
  }
}

