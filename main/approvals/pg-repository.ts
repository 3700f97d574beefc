// The team journal's (PostgreSQL) adapter of DualControlRepository: the same records and rules as the
// SQLite adapter (sqlite-repository.ts), shared by every desk of a team. Tables: main/journal/pg/migrations.ts.
//
// changeMarker() must answer synchronously (the sender asks it once its rate slot is taken, right before
// a create leaves): main/journal/pg/change-counter.ts follows the counter the database bumps on every
// dual-control write, and is read again after this desk's own writes. While its listening connection is
// down, no yes of the gate holds, so every send asks the gate again (which reads the database or refuses),
// until a new connection listens.
import type { Pool, PoolClient } from 'pg';
import { ChangeCounter } from '../journal/pg/change-counter';
import { inTransaction } from '../journal/pg/transaction';
import type { Person, PersonRecord, Role, RoleGrant } from '../people/roles';
import type { ApprovalRecord } from './approval';
import type { Subject } from './manifest';
import type { ApprovalPolicy, PolicyRules } from './policy';
import { RepositoryError, type DualControlRepository } from './repository';

type Row = Record<string, unknown>;
const num = (v: unknown): number => Number(v);
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const text = (v: unknown): string => String(v);
const textOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

const toGrant = (r: Row): RoleGrant => ({
  personId: text(r['person_id']), role: text(r['role']) as Role, grantedAt: num(r['granted_at']), grantedBy: textOrNull(r['granted_by']),
  removedAt: numOrNull(r['removed_at']), removedBy: textOrNull(r['removed_by']),
});
const toPersonRecord = (r: Row): PersonRecord => ({
  id: text(r['id']), name: text(r['name']), publicKey: text(r['public_key']), createdAt: num(r['created_at']), createdBy: textOrNull(r['created_by']),
  revokedAt: numOrNull(r['revoked_at']), revokedBy: textOrNull(r['revoked_by']), revokeReason: textOrNull(r['revoke_reason']),
});
const toApproval = (r: Row): ApprovalRecord => ({
  id: text(r['id']), profileId: text(r['profile_id']), subject: { kind: text(r['subject_kind']) as Subject['kind'], id: text(r['subject_id']) },
  manifestDigest: text(r['manifest_digest']), policyVersion: num(r['policy_version']), decision: text(r['decision']) as ApprovalRecord['decision'],
  reason: textOrNull(r['reason']), signerId: text(r['signer_id']), signedAt: num(r['signed_at']), signature: text(r['signature']),
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
    private readonly now: () => number,
  ) {}

  /** Opens the adapter on a migrated team database and starts following other desks' changes. */
  static async open(pool: Pool, now: () => number = Date.now, options: { relistenMs?: number } = {}): Promise<PgDualControlRepository> {
    const changes = await ChangeCounter.open(pool, { channel: 'dual_control', table: 'dual_control_changes', ...options });
    return new PgDualControlRepository(pool, changes, now);
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

  async listPeople(): Promise<Person[]> {
    const [people, grants] = await Promise.all([
      this.pool.query('SELECT * FROM people ORDER BY created_at, id'),
      this.pool.query('SELECT * FROM role_grants ORDER BY seq'),
    ]);
    const byPerson = new Map<string, RoleGrant[]>();
    for (const g of grants.rows.map(toGrant)) byPerson.set(g.personId, [...(byPerson.get(g.personId) ?? []), g]);
    return people.rows.map((r) => ({ ...toPersonRecord(r), grants: byPerson.get(text(r['id'])) ?? [] }));
  }

  async getPerson(id: string): Promise<Person | undefined> {
    const person = await this.pool.query('SELECT * FROM people WHERE id = $1', [id]);
    if (person.rows.length === 0) return undefined;
    const grants = await this.pool.query('SELECT * FROM role_grants WHERE person_id = $1 ORDER BY seq', [id]);
    return { ...toPersonRecord(person.rows[0] as Row), grants: grants.rows.map(toGrant) };
  }

  async addPerson(p: PersonRecord, roles: readonly Role[], at: number, by: string | null): Promise<void> {
    await this.write(async (c) => {
      const inserted = await c.query(
        `INSERT INTO people (id, name, public_key, created_at, created_by, revoked_at, revoked_by, revoke_reason) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (id) DO NOTHING`,
        [p.id, p.name, p.publicKey, p.createdAt, p.createdBy, p.revokedAt, p.revokedBy, p.revokeReason],
      );
      if (inserted.rowCount === 0) throw new RepositoryError('DUPLICATE', `person ${p.id} already exists`);
      for (const role of roles) await c.query('INSERT INTO role_grants (person_id, role, granted_at, granted_by) VALUES ($1, $2, $3, $4)', [p.id, role, at, by]);
    });
  }

  async setRoles(personId: string, roles: readonly Role[], at: number, by: string | null): Promise<void> {
    await this.write(async (c) => {
      // The person's row is locked so two admins changing roles at once apply one after the other.
      const person = (await c.query('SELECT name, revoked_at FROM people WHERE id = $1 FOR UPDATE', [personId])).rows[0] as Row | undefined;
      if (!person) throw new RepositoryError('NOT_FOUND', `no person ${personId} on this desk`);
      if (person['revoked_at'] !== null) throw new RepositoryError('REVOKED', `${text(person['name'])} was revoked`);
      const wanted = new Set(roles);
      const open = (await c.query('SELECT seq, role FROM role_grants WHERE person_id = $1 AND removed_at IS NULL', [personId])).rows as { seq: string; role: Role }[];
      for (const g of open) if (!wanted.has(g.role)) await c.query('UPDATE role_grants SET removed_at = $1, removed_by = $2 WHERE seq = $3', [at, by, g.seq]);
      for (const role of wanted) {
        if (!open.some((g) => g.role === role)) await c.query('INSERT INTO role_grants (person_id, role, granted_at, granted_by) VALUES ($1, $2, $3, $4)', [personId, role, at, by]);
      }
    });
  }

  async revokePerson(personId: string, at: number, by: string | null, reason: string): Promise<void> {
    await this.write(async (c) => {
      const person = (await c.query('SELECT revoked_at FROM people WHERE id = $1 FOR UPDATE', [personId])).rows[0] as Row | undefined;
      if (!person) throw new RepositoryError('NOT_FOUND', `no person ${personId} on this desk`);
      if (person['revoked_at'] !== null) return;
      await c.query('UPDATE people SET revoked_at = $1, revoked_by = $2, revoke_reason = $3 WHERE id = $4', [at, by, reason, personId]);
      await c.query('UPDATE role_grants SET removed_at = $1, removed_by = $2 WHERE person_id = $3 AND removed_at IS NULL', [at, by, personId]);
    });
  }

  async addApproval(a: ApprovalRecord): Promise<void> {
    await this.write(async (c) => {
      const inserted = await c.query(
        `INSERT INTO approvals (id, profile_id, subject_kind, subject_id, manifest_digest, policy_version, decision, reason, signer_id, signed_at, signature, recorded_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (id) DO NOTHING`,
        [a.id, a.profileId, a.subject.kind, a.subject.id, a.manifestDigest, a.policyVersion, a.decision, a.reason, a.signerId, a.signedAt, a.signature, this.now()],
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

  async currentPolicy(): Promise<ApprovalPolicy | null> {
    const r = await this.pool.query('SELECT * FROM policies ORDER BY version DESC LIMIT 1');
    return r.rows[0] ? toPolicy(r.rows[0] as Row) : null;
  }

  async listPolicies(): Promise<ApprovalPolicy[]> {
    return (await this.pool.query('SELECT * FROM policies ORDER BY version')).rows.map(toPolicy);
  }

  async addPolicy(p: ApprovalPolicy): Promise<void> {
    await this.write(async (c) => {
      // One policy writer at a time across desks; the loser is told the version moved.
      await c.query('LOCK TABLE policies IN SHARE ROW EXCLUSIVE MODE');
      const current = num((await c.query('SELECT COALESCE(MAX(version), 0) AS v FROM policies')).rows[0]?.['v'] ?? 0);
      if (p.version !== current + 1) throw new RepositoryError('POLICY_VERSION', `the next policy version is ${current + 1}, not ${p.version} (someone changed it meanwhile)`);
      await c.query('INSERT INTO policies (version, profile_id, rules_json, set_by, set_at, signature, recorded_at) VALUES ($1, $2, $3, $4, $5, $6, $7)', [
        p.version, p.profileId, JSON.stringify(p.rules), p.setBy, p.setAt, p.signature, this.now(),
      ]);
    });
  }
}
