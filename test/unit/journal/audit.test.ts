import { afterEach, describe, expect, it } from 'vitest';
import { openJournal } from '../../../main/journal';
import { tempJournal, type TempJournal } from './helpers';

let t: TempJournal;
afterEach(() => t?.dispose());

// Tampering needs the append-only triggers out of the way, as someone editing the file would do.
function dropGuards(): void {
  t.journal.db.exec('DROP TRIGGER audit_log_no_update; DROP TRIGGER audit_log_no_delete;');
}

function writeFive(): void {
  for (let i = 1; i <= 5; i++) t.journal.audit({ actor: 'user', action: 'test.step', subject: `s${i}`, details: { i } });
}

describe('audit log', () => {
  it('verifies an untouched chain, also after reopening the file', () => {
    t = tempJournal();
    writeFive();
    expect(t.journal.verifyAudit()).toEqual({ ok: true, entries: 5, problems: [] });
    t.journal.close();
    const again = openJournal(t.file);
    expect(again.verifyAudit().ok).toBe(true);
    again.close();
  });

  it('refuses updates and deletes from the app itself', () => {
    t = tempJournal();
    writeFive();
    expect(() => t.journal.db.exec("UPDATE audit_log SET actor = 'x' WHERE seq = 2")).toThrow(/append-only/);
    expect(() => t.journal.db.exec('DELETE FROM audit_log WHERE seq = 2')).toThrow(/append-only/);
  });

  it('finds an edited entry', () => {
    t = tempJournal();
    writeFive();
    dropGuards();
    t.journal.db.exec(`UPDATE audit_log SET details_json = '{"i":99}' WHERE seq = 3`);
    const result = t.journal.verifyAudit();
    expect(result.ok).toBe(false);
    expect(result.problems).toContainEqual(expect.objectContaining({ seq: 3, code: 'HASH_MISMATCH' }));
  });

  it('finds a deleted entry in the middle', () => {
    t = tempJournal();
    writeFive();
    dropGuards();
    t.journal.db.exec('DELETE FROM audit_log WHERE seq = 2');
    expect(t.journal.verifyAudit().problems).toContainEqual(expect.objectContaining({ seq: 3, code: 'CHAIN_BROKEN' }));
  });

  it('finds the newest entry deleted, through the head kept apart from the log', () => {
    t = tempJournal();
    writeFive();
    dropGuards();
    t.journal.db.exec('DELETE FROM audit_log WHERE seq = 5');
    const result = t.journal.verifyAudit();
    expect(result.ok).toBe(false);
    expect(result.problems).toEqual([expect.objectContaining({ code: 'HEAD_MISMATCH', message: expect.stringMatching(/newest entries were removed/) })]);
  });

  it('finds an inserted entry even when its own hash was computed correctly', () => {
    t = tempJournal();
    writeFive();
    dropGuards();
    // Move entries 3..5 up by one and forge a valid-looking entry 3 chained after 2.
    t.journal.db.exec('UPDATE audit_log SET seq = seq + 10 WHERE seq >= 3; UPDATE audit_log SET seq = seq - 9 WHERE seq >= 13;');
    const two = t.journal.db.prepare('SELECT hash FROM audit_log WHERE seq = 2').get() as { hash: string };
    t.journal.db.prepare("INSERT INTO audit_log (seq, at, actor, action, subject, details_json, prev_hash, hash) VALUES (3, 1, 'mallory', 'x', NULL, '{}', ?, ?)").run(two.hash, 'f'.repeat(64));
    const result = t.journal.verifyAudit();
    expect(result.ok).toBe(false);
    expect(result.problems.map((p) => p.code)).toEqual(expect.arrayContaining(['HASH_MISMATCH', 'CHAIN_BROKEN']));
  });

  it('drops secret-looking fields from entry details', () => {
    t = tempJournal();
    const e = t.journal.audit({ actor: 'user', action: 'keys.rotated', details: { fingerprint: 'ab:cd', privateKeyPem: '-----BEGIN', accessToken: 'eyJ' } });
    expect(e.details).toEqual({ fingerprint: 'ab:cd' });
    expect(t.journal.verifyAudit().ok).toBe(true);
  });
});
