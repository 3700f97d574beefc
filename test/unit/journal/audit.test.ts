import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { auditKeyId, type AuditAnchor, type AuditKey, type AuditTrust } from '../../../main/audit/chain';
import { deskActor } from '../../../main/audit/actor';
import { openJournal } from '../../../main/store/sqlite';
import { rollBackToSchema3, tempJournal, type TempJournal } from './helpers';

let t: TempJournal;
afterEach(() => t?.dispose());

const newKey = (): AuditKey => {
  const key = randomBytes(32);
  return { id: auditKeyId(key), key };
};
const KEY = newKey();
const trusted = (anchor?: AuditAnchor | null): AuditTrust => ({ keys: new Map([[KEY.id, KEY.key]]), anchor });

// Tampering needs the append-only triggers out of the way, as someone editing the file would do.
function dropGuards(): void {
  t.journal.db.exec('DROP TRIGGER audit_log_no_update; DROP TRIGGER audit_log_no_delete;');
}

function writeFive(): void {
  for (let i = 1; i <= 5; i++) t.journal.audit({ actor: 'user', action: 'test.step', subject: `s${i}`, details: { i } });
}

/** A sealed journal with five entries and the anchor the keychain would hold after them. */
function sealedFive(): AuditAnchor {
  t = tempJournal();
  t.journal.useAuditKey(KEY);
  writeFive();
  const { head } = t.journal.auditState();
  return { seq: head.seq, hash: head.hash, sealedFrom: 1 };
}

const firstProblem = (trust: AuditTrust) => t.journal.verifyAudit(trust).problems[0];

describe('sealed audit log', () => {
  it('verifies an untouched chain, also after reopening the file with the key', () => {
    const anchor = sealedFive();
    expect(t.journal.verifyAudit(trusted(anchor))).toEqual({ ok: true, entries: 5, problems: [] });
    t.journal.close();
    const again = openJournal(t.file);
    expect(again.verifyAudit(trusted(anchor)).ok).toBe(true);
    again.close();
  });

  it('refuses updates and deletes from the app itself', () => {
    sealedFive();
    expect(() => t.journal.db.exec("UPDATE audit_log SET actor = 'x' WHERE seq = 2")).toThrow(/append-only/);
    expect(() => t.journal.db.exec('DELETE FROM audit_log WHERE seq = 2')).toThrow(/append-only/);
  });

  it('names an edited entry', () => {
    const anchor = sealedFive();
    dropGuards();
    t.journal.db.exec(`UPDATE audit_log SET details_json = '{"i":99}' WHERE seq = 3`);
    expect(firstProblem(trusted(anchor))).toMatchObject({ seq: 3, code: 'HASH_MISMATCH', message: expect.stringMatching(/entry 3 was changed after it was written/) });
  });

  it('names a deleted entry in the middle', () => {
    const anchor = sealedFive();
    dropGuards();
    t.journal.db.exec('DELETE FROM audit_log WHERE seq = 2');
    expect(firstProblem(trusted(anchor))).toMatchObject({ seq: 2, code: 'ENTRIES_MISSING', message: 'entry 2 is missing: entry 3 follows entry 1' });
  });

  it('names the first entry cut from the tail, by the anchor kept in the keychain, even with the file head rewritten', () => {
    const anchor = sealedFive();
    dropGuards();
    const three = t.journal.db.prepare('SELECT hash FROM audit_log WHERE seq = 3').get() as { hash: string };
    t.journal.db.exec('DELETE FROM audit_log WHERE seq > 3');
    // A careful editor fixes the in-file head too: only the keychain's anchor still knows.
    t.journal.db.prepare("UPDATE meta SET value = ? WHERE key = 'audit_head'").run(`3:${three.hash}`);
    const result = t.journal.verifyAudit(trusted(anchor));
    expect(result.ok).toBe(false);
    expect(result.problems).toEqual([
      { seq: 4, code: 'TRUNCATED', message: 'the log ends at entry 3 but the keychain anchored entry 5: entries 4–5 were removed (or the journal was restored from an older copy)' },
    ]);
  });

  it('names the first entry of a chain recomputed without the key', () => {
    const anchor = sealedFive();
    dropGuards();
    // Entry 3 edited, then 3..5 sealed again with a key of the forger's own under the real key's id.
    const forged = randomBytes(32);
    t.journal.db.exec(`UPDATE audit_log SET details_json = '{"i":99}' WHERE seq = 3`);
    const rows = t.journal.db.prepare('SELECT * FROM audit_log WHERE seq >= 3 ORDER BY seq').all() as { seq: number }[];
    expect(rows).toHaveLength(3);
    t.journal.close();
    // Re-seal by re-appending through a journal holding the forger's key: rows 3..5 removed first.
    const db = openJournal(t.file);
    db.db.exec('DELETE FROM audit_log WHERE seq >= 3');
    db.db.prepare("UPDATE meta SET value = (SELECT seq || ':' || hash FROM audit_log WHERE seq = 2) WHERE key = 'audit_head'").run();
    db.useAuditKey({ id: KEY.id, key: forged });
    for (let i = 3; i <= 5; i++) db.audit({ actor: 'user', action: 'test.step', subject: `s${i}`, details: { i: i === 3 ? 99 : i } });
    const result = db.verifyAudit(trusted(anchor));
    db.close();
    expect(result.problems[0]).toMatchObject({ seq: 3, code: 'HASH_MISMATCH', message: expect.stringMatching(/recomputed without the audit key/) });
  });

  it('names the first entry stripped of its seal when the whole chain is recomputed unkeyed', () => {
    const anchor = sealedFive();
    t.journal.close();
    // The forger rebuilds the log as an unkeyed chain from scratch, head and all.
    const db = openJournal(t.file);
    db.db.exec('DROP TRIGGER audit_log_no_delete; DELETE FROM audit_log; DELETE FROM meta WHERE key = \'audit_head\';');
    for (let i = 1; i <= 5; i++) db.audit({ actor: 'user', action: 'test.step', subject: `s${i}`, details: { i } });
    const result = db.verifyAudit(trusted(anchor));
    db.close();
    expect(result.ok).toBe(false);
    expect(result.problems[0]).toMatchObject({ seq: 1, code: 'UNSEALED', message: expect.stringMatching(/entry 1 carries no seal although every entry from entry 1 on is sealed/) });
    expect(result.problems.map((p) => p.code)).toContain('ANCHOR_MISMATCH');
  });

  it('finds an inserted entry even when its own hash was computed correctly', () => {
    const anchor = sealedFive();
    dropGuards();
    // Move entries 3..5 up by one and forge an entry 3 chained after 2.
    t.journal.db.exec('UPDATE audit_log SET seq = seq + 10 WHERE seq >= 3; UPDATE audit_log SET seq = seq - 9 WHERE seq >= 13;');
    const two = t.journal.db.prepare('SELECT hash FROM audit_log WHERE seq = 2').get() as { hash: string };
    t.journal.db.prepare("INSERT INTO audit_log (seq, at, actor, action, subject, details_json, prev_hash, hash, key_id) VALUES (3, 1, 'mallory', 'x', NULL, '{}', ?, ?, ?)").run(two.hash, 'f'.repeat(64), KEY.id);
    const result = t.journal.verifyAudit(trusted(anchor));
    expect(result.problems[0]).toMatchObject({ seq: 3, code: 'HASH_MISMATCH' });
    expect(result.problems.map((p) => p.code)).toEqual(expect.arrayContaining(['CHAIN_BROKEN', 'ANCHOR_MISMATCH']));
  });

  it('says the key is missing, not that the log was changed, when the keychain lacks it', () => {
    const anchor = sealedFive();
    const result = t.journal.verifyAudit({ keys: new Map(), anchor, keychain: 'OS keychain (service test)' });
    expect(result.ok).toBe(false);
    expect(result.problems).toEqual([
      { seq: 1, code: 'KEY_MISSING', message: `entries 1–5 were sealed with audit key ${KEY.id}, which the OS keychain (service test) does not hold (the journal comes from another machine, or the keychain was wiped): they cannot be checked here` },
    ]);
    // Without the anchor too: still no word of tampering.
    expect(t.journal.verifyAudit({ keys: new Map(), anchor: null }).problems.map((p) => p.code)).toEqual(['KEY_MISSING', 'ANCHOR_MISSING']);
  });

  it('refuses an unsealed entry once the log is sealed, and one before the key is loaded on a desk journal', () => {
    sealedFive();
    t.journal.close();
    const bare = openJournal(t.file);
    expect(() => bare.audit({ action: 'x' })).toThrow(/sealed with a key from the OS keychain/);
    bare.close();
    const desk = openJournal(t.file);
    desk.requireAuditKey();
    expect(() => desk.audit({ action: 'x' })).toThrow(/still being read from the keychain/);
    desk.close();
    t.journal = openJournal(t.file);
  });

  it('drops secret-looking fields from entry details', () => {
    t = tempJournal();
    t.journal.useAuditKey(KEY);
    const e = t.journal.audit({ action: 'keys.rotated', details: { fingerprint: 'ab:cd', privateKeyPem: '-----BEGIN', accessToken: 'eyJ', passphrase: 'hunter2hunter2', secret: 's' } });
    expect(e.details).toEqual({ fingerprint: 'ab:cd' });
    expect(e.actor).toBe(deskActor());
    expect(t.journal.verifyAudit(trusted()).ok).toBe(true);
  });
});

describe('an unkeyed audit log from before sealing', () => {
  /** A journal file as the app before sealing left it: schema 3, no key column, five unkeyed entries. */
  function oldJournal(): void {
    t = tempJournal();
    writeFive();
    rollBackToSchema3(t.journal.db);
    t.journal.close();
    t.journal = openJournal(t.file);
  }

  it('is migrated: verified once, then sealed from an audit.rekeyed entry that commits to its head', () => {
    oldJournal();
    expect(t.journal.journalId()).toMatch(/^[0-9a-f]{32}$/);
    const oldHead = t.journal.auditState().head;
    expect(oldHead).toMatchObject({ seq: 5, keyId: null });
    t.journal.useAuditKey(KEY);
    const [rekeyed] = t.journal.listAudit(1);
    expect(rekeyed).toMatchObject({
      seq: 6, action: 'audit.rekeyed', actor: deskActor(), prevHash: oldHead.hash,
      details: { keyId: KEY.id, previousKeyId: null, previousHead: { seq: 5, hash: oldHead.hash }, previousChainVerified: true, previousChainProblem: null },
    });
    t.journal.audit({ action: 'test.after' });
    expect(t.journal.auditState().firstSealed).toBe(6);
    expect(t.journal.verifyAudit(trusted({ ...t.journal.auditState().head, sealedFrom: 6 })).ok).toBe(true);
    // Loading the key again (next start) adds nothing.
    t.journal.useAuditKey(KEY);
    expect(t.journal.listAudit(1)[0]?.action).toBe('test.after');
  });

  it('records a broken old chain in the rekeyed entry, and still reports it', () => {
    oldJournal();
    t.journal.db.exec(`DROP TRIGGER audit_log_no_update; UPDATE audit_log SET details_json = '{"i":42}' WHERE seq = 2`);
    t.journal.useAuditKey(KEY);
    expect(t.journal.listAudit(1)[0]?.details).toMatchObject({ previousChainVerified: false, previousChainProblem: 'entry 2 was changed after it was written' });
    expect(t.journal.verifyAudit(trusted()).problems).toEqual([expect.objectContaining({ seq: 2, code: 'HASH_MISMATCH' })]);
  });

  it('cannot have its old part recomputed without the key: the rekeyed entry names the old head', () => {
    oldJournal();
    t.journal.useAuditKey(KEY);
    t.journal.close();
    // Edit entry 4 and recompute the unkeyed chain 4..5 (no key needed for that part), head and all.
    const forger = openJournal(t.file);
    forger.db.exec('DROP TRIGGER audit_log_no_delete; DROP TRIGGER audit_log_no_update;');
    const rekeyed = forger.db.prepare('SELECT * FROM audit_log WHERE seq = 6').get() as Record<string, unknown>;
    forger.db.exec("DELETE FROM audit_log WHERE seq >= 4; UPDATE meta SET value = (SELECT seq || ':' || hash FROM audit_log WHERE seq = 3) WHERE key = 'audit_head'");
    forger.audit({ actor: 'user', action: 'test.step', subject: 's4', details: { i: 400 } });
    forger.audit({ actor: 'user', action: 'test.step', subject: 's5', details: { i: 5 } });
    forger.db.prepare('INSERT INTO audit_log (seq, at, actor, action, subject, details_json, prev_hash, hash, key_id) VALUES (@seq, @at, @actor, @action, @subject, @details_json, @prev_hash, @hash, @key_id)').run(rekeyed);
    const result = forger.verifyAudit(trusted());
    forger.close();
    t.journal = openJournal(t.file);
    expect(result.problems[0]).toMatchObject({ seq: 6, code: 'CHAIN_BROKEN', message: 'entry 6 does not follow entry 5: an entry before it was removed, inserted or changed' });
  });
});
