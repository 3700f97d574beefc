// The keychain side of the sealed audit log (main/store/sqlite/audit-seal.ts): a log from before sealing
// migrated through the keychain, an anchor lost from the keychain set again on record, and the anchor
// that follows the log: coalesced, and never naming an entry whose transaction was rolled back.
import { afterEach, describe, expect, it } from 'vitest';
import { AuditSeal, auditAnchorAccount, auditKeyAccount, readAuditAnchor } from '../../../main/store/sqlite/audit-seal';
import { openJournal } from '../../../main/store/sqlite';
import { MemoryKeyStore, type KeyStore } from '../../../main/keys/key-store';
import { silentLogger } from '../../../main/log';
import { rollBackToSchema3, tempJournal, type TempJournal } from './helpers';

let t: TempJournal;
let seal: AuditSeal | undefined;
afterEach(() => {
  seal?.close();
  seal = undefined;
  t?.dispose();
});

class CountingStore implements KeyStore {
  readonly description = 'counting key store';
  readonly inner = new MemoryKeyStore();
  writes: string[] = [];
  get(account: string) {
    return this.inner.get(account);
  }
  set(account: string, value: string) {
    this.writes.push(account);
    return this.inner.set(account, value);
  }
  delete(account: string) {
    return this.inner.delete(account);
  }
}

/** A desk journal: audit entries refused until its key is loaded, as the runtime opens it. */
async function deskJournal(store: KeyStore): Promise<AuditSeal> {
  t.journal.requireAuditKey();
  seal = await AuditSeal.open(t.journal, store, silentLogger);
  return seal;
}

describe('audit key and anchor in the keychain', () => {
  it('migrates a log from before sealing: one audit.rekeyed entry, anchored, sealed from there on', async () => {
    t = tempJournal();
    for (let i = 1; i <= 3; i++) t.journal.audit({ action: 'old.entry', details: { i } });
    rollBackToSchema3(t.journal.db);
    t.journal.close();
    t.journal = openJournal(t.file);
    const store = new MemoryKeyStore();
    const s = await deskJournal(store);
    const id = t.journal.journalId();
    expect(await store.get(auditKeyAccount(id))).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(t.journal.listAudit(1)[0]).toMatchObject({ seq: 4, action: 'audit.rekeyed', details: { previousChainVerified: true } });
    expect(await readAuditAnchor(store, id)).toMatchObject({ seq: 4, sealedFrom: 4 });
    t.journal.audit({ action: 'new.entry' });
    expect(await s.verify()).toEqual({ ok: true, entries: 5, problems: [] });
  });

  it('sets a lost anchor again only with an audit.reanchored entry saying so', async () => {
    t = tempJournal();
    const store = new MemoryKeyStore();
    await deskJournal(store);
    t.journal.audit({ action: 'one' });
    await seal?.flush();
    seal?.close();
    await store.delete(auditAnchorAccount(t.journal.journalId()));
    const again = await deskJournal(store);
    expect(t.journal.listAudit(1)[0]).toMatchObject({ seq: 2, action: 'audit.reanchored', details: { anchoredSeq: 1, reason: expect.stringMatching(/held no anchor/) } });
    expect((await again.verify()).ok).toBe(true);
  });

  it('moves the anchor once per burst of entries, and never to an entry that was rolled back', async () => {
    t = tempJournal();
    const store = new CountingStore();
    const s = await deskJournal(store);
    const id = t.journal.journalId();
    store.writes = [];
    for (let i = 0; i < 100; i++) t.journal.audit({ action: 'burst', details: { i } });
    await s.flush();
    expect(store.writes).toEqual([auditAnchorAccount(id)]);
    expect(await readAuditAnchor(store, id)).toMatchObject({ seq: 100 });

    // An entry written inside a transaction that then fails is not in the log, so not anchored either.
    expect(() => t.journal.db.transaction(() => {
      t.journal.audit({ action: 'doomed' });
      throw new Error('rolled back');
    })()).toThrow('rolled back');
    await s.flush();
    expect(await readAuditAnchor(store, id)).toMatchObject({ seq: 100 });
    expect((await s.verify()).ok).toBe(true);
  });
});
