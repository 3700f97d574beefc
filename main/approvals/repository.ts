// Where the dual-control records of one profile live: people with their role history, approvals,
// policy versions. Plain data behind a small async interface, so the journal's SQLite adapter
// (sqlite-repository.ts) and the PostgreSQL one of the shared journal are a change of adapter, not of
// model. Records are only added or closed (a grant ended, a person revoked), never rewritten.
import type { Person, PersonRecord, Role } from '../people/roles';
import type { ApprovalRecord } from './approval';
import type { Subject } from './manifest';
import type { ApprovalPolicy } from './policy';

export interface DualControlRepository {
  listPeople(): Promise<Person[]>;
  getPerson(id: string): Promise<Person | undefined>;
  /** A new person with their first roles, granted at `at` by `by`. */
  addPerson(person: PersonRecord, roles: readonly Role[], at: number, by: string | null): Promise<void>;
  /** Ends the grants of roles not in `roles` and starts grants of the new ones, at `at`. */
  setRoles(personId: string, roles: readonly Role[], at: number, by: string | null): Promise<void>;
  /** Revokes the person and ends all their grants. */
  revokePerson(personId: string, at: number, by: string | null, reason: string): Promise<void>;

  addApproval(approval: ApprovalRecord): Promise<void>;
  approvalsFor(subject: Subject): Promise<ApprovalRecord[]>;
  /** Every approval or rejection, newest first (a queue, a person's history). */
  listApprovals(limit?: number): Promise<ApprovalRecord[]>;

  /** The newest policy version, or null when none was ever set (the built-in default applies). */
  currentPolicy(): Promise<ApprovalPolicy | null>;
  /** Every stored version, oldest first (audit verify re-checks each one's admin signature). */
  listPolicies(): Promise<ApprovalPolicy[]>;
  /** Stores the next version; refuses any version other than current + 1 (two admins racing). */
  addPolicy(policy: ApprovalPolicy): Promise<void>;

  /**
   * A cheap, synchronous marker of everything a verdict rests on (people, revocations, role grants,
   * approvals, policy versions): it differs after any write, by this desk or another process on the same
   * store. The send path compares it right before a create leaves (it cannot wait on I/O there), so an
   * adapter whose store is remote keeps it current from change notifications.
   */
  changeMarker(): string;
}

export class RepositoryError extends Error {
  constructor(
    readonly code: 'NOT_FOUND' | 'DUPLICATE' | 'POLICY_VERSION' | 'REVOKED',
    message: string,
  ) {
    super(message);
    this.name = 'RepositoryError';
  }
}

/** In-memory repository for unit tests; the same rules as the SQLite adapter. */
export class MemoryDualControlRepository implements DualControlRepository {
  private readonly people = new Map<string, PersonRecord>();
  private readonly grants: Person['grants'][number][] = [];
  private readonly approvals: ApprovalRecord[] = [];
  private readonly policies: ApprovalPolicy[] = [];
  private writes = 0;

  changeMarker(): string {
    return String(this.writes);
  }

  async listPeople(): Promise<Person[]> {
    return [...this.people.values()].map((p) => this.withGrants(p));
  }
  async getPerson(id: string): Promise<Person | undefined> {
    const p = this.people.get(id);
    return p ? this.withGrants(p) : undefined;
  }
  async addPerson(person: PersonRecord, roles: readonly Role[], at: number, by: string | null): Promise<void> {
    if (this.people.has(person.id)) throw new RepositoryError('DUPLICATE', `person ${person.id} already exists`);
    this.people.set(person.id, { ...person });
    this.writes++;
    for (const role of roles) this.grants.push({ personId: person.id, role, grantedAt: at, grantedBy: by, removedAt: null, removedBy: null });
  }
  async setRoles(personId: string, roles: readonly Role[], at: number, by: string | null): Promise<void> {
    const person = this.mustGet(personId);
    if (person.revokedAt !== null) throw new RepositoryError('REVOKED', `${person.name} was revoked`);
    const wanted = new Set(roles);
    this.writes++;
    const open = this.grants.filter((g) => g.personId === personId && g.removedAt === null);
    for (const g of open) if (!wanted.has(g.role)) Object.assign(g, { removedAt: at, removedBy: by });
    for (const role of wanted) if (!open.some((g) => g.role === role)) this.grants.push({ personId, role, grantedAt: at, grantedBy: by, removedAt: null, removedBy: null });
  }
  async revokePerson(personId: string, at: number, by: string | null, reason: string): Promise<void> {
    const person = this.mustGet(personId);
    if (person.revokedAt !== null) return;
    Object.assign(person, { revokedAt: at, revokedBy: by, revokeReason: reason });
    this.writes++;
    for (const g of this.grants) if (g.personId === personId && g.removedAt === null) Object.assign(g, { removedAt: at, removedBy: by });
  }
  async addApproval(approval: ApprovalRecord): Promise<void> {
    if (this.approvals.some((a) => a.id === approval.id)) throw new RepositoryError('DUPLICATE', `approval ${approval.id} already exists`);
    this.approvals.push(structuredClone(approval));
    this.writes++;
  }
  async approvalsFor(subject: Subject): Promise<ApprovalRecord[]> {
    return this.approvals.filter((a) => a.subject.kind === subject.kind && a.subject.id === subject.id).map((a) => structuredClone(a));
  }
  async listApprovals(limit = 100): Promise<ApprovalRecord[]> {
    return this.approvals.slice(-limit).reverse().map((a) => structuredClone(a));
  }
  async currentPolicy(): Promise<ApprovalPolicy | null> {
    const p = this.policies.at(-1);
    return p ? structuredClone(p) : null;
  }
  async listPolicies(): Promise<ApprovalPolicy[]> {
    return this.policies.map((p) => structuredClone(p));
  }
  async addPolicy(policy: ApprovalPolicy): Promise<void> {
    const expected = (this.policies.at(-1)?.version ?? 0) + 1;
    if (policy.version !== expected) throw new RepositoryError('POLICY_VERSION', `the next policy version is ${expected}, not ${policy.version} (someone changed it meanwhile)`);
    this.policies.push(structuredClone(policy));
    this.writes++;
  }

  private mustGet(id: string): PersonRecord {
    const p = this.people.get(id);
    if (!p) throw new RepositoryError('NOT_FOUND', `no person ${id} on this desk`);
    return p;
  }
  private withGrants(p: PersonRecord): Person {
    return { ...p, grants: this.grants.filter((g) => g.personId === p.id).map((g) => ({ ...g })) };
  }
}
