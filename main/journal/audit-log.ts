// Append-only audit log, chained by hash: hash = sha256(prevHash + canonical JSON of the entry).
// The head (last seq and hash) is also kept in the meta table, written in the same transaction, so
// removing the newest entries is detected too. Limit: someone who can write the file can rebuild the
// whole chain and the head; the chain proves the log was not changed by accident or by a careless
// edit, not against a determined attacker holding the file (that would need a key outside the file).
import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import type { AuditEntry } from './types';

export const GENESIS_HASH = '0'.repeat(64);
const HEAD_KEY = 'audit_head';

export interface NewAuditEntry {
  actor: string;
  action: string;
  subject?: string | null | undefined;
  details?: unknown;
}

export interface AuditProblem {
  seq: number;
  code: 'HASH_MISMATCH' | 'CHAIN_BROKEN' | 'HEAD_MISMATCH';
  message: string;
}

export interface AuditVerifyResult {
  ok: boolean;
  entries: number;
  problems: AuditProblem[];
}

// Keys whose values must never be written to the journal, whoever calls.
const SECRET_KEY = /token|secret|password|private.?key|signature|authorization/i;

/** JSON with object keys sorted at every depth and secret-looking fields removed. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(scrub(value));
}

function scrub(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(scrub);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      if (SECRET_KEY.test(key)) continue;
      const inner = (value as Record<string, unknown>)[key];
      if (inner !== undefined) out[key] = scrub(inner);
    }
    return out;
  }
  return value === undefined ? null : value;
}

function entryHash(prevHash: string, e: { seq: number; at: number; actor: string; action: string; subject: string | null; detailsJson: string }): string {
  const canonical = canonicalJson({ seq: e.seq, at: e.at, actor: e.actor, action: e.action, subject: e.subject, details: JSON.parse(e.detailsJson) as unknown });
  return createHash('sha256').update(prevHash + canonical).digest('hex');
}

interface AuditRow {
  seq: number;
  at: number;
  actor: string;
  action: string;
  subject: string | null;
  details_json: string;
  prev_hash: string;
  hash: string;
}

function readHead(db: Database.Database): { seq: number; hash: string } {
  const row = db.prepare('SELECT value FROM meta WHERE key = ?').get(HEAD_KEY) as { value: string } | undefined;
  if (!row) return { seq: 0, hash: GENESIS_HASH };
  const [seq, hash] = row.value.split(':');
  return { seq: Number(seq), hash: hash ?? '' };
}

/** Appends one entry; call inside the caller's transaction when it belongs with other writes. */
export function appendAudit(db: Database.Database, at: number, entry: NewAuditEntry): AuditEntry {
  const write = db.transaction((): AuditEntry => {
    const last = db.prepare('SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1').get() as { seq: number; hash: string } | undefined;
    const seq = (last?.seq ?? 0) + 1;
    const prevHash = last?.hash ?? GENESIS_HASH;
    const detailsJson = canonicalJson(entry.details ?? {});
    const subject = entry.subject ?? null;
    const hash = entryHash(prevHash, { seq, at, actor: entry.actor, action: entry.action, subject, detailsJson });
    db.prepare(
      'INSERT INTO audit_log (seq, at, actor, action, subject, details_json, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ).run(seq, at, entry.actor, entry.action, subject, detailsJson, prevHash, hash);
    db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(HEAD_KEY, `${seq}:${hash}`);
    return { seq, at, actor: entry.actor, action: entry.action, subject, details: JSON.parse(detailsJson) as unknown, prevHash, hash };
  });
  return write();
}

/** Recomputes the whole chain; any edited, inserted or deleted entry shows up as a problem. */
/** Where a verification ended: the last entry checked and its hash. */
export interface AuditMark {
  seq: number;
  hash: string;
}

export function verifyAudit(db: Database.Database): AuditVerifyResult {
  return verifyAuditFrom(db, { seq: 0, hash: GENESIS_HASH }).result;
}

/**
 * Verifies the entries after `from` (an earlier verification's mark, or the start), so a caller that
 * checks after every change does not hash the whole log each time. `mark` is where the next check starts.
 */
export function verifyAuditFrom(db: Database.Database, from: AuditMark): { result: AuditVerifyResult; mark: AuditMark } {
  const problems: AuditProblem[] = [];
  let prevHash = from.hash;
  let lastSeq = from.seq;
  let count = 0;
  const rows = db.prepare('SELECT * FROM audit_log WHERE seq > ? ORDER BY seq').iterate(from.seq) as IterableIterator<AuditRow>;
  for (const row of rows) {
    count++;
    if (row.prev_hash !== prevHash) {
      problems.push({ seq: row.seq, code: 'CHAIN_BROKEN', message: `entry ${row.seq} does not follow entry ${lastSeq}: an entry before it was removed, inserted or changed` });
    }
    const expected = entryHash(row.prev_hash, {
      seq: row.seq, at: row.at, actor: row.actor, action: row.action, subject: row.subject, detailsJson: row.details_json,
    });
    if (expected !== row.hash) {
      problems.push({ seq: row.seq, code: 'HASH_MISMATCH', message: `entry ${row.seq} was changed after it was written` });
    }
    prevHash = row.hash;
    lastSeq = row.seq;
  }
  const head = readHead(db);
  if (head.seq !== lastSeq || head.hash !== prevHash) {
    problems.push({
      seq: lastSeq,
      code: 'HEAD_MISMATCH',
      message: head.seq > lastSeq
        ? `the log ends at entry ${lastSeq} but entry ${head.seq} was written: newest entries were removed`
        : `the log head does not match its last entry ${lastSeq}`,
    });
  }
  return { result: { ok: problems.length === 0, entries: count, problems }, mark: { seq: lastSeq, hash: prevHash } };
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
