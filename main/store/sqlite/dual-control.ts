// The journal's (SQLite) adapter of DualControlRepository: the control chain, proposals and preparations of
// migration 8, approvals of migration 6, and the rows from before the chain (people, role_grants, policies) read
// for sealing. better-sqlite3 is synchronous; the interface is async so the team database's adapter fits the
// same callers. Each write is one transaction.
import type { Statement } from 'better-sqlite3';
import type { Journal } from '.';
import type { Person, Role, RoleGrant } from '../../people/roles';
import { decodeChainRecord, encodeChainRecord } from '../../trust/chain-codec';
import type { ChainRecord } from '../../trust/chain-record';
import type { ApprovalRecord } from '../../approvals/approval';
import type { Subject } from '../../approvals/manifest';
import type { ApprovalPolicy, PolicyRules } from '../../approvals/policy';
import type { PreparationRecord } from '../../approvals/preparation';
import { chainMovedMessage, RepositoryError, type DualControlRepository, type LegacyControl } from '../../trust/repository';
import { prepared } from './prepared';

interface PersonRow {
  id: string;
  name: string;
  public_key: string;
  created_at: number;
  created_by: string | null;
  revoked_at: number | null;
  revoked_by: string | null;
  revoke_reason: string | null;
}
interface GrantRow {
  person_id: string;
  role: Role;
  granted_at: number;
  granted_by: string | null;
  removed_at: number | null;
  removed_by: string | null;
}
interface ApprovalRow {
  id: string;
  profile_id: string;
  subject_kind: Subject['kind'];
  subject_id: string;
  manifest_digest: string;
  policy_version: number;
  decision: ApprovalRecord['decision'];
  reason: string | null;
  signer_id: string;
  signed_at: number;
  signature: string;
  recorded_at: number;
}
interface PreparationRow {
  id: string;
  profile_id: string;
  subject_kind: Subject['kind'];
  subject_id: string;
  digest: string;
  signer_id: string;
  signed_at: number;
  signature: string;
  recorded_at: number;
}
interface PolicyRow {
  version: number;
  profile_id: string;
  rules_json: string;
  set_by: string | null;
  set_at: number;
  signature: string | null;
}

const toGrant = (r: GrantRow): RoleGrant => ({ personId: r.person_id, role: r.role, grantedAt: r.granted_at, grantedBy: r.granted_by, removedAt: r.removed_at, removedBy: r.removed_by });
const toApproval = (r: ApprovalRow): ApprovalRecord => ({
  id: r.id, profileId: r.profile_id, subject: { kind: r.subject_kind, id: r.subject_id }, manifestDigest: r.manifest_digest, policyVersion: r.policy_version,
  decision: r.decision, reason: r.reason, signerId: r.signer_id, signedAt: r.signed_at, signature: r.signature, recordedAt: r.recorded_at,
});
const toPreparation = (r: PreparationRow): PreparationRecord => ({
  id: r.id, profileId: r.profile_id, subject: { kind: r.subject_kind, id: r.subject_id }, digest: r.digest, signerId: r.signer_id, signedAt: r.signed_at,
  signature: r.signature, recordedAt: r.recorded_at,
});
const toPolicy = (r: PolicyRow): ApprovalPolicy => ({
  profileId: r.profile_id, version: r.version, rules: JSON.parse(r.rules_json) as PolicyRules, setBy: r.set_by, setAt: r.set_at, signature: r.signature,
});

export class SqliteDualControlRepository implements DualControlRepository {
  private markerQuery: Statement | undefined;

  constructor(
    private readonly journal: Journal,
    private readonly now: () => number = Date.now,
  ) {}

  private get db() {
    return this.journal.db;
  }

  async chain(): Promise<ChainRecord[]> {
    const rows = prepared(this.db, 'SELECT seq, hash, record_json AS json FROM control_chain ORDER BY seq').all() as { seq: number; hash: string; json: string }[];
    return rows.map(decodeChainRecord);
  }

  async appendChain(record: ChainRecord): Promise<void> {
    this.db.transaction(() => {
      const head = prepared(this.db, 'SELECT seq, hash FROM control_chain ORDER BY seq DESC LIMIT 1').get() as { seq: number; hash: string } | undefined;
      if (record.seq !== (head?.seq ?? 0) + 1 || (head && head.hash !== record.prev)) throw new RepositoryError('CHAIN_MOVED', chainMovedMessage(record.seq));
      prepared(this.db, 'INSERT INTO control_chain (seq, hash, record_json, recorded_at) VALUES (?, ?, ?, ?)').run(record.seq, record.hash, encodeChainRecord(record), this.now());
    })();
  }

  async proposals(): Promise<ChainRecord[]> {
    // The newest copy of each hash: a copy with more signatures is added, never written over.
    const rows = this.db
      .prepare('SELECT p.hash, p.record_json AS json FROM control_proposals p WHERE p.id = (SELECT max(id) FROM control_proposals q WHERE q.hash = p.hash) ORDER BY p.id')
      .all() as { hash: string; json: string }[];
    const out: ChainRecord[] = [];
    for (const row of rows) {
      try {
        const parsed = JSON.parse(row.json) as { seq: number };
        out.push(decodeChainRecord({ seq: parsed.seq, hash: row.hash, json: row.json }));
      } catch {
        // Not a record: a proposal nobody can sign is no proposal.
      }
    }
    return out;
  }

  async addProposal(record: ChainRecord): Promise<void> {
    prepared(this.db, 'INSERT INTO control_proposals (hash, record_json, recorded_at) VALUES (?, ?, ?)').run(record.hash, encodeChainRecord(record), this.now());
  }

  async legacy(): Promise<LegacyControl | null> {
    const grants = new Map<string, RoleGrant[]>();
    for (const g of prepared(this.db, 'SELECT * FROM role_grants ORDER BY seq').all() as GrantRow[]) grants.set(g.person_id, [...(grants.get(g.person_id) ?? []), toGrant(g)]);
    const people: Person[] = (prepared(this.db, 'SELECT * FROM people ORDER BY created_at, id').all() as PersonRow[]).map((r) => ({
      id: r.id, name: r.name, publicKey: r.public_key, createdAt: r.created_at, createdBy: r.created_by, revokedAt: r.revoked_at, revokedBy: r.revoked_by,
      revokeReason: r.revoke_reason, grants: grants.get(r.id) ?? [],
    }));
    const policies = (prepared(this.db, 'SELECT * FROM policies ORDER BY version').all() as PolicyRow[]).map(toPolicy);
    return people.length === 0 && policies.length === 0 ? null : { people, policies };
  }

  async addApproval(a: ApprovalRecord): Promise<void> {
    try {
      this.db.prepare(
        `INSERT INTO approvals (id, profile_id, subject_kind, subject_id, manifest_digest, policy_version, decision, reason, signer_id, signed_at, signature, recorded_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(a.id, a.profileId, a.subject.kind, a.subject.id, a.manifestDigest, a.policyVersion, a.decision, a.reason, a.signerId, a.signedAt, a.signature, this.now());
    } catch (error) {
      if (error instanceof Error && /UNIQUE constraint failed: approvals\.id/.test(error.message)) throw new RepositoryError('DUPLICATE', `approval ${a.id} already exists`);
      throw error;
    }
  }

  async approvalsFor(subject: Subject): Promise<ApprovalRecord[]> {
    return (prepared(this.db, 'SELECT * FROM approvals WHERE subject_kind = ? AND subject_id = ? ORDER BY recorded_at, rowid').all(subject.kind, subject.id) as ApprovalRow[]).map(toApproval);
  }

  async listApprovals(limit = 100): Promise<ApprovalRecord[]> {
    return (prepared(this.db, 'SELECT * FROM approvals ORDER BY recorded_at DESC, rowid DESC LIMIT ?').all(limit) as ApprovalRow[]).map(toApproval);
  }

  async addPreparation(p: PreparationRecord): Promise<void> {
    try {
      this.db.prepare(
        'INSERT INTO preparations (id, profile_id, subject_kind, subject_id, digest, signer_id, signed_at, signature, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ).run(p.id, p.profileId, p.subject.kind, p.subject.id, p.digest, p.signerId, p.signedAt, p.signature, this.now());
    } catch (error) {
      if (error instanceof Error && /UNIQUE constraint failed: preparations\.id/.test(error.message)) throw new RepositoryError('DUPLICATE', `preparation ${p.id} already exists`);
      throw error;
    }
  }

  async preparationsFor(subject: Subject): Promise<PreparationRecord[]> {
    return (prepared(this.db, 'SELECT * FROM preparations WHERE subject_kind = ? AND subject_id = ? ORDER BY recorded_at, rowid').all(subject.kind, subject.id) as PreparationRow[]).map(toPreparation);
  }

  // Records are only added, so the highest keys change with every write (a holder of the file who rewrites
  // rows without adding any is not followed here: the gate's checks read the rows themselves).
  changeMarker(): string {
    this.markerQuery ??= this.db.prepare(
      `SELECT (SELECT coalesce(max(seq), 0) FROM control_chain) AS chain, (SELECT coalesce(max(id), 0) FROM control_proposals) AS proposals,
              (SELECT coalesce(max(rowid), 0) FROM approvals) AS approvals, (SELECT coalesce(max(rowid), 0) FROM preparations) AS preparations`,
    );
    const row = this.markerQuery.get() as Record<string, number>;
    return `${row.chain}.${row.proposals}.${row.approvals}.${row.preparations}`;
  }
}
