// The journal's (SQLite) adapter of DualControlRepository: the tables of migration 6 in the profile's
// journal. better-sqlite3 is synchronous; the interface is async so the shared journal's PostgreSQL
// adapter fits the same callers. Each write is one transaction.
import type { Statement } from 'better-sqlite3';
import type { Journal } from '../journal';
import type { Person, PersonRecord, Role, RoleGrant } from '../people/roles';
import type { ApprovalRecord } from './approval';
import type { Subject } from './manifest';
import type { ApprovalPolicy, PolicyRules } from './policy';
import { RepositoryError, type DualControlRepository } from './repository';

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
const toPersonRecord = (r: PersonRow): PersonRecord => ({
  id: r.id, name: r.name, publicKey: r.public_key, createdAt: r.created_at, createdBy: r.created_by, revokedAt: r.revoked_at, revokedBy: r.revoked_by, revokeReason: r.revoke_reason,
});
const toApproval = (r: ApprovalRow): ApprovalRecord => ({
  id: r.id, profileId: r.profile_id, subject: { kind: r.subject_kind, id: r.subject_id }, manifestDigest: r.manifest_digest, policyVersion: r.policy_version,
  decision: r.decision, reason: r.reason, signerId: r.signer_id, signedAt: r.signed_at, signature: r.signature,
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

  async listPeople(): Promise<Person[]> {
    const grants = new Map<string, RoleGrant[]>();
    for (const g of this.db.prepare('SELECT * FROM role_grants ORDER BY seq').all() as GrantRow[]) {
      const list = grants.get(g.person_id) ?? [];
      list.push(toGrant(g));
      grants.set(g.person_id, list);
    }
    return (this.db.prepare('SELECT * FROM people ORDER BY created_at, id').all() as PersonRow[]).map((r) => ({ ...toPersonRecord(r), grants: grants.get(r.id) ?? [] }));
  }

  async getPerson(id: string): Promise<Person | undefined> {
    const row = this.db.prepare('SELECT * FROM people WHERE id = ?').get(id) as PersonRow | undefined;
    if (!row) return undefined;
    const grants = (this.db.prepare('SELECT * FROM role_grants WHERE person_id = ? ORDER BY seq').all(id) as GrantRow[]).map(toGrant);
    return { ...toPersonRecord(row), grants };
  }

  async addPerson(p: PersonRecord, roles: readonly Role[], at: number, by: string | null): Promise<void> {
    this.db.transaction(() => {
      if (this.db.prepare('SELECT 1 FROM people WHERE id = ?').get(p.id)) throw new RepositoryError('DUPLICATE', `person ${p.id} already exists`);
      this.db.prepare('INSERT INTO people (id, name, public_key, created_at, created_by, revoked_at, revoked_by, revoke_reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
        .run(p.id, p.name, p.publicKey, p.createdAt, p.createdBy, p.revokedAt, p.revokedBy, p.revokeReason);
      const grant = this.db.prepare('INSERT INTO role_grants (person_id, role, granted_at, granted_by) VALUES (?, ?, ?, ?)');
      for (const role of roles) grant.run(p.id, role, at, by);
    })();
  }

  async setRoles(personId: string, roles: readonly Role[], at: number, by: string | null): Promise<void> {
    this.db.transaction(() => {
      const person = this.db.prepare('SELECT * FROM people WHERE id = ?').get(personId) as PersonRow | undefined;
      if (!person) throw new RepositoryError('NOT_FOUND', `no person ${personId} on this desk`);
      if (person.revoked_at !== null) throw new RepositoryError('REVOKED', `${person.name} was revoked`);
      const wanted = new Set(roles);
      const open = this.db.prepare('SELECT seq, role FROM role_grants WHERE person_id = ? AND removed_at IS NULL').all(personId) as { seq: number; role: Role }[];
      const close = this.db.prepare('UPDATE role_grants SET removed_at = ?, removed_by = ? WHERE seq = ?');
      for (const g of open) if (!wanted.has(g.role)) close.run(at, by, g.seq);
      const grant = this.db.prepare('INSERT INTO role_grants (person_id, role, granted_at, granted_by) VALUES (?, ?, ?, ?)');
      for (const role of wanted) if (!open.some((g) => g.role === role)) grant.run(personId, role, at, by);
    })();
  }

  async revokePerson(personId: string, at: number, by: string | null, reason: string): Promise<void> {
    this.db.transaction(() => {
      const person = this.db.prepare('SELECT revoked_at FROM people WHERE id = ?').get(personId) as { revoked_at: number | null } | undefined;
      if (!person) throw new RepositoryError('NOT_FOUND', `no person ${personId} on this desk`);
      if (person.revoked_at !== null) return;
      this.db.prepare('UPDATE people SET revoked_at = ?, revoked_by = ?, revoke_reason = ? WHERE id = ?').run(at, by, reason, personId);
      this.db.prepare('UPDATE role_grants SET removed_at = ?, removed_by = ? WHERE person_id = ? AND removed_at IS NULL').run(at, by, personId);
    })();
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
    return (this.db.prepare('SELECT * FROM approvals WHERE subject_kind = ? AND subject_id = ? ORDER BY recorded_at, rowid').all(subject.kind, subject.id) as ApprovalRow[]).map(toApproval);
  }

  async listApprovals(limit = 100): Promise<ApprovalRecord[]> {
    return (this.db.prepare('SELECT * FROM approvals ORDER BY recorded_at DESC, rowid DESC LIMIT ?').all(limit) as ApprovalRow[]).map(toApproval);
  }

  // Records are only added or closed (repository.ts), so counts and highest keys change with every write.
  changeMarker(): string {
    this.markerQuery ??= this.db.prepare(
      `SELECT (SELECT count(*) FROM people) AS people, (SELECT count(*) FROM people WHERE revoked_at IS NOT NULL) AS revoked,
              (SELECT coalesce(max(seq), 0) FROM role_grants) AS grants, (SELECT count(*) FROM role_grants WHERE removed_at IS NOT NULL) AS removed,
              (SELECT coalesce(max(rowid), 0) FROM approvals) AS approvals, (SELECT coalesce(max(version), 0) FROM policies) AS policy`,
    );
    const row = this.markerQuery.get() as Record<string, number>;
    return `${row.people}.${row.revoked}.${row.grants}.${row.removed}.${row.approvals}.${row.policy}`;
  }

  async currentPolicy(): Promise<ApprovalPolicy | null> {
    const row = this.db.prepare('SELECT * FROM policies ORDER BY version DESC LIMIT 1').get() as PolicyRow | undefined;
    return row ? toPolicy(row) : null;
  }

  async listPolicies(): Promise<ApprovalPolicy[]> {
    return (this.db.prepare('SELECT * FROM policies ORDER BY version').all() as PolicyRow[]).map(toPolicy);
  }

  async addPolicy(p: ApprovalPolicy): Promise<void> {
    this.db.transaction(() => {
      const current = (this.db.prepare('SELECT MAX(version) AS v FROM policies').get() as { v: number | null }).v ?? 0;
      if (p.version !== current + 1) throw new RepositoryError('POLICY_VERSION', `the next policy version is ${current + 1}, not ${p.version} (someone changed it meanwhile)`);
      this.db.prepare('INSERT INTO policies (version, profile_id, rules_json, set_by, set_at, signature, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
        .run(p.version, p.profileId, JSON.stringify(p.rules), p.setBy, p.setAt, p.signature, this.now());
    })();
  }
}
