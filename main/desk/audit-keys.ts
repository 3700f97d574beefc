// The keychain side of a journal's audit log: the key that seals its entries and the anchor of its
// newest entry, both under the journal's own id (meta journal_id), so a journal file deleted and made
// again never meets an older journal's anchor.
//   journal:<id>:audit-key   32 random bytes, base64
//   journal:<id>:audit-head  {"seq","hash","sealedFrom"} — the newest entry written, as far as this desk knows
// Anchor rule: after every audit entry the anchor is moved to the newest committed entry; writes are
// coalesced (one keychain write in flight per journal, the next one takes the then-newest entry), so the
// anchor trails the log by at most the entries written during one keychain write, and close() waits for it.
// A crash in that window leaves the anchor behind the log, which verifies (only cutting below it is detected).
// A key or anchor that is missing is never invented over a sealed log without saying so: a lost key
// starts a new one with an `audit.rekeyed` entry, a lost anchor is set again with an `audit.reanchored` entry.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { auditKeyId, type AuditAnchor, type AuditVerifyResult, type Journal } from '../journal';
import { readKeychainJson, type KeyStore } from '../keys/key-store';
import type { Logger } from '../log';

export const auditKeyAccount = (journalId: string) => `journal:${journalId}:audit-key`;
export const auditAnchorAccount = (journalId: string) => `journal:${journalId}:audit-head`;

const AnchorSchema = z.object({ seq: z.number().int().min(0), hash: z.string().regex(/^[0-9a-f]{64}$/), sealedFrom: z.number().int().min(1) });

/** The anchor stored in the keychain; null when there is none, or it is not one (treated as missing). */
export function readAuditAnchor(keyStore: KeyStore, journalId: string): Promise<AuditAnchor | null> {
  return readKeychainJson(keyStore, auditAnchorAccount(journalId), AnchorSchema);
}

/** One journal's audit key in use, and the anchor kept up to date behind it. */
export class AuditSeal {
  private anchorSeq: number;
  private readonly sealedFrom: number;
  private dirty = false;
  private writing: Promise<void> = Promise.resolve();
  private readonly detach: () => void;

  private constructor(
    private readonly journal: Journal,
    private readonly keyStore: KeyStore,
    private readonly log: Logger,
    readonly journalId: string,
    private readonly keys: ReadonlyMap<string, Buffer>,
    anchor: AuditAnchor,
  ) {
    this.anchorSeq = anchor.seq;
    this.sealedFrom = anchor.sealedFrom;
    this.detach = journal.onAuditAppended(() => this.schedule());
  }

  /**
   * Reads (or makes) the journal's audit key and anchor, and has the journal seal with it from now on.
   * Throws when the keychain cannot be read: nothing is sealed with a key that could not be kept.
   */
  static async open(journal: Journal, keyStore: KeyStore, log: Logger): Promise<AuditSeal> {
    const journalId = journal.journalId();
    const keyAccount = auditKeyAccount(journalId);
    let stored = await keyStore.get(keyAccount);
    let created = false;
    if (!stored) {
      await keyStore.set(keyAccount, randomBytes(32).toString('base64'));
      // Another process may have made one at the same moment: whichever the keychain kept is the key.
      stored = await keyStore.get(keyAccount);
      if (!stored) throw new Error(`The ${keyStore.description} did not keep the audit key of this journal`);
      created = true;
    }
    const key = Buffer.from(stored, 'base64');
    const seal = { id: auditKeyId(key), key };
    const keys = new Map([[seal.id, key]]);

    const state = journal.auditState();
    let anchor = await readAuditAnchor(keyStore, journalId);
    const anchorLost = anchor === null && !created && state.firstSealed !== null;
    if (!anchor) {
      anchor = { seq: state.head.seq, hash: state.head.hash, sealedFrom: state.firstSealed ?? state.head.seq + 1 };
      await keyStore.set(auditAnchorAccount(journalId), JSON.stringify(anchor));
    }
    const sealer = new AuditSeal(journal, keyStore, log, journalId, keys, anchor);
    // May write audit.rekeyed (an unsealed log, or one whose key this keychain lacks); the anchor follows.
    journal.useAuditKey(seal, keys);
    if (anchorLost) {
      journal.audit({
        action: 'audit.reanchored',
        details: { reason: `the ${keyStore.description} held no anchor for this journal's newest audit entry; entries removed before now cannot be detected`, anchoredSeq: anchor.seq },
      });
    }
    await sealer.flush();
    return sealer;
  }

  /** Verifies the whole log against the keychain's key and its anchor as stored now. */
  async verify(): Promise<AuditVerifyResult> {
    await this.flush();
    const anchor = await readAuditAnchor(this.keyStore, this.journalId);
    return this.journal.verifyAudit({ keys: this.keys, anchor, keychain: this.keyStore.description });
  }

  /** Waits until the anchor names the newest entry written so far. */
  async flush(): Promise<void> {
    while (this.dirty) await this.writing;
    await this.writing;
  }

  close(): void {
    this.detach();
  }

  private schedule(): void {
    if (this.dirty) return;
    this.dirty = true;
    // Chained: one keychain write at a time. It runs after the current synchronous work, so the entry
    // that asked for it is committed (or rolled back) by then and the head read is the committed one.
    this.writing = this.writing.then(() => this.writeAnchor());
  }

  private async writeAnchor(): Promise<void> {
    this.dirty = false;
    if (!this.journal.db.open) return;
    const head = this.journal.auditState().head;
    if (head.seq <= this.anchorSeq) return;
    const anchor: AuditAnchor = { seq: head.seq, hash: head.hash, sealedFrom: this.sealedFrom };
    try {
      await this.keyStore.set(auditAnchorAccount(this.journalId), JSON.stringify(anchor));
      this.anchorSeq = head.seq;
    } catch (error) {
      // The entry is in the journal; only its anchor lags. The next entry tries again.
      this.log.error('could not anchor the newest audit entry in the keychain', { seq: head.seq, error });
    }
  }
}
