// The audit log of a desk's own SQLite journal: the rows, the head kept in meta, and the walk of
// main/audit/chain.ts over them. The chain's rules (hashes, seals, what a problem is) live there; this file
// only reads and writes the table.
import type Database from 'better-sqlite3';
import { deskActor } from '../../audit/actor';
import {
  AuditKeyError, canonicalJson, entryHash, GENESIS_HASH, verifyAuditRows,
  type AuditEntry, type AuditKey, type AuditMark, type AuditRow, type AuditTrust, type AuditVerifyResult, type NewAuditEntry,
} from '../../audit/chain';
import { prepared } from './prepared';

const HEAD_KEY = 'audit_head';

function readHead(db: Database.Database): { seq: number; hash: string } {
  const row = prepared(db, 'SELECT value FROM meta WHERE key = ?').get(HEAD_KEY) as { value: string } | undefined;
  if (!row) return { seq: 0, hash: GENESIS_HASH };
  const [seq, hash] = row.value.split(':');
  return { seq: Number(seq), hash: hash ?? '' };
}

/** The newest entry: its seq, hash and key (0, genesis and null for an empty log). */
export function auditHead(db: Database.Database): { seq: number; hash: string; keyId: string | null } {
  const last = prepared(db, 'SELECT seq, hash, key_id FROM audit_log ORDER BY seq DESC LIMIT 1').get() as Pick<AuditRow, 'seq' | 'hash' | 'key_id'> | undefined;
  return last ? { seq: last.seq, hash: last.hash, keyId: last.key_id } : { seq: 0, hash: GENESIS_HASH, keyId: null };
}

/** The first sealed entry, if any. */
export function firstSealedSeq(db: Database.Database): number | null {
  const row = prepared(db, 'SELECT MIN(seq) AS seq FROM audit_log WHERE key_id IS NOT NULL').get() as { seq: number | null };
  return row.seq;
}

/** Ids of every key that sealed an entry, oldest first. */
export function auditKeyIds(db: Database.Database): string[] {
  const rows = prepared(db, 'SELECT key_id, MIN(seq) AS first FROM audit_log WHERE key_id IS NOT NULL GROUP BY key_id ORDER BY first').all() as { key_id: string }[];
  return rows.map((r) => r.key_id);
}

/**
 * Appends one entry, sealed with `seal`; call inside the caller's transaction when it belongs with
 * other writes. Without a seal only an unsealed log may grow (journals opened without the keychain:
 * unit tests, tools); once sealed entries exist an unsealed one would read as forged, so it is refused.
 */
export function appendAudit(db: Database.Database, at: number, entry: NewAuditEntry, seal: AuditKey | null = null): AuditEntry {
  const write = db.transaction((): AuditEntry => {
    const last = auditHead(db);
    if (!seal && last.keyId !== null) {
      throw new AuditKeyError('This journal\'s audit log is sealed with a key from the OS keychain; open it through the desk (which loads the key) to write to it');
    }
    const seq = last.seq + 1;
    const prevHash = last.hash;
    const detailsJson = canonicalJson(entry.details ?? {});
    const subject = entry.subject ?? null;
    const actor = entry.actor ?? deskActor();
    const hash = entryHash(prevHash, { seq, at, actor, action: entry.action, subject, detailsJson }, seal);
    prepared(
      db,
      'INSERT INTO audit_log (seq, at, actor, action, subject, details_json, prev_hash, hash, key_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    ).run(seq, at, actor, entry.action, subject, detailsJson, prevHash, hash, seal?.id ?? null);
    prepared(db, 'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(HEAD_KEY, `${seq}:${hash}`);
    return { seq, at, actor, action: entry.action, subject, details: JSON.parse(detailsJson) as unknown, prevHash, hash };
  });
  return write();
}

/**
 * Starts sealing with `seal`. When the log so far ends in an unsealed entry or one sealed with another
 * key, the first sealed entry is `audit.rekeyed`: it names the previous head (so the old part cannot be
 * changed without breaking it), and for an unsealed log whether that old chain verified at this moment.
 */
export function startSealing(db: Database.Database, at: number, seal: AuditKey, trust: AuditTrust): AuditEntry | null {
  const head = auditHead(db);
  if (head.seq === 0 || head.keyId === seal.id) return null;
  const previousKey = head.keyId;
  const reason = previousKey === null
    ? 'the entries so far were chained without a key (written before audit keys)'
    : trust.keys.has(previousKey)
      ? 'a new audit key'
      : 'the key of the entries so far is not in this keychain (journal from another machine, or the keychain was wiped)';
  let previousChain: { verified: boolean | null; problem: string | null } = { verified: null, problem: null };
  if (previousKey === null || trust.keys.has(previousKey)) {
    const old = verifyAudit(db, { keys: trust.keys });
    previousChain = { verified: old.ok, problem: old.problems[0]?.message ?? null };
  }
  return appendAudit(db, at, {
    action: 'audit.rekeyed',
    details: { reason, keyId: seal.id, previousKeyId: previousKey, previousHead: { seq: head.seq, hash: head.hash }, previousChainVerified: previousChain.verified, previousChainProblem: previousChain.problem },
  }, seal);
}

export function verifyAudit(db: Database.Database, trust: AuditTrust = { keys: new Map() }): AuditVerifyResult {
  return verifyAuditFrom(db, { seq: 0, hash: GENESIS_HASH }, trust).result;
}

/**
 * Verifies the entries after `from` (an earlier verification's mark, or the start), so a caller that
 * checks after every change does not hash the whole log each time. `mark` is where the next check starts.
 * Each problem names the first entry it concerns; problems come in order of entries.
 */
export function verifyAuditFrom(db: Database.Database, from: AuditMark, trust: AuditTrust = { keys: new Map() }): { result: AuditVerifyResult; mark: AuditMark } {
  const rows = db.prepare('SELECT * FROM audit_log WHERE seq > ? ORDER BY seq').iterate(from.seq) as IterableIterator<AuditRow>;
  const walk = verifyAuditRows(rows, from, trust, (seq) => (prepared(db, 'SELECT hash FROM audit_log WHERE seq = ?').get(seq) as { hash: string } | undefined)?.hash ?? null);
  const { problems } = walk;
  const head = readHead(db);
  if (head.seq !== walk.mark.seq || head.hash !== walk.mark.hash) {
    const lastSeq = walk.mark.seq;
    problems.push({
      seq: head.seq > lastSeq ? lastSeq + 1 : lastSeq,
      code: 'HEAD_MISMATCH',
      message: head.seq > lastSeq
        ? `the log ends at entry ${lastSeq} but entry ${head.seq} was written: newest entries were removed`
        : `the log head does not match its last entry ${lastSeq}`,
    });
  }
  problems.sort((a, b) => (a.seq ?? Number.MAX_SAFE_INTEGER) - (b.seq ?? Number.MAX_SAFE_INTEGER));
  return { result: { ok: problems.length === 0, entries: walk.entries, problems }, mark: walk.mark };
}

export function listAudit(db: Database.Database, limit = 200, beforeSeq?: number): AuditEntry[] {
  const rows = (beforeSeq === undefined
    ? db.prepare('SELECT * FROM audit_log ORDER BY seq DESC LIMIT ?').all(limit)
    : db.prepare('SELECT * FROM audit_log WHERE seq < ? ORDER BY seq DESC LIMIT ?').all(beforeSeq, limit)) as AuditRow[];
  return rows.map((r) => ({
    seq: r.seq, at: r.at, actor: r.actor, action: r.action, subject: r.subject,
    details: JSON.parse(r.details_json) as unknown, prevHash: r.prev_hash, hash: r.hash,
  }));
}
