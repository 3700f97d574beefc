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
//
// The journal id is read from the file, which anyone who can write the file can change: rewrite the log
// unkeyed, give it a new id, and a desk that looked its key up by that id would make a fresh key and anchor
// and verify the forgery intact. So the id is pinned per profile, in the keychain, the first time the
// profile's journal is sealed:
//   profile:<profileId>:journal-id   the journal id this profile's key and anchor are filed under
// From then on the pinned id's key and anchor seal and check whatever file is there; a file that says
// another id reads JOURNAL_REPLACED ("Tampered"), and while it does no anchor is moved (the pinned anchor
// stays the evidence of what the profile's journal held). No new key is made for the id the file says.
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { auditKeyId, type AuditAnchor, type AuditProblem, type AuditVerifyResult } from '../../audit/chain';
import { type Journal } from '.';
import { readKeychainJson, type KeyStore } from '../../keys/key-store';
import type { Logger } from '../../log';
import { AnchorWriter } from '../../audit/anchor-writer';
import type { DeskAuditSeal } from '../../audit/seal';

export const auditKeyAccount = (journalId: string) => `journal:${journalId}:audit-key`;
export const auditAnchorAccount = (journalId: string) => `journal:${journalId}:audit-head`;
export const journalPinAccount = (profileId: string) => `profile:${profileId}:journal-id`;

/**
 * The journal id pinned for the profile: the one already in the keychain, else `found` (pinned now). Another
 * process pinning at the same moment: whichever the keychain kept is the pin.
 */
export async function pinJournalId(keyStore: KeyStore, profileId: string, found: string): Promise<string> {
  const account = journalPinAccount(profileId);
  const pinned = await keyStore.get(account);
  if (pinned) return pinned;
  await keyStore.set(account, found);
  const kept = await keyStore.get(account);
  if (!kept) throw new Error(`The ${keyStore.description} did not keep the id of this profile's journal`);
  return kept;
}

const AnchorSchema = z.object({ seq: z.number().int().min(0), hash: z.string().regex(/^[0-9a-f]{64}$/), sealedFrom: z.number().int().min(1) });

/**
 * Forgets the profile's pinned journal id: only when its journal file is deleted with the profile (an
 * admin's removal), so a profile made again under the same id starts a journal of its own.
 */
export async function forgetJournalPin(keyStore: KeyStore, profileId: string): Promise<void> {
  await keyStore.delete(journalPinAccount(profileId));
}

/** The anchor stored in the keychain; null when there is none, or it is not one (treated as missing). */
export function readAuditAnchor(keyStore: KeyStore, journalId: string): Promise<AuditAnchor | null> {
  return readKeychainJson(keyStore, auditAnchorAccount(journalId), AnchorSchema);
}

/** One journal's audit key in use, and the anchor kept up to date behind it. */
export class AuditSeal implements DeskAuditSeal {
  private anchorSeq: number;
  private readonly sealedFrom: number;
  private readonly anchors = new AnchorWriter(() => this.writeAnchor());
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
   * With a profile, they are the pinned journal id's (pinned now the first time), whatever id the file says.
   * Throws when the keychain cannot be read: nothing is sealed with a key that could not be kept.
   */
  static async open(journal: Journal, keyStore: KeyStore, log: Logger, profileId: string | null = null): Promise<AuditSeal> {
    const found = journal.journalId();
    // A bare journal (tests, tools) has no profile to pin under: its own id is all there is.
    const journalId = profileId === null ? found : await pinJournalId(keyStore, profileId, found);
    const replaced = journalId !== found;
    if (replaced) log.error("this profile's journal file says another id than the one pinned in the keychain: it was replaced or its id rewritten", { profileId, pinned: journalId, found });
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
      // Not over a replaced file: what it holds is not what the profile's journal held.
      if (!replaced) await keyStore.set(auditAnchorAccount(journalId), JSON.stringify(anchor));
    }
    const sealer = new AuditSeal(journal, keyStore, log, journalId, keys, anchor);
    // May write audit.rekeyed (an unsealed log, or one whose key this keychain lacks); the anchor follows.
    journal.useAuditKey(seal, keys);
    if (anchorLost && !replaced) {
      journal.audit({
        action: 'audit.reanchored',
        details: { reason: `the ${keyStore.description} held no anchor for this journal's newest audit entry; entries removed before now cannot be detected`, anchoredSeq: anchor.seq },
      });
    }
    await sealer.flush();
    return sealer;
  }

  /** Verifies the whole log against the keychain's key and its anchor as stored now, and the file's id against the pin. */
  async verify(): Promise<AuditVerifyResult> {
    await this.flush();
    const anchor = await readAuditAnchor(this.keyStore, this.journalId);
    const result = this.journal.verifyAudit({ keys: this.keys, anchor, keychain: this.keyStore.description });
    const found = this.journal.journalId();
    if (found === this.journalId) return result;
    // The whole file is concerned, so its first entry is named (a problem with an entry reads "Tampered" and
    // names where it starts; it comes first, as it explains the others).
    const replaced: AuditProblem = {
      seq: 1, code: 'JOURNAL_REPLACED',
      message: `this profile's journal was ${this.journalId}; the file now says ${found}: it was replaced or its id rewritten`,
    };
    return { ok: false, entries: result.entries, problems: [replaced, ...result.problems] };
  }

  /** Waits until the anchor names the newest entry written so far. */
  flush(): Promise<void> {
    return this.anchors.flush();
  }

  close(): void {
    this.detach();
  }

  private schedule(): void {
    this.anchors.request();
  }

  private async writeAnchor(): Promise<void> {
    if (!this.journal.db.open) return;
    // A file that is not the profile's journal (another id) never moves the profile's anchor onto itself.
    if (this.journal.journalId() !== this.journalId) return;
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
