// The journal id pinned per profile in the keychain (main/store/sqlite/audit-seal.ts). The id is read from the file,
// which anyone who can write the file can change: a log rewritten without the audit key under a new id would
// otherwise get a fresh key and anchor, an `audit.rekeyed` entry, and verify intact (issue 23, finding 9).
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditSeal, auditAnchorAccount, auditKeyAccount, forgetJournalPin, journalPinAccount, readAuditAnchor } from '../../../main/store/sqlite/audit-seal';
import { type AuditVerifyResult } from '../../../main/audit/chain';
import { openJournal } from '../../../main/store/sqlite';
import { entryHash, GENESIS_HASH, type AuditRow } from '../../../main/audit/chain';
import { MemoryKeyStore } from '../../../main/keys/key-store';
import { silentLogger } from '../../../main/log';
import { tempJournal, type TempJournal } from './helpers';

const PROFILE = 'shop';
let t: TempJournal;
let seals: AuditSeal[] = [];
afterEach(() => {
  for (const s of seals) s.close();
  seals = [];
  t?.dispose();
});

/** Opens the profile's journal file as the runtime does: entries refused until the seal is loaded. */
async function openSealed(store: MemoryKeyStore, profileId: string | null = PROFILE): Promise<AuditSeal> {
  t.journal.requireAuditKey();
  const seal = await AuditSeal.open(t.journal, store, silentLogger, profileId);
  seals.push(seal);
  return seal;
}

async function closeJournal(): Promise<void> {
  for (const s of seals) {
    await s.flush();
    s.close();
  }
  seals = [];
  t.journal.close();
}

/**
 * What the finding's script did, with the file and without the keychain: the audit log rewritten as the
 * unkeyed chain (entry `edit` changed, every hash recomputed, the head in meta to match) and the journal's
 * id replaced by a new one. Returns the new id.
 */
function rewriteUnkeyed(file: string, edit: number): string {
  const db = new Database(file);
  try {
    db.exec('DROP TRIGGER IF EXISTS audit_log_no_update; DROP TRIGGER IF EXISTS audit_log_no_delete;');
    const rows = db.prepare('SELECT * FROM audit_log ORDER BY seq').all() as AuditRow[];
    let prev = GENESIS_HASH;
    for (const r of rows) {
      const detailsJson = r.seq === edit ? '{"paidTo":"me"}' : r.details_json;
      const hash = entryHash(prev, { seq: r.seq, at: r.at, actor: r.actor, action: r.action, subject: r.subject, detailsJson }, null);
      db.prepare('UPDATE audit_log SET details_json = ?, prev_hash = ?, hash = ?, key_id = NULL WHERE seq = ?').run(detailsJson, prev, hash, r.seq);
      prev = hash;
    }
    db.prepare("UPDATE meta SET value = ? WHERE key = 'audit_head'").run(`${rows.at(-1)!.seq}:${prev}`);
    const newId = randomBytes(16).toString('hex');
    db.prepare("UPDATE meta SET value = ? WHERE key = 'journal_id'").run(newId);
    return newId;
  } finally {
    db.close();
  }
}

const codes = (r: AuditVerifyResult) => r.problems.map((p) => p.code);

describe("a profile's journal id, pinned in the keychain", () => {
  it('is pinned the first time the profile is sealed, and the same file verifies from then on', async () => {
    t = tempJournal();
    const store = new MemoryKeyStore();
    expect(await store.get(journalPinAccount(PROFILE))).toBeNull();
    await openSealed(store);
    const id = t.journal.journalId();
    expect(await store.get(journalPinAccount(PROFILE))).toBe(id);
    t.journal.audit({ action: 'one' });
    await closeJournal();

    t.journal = openJournal(t.file);
    const again = await openSealed(store);
    t.journal.audit({ action: 'two' });
    expect(await again.verify()).toEqual({ ok: true, entries: 2, problems: [] });
    expect(await store.get(journalPinAccount(PROFILE))).toBe(id);
  });

  it('reads a log rewritten without the key under a new id as tampered, and makes no key for the new id', async () => {
    t = tempJournal();
    const store = new MemoryKeyStore();
    await openSealed(store);
    const pinned = t.journal.journalId();
    for (let i = 1; i <= 4; i++) t.journal.audit({ action: 'payout.approved', subject: `p-${i}`, details: { i } });
    await closeJournal();
    const anchorBefore = await readAuditAnchor(store, pinned);
    expect(anchorBefore).toMatchObject({ seq: 4, sealedFrom: 1 });

    const newId = rewriteUnkeyed(t.file, 2);
    t.journal = openJournal(t.file);
    const seal = await openSealed(store);
    const result = await seal.verify();
    expect(result.ok).toBe(false);
    expect(result.problems[0]).toEqual({
      seq: 1, code: 'JOURNAL_REPLACED',
      message: `this profile's journal was ${pinned}; the file now says ${newId}: it was replaced or its id rewritten`,
    });
    // Checked with the pinned id's key and anchor: the rewritten entries carry no seal, the anchored one differs.
    expect(codes(result)).toEqual(expect.arrayContaining(['UNSEALED', 'ANCHOR_MISMATCH']));
    expect(await store.get(auditKeyAccount(newId))).toBeNull();
    expect(await store.get(auditAnchorAccount(newId))).toBeNull();

    // Writing on does not move the pinned anchor onto the replaced file.
    for (let i = 0; i < 5; i++) t.journal.audit({ action: 'later' });
    await seal.flush();
    expect(await readAuditAnchor(store, pinned)).toEqual(anchorBefore);
    expect((await seal.verify()).problems[0]?.code).toBe('JOURNAL_REPLACED');

    // The pinned id written back into the file: the unsealed rewrite is still there to see.
    await closeJournal();
    const db = new Database(t.file);
    db.prepare("UPDATE meta SET value = ? WHERE key = 'journal_id'").run(pinned);
    db.close();
    t.journal = openJournal(t.file);
    const restored = await (await openSealed(store)).verify();
    expect(restored.ok).toBe(false);
    expect(codes(restored)).not.toContain('JOURNAL_REPLACED');
    expect(restored.problems[0]).toMatchObject({ seq: 1, code: 'UNSEALED' });
  });

  it('reads a journal file deleted and made again for the same profile as replaced, its entries missing', async () => {
    t = tempJournal();
    const store = new MemoryKeyStore();
    await openSealed(store);
    const pinned = t.journal.journalId();
    for (let i = 1; i <= 3; i++) t.journal.audit({ action: 'step', details: { i } });
    await closeJournal();
    for (const f of [t.file, `${t.file}-wal`, `${t.file}-shm`]) rmSync(f, { force: true });

    t.journal = openJournal(t.file);
    const fresh = t.journal.journalId();
    expect(fresh).not.toBe(pinned);
    const seal = await openSealed(store);
    const result = await seal.verify();
    expect(result.problems[0]).toEqual({ seq: 1, code: 'JOURNAL_REPLACED', message: `this profile's journal was ${pinned}; the file now says ${fresh}: it was replaced or its id rewritten` });
    expect(result.problems[1]).toMatchObject({ code: 'TRUNCATED', message: expect.stringMatching(/anchored entry 3: entries 1–3 were removed/) });
    expect(await store.get(auditKeyAccount(fresh))).toBeNull();

    // Another profile's journal is its own: pinned apart.
    const other = tempJournal();
    try {
      other.journal.requireAuditKey();
      const otherSeal = await AuditSeal.open(other.journal, store, silentLogger, 'other-profile');
      other.journal.audit({ action: 'step' });
      expect(await otherSeal.verify()).toEqual({ ok: true, entries: 1, problems: [] });
      otherSeal.close();
    } finally {
      other.dispose();
    }

    // A profile removed with its journal (forgetJournalPin): made again under the same id, it starts afresh.
    await forgetJournalPin(store, PROFILE);
    await closeJournal();
    t.journal = openJournal(t.file);
    const afresh = await openSealed(store);
    expect(await store.get(journalPinAccount(PROFILE))).toBe(fresh);
    expect(await afresh.verify()).toMatchObject({ ok: true });
  });
});
