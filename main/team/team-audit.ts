// The team's audit log, as a desk checks it: the chain every desk appends to in the team database
// (PgJournal.appendAudit), walked in order with the same rules as a single desk's log (audit-log.ts).
import type { Pool } from 'pg';
import { GENESIS_HASH, verifyAuditRows, type AuditRow, type AuditVerifyResult } from '../journal/audit-log';
import { pgInteger } from '../journal/pg/history';
import type { KeyStore } from '../keys/key-store';
import type { DeskAuditSeal } from '../desk/profile-stores';

/** Rows read per query while walking the log. */
const CHUNK = 5_000;

export class TeamAuditSeal implements DeskAuditSeal {
  private constructor(private readonly pool: Pool) {}

  static async open(pool: Pool, _keyStore: KeyStore, _profileId: string): Promise<TeamAuditSeal> {
    return new TeamAuditSeal(pool);
  }

  async verify(): Promise<AuditVerifyResult> {
    const rows: AuditRow[] = [];
    for (let after = 0; ; ) {
      const chunk = await this.pool.query('SELECT * FROM audit_log WHERE seq > $1 ORDER BY seq LIMIT $2', [after, CHUNK]);
      for (const r of chunk.rows) rows.push(auditRow(r));
      if (chunk.rows.length < CHUNK) break;
      after = rows.at(-1)!.seq;
    }
    const walk = verifyAuditRows(rows, { seq: 0, hash: GENESIS_HASH }, { keys: new Map() }, () => null);
    return { ok: walk.problems.length === 0, entries: walk.entries, problems: walk.problems };
  }

  async flush(): Promise<void> {}

  close(): void {}
}

function auditRow(r: Record<string, unknown>): AuditRow {
  return {
    seq: pgInteger(r['seq'], 'seq'), at: pgInteger(r['at'], 'at'), actor: String(r['actor']), action: String(r['action']),
    subject: r['subject'] === null ? null : String(r['subject']), details_json: String(r['details_json']), prev_hash: String(r['prev_hash']),
    hash: String(r['hash']), key_id: r['key_id'] === null || r['key_id'] === undefined ? null : String(r['key_id']),
  };
}
