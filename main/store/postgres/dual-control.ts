// The team database's (PostgreSQL) adapter of DualControlRepository: the same records and rules as the SQLite
// adapter (store/sqlite/dual-control.ts), shared by every desk of a team. Tables: main/store/postgres/migrations.ts (1, 9).
//
// changeMarker() must answer synchronously (the sender asks it once its rate slot is taken, right before
// a create leaves): main/store/postgres/change-counter.ts moves it on every notification of the dual-control
// channel and after this desk's own writes. While its listening connection is down, no yes of the gate holds,
// so every send asks the gate again (which reads the database or refuses), until a new connection listens.
import type { Pool, PoolClient } from 'pg';
import { ChangeCounter } from './change-counter';
import { inTransaction } from './transaction';
import type { Person, Role, RoleGrant } from '../../people/roles';
import { decodeChainRecord, encodeChainRecord } from '../../trust/chain-codec';
import type { ChainRecord } from '../../trust/chain-record';
import type { ApprovalRecord } from '../../approvals/approval';
import type { Subject } from '../../approvals/manifest';
import type { ApprovalPolicy, PolicyRules } from '../../approvals/policy';
import type { PreparationRecord } from '../../approvals/preparation';
import { chainMovedMessage, RepositoryError, type DualControlRepository, type LegacyControl } from '../../trust/repository';

type Row = Record<string, unknown>;
/** Key of the advisory lock held (to the end of the transaction) by a desk appending to the control chain. */
const CHAIN_LOCK = 0x70_63_68_61_69_6e; // "pchain"
const num = (v: unknown): number => Number(v);
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const text = (v: unknown): string => String(v);
const textOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

const toGrant = (r: Row): RoleGrant => ({
  personId: text(r['person_id']), role: text(r['role']) as Role, grantedAt: num(r['granted_at']), grantedBy: textOrNull(r['granted_by']),
  removedAt: numOrNull(r['removed_at']), removedBy: textOrNull(r['removed_by']),
});
const toApproval = (r: Row): ApprovalRecord => ({
  id: text(r['id']), profileId: text(r['profile_id']), subject: { kind: text(r['subject_kind']) as Subject['kind'], id: text(r['subject_id']) },
  manifestDigest: text(r['manifest_digest']), policyVersion: num(r['policy_version']), decision: text(r['decision']) as ApprovalRecord['decision'],
  reason: textOrNull(r['reason']), signerId: text(r['signer_id']), signedAt: num(r['signed_at']), signature: text(r['signature']), recordedAt: num(r['recorded_at']),
});
const toPreparation = (r: Row): PreparationRecord => ({
  id: text(r['id']), profileId: text(r['profile_id']), subject: { kind: text(r['subject_kind']) as Subject['kind'], id: text(r['subject_id']) },
  digest: text(r['digest']), signerId: text(r['signer_id']), signedAt: num(r['signed_at']), signature: text(r['signature']), recordedAt: num(r['recorded_at']),
});
const toPolicy = (r: Row): ApprovalPolicy => ({
  profileId: text(r['profile_id']), version: num(r['version']), rules: JSON.parse(text(r['rules_json'])) as PolicyRules,
  setBy: textOrNull(r['set_by']), setAt: num(r['set_at']), signature: textOrNull(r['signature']),
});

export class PgDualControlRepository implements DualControlRepository {
  private constructor(
    private readonly pool: Pool,
    /** The dual-control write counter, followed on channel 'dual_control' (its marker is changeMarker()). */
    private readonly changes: ChangeCounter,
  ) {}

  /** Opens the adapter on a migrated team database and starts following other desks' changes. */
  static async open(pool: Pool, options: { relistenMs?: number } = {}): Promise<PgDualControlRepository> {
    const changes = await ChangeCounter.open(pool, { channel: 'dual_control', table: 'dual_control_changes', ...options });
    return new PgDualControlRepository(pool, changes);
  }

  /** Stops following changes; the listening connection is closed (call before ending the pool). */
  async close(): Promise<void> {
    await this.changes.end();
  }

  changeMarker(): string {
    return this.changes.marker();
  }

  /** Runs `work` in one transaction, then takes in the counter its writes moved. */
  private async write<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    try {
      return await inTransaction(this.pool, work);
    } finally {
      await this.changes.refresh();
    }
  }

  async chain(): Promise<ChainRecord[]> {
    const r = await this.pool.query('SELECT seq, hash, record_json FROM control_chain ORDER BY seq');
    return r.rows.map((row: Row) => decodeChainRecord({ seq: num(row['seq']), hash: text(row['hash']), json: text(row['record_json']) }));
  }

  async appendChain(record: ChainRecord): Promise<void> {
    await this.write(async (c) => {
      // One writer of the chain at a time across desks; the loser is told it moved. An advisory lock, not
      // LOCK TABLE: that needs UPDATE, DELETE or TRUNCATE on the table, which the desks' role does not hold.
      await c.query('SELECT pg_advisory_xact_lock($1)', [CHAIN_LOCK]);
      const head = (await c.query('SELECT seq, hash FROM control_chain ORDER BY seq DESC LIMIT 1')).rows[0] as Row | undefined;
      if (record.seq !== (head ? num(head['seq']) : 0) + 1 || (head && text(head['hash']) !== record.prev)) throw new RepositoryError('CHAIN_MOVED', chainMovedMessage(record.seq));
      await c.query('INSERT INTO control_chain (seq, hash, record_json) VALUES ($1, $2, $3)', [record.seq, record.hash, encodeChainRecord(record)]);
    });
  }

  async proposals(): Promise<ChainRecord[]> {
    const r = await this.pool.query('SELECT DISTINCT ON (hash) hash, record_json, id FROM control_proposals ORDER BY hash, id DESC');
    const rows = (r.rows as Row[]).sort((a, b) => num(a['id']) - num(b['id']));
    const out: ChainRecord[] = [];
    for (const row of rows) {
      try {
        const json = text(row['record_json']);
        out.push(decodeChainRecord({ seq: num((JSON.parse(json) as { seq: unknown }).seq), hash: text(row['hash']), json }));
      } catch {
        // Not a record: a proposal nobody can sign is no proposal.
      }
    }
    return out;
  }

  async addProposal(record: ChainRecord): Promise<void> {
    await this.write((c) => c.query('INSERT INTO control_proposals (hash, record_json) VALUES ($1, $2)', [record.hash, encodeChainRecord(record)]));
  }

  async legacy(): Promise<LegacyControl | null> {
    const [people, grants, policies] = await Promise.all([
      this.pool.query('SELECT * FROM people ORDER BY created_at, id'),
      this.pool.query('SELECT * FROM role_grants ORDER BY seq'),
      this.pool.query('SELECT * FROM policies ORDER BY version'),
    ]);
    const byPerson = new Map<string, RoleGrant[]>();
    for (const g of grants.rows.map(toGrant)) byPerson.set(g.personId, [...(byPerson.get(g.personId) ?? []), g]);
    const list: Person[] = people.rows.map((r: Row) => ({
      id: text(r['id']), name: text(r['name']), publicKey: text(r['public_key']), createdAt: num(r['created_at']), createdBy: textOrNull(r['created_by']),
      revokedAt: numOrNull(r['revoked_at']), revokedBy: textOrNull(r['revoked_by']), revokeReason: textOrNull(r['revoke_reason']), grants: byPerson.get(text(r['id'])) ?? [],
    }));
    return list.length === 0 && policies.rows.length === 0 ? null : { people: list, policies: policies.rows.map(toPolicy) };
  }

  async addApproval(a: ApprovalRecord): Promise<void> {
    await this.write(async (c) => {
      const inserted = await c.query(
        `INSERT INTO approvals (id, profile_id, subject_kind, subject_id, manifest_digest, policy_version, decision, reason, signer_id, signed_at, signature)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (id) DO NOTHING`,
        [a.id, a.profileId, a.subject.kind, a.subject.id, a.manifestDigest, a.policyVersion, a.decision, a.reason, a.signerId, a.signedAt, a.signature],
      );
      if (inserted.rowCount === 0) throw new RepositoryError('DUPLICATE', `approval ${a.id} already exists`);
    });
  }

  async approvalsFor(subject: Subject): Promise<ApprovalRecord[]> {
    const r = await this.pool.query('SELECT * FROM approvals WHERE subject_kind = $1 AND subject_id = $2 ORDER BY recorded_at, seq', [subject.kind, subject.id]);
    return r.rows.map(toApproval);
  }

  async listApprovals(limit = 100): Promise<ApprovalRecord[]> {
    const r = await this.pool.query('SELECT * FROM approvals ORDER BY recorded_at DESC, seq DESC LIMIT $1', [limit]);
    return r.rows.map(toApproval);
  }

  async addPreparation(p: PreparationRecord): Promise<void> {
    await this.write(async (c) => {
      const inserted = await c.query(
        `INSERT INTO preparations (id, profile_id, subject_kind, subject_id, digest, signer_id, signed_at, signature) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (id) DO NOTHING`,
        [p.id, p.profileId, p.subject.kind, p.subject.id, p.digest, p.signerId, p.signedAt, p.signature],
      );
      if (inserted.rowCount === 0) throw new RepositoryError('DUPLICATE', `preparation ${p.id} already exists`);
    });
  }

  async preparationsFor(subject: Subject): Promise<PreparationRecord[]> {
    const r = await this.pool.query('SELECT * FROM preparations WHERE subject_kind = $1 AND subject_id = $2 ORDER BY recorded_at, seq', [subject.kind, subject.id]);
    return r.rows.map(toPreparation);
  }
}
